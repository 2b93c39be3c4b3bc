"""Test hosts on this machine: each a network namespace joined to the test process by a veth
pair, with its own address (10.200.x.y, only ever inside the namespaces made here), and a
simulator listening in it (in this process, or in a process of its own that can be frozen with
SIGSTOP). Its link can be cut (the interface down, or a blackhole route for the replies: packets
vanish, no reset) and restored. And a fault-injecting TCP proxy (this kernel has no netem):
every chunk delayed, some connections stalled (accepted, never forwarded), or every answer after
the first few held (a link that goes silent).

Needs root (CAP_NET_ADMIN) and iproute2; `hosts()` skips, with the reason, where namespaces
are refused."""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
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
    children: list[ProcessSimulator] = field(default_factory=list)

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

    def process_simulator(self, plain: bool = False) -> ProcessSimulator:
        """A simulator listening on this host in a process of its own (it can be frozen);
        `plain`: an application that runs every request it reads (see PLAIN)."""
        sim = ProcessSimulator(self, plain)
        self.children.append(sim)
        return sim

    def link_down(self) -> None:
        """The host's interface goes down: nothing reaches it, nothing comes back."""
        ip("-n", self.name, "link", "set", self.inner_if, "down")

    def link_up(self) -> None:
        """The interface is up again."""
        ip("-n", self.name, "link", "set", self.inner_if, "up")

    def unplug(self) -> None:
        """The cable is pulled at the host's end, as on a switch: this side's link stays up,
        and what it sends vanishes (the host no longer has its address: nothing answers, not
        even ARP), so its retransmissions back off as on a real network."""
        ip("-n", self.name, "addr", "del", f"{self.address}/30", "dev", self.inner_if)

    def plug(self) -> None:
        """The cable is back."""
        ip("-n", self.name, "addr", "add", f"{self.address}/30", "dev", self.inner_if)

    def unread(self) -> list[str]:
        """The host's TCP sockets holding bytes its application has not read yet (`Recv-Q`
        above 0): requests a frozen application will run when it thaws."""
        connections = [x for x in self._sockets(inside=True) if not x.startswith("LISTEN")]
        return [line for line in connections if int(line.split()[1]) > 0]

    def _sockets(self, inside: bool, timers: bool = False) -> list[str]:
        where = ["ip", "netns", "exec", self.name] if inside else []
        query = ["ss", "-Htano" if timers else "-Htan"]
        query += [] if inside else ["dst", self.address]
        out = subprocess.run(
            [*where, *query], capture_output=True, text=True, timeout=30, check=True
        ).stdout
        return out.splitlines()

    def retransmitting(self) -> int:
        """The most times a socket of this namespace toward the host has sent the same data
        again without an answer (0: none is retransmitting), from its retransmission timer."""
        counts = [0]
        for line in self._sockets(inside=False, timers=True):
            timer = re.search(r"timer:\(on,[^,]*,(\d+)\)", line)
            if timer and int(line.split()[2]) > 0:
                counts.append(int(timer.group(1)))
        return max(counts)

    def unsent(self) -> list[str]:
        """This namespace's TCP sockets toward the host that still hold something to send (a
        `Send-Q` above 0, or a connection not yet made): what the kernel may still deliver."""
        return [
            line
            for line in self._sockets(inside=False)
            if line.split()[0] == "SYN-SENT" or int(line.split()[2]) > 0
        ]

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
            for child in host.children:
                child.stop()
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


# A simulator in a process of its own: prints its URL, then answers "requests" on stdin with
# the requests it received (method, path, body) as one JSON line; ends when stdin closes.
CHILD = """
import json, sys
import showctl
sim = showctl.Simulator(host=sys.argv[1]).start()
print(sim.url, flush=True)
for line in sys.stdin:
    seen = [[r.method, r.path, r.body.decode("latin-1")] for r in sim.requests]
    print(json.dumps(seen), flush=True)
sim.stop()
"""


