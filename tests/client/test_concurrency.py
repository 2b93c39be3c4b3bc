"""One client under concurrent use: threads and asyncio tasks at once with every request
accounted for, cancellation, use after close(), use in a forked child, Ctrl-C during a blocking
call."""

from __future__ import annotations

import _thread
import asyncio
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from tests.kit.fakeserver import FakeServer, Reply, Seen, late, respond, serve, serving, stall
from tests.kit.mediakit import MODES, invoke
from tests.kit.netkit import free_port, needs_fork, posix_signals, sigint_default
from tests.kit.wait import until, until_async

THREADS = 16
PER_THREAD = 40  # calls per thread, half reads, half commands
TASKS = 500  # asyncio tasks, each one read and one command
ROOT = Path(__file__).resolve().parents[2]


def by_layer(seen: Seen) -> Reply:
    """A read of layer n answers n, so a caller can tell its own answer; commands get an
    empty 200."""
    if seen.method == "GET":
        n = seen.path.rsplit("/", 1)[1]
        return 200, f'{{"opacity": {{"value": {n}}}}}'.encode()
    return 200, b""


def read_line(n: int) -> str:
    return f"GET /api/0/opacity/layer/{n}"


def command_line(n: int) -> str:
    return f'POST /api/0/opacity/layer/{n} {{"value":0.5}}'


def test_threads_and_tasks_share_one_client() -> None:
    """16 threads and 500 asyncio tasks use one client at the same time, with reads and
    commands mixed: the server receives each request exactly once, and each caller gets its
    own answer."""
    with FakeServer(serve(by_layer)) as server:
        player = showctl.MediaPlayer(server.url, timeout=10.0)
        wrong: list[str] = []
        start = threading.Barrier(THREADS + 1)

        def worker(t: int) -> None:
            start.wait()
            for k in range(PER_THREAD):
                n = 100_000 + t * 1000 + k
                if k % 2:
                    player.layer(n).set_opacity(0.5)
                elif (got := player.layer(n).opacity()) != n:
                    wrong.append(f"thread {t}: layer {n} read {got}")

        async def task(i: int) -> None:
            n = 200_000 + i
            layer = player.layer(n)
            got, done = await asyncio.gather(layer.opacity_async(), layer.set_opacity_async(0.5))
            if got != n or done is not None:
                wrong.append(f"task {i}: layer {n} read {got}, command returned {done!r}")

        async def tasks() -> None:
            start.wait()
            await asyncio.gather(*(task(i) for i in range(TASKS)))

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
        for th in threads:
            th.start()
        asyncio.run(tasks())
        for th in threads:
            th.join(timeout=60)
        assert not any(th.is_alive() for th in threads)
        lines = server.lines()

    expected = Counter[str]()
    for t in range(THREADS):
        for k in range(PER_THREAD):
            n = 100_000 + t * 1000 + k
            expected[command_line(n) if k % 2 else read_line(n)] += 1
    for i in range(TASKS):
        expected[read_line(200_000 + i)] += 1
        expected[command_line(200_000 + i)] += 1
    assert wrong == []
    got = Counter(lines)
    assert got - expected == Counter(), "received but never sent (or twice)"
    assert expected - got == Counter(), "sent but never received"
    assert len(lines) == THREADS * PER_THREAD + 2 * TASKS


async def test_cancelling_an_async_call_of_a_scoreboard() -> None:
    arrived = threading.Event()
    with serving(late(5.0, arrived=arrived)) as url:
        board = showctl.Scoreboard(url, timeout=10)
        task = asyncio.ensure_future(board.scores_async())
        await until_async(arrived.is_set, "the call to reach the server")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


