"""A server that answers the opacity read after a fixed delay, as a device on a LAN does.

Run by bench.py in its own process: ``python delay_server.py DELAY_MS``. It listens on a free
loopback port, prints that port on its first line of output, and then answers

- ``GET /api/0/opacity/layer/0`` with nginx's answer (``{"opacity":{"value":0.5}}``), holding
  each answer DELAY_MS after the request has been read;
- ``POST /api/0/opacity/layer/0`` with an empty 200, and ``GET /api/0/data/layer/0`` with a
  layer (what a sequence of opacity commands reads and sends), held the same way;
- ``GET /stats`` at once, with the holds it measured since the last ``/stats`` (count, median,
  p90, p99, max and their sum, in microseconds): the delay the clients actually met.

One thread per connection (HTTP/1.1 keep-alive). To hold a delay precisely it sleeps until
shortly before the answer is due (with the thread's timer slack set to 1 ns on Linux, so the
kernel does not add its default 50 µs) and then waits on the clock for the rest; a hold ends
when the answer has been handed to the socket. Limits: loopback only, at most 32 connections,
a request head of at most 16 kB and a body of at most 64 kB, 60 s of silence closes a
connection. It stops on SIGTERM or SIGINT.
"""

from __future__ import annotations

import ctypes
import json
import signal
import socket
import statistics
import sys
import threading
import time

PATH = b"/api/0/opacity/layer/0"
BODY = b'{"opacity":{"value":0.5}}'
LAYER = b"/api/0/data/layer/0"
LAYER_BODY = b'{"layer":{"name":"Main","uuid":"0","opacity":0.5,"isHidden":false,"isMuted":false}}'
#: What is answered, held DELAY_MS: (method, target) -> body.
ANSWERS = {("GET", PATH): BODY, ("POST", PATH): b"", ("GET", LAYER): LAYER_BODY}
MAX_CONNECTIONS = 32
MAX_HEAD = 16 * 1024
MAX_BODY = 64 * 1024
IDLE_TIMEOUT_S = 60.0
# How long before an answer is due the thread stops sleeping and watches the clock instead:
# a sleeping thread wakes tens of microseconds late on an idle virtual CPU, later on a busy one.
SPIN_BEFORE_S = 150e-6


def response(status: str, body: bytes, close: bool = False) -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    if close:
        head += "Connection: close\r\n"
    return head.encode() + b"\r\n" + body


class Server:
    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.holds: list[float] = []
        self.lock = threading.Lock()
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=64)

    @property
    def port(self) -> int:
        port: int = self.listener.getsockname()[1]
        return port

    def stats(self) -> bytes:
        with self.lock:
            holds, self.holds = sorted(self.holds), []
        if not holds:
            return json.dumps({"delay_us": self.delay_s * 1e6, "count": 0}).encode()
        us = [h * 1e6 for h in holds]
        return json.dumps(
            {
                "delay_us": self.delay_s * 1e6,
                "count": len(us),
                "median_us": statistics.median(us),
                "p90_us": us[int(len(us) * 0.9)],
                "p99_us": us[int(len(us) * 0.99)],
                "max_us": us[-1],
                "sum_us": sum(us),
            }
        ).encode()

    def hold(self, since: float) -> None:
        due = since + self.delay_s
        rest = due - time.perf_counter() - SPIN_BEFORE_S
        if rest > 0:
            time.sleep(rest)
        while time.perf_counter() < due:
            pass

    def serve(self, conn: socket.socket) -> None:
        """One connection: requests one after another until the client closes or is silent."""
        try:
            conn.settimeout(IDLE_TIMEOUT_S)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            buf = b""
            while True:
                end = buf.find(b"\r\n\r\n")
                while end < 0:
                    if len(buf) > MAX_HEAD:
                        conn.sendall(response("431 Request Header Fields Too Large", b"", True))
                        return
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buf += chunk
                    end = buf.find(b"\r\n\r\n")
                head, buf = buf[:end].decode("latin-1"), buf[end + 4 :]
                lines = head.split("\r\n")
                parts = lines[0].split(" ")
                if len(parts) != 3:
                    conn.sendall(response("400 Bad Request", b"", True))
                    return
                method, target = parts[0], parts[1].encode("latin-1")
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0") or "0")
                if length < 0 or length > MAX_BODY or "transfer-encoding" in headers:
                    conn.sendall(response("413 Content Too Large", b"", True))
                    return
                while len(buf) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buf += chunk
                buf = buf[length:]
                close = headers.get("connection", "").lower() == "close"
                read_at = time.perf_counter()
                answer = ANSWERS.get((method, target))
                if answer is not None:
                    self.hold(read_at)
                    conn.sendall(response("200 OK", answer, close))
                    held = time.perf_counter() - read_at
                    with self.lock:
                        self.holds.append(held)
                elif method == "GET" and target == b"/stats":
                    conn.sendall(response("200 OK", self.stats(), close))
                else:
                    conn.sendall(response("404 Not Found", b"", close))
                if close:
                    return
        except (OSError, ValueError, UnicodeDecodeError):
            return
        finally:
            conn.close()
            self.slots.release()

    def run(self) -> None:
        while True:
            conn, _ = self.listener.accept()
            if not self.slots.acquire(blocking=False):
                conn.close()  # too many connections
                continue
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()


def precise_timers() -> None:
    """Ask Linux for 1 ns of timer slack (the default adds up to 50 µs to every sleep);
    threads started afterwards inherit it."""
    if sys.platform.startswith("linux"):
        pr_set_timerslack = 29
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_timerslack, 1, 0, 0, 0)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: delay_server.py DELAY_MS", file=sys.stderr)
        return 2
    try:
        delay_ms = float(argv[1])
    except ValueError:
        delay_ms = -1.0
    if not 0 <= delay_ms <= 10_000:
        print(f"delay_server.py: DELAY_MS must be 0 to 10000, not {argv[1]!r}", file=sys.stderr)
        return 2
    precise_timers()
    server = Server(delay_ms / 1000)

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(server.port, flush=True)
    try:
        server.run()
    finally:
        server.listener.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