# An application that runs every request it reads, as the field application does, even one
# whose client has closed the connection meanwhile (the simulator drops those): each request is
# logged once read whole, and answered 200 with "0.5". The same stdin protocol as CHILD.
PLAIN = """
import json, socket, sys, threading
seen, lock = [], threading.Lock()
def serve(conn):
    try:
        answer(conn)
    except OSError:
        pass  # the client reset the connection
def answer(conn):
    buf = b""
    with conn:
        while True:
            while b"\\r\\n\\r\\n" not in buf:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
            head, _, buf = buf.partition(b"\\r\\n\\r\\n")
            lines = head.decode("latin-1").split("\\r\\n")
            method, target, _ = lines[0].split(" ", 2)
            length = 0
            for line in lines[1:]:
                name, _, v = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(v)
            while len(buf) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
            body, buf = buf[:length], buf[length:]
            with lock:
                seen.append([method, target.partition("?")[0], body.decode("latin-1")])
            try:
                conn.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 3\\r\\n\\r\\n0.5")
            except OSError:
                return
def accept(listener):
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()
listener = socket.create_server((sys.argv[1], 0))
threading.Thread(target=accept, args=(listener,), daemon=True).start()
print(f"http://{sys.argv[1]}:{listener.getsockname()[1]}", flush=True)
for line in sys.stdin:
    with lock:
        print(json.dumps(seen), flush=True)
"""


class ProcessSimulator:
    """A simulator in its own process inside a host's namespace (`plain`: the application of
    PLAIN instead): ``freeze()`` (SIGSTOP) and ``thaw()`` (SIGCONT) it as an application that
    hangs; ``requests()`` is what it received (its own log, read once it runs)."""

    def __init__(self, host: Host, plain: bool = False) -> None:
        script = PLAIN if plain else CHILD
        argv = ["ip", "netns", "exec", host.name, sys.executable, "-c", script, host.address]
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=os.environ
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://"):
            self.stop()
            raise RuntimeError(f"the simulator process did not start (exit {self.proc.poll()})")

    def freeze(self) -> None:
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def requests(self) -> list[tuple[str, str, str]]:
        """(method, path, body) of each request received, oldest first."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("requests\n")
        self.proc.stdin.flush()
        return [tuple(r) for r in json.loads(self.proc.stdout.readline())]

    def posts(self) -> list[str]:
        """The bodies of the POSTs received, in order."""
        return [body for method, _, body in self.requests() if method == "POST"]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.thaw()
            assert self.proc.stdin is not None
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


class FaultProxy:
    """A TCP proxy on loopback in front of `upstream` (host, port): each chunk is forwarded
    `delay` seconds late, and only once `hold` (if given) is set; with `stall_every=N`,
    connections 1, N+1, 2N+1, ... are accepted and never forwarded (their count is
    `stalled`); with `answers=N`, the link goes silent after the first N chunks of answer: later
    chunks are held and later connections stalled."""

    def __init__(
        self,
        upstream: tuple[str, int],
        delay: float = 0.0,
        stall_every: int = 0,
        hold: threading.Event | None = None,
        answers: int | None = None,
    ):
        self.upstream, self.delay, self.stall_every = upstream, delay, stall_every
        self.hold = hold
        self.answers = answers  # chunks of answer still let through (None: all)
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
                silent = self.answers == 0
                if silent or (self.stall_every and self.connections % self.stall_every == 1):
                    self.stalled += 1
                    continue  # held open, never read from or answered
            server = socket.create_connection(self.upstream, timeout=10)
            server.settimeout(None)
            with self.lock:
                self.open.append(server)
            for a, b, answer in ((client, server, False), (server, client, True)):
                threading.Thread(target=self._pump, args=(a, b, answer), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, answer: bool) -> None:
        with contextlib.suppress(OSError):
            while chunk := src.recv(65536):
                if self.hold is not None:
                    self.hold.wait(60)
                if answer and self.answers is not None:
                    with self.lock:
                        silent = self.answers == 0
                        self.answers = max(0, self.answers - 1)
                    if silent:
                        return  # held: never forwarded
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

