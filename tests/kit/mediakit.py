"""Helpers for the media tests: serve a recording, call a method or its ``_async`` twin, and
check exactly what was sent.

A media recording without ``request.json`` stands for a request that carries no body at all
(no Content-Type either); with it, the body must be exactly that JSON.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qsl, unquote

from pytest_httpserver import HTTPServer

from tests.kit.recording import Recording, load, sent, serve

MODES = ["sync", "async"]


def invoke(mode: str, obj: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """``obj.name(...)``, or ``await obj.name_async(...)`` on a fresh event loop."""
    if mode == "sync":
        return getattr(obj, name)(*args, **kwargs)

    async def run() -> Any:
        return await getattr(obj, f"{name}_async")(*args, **kwargs)

    return asyncio.run(run())


def expect(server: HTTPServer, name: str, *, times: int | None = None) -> Recording:
    """Serve ``recordings/media/<name>.json`` (the server matches the decoded path; the exact
    encoded path is checked by :func:`assert_sent`)."""
    rec = load(f"media/{name}")
    decoded = replace(rec, path=unquote(rec.path))
    if times is None:
        serve(server, decoded)
    else:
        serve(server, decoded, times=times)
    return rec


def assert_sent(server: HTTPServer, *recs: Recording) -> None:
    """The server received exactly these requests, in order: method, encoded path, query and
    body as recorded."""
    reqs = sent(server)
    assert len(reqs) == len(recs), [f"{r.method} {r.environ['RAW_URI']}" for r in reqs]
    for req, rec in zip(reqs, recs):
        raw_path, _, raw_query = req.environ["RAW_URI"].partition("?")
        assert req.method == rec.method
        assert raw_path == rec.path
        assert parse_qsl(raw_query, keep_blank_values=True) == list((rec.query or {}).items())
        if "json" in rec.raw["request"]:
            assert req.headers.get("Content-Type") == "application/json"
            assert json.loads(req.data) == rec.json_body
        else:
            assert req.data == b""
            assert "Content-Type" not in req.headers
