"""Load recorded exchanges (see tests/recordings/README.md) and serve them with
pytest-httpserver."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

ROOT = Path(__file__).parents[1] / "recordings"


@dataclass
class Recording:
    name: str
    method: str
    path: str
    query: dict[str, str] | None
    json_body: Any
    check_json: bool
    status: int
    headers: dict[str, str]
    body: bytes
    description: str = ""
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def body_json(self) -> Any:
        return json.loads(self.body)


def load(name: str) -> Recording:
    """Load ``recordings/<name>.json``."""
    path = ROOT / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    req = data["request"]
    resp = data["response"]
    if "body" in resp:
        body = json.dumps(resp["body"]).encode()
        headers = {"Content-Type": "application/json", **resp.get("headers", {})}
    elif "body_text" in resp:
        body = resp["body_text"].encode()
        headers = dict(resp.get("headers", {}))
    else:
        body = b""
        headers = dict(resp.get("headers", {}))
    return Recording(
        name=name,
        method=req["method"],
        path=req["path"],
        query=req.get("query"),
        json_body=req.get("json"),
        check_json="json" in req and req["json"] is not None,
        status=resp.get("status", 200),
        headers=headers,
        body=body,
        description=data.get("description", ""),
        raw=data,
    )


def serve(server: HTTPServer, rec: Recording, *, times: int | None = None) -> None:
    """Make ``server`` answer the recorded request with the recorded response: always, or
    only the next ``times`` matching requests (these answers come before any permanent one,
    in the order served)."""
    kwargs: dict[str, Any] = {"method": rec.method}
    if rec.query is not None:
        kwargs["query_string"] = rec.query
    if rec.check_json:
        kwargs["json"] = rec.json_body
    if times is None:
        handlers = [server.expect_request(rec.path, **kwargs)]
    else:
        handlers = [server.expect_oneshot_request(rec.path, **kwargs) for _ in range(times)]
    for handler in handlers:
        handler.respond_with_response(
            Response(rec.body, status=rec.status, headers=rec.headers)
        )


def sent(server: HTTPServer) -> list[Request]:
    """The requests the server received, in order."""
    return [req for req, _resp in server.log]
