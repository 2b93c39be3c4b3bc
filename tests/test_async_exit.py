"""A process that used the asyncio methods exits cleanly: the bridge's tasks hand their result
to the event loop under the GIL, and one still doing so while the interpreter finalizes used to
crash the process at exit (SIGSEGV/SIGABRT, about one run in eight)."""

from __future__ import annotations

import os
import subprocess
import sys

import showctl

SCRIPT = """
import asyncio, sys, showctl

async def main(url):
    async with showctl.Scoreboard(url) as board:
        await asyncio.gather(*(board.scores_async() for _ in range(4)))

asyncio.run(main(sys.argv[1]))
"""


def test_async_use_then_exit_never_crashes() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWCTL_")}
    with showctl.Simulator() as sim:
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", SCRIPT, sim.url],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )
            for _ in range(40)
        ]
        results = [(p.wait(timeout=60), p.communicate()[1]) for p in procs]
    crashed = [err.decode(errors="replace")[-500:] for code, err in results if code != 0]
    assert crashed == []
