"""Proxy environment variables are ignored over both schemes: showctl talks to the application
directly (a show network has no proxy, and a proxy set for the desktop's browser must not carry
cues). Every call, from Python or from a Rust caller's own runtime, goes through the transport's
one exchange (hyper's client connection over connections the transport makes itself), which
reads no proxy variable."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.certkit import https_server, make_cert
from tests.kit.netkit import MODES
from tests.kit.recording import load, sent, serve

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    """A listener on loopback named by every proxy variable; it never accepts, so any
    connection made to it waits in its backlog, where the test finds it."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.setblocking(False)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, url)
        monkeypatch.setenv(name.lower(), url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    yield listener
    listener.close()


def servers(scheme: str, tmp_path: Path) -> Iterator[tuple[HTTPServer, str | None]]:
    """A server of the scheme on loopback, and the pin of its certificate (None over http)."""
    if scheme == "https":
        cert = make_cert(tmp_path)
        for server in https_server(cert):
            yield server, cert.fingerprint
        return
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    try:
        yield server, None
    finally:
        server.stop()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scheme", ["http", "https"])
def test_proxy_variables_are_ignored(
    proxy: socket.socket, scheme: str, mode: str, tmp_path: Path
) -> None:
    for server, pin in servers(scheme, tmp_path):
        serve(server, load("scoreboard/hockey"))
        board = showctl.MediaPlayer(f"{scheme}://127.0.0.1:{server.port}", tls_fingerprint=pin)
        for _ in range(2):
            if mode == "sync":
                answer = board.request("GET", "/data/scores")
            else:
                answer = asyncio.run(board.request_async("GET", "/data/scores"))
            assert answer == load("scoreboard/hockey").body_json
        assert [r.path for r in sent(server)] == ["/api/0/data/scores"] * 2
    with pytest.raises(BlockingIOError):
        proxy.accept()
