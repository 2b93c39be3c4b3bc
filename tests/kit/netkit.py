"""Test helpers for the scoreboard and transport tests: the sync/async twin of a call, a free
port nobody listens on, one raw HTTP request exactly as given, and the marks of tests that
need POSIX signals or fork(). (The fake servers are in fakeserver.py.)"""

from __future__ import annotations

import asyncio
import http.client
import os
import signal
import socket
import sys

import pytest
import showctl

MODES = ["sync", "async"]

posix_signals = pytest.mark.skipif(
    sys.platform == "win32",
    reason="sends SIGINT to a process: Windows has no POSIX signals (Ctrl-C is a console event)",
)
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork() on this platform")


def scores(board: showctl.Scoreboard, mode: str) -> showctl.ScoreRecord:
    """``board.scores()``, or ``await board.scores_async()`` on a fresh event loop."""
    if mode == "sync":
        return board.scores()
    return asyncio.run(board.scores_async())


def sigint_default() -> None:
    """``preexec_fn`` of a child that the test sends SIGINT: the default disposition restored,
    so the child's Python turns SIGINT into KeyboardInterrupt even when this process ignores
    SIGINT (started with ``nohup``, or as a background job of a non-interactive shell, whose
    children inherit the ignored signal)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# Sockets of free_port(), kept bound (never listening) until the process ends.
_HELD: list[socket.socket] = []


def free_port() -> int:
    """A loopback port with no listener: connections to it are refused. Its socket stays bound
    (without listening) until the tests end, so no other process can take the port between
    here and the test's connection (as it could if the port were released)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    _HELD.append(s)
    return int(s.getsockname()[1])


def send(
    sim: showctl.Simulator,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    *,
    length: bool = True,
) -> tuple[int, bytes]:
    """One request as given: `body` None with `length` False sends no Content-Length at all."""
    conn = http.client.HTTPConnection("127.0.0.1", sim.port, timeout=5)
    try:
        conn.putrequest(method, "/api/0" + path)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        if body is not None or length:
            conn.putheader("Content-Length", str(len(body or b"")))
        conn.endheaders(body)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()