@pytest.mark.parametrize("op", ["read", "command"])
async def test_cancelling_an_async_call_leaves_the_client_usable(op: str) -> None:
    with FakeServer(stall(), serve(by_layer)) as server:
        player = showctl.MediaPlayer(server.url, timeout=30.0, retries=0)
        layer = player.layer(7)
        call = layer.opacity_async() if op == "read" else layer.set_opacity_async(0.5)
        pending = asyncio.ensure_future(call)
        await until_async(lambda: server.requests, "the call to reach the server", 5)
        pending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pending
        # The same client, then many cancelled at once, then the same client again.
        assert await layer.opacity_async() == 7
        many = [asyncio.ensure_future(player.layer(i).opacity_async()) for i in range(50)]
        await asyncio.sleep(0)
        for f in many:
            f.cancel()
        await asyncio.gather(*many, return_exceptions=True)
        assert await layer.set_opacity_async(0.5) is None
        assert player.layer(8).opacity() == 8
        lines = server.lines()
    sent_first = read_line(7) if op == "read" else command_line(7)
    assert lines[0] == sent_first
    assert lines[1] == read_line(7)
    # A cancelled read whose bytes were already sent on a new connection can be logged after
    # the calls that followed: the server accepts and reads each connection in its own thread,
    # so its log orders requests across connections by when it got to them. The two calls
    # after the cancellations arrive in the order they were made (each waited for the other).
    rest = lines[2:]
    assert rest.count(command_line(7)) == 1
    final = rest.index(command_line(7))
    assert read_line(8) in rest[final + 1 :], "the read after the command never arrived"
    del rest[final + 1 + rest[final + 1 :].index(read_line(8))]
    del rest[final]
    # Everything else is one of the cancelled reads, each sent at most once.
    assert set(rest) <= {read_line(i) for i in range(50)}
    assert max(Counter(rest).values(), default=1) == 1


@pytest.mark.parametrize("mode", MODES)
def test_a_call_after_close_is_a_clear_error(mode: str) -> None:
    with FakeServer(respond(200, b'{"value": 1}')) as server:
        player = showctl.MediaPlayer(server.url)
        layer = player.layer(0)  # a handle made before close() shares the client
        assert invoke(mode, layer, "opacity") == 1.0
        player.close()
        assert player.closed
        for obj, name, args in [
            (player, "layers", ()),
            (player, "mute", ()),
            (layer, "opacity", ()),
            (layer, "set_opacity", (0.5,)),
            (player, "request", ("GET", "/data/layers")),
        ]:
            with pytest.raises(showctl.ClientClosedError, match="the client is closed"):
                invoke(mode, obj, name, *args)
        assert len(server.requests) == 1
        player.close()  # closing twice is harmless


async def test_async_with_closes_the_client() -> None:
    with FakeServer(respond(200, b'{"value": 1}')) as server:
        async with showctl.MediaPlayer(server.url) as player:
            assert await player.layer(0).opacity_async() == 1.0
        with pytest.raises(showctl.ClientClosedError):
            await player.layer(0).opacity_async()
        with showctl.MediaPlayer(server.url) as other:
            other.mute()
        with pytest.raises(showctl.ClientClosedError):
            other.mute()
        assert len(server.requests) == 2


def run_script(source: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(source), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


FORK = """
    import asyncio, os, sys, time
    import showctl

    player = showctl.MediaPlayer(sys.argv[1], timeout=5.0)
    layer = player.layer(1)

    async def read():
        await layer.opacity_async()

    layer.opacity()  # the parent now holds pooled connections
    asyncio.run(read())
    pid = os.fork()
    if pid == 0:
        started = time.monotonic()
        layer.opacity()
        layer.set_opacity(0.5)
        async def both():
            await layer.opacity_async()
            await layer.set_opacity_async(0.5)
        asyncio.run(both())
        print(f"child {time.monotonic() - started:.3f}", flush=True)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    layer.opacity()
    print(f"parent {os.waitstatus_to_exitcode(status)}", flush=True)
    os._exit(0)
"""


@needs_fork
def test_a_client_used_before_fork_works_in_the_child() -> None:
    """The child's calls on the parent's client get answers at once (not after the timeout:
    the parent's pooled connections are not used there), and the parent's client still works."""
    with FakeServer(serve(by_layer)) as server:
        done = run_script(FORK, server.url)
        lines = server.lines()
    assert done.returncode == 0, done.stderr
    child, parent = done.stdout.split("\n")[:2]
    assert parent == "parent 0"
    assert float(child.split()[1]) < 2.0, child
    assert sorted(lines) == sorted(
        [read_line(1)] * 5 + [command_line(1)] * 2
    ), lines


CTRL_C = """
    import sys, time
    import showctl

    player = showctl.MediaPlayer(sys.argv[1], timeout=30.0, retries=0)
    layer = player.layer(3)
    call = layer.opacity if sys.argv[2] == "read" else lambda: layer.set_opacity(0.5)
    try:
        call()
    except KeyboardInterrupt:
        print(f"interrupted {time.monotonic():.6f}", flush=True)
    print("after", layer.opacity(), flush=True)
"""


@pytest.mark.parametrize("op", ["read", "command"])
@posix_signals
def test_ctrl_c_interrupts_a_blocking_call_and_the_client_goes_on(op: str) -> None:
    with FakeServer(stall(), serve(by_layer)) as server:
        proc = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(CTRL_C), server.url, op],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            preexec_fn=sigint_default,
        )
        try:
            until(lambda: server.requests, "the call to reach the server", 20)
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=20)
        finally:
            proc.kill()
    assert proc.returncode == 0, err
    interrupted, after = out.splitlines()
    assert after == "after 3.0"
    # CLOCK_MONOTONIC is one clock for every process of the machine.
    # Interrupted, not ended by its 30 s timeout (the latency itself is measured in benches/).
    assert float(interrupted.split()[1]) - sent < 5.0, interrupted
    assert len(server.requests) == 2


