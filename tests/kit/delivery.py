"""The servers and command runs of the delivery tests (tests/client/test_delivery.py), shared
with benches/delivery.py: scripts of a server that closes a kept connection at each moment
the re-send rule is about, a small embedded server with a few worker slots, and a run of
distinct ``set_opacity`` commands."""

from __future__ import annotations

import asyncio
import json
import select
import socket
import threading

import showctl

from tests.kit.fakeserver import Conn, FakeServer, Script, head

OK = head(200, 0)


def wait_readable(conn: Conn) -> bool:
    """Wait until the client sends more on the connection (or closes it); False when the
    server stops first."""
    while not conn.server.stopping.is_set():
        ready, _, _ = select.select([conn.sock], [], [], 0.1)
        if ready:
            return True
    return False


def answer_then_close() -> Script:
    """Answer one request, framed by its length and without ``Connection: close``, then close
    the connection (a per-connection request cap of one)."""

    def script(conn: Conn) -> None:
        if conn.read_request() is not None:
            conn.send(OK)

    return script


def close_before_reading_the_next() -> Script:
    """Answer the first request; when the next one arrives on the connection, close it without
    reading that request (an idle limit reached just as the request came)."""

    def script(conn: Conn) -> None:
        if conn.read_request() is None or not conn.send(OK):
            return
        if wait_readable(conn):
            conn.reset()

    return script


def read_the_next_and_close() -> Script:
    """Answer the first request; read the next one on the connection, then close without
    answering it (the residual risk of the re-send rule)."""

    def script(conn: Conn) -> None:
        if conn.read_request() is None or not conn.send(OK):
            return
        conn.read_request()

    return script


def read_and_close() -> Script:
    """Read the request, then close without answering."""

    def script(conn: Conn) -> None:
        conn.read_request()

    return script


def opacities(server: FakeServer) -> list[float]:
    return [json.loads(s.body)["value"] for s in server.requests]


def run_commands(url: str, mode: str, count: int) -> list[showctl.ShowctlError]:
    """``count`` back-to-back ``set_opacity`` commands, each a distinct value; the errors."""
    layer = showctl.MediaPlayer(url, timeout=5).layer(1)
    values = [i / 1000 for i in range(count)]
    errors: list[showctl.ShowctlError] = []
    if mode == "sync":
        for v in values:
            try:
                layer.set_opacity(v)
            except showctl.ShowctlError as e:
                errors.append(e)
        return errors

    async def main() -> None:
        for v in values:
            try:
                await layer.set_opacity_async(v)
            except showctl.ShowctlError as e:
                errors.append(e)

    asyncio.run(main())
    return errors


class SmallServer:
    """A small embedded server: 8 worker slots serve keep-alive connections, each request
    taking ``work`` seconds; connections beyond the slots wait for one. Counts the connections
    it holds open at once (closed ones are noticed before each new one is counted)."""

    def __init__(self, slots: int = 8, work: float = 0.002) -> None:
        self.slots = threading.Semaphore(slots)
        self.work = work
        self.lock = threading.Lock()
        self.open: set[socket.socket] = set()
        self.most = 0
        self.requests = 0
        self.server = FakeServer(self.serve)
        self.url = self.server.url

    def closed(self, sock: socket.socket) -> bool:
        """Whether the client closed ``sock`` (without waiting: the end of the stream is
        readable at once)."""
        try:
            ready, _, _ = select.select([sock], [], [], 0)
            return bool(ready) and sock.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def serve(self, conn: Conn) -> None:
        with self.lock:
            self.open = {s for s in self.open if not self.closed(s)}
            self.open.add(conn.sock)
            self.most = max(self.most, len(self.open))
        try:
            with self.slots:  # a worker serves the connection until it closes
                while conn.read_request() is not None:
                    conn.wait(self.work)
                    with self.lock:
                        self.requests += 1
                    if not conn.send(OK):
                        return
        finally:
            with self.lock:
                self.open.discard(conn.sock)
