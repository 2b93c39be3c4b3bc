"""Test helpers for the scoreboard and transport tests: the sync/async twin of a call, a free
port nobody listens on, a loopback server that answers slowly, and the marks of tests that
need POSIX signals or fork()."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

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


@contextmanager
def raw_server(
    reply: bytes, delay: float = 0.0, arrived: threading.Event | None = None
) -> Iterator[str]:
    """A server on loopback that reads a request head (then sets ``arrived``), waits ``delay``
    seconds, sends the raw bytes ``reply`` and closes the connection. Yields its base URL."""

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = self.request.recv(4096)
                if not chunk:
                    return
                data += chunk
            if arrived is not None:
                arrived.set()
            time.sleep(delay)
            try:
                self.request.sendall(reply)
            except OSError:
                pass  # the client gave up first

    class Server(socketserver.ThreadingTCPServer):
        daemon_threads = True
        allow_reuse_address = True

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def http_reply(body: bytes, status: str = "200 OK") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body


def slow_server(
    delay: float, body: bytes = b"{}", arrived: threading.Event | None = None
) -> AbstractContextManager[str]:
    """A server that answers 200 with ``body`` after ``delay`` seconds."""
    return raw_server(http_reply(body), delay, arrived)


def hanging_port() -> tuple[int, threading.Event]:
    """A loopback port that accepts connections and never answers, until the event is set."""
    server = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        server.settimeout(0.05)
        while not done.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue
        for s in held:
            s.close()
        server.close()

    threading.Thread(target=serve, daemon=True).start()
    return server.getsockname()[1], done
