"""Ctrl-C interrupts a blocking call, and a process forked from one that used showctl can
use new clients (its runtime is rebuilt). Each case runs in a subprocess."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator

import pytest
from pytest_httpserver import HTTPServer

from tests.kit.fakeserver import late, serving
from tests.kit.netkit import needs_fork, posix_signals, sigint_default
from tests.kit.recording import load, serve

BLOCKED = textwrap.dedent(
    """
    import sys, time
    import showctl

    board = showctl.Scoreboard(sys.argv[1], timeout=60, retries=0)
    try:
        if sys.argv[2] == "scores":
            board.scores()
        else:
            for _ in board.watch(0.1):
                pass
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(0)
    print("not interrupted", flush=True)
    sys.exit(1)
    """
)


@contextlib.contextmanager
def parent_sigint(ignored: bool) -> Iterator[None]:
    """This process as started by `nohup` or as a background job (SIGINT ignored), or not."""
    if not ignored:
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("parent_ignores_sigint", [False, True])
@pytest.mark.parametrize("call", ["scores", "watch"])
@posix_signals
def test_ctrl_c_interrupts_a_blocking_call(call: str, parent_ignores_sigint: bool) -> None:
    arrived = threading.Event()
    with serving(late(30.0, arrived=arrived)) as url, parent_sigint(parent_ignores_sigint):
        child = subprocess.Popen(
            [sys.executable, "-c", BLOCKED, url, call],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=sigint_default,
        )
        try:
            assert arrived.wait(20), "the child never sent its request"
            sent_at = time.monotonic()
            child.send_signal(signal.SIGINT)
            assert child.stdout is not None
            line = child.stdout.readline().strip()
            took = time.monotonic() - sent_at
            assert child.wait(10) == 0, child.stderr.read() if child.stderr else ""
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    assert line == "interrupted"
    # Interrupted, not answered after 30 s (the latency itself is measured in benches/).
    assert took < 5.0


FORKED = textwrap.dedent(
    """
    import asyncio, os, sys
    import showctl

    url, mode = sys.argv[1], sys.argv[2]

    def use(board):
        if mode == "sync":
            return board.scores()
        return asyncio.run(board.scores_async())

    parent = showctl.Scoreboard(url, timeout=5)
    use(parent)  # the runtime and a pooled connection exist before the fork
    asyncio.run(parent.scores_async())
    pid = os.fork()
    if pid == 0:
        try:
            record = use(showctl.Scoreboard(url, timeout=5))
            os._exit(0 if isinstance(record, showctl.HockeyScore) else 3)
        except BaseException as e:
            print("child:", repr(e), file=sys.stderr, flush=True)
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert isinstance(use(parent), showctl.HockeyScore)  # the parent is unaffected
    sys.exit(os.waitstatus_to_exitcode(status))
    """
)


@pytest.mark.parametrize("mode", ["sync", "async"])
@needs_fork
def test_a_forked_child_creates_a_working_client(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    serve(httpserver, load("scoreboard/hockey"))
    done = subprocess.run(
        [sys.executable, "-c", FORKED, base_url, mode],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert len(httpserver.log) == 4  # parent twice, child once, parent again


AT_EXIT = textwrap.dedent(
    """
    import asyncio, logging, sys
    import showctl

    if sys.argv[2] == "logging":
        logging.basicConfig(level=logging.DEBUG, stream=sys.stdout)
    board = showctl.Scoreboard(sys.argv[1])

    async def main():
        await asyncio.gather(*(board.scores_async() for _ in range(5)))
        asyncio.ensure_future(board.scores_async())  # still running when the loop ends

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("logs", ["quiet", "logging"])
def test_the_interpreter_exits_cleanly_after_async_use(
    httpserver: HTTPServer, base_url: str, logs: str
) -> None:
    """A runtime thread still inside Python at exit used to crash about one exit in four."""
    serve(httpserver, load("scoreboard/hockey"))
    children = [
        subprocess.Popen(
            [sys.executable, "-c", AT_EXIT, base_url, logs],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(20)
    ]
    failures = []
    for child in children:
        _, err = child.communicate(timeout=60)
        if child.returncode != 0:
            failures.append((child.returncode, err[-500:]))
    assert failures == []


SIGNAL_TO_THE_PROGRAM = textwrap.dedent(
    """
    import os, signal, sys
    import showctl

    # showctl's threads run: a simulator, and an asyncio call answered by it.
    sim = showctl.Simulator().start()
    import asyncio
    asyncio.run(showctl.MediaPlayer(sim.url).layers_async())
    # The program's thread blocks SIGINT for a moment: a process-directed SIGINT now goes to
    # another thread that accepts it, or stays pending when none does.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    os.kill(os.getpid(), signal.SIGINT)
    pending = signal.SIGINT in signal.sigpending()
    print("pending" if pending else "taken by another thread", flush=True)
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        import time
        time.sleep(30)
        print("not interrupted", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    sim.stop()
    """
)


def test_a_signal_to_the_process_reaches_the_program_not_a_runtime_thread() -> None:
    """Ctrl-C's SIGINT goes to any thread that accepts it; taken by one of showctl's threads,
    it left the program's `time.sleep(3600)` asleep for the hour (`showctl simulate` ignored
    Ctrl-C one time in two). showctl's threads block it, so it waits for the program's."""
    done = subprocess.run(
        [sys.executable, "-c", SIGNAL_TO_THE_PROGRAM],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=sigint_default,
    )
    assert done.stdout.split() == ["pending", "interrupted"], done.stdout + done.stderr
