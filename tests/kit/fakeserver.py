"""The fake servers of the Python tests, one kit on loopback beside the simulator.

- **Scripted answers** to recorded requests: pytest-httpserver's ``httpserver`` fixture, fed by
  ``recording.serve`` (recordings/) and checked with ``recording.sent`` / ``mediakit``.
- **Faults and raw bytes**: :class:`FakeServer`, a raw-socket server whose connection ``i`` is
  served by the next *script* (the last one serves every connection after that). A script is a
  function of a :class:`Conn`; the factories below make the usual ones: answer (``respond``,
  ``serve``, ``forward`` to a real server dropping commands), answer late (``late``), hang
  (``stall``), drip the body (``drip``), send less than ``Content-Length`` (``truncated``),
  reset mid-body (``reset_mid_body``), close at once (``close_at_once``), bytes that are not
  HTTP (``raw``, ``garbage``), a huge body (``huge``).
- **An application that behaves**: ``showctl.Simulator`` (the ``sim`` / ``player`` fixtures of
  ``showctl.testing``), with its own faults (``fail_next``, ``apply_delay``).

A :class:`FakeServer` binds 127.0.0.1 only, serves each connection on a daemon thread, logs every
request it reads (method, the raw request target as sent, headers, body) and, when the ``with``
block ends, closes every socket and joins every thread (bounded: a stalled script wakes up at
once).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

#: Longest time any script may keep a connection open (a bound, never reached by a passing test).
LIMIT = 30.0


@dataclass
class Seen:
    """One request as the server read it."""

    method: str
    target: str  # the request target exactly as sent: encoded path and query
    headers: dict[str, str]  # lower-case names
    body: bytes

    @property
    def path(self) -> str:
        return self.target.partition("?")[0]

    def __str__(self) -> str:
        body = self.body.decode("utf-8", "replace")
        return f"{self.method} {self.target} {body}".rstrip()


Script = Callable[["Conn"], None]


@dataclass
class Conn:
    """The server side of one connection."""

    sock: socket.socket
    server: FakeServer
    buffer: bytes = field(default=b"")

    def read_request(self) -> Seen | None:
        """Read one request (head and ``Content-Length`` body) and log it; ``None`` when the
        client closed the connection or the server is stopping."""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self._recv()
            if not chunk:
                return None
            self.buffer += chunk
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(rest) < length:
            chunk = self._recv()
            if not chunk:
                return None
            rest += chunk
        self.buffer = rest[length:]
        seen = Seen(method, target, headers, rest[:length])
        self.server.record(seen)
        return seen

    def _recv(self) -> bytes:
        deadline = time.monotonic() + LIMIT
        while not self.server.stopping.is_set() and time.monotonic() < deadline:
            try:
                return self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return b""
        return b""

    def send(self, data: bytes) -> bool:
        """Send bytes; False once the client has gone."""
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            return False

    def reset(self) -> None:
        """Close with a TCP reset (SO_LINGER 0) instead of an orderly FIN."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()

    def wait(self, seconds: float = LIMIT) -> None:
        """Sleep, waking up early when the server stops."""
        self.server.stopping.wait(min(seconds, LIMIT))


def head(
    status: int = 200,
    length: int | None = None,
    content_type: str | None = "application/json",
    headers: dict[str, str] | None = None,
) -> bytes:
    """A response head; ``length=None`` leaves ``Content-Length`` out."""
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"]
    if content_type is not None:
        lines.append(f"Content-Type: {content_type}")
    if length is not None:
        lines.append(f"Content-Length: {length}")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


REASONS = {
    200: "OK",
    302: "Found",
    307: "Temporary Redirect",
    404: "Not Found",
    400: "Bad Request",
    500: "Internal Server Error",
    503: "Service Unavailable",
}

Reply = tuple[int, bytes]


def body_of(value: Any) -> bytes:
    return value if isinstance(value, bytes) else json.dumps(value).encode()


def respond(
    status: int = 200,
    body: Any = b"",
    *,
    content_type: str | None = "application/json",
    headers: dict[str, str] | None = None,
) -> Script:
    """Answer every request on the connection (keep-alive) with the same response."""
    data = body_of(body)
    reply = head(status, len(data), content_type, headers) + data

    def script(conn: Conn) -> None:
        while conn.read_request() is not None:
            if not conn.send(reply):
                return

    return script


def serve(answer: Callable[[Seen], Reply]) -> Script:
    """Answer each request with ``answer(request) -> (status, body)`` (keep-alive)."""

    def script(conn: Conn) -> None:
        while (seen := conn.read_request()) is not None:
            status, data = answer(seen)
            if not conn.send(head(status, len(data)) + data):
                return

    return script


def late(
    delay: float,
    body: Any = b"{}",
    *,
    status: int = 200,
    arrived: threading.Event | None = None,
) -> Script:
    """Read the request (then set ``arrived``), wait ``delay`` seconds (less if the server
    stops), answer ``status`` with ``body`` and close the connection."""
    data = body_of(body)

    def script(conn: Conn) -> None:
        if conn.read_request() is None:
            return
        if arrived is not None:
            arrived.set()
        conn.wait(delay)
        conn.send(head(status, len(data), headers={"Connection": "close"}) + data)

    return script


