"""Soak: drive the simulator for a while with the load of a show, and fail on growth.

    python benches/soak.py                 # 10 minutes, a sample each minute
    python benches/soak.py --minutes 2 --sample 10

The simulator runs in a child process (so its own memory is not counted); this process runs
what feedback and automation tools do, all on one MediaPlayer and one Scoreboard:

- watch loops: ``Scoreboard.watch`` on a thread and ``watch_async`` on an asyncio loop, while
  the simulator's score changes twice a second, and ``watch_transport_async``;
- pollers: ``layers()`` and ``layer(0).opacity()`` every 0.25 s, and
  ``transport_state_async()`` every 0.25 s;
- commands: triggers, mute/unmute, opacity and selection from a thread, and bursts of 20
  concurrent ``set_opacity_async`` every second, each also sent to a mirror (a second
  simulator);
- client churn: a new client every 2 s, used once and closed;
- faults every 10 s: a 503, a dropped connection, answers delayed by 0.1 s for 2 s.

Each sample records RSS, open file descriptors and threads of this process, and the calls
made. The soak fails when RSS grows by more than ``--max-rss-growth`` MiB between the first
sample (the warm-up) and the end; when file descriptors or threads end more than 4 above the
most the first half of the run reached (pools fill up lazily, a leak keeps growing); when a
steady loop makes no call during a sample; when the mirror missed a command (it keeps up: every
command must reach it); or when a call raises anything but a showctl error (a PanicException,
a TypeError...). A summary is printed as a table and as one
JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from multiprocessing.connection import Connection
from typing import Any

import showctl

KEY = "soak-key"
#: The loops that make calls all the time (transport events come only when a layer changes).
STEADY = ("watch", "watch_async", "feedback", "commands", "churn", "transport_async", "burst_async")


def simulator(conn: Connection) -> None:
    """The child process: a simulator driven by commands received on ``conn``, and a second
    one as the mirror (a backup machine)."""
    sim = showctl.Simulator(port=0, api_key=KEY).start()
    backup = showctl.Simulator(port=0, api_key=KEY).start()
    conn.send((sim.url, backup.url))
    while True:
        message = conn.recv()
        if message is None:
            break
        name, *args = message
        getattr(sim, name)(*args)
    sim.stop()
    backup.stop()


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def threads() -> int:
    return len(os.listdir("/proc/self/task"))


@dataclass
class Sample:
    seconds: float
    rss_mib: float
    fds: int
    threads: int
    calls: int
    errors: int


class Soak:
    def __init__(self, url: str, mirror: str) -> None:
        self.url = url
        self.player = showctl.MediaPlayer(url, KEY, timeout=2.0, mirrors=[mirror])
        self.board = showctl.Scoreboard(url, KEY, timeout=2.0)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.fatal: list[str] = []

    def count(self, loop: str, error: BaseException | None = None) -> None:
        with self.lock:
            self.calls[loop] += 1
            if error is not None:
                self.errors[f"{loop}: {type(error).__name__}"] += 1

    def guard(self, loop: str, step: Callable[[], Any]) -> None:
        """Run ``step`` once: showctl errors are counted (faults are injected), anything else
        is fatal."""
        try:
            step()
            self.count(loop)
        except showctl.ShowctlError as e:
            self.count(loop, e)
        except BaseException as e:  # a PanicException is a BaseException
            with self.lock:
                self.fatal.append(f"{loop}: {type(e).__name__}: {e}")
            self.stop.set()

    def every(self, loop: str, seconds: float, step: Callable[[], Any]) -> None:
        while not self.stop.wait(seconds):
            self.guard(loop, step)

    # -- the loops ---------------------------------------------------------------------------

    def watch(self) -> None:
        while not self.stop.is_set():
            try:
                for _ in self.board.watch(interval=0.25):
                    self.count("watch")
                    if self.stop.is_set():
                        return
            except showctl.ShowctlError as e:  # a fault lasted through the retries
                self.count("watch", e)
            except BaseException as e:
                with self.lock:
                    self.fatal.append(f"watch: {type(e).__name__}: {e}")
                self.stop.set()

    def feedback(self) -> None:
        layer = self.player.layer(0)

        def step() -> None:
            self.player.layers()
            layer.opacity()

        self.every("feedback", 0.25, step)

    def commands(self) -> None:
        n = iter(range(10**9))

        def step() -> None:
            i = next(n)
            layer = self.player.layer(i % 3)
            [
                lambda: self.player.trigger_playlist_cue(0, i % 2),
                lambda: layer.set_opacity((i % 11) / 10),
                lambda: self.player.mute() if i % 2 else self.player.unmute(),
                lambda: layer.select(target=bool(i % 2)),
            ][i % 4]()

        self.every("commands", 0.2, step)

    def churn(self) -> None:
        def step() -> None:
            with showctl.MediaPlayer(self.url, KEY, timeout=2.0) as p:
                p.layer(1).opacity()

        self.every("churn", 2.0, step)

    async def asyncio_loops(self) -> None:
        async def watch() -> None:
            while not self.stop.is_set():
                try:
                    async for _ in self.board.watch_async(interval=0.25):
                        self.count("watch_async")
                        if self.stop.is_set():
                            return
                except showctl.ShowctlError as e:
                    self.count("watch_async", e)

        async def transport_events() -> None:
            while not self.stop.is_set():
                try:
                    async for _ in self.player.watch_transport_async(interval=0.25):
                        self.count("transport_events")
                        if self.stop.is_set():
                            return
                except showctl.ShowctlError as e:
                    self.count("transport_events", e)

        async def poll() -> None:
            while not self.stop.is_set():
                await self.guarded("transport_async", self.player.transport_state_async())
                await asyncio.sleep(0.25)

        async def bursts() -> None:
            while not self.stop.is_set():
                await asyncio.gather(
                    *(
                        self.guarded(
                            "burst_async", self.player.layer(i % 3).set_opacity_async(i / 20)
                        )
                        for i in range(20)
                    )
                )
                await asyncio.sleep(1.0)

        loops = (watch(), transport_events(), poll(), bursts())
        tasks = [asyncio.ensure_future(c) for c in loops]
        while not self.stop.is_set():
            await asyncio.sleep(0.1)
        await asyncio.wait(tasks, timeout=10)
        for t in tasks:
            t.cancel()
            if t.done() and not t.cancelled() and t.exception() is not None:
                exc = t.exception()
                self.fatal.append(f"asyncio: {type(exc).__name__}: {exc}")

    async def guarded(self, loop: str, call: Any) -> None:
        try:
            await call
            self.count(loop)
        except showctl.ShowctlError as e:
            self.count(loop, e)
        except BaseException as e:
            with self.lock:
                self.fatal.append(f"{loop}: {type(e).__name__}: {e}")
            self.stop.set()

    def start(self) -> list[threading.Thread]:
        loops: list[Callable[[], Any]] = [
            self.watch,
            self.feedback,
            self.commands,
            self.churn,
            lambda: asyncio.run(self.asyncio_loops()),
        ]
        started = [threading.Thread(target=f, daemon=True) for f in loops]
        for t in started:
            t.start()
        return started


def drive(sim: Connection, stop: threading.Event) -> None:
    """The show's side: the score changes twice a second, a fault every 10 s."""
    tick = 0
    while not stop.wait(0.5):
        tick += 1
        sim.send(("set_score", "team1Score", str(tick)))
        if tick % 20 == 5:
            sim.send(("fail_next", 503, 1))
        elif tick % 20 == 10:
            sim.send(("drop_next", 1))
        elif tick % 20 == 15:
            sim.send(("delay", 0.1))
        elif tick % 20 == 19:
            sim.send(("delay", 0.0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="duration (default 10)")
    parser.add_argument("--sample", type=float, default=60.0, help="seconds between samples")
    parser.add_argument(
        "--max-rss-growth", type=float, default=16.0, help="MiB allowed after the warm-up"
    )
    args = parser.parse_args(argv)

    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    child = context.Process(target=simulator, args=(theirs,), daemon=True)
    child.start()
    if not ours.poll(60):
        print("SOAK FAILED: the simulator did not start within 60 s", file=sys.stderr)
        child.kill()
        return 1
    url, mirror = ours.recv()
    soak = Soak(url, mirror)
    drive_stop = threading.Event()
    driver = threading.Thread(target=drive, args=(ours, drive_stop), daemon=True)
    driver.start()

    samples: list[Sample] = []
    started = time.monotonic()
    loops = soak.start()
    end = started + args.minutes * 60
    stalled: list[str] = []
    last: Counter[str] = Counter()
    print(f"soak: {args.minutes:g} min against the simulator at {url}", flush=True)
    print(f"{'s':>6} {'RSS MiB':>8} {'fds':>4} {'threads':>7} {'calls':>8} {'errors':>6}")
    while not soak.stop.is_set() and time.monotonic() < end:
        soak.stop.wait(min(args.sample, max(0.0, end - time.monotonic())))
        with soak.lock:
            calls, errors = Counter(soak.calls), sum(soak.errors.values())
        s = Sample(
            round(time.monotonic() - started, 1),
            round(rss_kib() / 1024, 1),
            fds(),
            threads(),
            sum(calls.values()),
            errors,
        )
        samples.append(s)
        print(
            f"{s.seconds:6.0f} {s.rss_mib:8.1f} {s.fds:4d} {s.threads:7d}"
            f" {s.calls:8d} {s.errors:6d}",
            flush=True,
        )
        stalled = [loop for loop in STEADY if calls[loop] == last[loop]]
        if stalled:
            break
        last = calls

    # The score keeps changing until the watch loops have seen the stop.
    soak.stop.set()
    for t in loops:
        t.join(timeout=15)
    drive_stop.set()
    driver.join(timeout=15)
    # Every command also went to the mirror, which keeps up: none may be lost or fail.
    soak.player.close()
    (backup,) = soak.player.mirror_status()
    ours.send(None)
    child.join(timeout=15)

    failures = list(soak.fatal)
    if backup.failed or backup.unanswered or backup.dropped or backup.pending or not backup.sent:
        failures.append(
            f"the mirror missed commands: {backup.sent} sent, {backup.failed} failed, "
            f"{backup.unanswered} unanswered, {backup.dropped} dropped, {backup.pending} pending"
        )
    if stalled:
        failures.append(f"no progress in: {', '.join(sorted(stalled))}")
    alive = [t for t in loops if t.is_alive()]
    if alive:
        failures.append(f"{len(alive)} loops did not stop")
    if len(samples) >= 2:
        first, final = samples[0], samples[-1]
        growth = final.rss_mib - first.rss_mib
        if growth > args.max_rss_growth:
            failures.append(f"RSS grew by {growth:.1f} MiB after the warm-up")
        # Pools (connections, blocking threads) fill up lazily as the load finds its peaks:
        # what counts is growth beyond what the first half of the run reached.
        half = samples[: len(samples) // 2]
        fds_then, threads_then = max(s.fds for s in half), max(s.threads for s in half)
        if final.fds > fds_then + 4:
            failures.append(f"file descriptors grew from {fds_then} to {final.fds}")
        if final.threads > threads_then + 4:
            failures.append(f"threads grew from {threads_then} to {final.threads}")
    else:
        failures.append("too short: at least two samples are needed")

    duration = time.monotonic() - started
    summary = {
        "minutes": round(duration / 60, 2),
        "calls": dict(soak.calls),
        "errors": dict(soak.errors),
        "samples": [asdict(s) for s in samples],
        "rss_growth_mib": round(samples[-1].rss_mib - samples[0].rss_mib, 1) if samples else None,
        "mirror": {
            "sent": backup.sent,
            "failed": backup.failed,
            "unanswered": backup.unanswered,
            "dropped": backup.dropped,
        },
        "failures": failures,
    }
    total = sum(soak.calls.values())
    print(f"calls: {total} in {duration:.0f} s ({total / duration:.0f}/s)")
    print(f"mirror: {backup.sent} commands sent, {backup.failed} failed, {backup.dropped} dropped")
    for loop, n in sorted(soak.calls.items()):
        print(f"  {loop:16} {n:8d}")
    for what, n in sorted(soak.errors.items()):
        print(f"  error {what}: {n}")
    print(json.dumps(summary))
    if failures:
        print("SOAK FAILED: " + "; ".join(failures), file=sys.stderr)
        return 1
    print("soak passed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(2)