MIRROR_STATUS = """
    import faulthandler, logging, sys, time
    faulthandler.dump_traceback_later(30, exit=True)  # a deadlock ends the process, code 1

    class Slow(logging.Handler):
        def emit(self, record):
            time.sleep(0.001)  # a slow handler widens the window

    logging.basicConfig(level=logging.DEBUG, handlers=[Slow()])
    import showctl

    ok, failing, dead = sys.argv[1:4]
    player = showctl.MediaPlayer(ok, timeout=0.5, mirrors=[failing, dead])
    for _ in range(300):
        player.mute()
        player.mirror_status()
    print("done", sum(m.failed for m in player.mirror_status()) > 0, flush=True)
"""


def test_mirror_status_while_mirrors_fail_and_log() -> None:
    """Reading the mirrors' status (GIL held) while their failures are being logged (which
    needs the GIL) never deadlocks."""
    with FakeServer(respond(200)) as ok, FakeServer(respond(503)) as failing:
        dead = f"http://127.0.0.1:{free_port()}"
        done = run_script(MIRROR_STATUS, ok.url, failing.url, dead)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "done True\n"


def _slow(seconds: float) -> tuple[Any, threading.Event]:
    """A handler that answers late on purpose (the call must give up first), and an event set
    once the request has reached it."""
    received = threading.Event()

    def handler(_: Request) -> Response:
        received.set()
        time.sleep(seconds)  # the slow server itself
        return Response("{}", content_type="application/json")

    return handler, received


def _finished(httpserver: HTTPServer) -> None:
    """Wait until the late answer is logged, so that it does not land in the next test's log."""
    until(lambda: len(httpserver.log) == 1, "the server to log its late answer")


def test_cancelling_an_awaitable(httpserver: HTTPServer, base_url: str) -> None:
    handler, _ = _slow(1.0)
    httpserver.expect_request("/api/0/data/scores").respond_with_handler(handler)
    board = showctl.Scoreboard(base_url, retries=0)

    async def main() -> float:
        t0 = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(board.scores_async(), 0.1)
        return time.monotonic() - t0

    assert asyncio.run(main()) < 0.9
    _finished(httpserver)


def test_ctrl_c_interrupts_a_blocking_call(httpserver: HTTPServer, base_url: str) -> None:
    handler, received = _slow(2.0)
    httpserver.expect_request("/api/0/data/scores").respond_with_handler(handler)
    board = showctl.Scoreboard(base_url, retries=0)

    def interrupt_once_the_call_is_waiting() -> None:
        received.wait(5)
        _thread.interrupt_main()

    interrupter = threading.Thread(target=interrupt_once_the_call_is_waiting)
    t0 = time.monotonic()
    interrupter.start()
    with pytest.raises(KeyboardInterrupt):
        board.scores()
    assert time.monotonic() - t0 < 1.5
    interrupter.join()
    _finished(httpserver)