def raw(data: bytes) -> Script:
    """Read the request, send ``data`` as it is (a malformed head, a short body...) and close."""

    def script(conn: Conn) -> None:
        if conn.read_request() is not None:
            conn.send(data)

    return script


def garbage() -> Script:
    """Read the request and answer bytes that are not HTTP at all."""
    return raw(b"\x00\xffthis is not HTTP\r\n\r\n")


def forward(upstream: str, *, commands: bool = True) -> Callable[[Seen], Reply]:
    """For :func:`serve`: pass each request on to ``upstream`` (a real server, such as a
    simulator) and answer what it answers; with ``commands=False``, a POST is answered 200 and
    dropped instead (an application that accepts a command and never applies it)."""

    def answer(seen: Seen) -> Reply:
        if seen.method == "POST" and not commands:
            return 200, b""
        request = urllib.request.Request(
            upstream + seen.target,
            data=seen.body if seen.method == "POST" else None,
            method=seen.method,
            headers={k: v for k, v in seen.headers.items() if k == "content-type"},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    return answer


def close_at_once() -> Script:
    """Accept, then close without reading or answering."""

    def script(conn: Conn) -> None:
        conn.sock.close()

    return script


def reset_mid_body(body: bytes = b'{"value": 0.5, "padding": "' + b"x" * 4096) -> Script:
    """Read the request, send the head and half of the body, then reset the connection."""

    def script(conn: Conn) -> None:
        if conn.read_request() is None:
            return
        conn.send(head(200, len(body) * 2) + body)
        time.sleep(0.05)  # let the client read what was sent before the reset
        conn.reset()

    return script


def stall() -> Script:
    """Read the request and never answer (until the server stops)."""

    def script(conn: Conn) -> None:
        if conn.read_request() is not None:
            conn.wait()

    return script


def drip(body: bytes = b'{"value": 0.5}' + b" " * 64, every: float = 0.1) -> Script:
    """Send the head at once, then the body one byte every ``every`` seconds."""

    def script(conn: Conn) -> None:
        if conn.read_request() is None or not conn.send(head(200, len(body))):
            return
        for i in range(len(body)):
            conn.wait(every)
            if conn.server.stopping.is_set() or not conn.send(body[i : i + 1]):
                return

    return script


def truncated(body: bytes = b'{"value": 0.', claimed: int = 100) -> Script:
    """Announce ``claimed`` bytes, send fewer, then close."""

    def script(conn: Conn) -> None:
        if conn.read_request() is not None:
            conn.send(head(200, claimed) + body)
            conn.sock.close()

    return script


def huge(size: int, *, announce: bool) -> Script:
    """A 200 whose JSON body is ``size`` bytes, with ``Content-Length`` (``announce``) or
    delimited by closing the connection."""

    def script(conn: Conn) -> None:
        if conn.read_request() is None:
            return
        if not conn.send(head(200, size if announce else None, headers={"Connection": "close"})):
            return
        conn.send(b'{"value": "')
        sent, block = 11, b"x" * 65536
        while sent < size - 2 and not conn.server.stopping.is_set():
            part = block[: size - 2 - sent]
            if not conn.send(part):
                return
            sent += len(part)
        conn.send(b'"}')
        conn.sock.close()

    return script


class FakeServer:
    """A loopback server whose connection ``i`` is served by ``scripts[i]`` (the last script
    serves the rest). Use it in a ``with`` block; ``url`` is its ``http://127.0.0.1:port``."""

    def __init__(self, *scripts: Script, backlog: int = 1024) -> None:
        if not scripts:
            scripts = (respond(),)
        self._scripts = list(scripts)
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._socks: list[socket.socket] = []
        self.requests: list[Seen] = []
        self.connections = 0
        self.stopping = threading.Event()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(backlog)
        self._listener.settimeout(0.1)
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._acceptor = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> FakeServer:
        self._acceptor.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def record(self, seen: Seen) -> None:
        with self._lock:
            self.requests.append(seen)

    def lines(self) -> list[str]:
        """The requests received so far as ``METHOD target body`` lines."""
        with self._lock:
            return [str(s) for s in self.requests]

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            sock.settimeout(0.1)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                script = self._scripts[min(self.connections, len(self._scripts) - 1)]
                self.connections += 1
                self._socks.append(sock)
                thread = threading.Thread(target=self._run, args=(script, sock), daemon=True)
                self._threads.append(thread)
            thread.start()

    def _run(self, script: Script, sock: socket.socket) -> None:
        try:
            script(Conn(sock, self))
        except OSError:
            pass  # the client went away: that is what many scripts provoke
        finally:
            sock.close()

    def stop(self) -> None:
        self.stopping.set()
        self._listener.close()
        if self._acceptor.is_alive():
            self._acceptor.join(timeout=5)
        with self._lock:
            socks, threads = list(self._socks), list(self._threads)
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in threads:
            t.join(timeout=5)
        alive = [t for t in threads if t.is_alive()]
        assert not alive, f"{len(alive)} connection threads of the fault server did not end"



@contextmanager
def serving(*scripts: Script) -> Iterator[str]:
    """A :class:`FakeServer` with these scripts, as its base URL for the ``with`` block."""
    with FakeServer(*scripts) as server:
        yield server.url
