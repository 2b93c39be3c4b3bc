"""Reading a running feed as its clients do: a plain GET, and an SSE reader of ``/events``."""

from __future__ import annotations

import http.client
import json
import queue
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit


def get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.headers["Content-Type"], r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read()


class Events:
    """An SSE reader on a thread: (event, data) pairs in a queue."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        self.conn.request("GET", "/events", headers=headers or {})
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.headers["Content-Type"] == "text/event-stream"
        self.queue: queue.Queue[tuple[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        event, data = "message", ""
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data += line[5:].strip()
                elif line == "" and data:
                    self.queue.put((event, json.loads(data)))
                    event, data = "message", ""
        except (OSError, ValueError, AttributeError):
            pass  # closed by close() (http.client drops its file on close)

    def until(self, pred: Any, timeout: float = 10.0) -> tuple[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("the event never came")
            item = self.queue.get(timeout=left)
            if pred(*item):
                return item

    def close(self) -> None:
        # Shut the socket first: the reader thread is blocked reading it.
        if self.conn.sock is not None:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()
