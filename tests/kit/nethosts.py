"""Test hosts on this machine: each a network namespace joined to the test process by a veth
pair, with its own address (10.200.x.y, only ever inside the namespaces made here), and a
simulator listening in it. Its link can be cut (the interface down, or a blackhole route for
the replies: packets vanish, no reset). And a fault-injecting TCP proxy (this kernel has no
netem): every chunk delayed, or some connections stalled (accepted, never forwarded).

Needs root (CAP_NET_ADMIN) and iproute2; `hosts()` skips, with the reason, where namespaces
are refused."""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import showctl

CLONE_NEWNET = 0x40000000
_made = itertools.count()  # hosts made by this process: each has names of its own


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


def refused_reason() -> str | None:
    """Why namespaces cannot be made here, or None."""
    if shutil.which("ip") is None:
        return "iproute2 (the ip command) is not installed"
    probe = f"showctl-probe-{os.getpid()}"
    try:
        ip("netns", "add", probe)
    except subprocess.CalledProcessError as e:
        return f"network namespaces are refused here: {e.stderr.strip()}"
    ip("netns", "del", probe)
    return None


@dataclass
class Host:
    name: str  # the namespace
    root_if: str  # its link, as seen from the test process
    inner_if: str
    address: str  # the host's address
    peer: str  # the test process's address on the link
    sims: list[showctl.Simulator] = field(default_factory=list)

    def simulator(self) -> showctl.Simulator:
        """A simulator listening on this host (its socket is made inside the namespace)."""
        made: list[showctl.Simulator | BaseException] = []

        def inside() -> None:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = os.open(f"/var/run/netns/{self.name}", os.O_RDONLY)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns failed")
                made.append(showctl.Simulator(host=self.address).start())
            except BaseException as e:
                made.append(e)
            finally:
                os.close(fd)

        thread = threading.Thread(target=inside)  # setns changes this thread only
        thread.start()
        thread.join()
        result = made[0]
        if isinstance(result, BaseException):
            raise result
        self.sims.append(result)
        return result

    def link_down(self) -> None:
        """The host's interface goes down: nothing reaches it, nothing comes back."""
        ip("-n", self.name, "link", "set", self.inner_if, "down")

    def blackhole_replies(self) -> None:
        """The host receives, but every packet it sends back vanishes (no reset, no error)."""
        ip("-n", self.name, "route", "add", "blackhole", f"{self.peer}/32")


@contextlib.contextmanager
def hosts(count: int) -> Iterator[list[Host]]:
    """`count` hosts, removed (with their simulators) afterwards."""
    reason = refused_reason()
    if reason is not None:
        pytest.skip(reason)
    # Threads inherit the namespace of the thread that starts them: the extension's runtime
    # threads must be started here, outside, before a simulator is made inside a namespace.
    showctl.Simulator().start().stop()
    pid = os.getpid()
    made: list[Host] = []
    try:
        for _ in range(count):
            made.append(_make_host(pid, next(_made)))
        yield made
    finally:
        for host in made:
            for sim in host.sims:
                sim.stop()
            subprocess.run(["ip", "netns", "del", host.name], capture_output=True, timeout=30)


def _make_host(pid: int, i: int) -> Host:
    name = f"showctl-{pid}-{i}"
    root_if, inner_if = f"sc{pid % 100000}h{i % 1000}", "eth0"
    ip("netns", "add", name)
    try:
        ip("link", "add", root_if, "type", "veth", "peer", "name", f"{root_if}x")
        ip("link", "set", f"{root_if}x", "netns", name)
        ip("-n", name, "link", "set", f"{root_if}x", "name", inner_if)
        # A /30 of 10.200.0.0/16 per host, chosen from the process id; the next one if taken.
        for attempt in range(64):
            block = (pid * 4 + i + attempt * 7) % 16384
            net = f"10.200.{block // 64}.{(block % 64) * 4}"
            base = net.rsplit(".", 1)[0]
            last = int(net.rsplit(".", 1)[1])
            peer, address = f"{base}.{last + 1}", f"{base}.{last + 2}"
            if _in_use(f"{net}/30"):
                continue
            ip("addr", "add", f"{peer}/30", "dev", root_if)
            break
        else:
            raise RuntimeError("no free 10.200.x.y/30 for a test host")
        ip("link", "set", root_if, "up")
        ip("-n", name, "addr", "add", f"{address}/30", "dev", inner_if)
        ip("-n", name, "link", "set", inner_if, "up")
        ip("-n", name, "link", "set", "lo", "up")
    except BaseException:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=30)
        subprocess.run(["ip", "link", "del", root_if], capture_output=True, timeout=30)
        raise
    return Host(name, root_if, inner_if, address, peer)


def _in_use(prefix: str) -> bool:
    out = subprocess.run(
        ["ip", "route", "show", "match", prefix], capture_output=True, text=True, timeout=30
    ).stdout
    return prefix in out


class FaultProxy:
    """A TCP proxy on loopback in front of `upstream` (host, port): each chunk is forwarded
    `delay` seconds late, and only once `hold` (if given) is set; with `stall_every=N`,
    connections 1, N+1, 2N+1, ... are accepted and never forwarded (their count is
    `stalled`)."""

    def __init__(
        self,
        upstream: tuple[str, int],
        delay: float = 0.0,
        stall_every: int = 0,
        hold: threading.Event | None = None,
    ):
        self.upstream, self.delay, self.stall_every = upstream, delay, stall_every
        self.hold = hold
        self.connections = 0
        self.stalled = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            with self.lock:
                self.connections += 1
                self.open.append(client)
                if self.stall_every and self.connections % self.stall_every == 1:
                    self.stalled += 1
                    continue  # held open, never read from or answered
            server = socket.create_connection(self.upstream, timeout=10)
            server.settimeout(None)
            with self.lock:
                self.open.append(server)
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := src.recv(65536):
                if self.hold is not None:
                    self.hold.wait(60)
                if self.delay:
                    time.sleep(self.delay)  # the fault itself: this chunk is late
                dst.sendall(chunk)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self.listener.close()
        with self.lock:
            for s in self.open:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

