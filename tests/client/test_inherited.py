"""What a process running showctl passes on to what it starts or forks: a process a logging
handler starts has the default signal mask (not the runtime threads' one), and a forked child
that closed its inherited descriptors keeps the files it opened after (stopping the parent's
listener there closes nothing of the child's). Each case runs in a subprocess."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.kit.netkit import needs_fork, posix_signals, sigint_default

if sys.platform != "linux":
    pytest.skip("reads /proc/PID/status (Linux)", allow_module_level=True)

HANDLER_STARTS_A_PROCESS = textwrap.dedent(
    """
    import logging, subprocess, threading, urllib.request
    import showctl

    def sigblk():
        child = subprocess.Popen(["sleep", "60"])
        try:
            with open(f"/proc/{child.pid}/status") as f:
                return next(l.split()[1] for l in f if l.startswith("SigBlk:"))
        finally:
            child.kill()
            child.wait()

    seen = []
    done = threading.Event()

    class Starts(logging.Handler):
        def emit(self, record):
            if "not JSON" in record.getMessage():
                seen.append((threading.current_thread() is threading.main_thread(), sigblk()))
                done.set()

    logging.getLogger("showctl").addHandler(Starts(level=logging.WARNING))
    with showctl.Simulator() as sim:
        # A body that is not JSON: the simulator logs a warning from its own thread.
        req = urllib.request.Request(sim.url + "/api/0/mute/layer/0", b"[x", method="POST")
        urllib.request.urlopen(req, timeout=10).close()
        assert done.wait(20), "no warning logged"
    print(sigblk(), *seen[0])
    """
)


@posix_signals
def test_a_process_started_by_a_logging_handler_gets_the_default_signal_mask() -> None:
    """A handler runs on the runtime thread that logged the record; that thread blocks
    SIGINT, SIGTERM and others (so the program's thread gets them), and a process started
    there inherited that mask: it ignored SIGTERM and Ctrl-C."""
    done = subprocess.run(
        [sys.executable, "-c", HANDLER_STARTS_A_PROCESS],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=sigint_default,
    )
    assert done.returncode == 0, done.stderr
    from_main, on_main_thread, from_handler = done.stdout.split()
    assert on_main_thread == "False"  # the record came from a runtime thread
    assert from_handler == from_main == "0000000000000000", done.stdout


FORKED_CHILD_STOPS = textwrap.dedent(
    """
    import os, sys, urllib.request
    import showctl

    path = sys.argv[1]
    with showctl.Simulator() as sim, showctl.Feed(sim.url) as feed:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                # A daemonizing child: close what it inherited, then open its own file on
                # every descriptor number the listeners had (and more).
                os.closerange(3, 512)
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
                for n in range(3, 512):
                    if n != fd:
                        os.dup2(fd, n)
                sim.stop()
                feed.stop()
                closed = []
                for n in range(3, 512):
                    try:
                        os.fstat(n)
                    except OSError:
                        closed.append(n)
                os.write(1, f"closed {closed}\\n".encode())
                code = 0 if not closed else 3
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        # The parent still serves.
        urllib.request.urlopen(sim.url + "/api/0/data/scores", timeout=10).close()
        urllib.request.urlopen(feed.url + "transport.json", timeout=10).close()
        print("child", os.waitstatus_to_exitcode(status), flush=True)
    """
)


@needs_fork
def test_a_forked_childs_stop_closes_no_descriptor_it_reopened(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", FORKED_CHILD_STOPS, str(tmp_path / "own.log")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "closed []" in done.stdout and "child 0" in done.stdout, done.stdout
