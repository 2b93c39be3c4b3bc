"""OSC from clients the project did not write: python-osc (UDP, and TCP with OSC 1.1's SLIP
framing) and liblo's ``oscsend``; the bridge's replies read back as JSON."""

from __future__ import annotations

import json
import os
import shutil
import socket
from typing import Any

import pytest

# The bridge's tests read replies and speak TCP with SLIP framing: python-osc 1.9, which needs
# Python 3.10 (on 3.9 the test extra installs 1.8, without either).
pytest.importorskip(
    "pythonosc.tcp_client", reason="python-osc's TCP client (1.9) needs Python 3.10 or later"
)

from pythonosc.osc_message import OscMessage
from pythonosc.tcp_client import SimpleTCPClient
from pythonosc.udp_client import SimpleUDPClient

#: Seconds a reply or a record may take (a command's reply is on loopback, against the
#: simulator: milliseconds; the bound only keeps a broken bridge from hanging the test).
WAIT = 5.0


def udp(port: int) -> SimpleUDPClient:
    return SimpleUDPClient("127.0.0.1", port)


def tcp(port: int) -> SimpleTCPClient:
    return SimpleTCPClient("127.0.0.1", port, mode="1.1")


def reply(raw: bytes) -> tuple[str, dict[str, Any]]:
    """A reply packet: its address and its one JSON string argument, decoded."""
    m = OscMessage(raw)
    assert len(m.params) == 1 and isinstance(m.params[0], str), m.params
    body = json.loads(m.params[0])
    assert isinstance(body, dict)
    return m.address, body


def udp_reply(client: SimpleUDPClient) -> tuple[str, dict[str, Any]]:
    return reply(client.receive(timeout=WAIT))


def tcp_replies(client: SimpleTCPClient, count: int) -> list[tuple[str, dict[str, Any]]]:
    """The next ``count`` replies on a TCP connection (several may come in one read)."""
    out: list[tuple[str, dict[str, Any]]] = []
    while len(out) < count:
        out += [reply(p) for p in client.receive(timeout=WAIT) if p]
    return out


def send_raw(port: int, data: bytes) -> socket.socket:
    """One datagram of any bytes, from a socket of its own (returned, to read a reply)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(WAIT)
    s.sendto(data, ("127.0.0.1", port))
    return s


def oscsend() -> str:
    """liblo's ``oscsend``; skip with a reason where it is missing, unless the run requires it
    (``SHOWCTL_REQUIRE_OSCSEND=1``, as .ci/run sets after installing it)."""
    found = shutil.which("oscsend")
    if found is None:
        if os.environ.get("SHOWCTL_REQUIRE_OSCSEND") == "1":
            pytest.fail("oscsend is required here (SHOWCTL_REQUIRE_OSCSEND=1) but not installed")
        pytest.skip("oscsend is not installed (apt-get install liblo-tools; CI installs it)")
    return found


def records(bridge: Any, count: int) -> list[dict[str, Any]]:
    """The next ``count`` records of the bridge, each within ``WAIT``."""
    out = []
    for _ in range(count):
        r = bridge.next_message(timeout=WAIT)
        assert r is not None, f"record {len(out) + 1} of {count} did not come; got {out}"
        out.append(r)
    return out
