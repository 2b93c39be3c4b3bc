"""The big tree's cost in counts, not times: instructions and first-level data-cache misses per
`playlists()` + walk of the benchmark's 10,000-cue tree, for builds compared side by side.

    python benches/tree_instructions.py [LABEL=DIR ...]

starts nginx with the benchmark's tree (as bench.py does) and runs, for the installed showctl
and each LABEL=DIR build (DIR first on the import path, as bench.py's --variant), the tree
case of cases.py (``tree_showctl`` and ``walk``) 5 and then 25 times under
``valgrind --tool=callgrind --cache-sim=yes``; the difference of the two runs over 20 is one
call's instructions (every thread's) and simulated D1 misses. Counts do not move with the load
or the CPU state of the machine, which the timed case does (benches/README.md). Needs valgrind
(``apt-get install valgrind``); takes about a minute per build. Writes
benches/results/tree-instructions.json.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHORT, LONG = 5, 25

CHILD = """
import sys
sys.path.insert(0, {here!r})
import cases
call = cases.tree_showctl({base!r})
for _ in range({n}):
    cases.walk(call())
"""


def counts(base: str, path: str | None, n: int) -> dict[str, int]:
    env = {**os.environ}
    if path:
        env["PYTHONPATH"] = path
    code = CHILD.format(here=str(HERE), base=base, n=n)
    valgrind = ["valgrind", "--tool=callgrind", "--cache-sim=yes", "--callgrind-out-file=/dev/null"]
    run = subprocess.run(
        [*valgrind, sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode != 0:
        raise SystemExit(f"the tree case failed under valgrind:\n{run.stderr[-2000:]}")
    found = re.search(r"Collected : (\d+) \d+ \d+ \d+ (\d+) (\d+)", run.stderr)
    if not found:
        raise SystemExit(f"no counts in valgrind's output:\n{run.stderr[-2000:]}")
    ir, d1mr, d1mw = (int(g) for g in found.groups())
    return {"instructions": ir, "d1_misses": d1mr + d1mw}


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") or "=" not in a for a in argv[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    sys.path.insert(0, str(HERE))
    import bench

    builds: dict[str, str | None] = {"showctl": None}
    for arg in argv[1:]:
        name, folder = arg.split("=", 1)
        builds[name] = folder
    out: dict[str, dict[str, float]] = {}
    with bench.nginx_server() as (base, _info):
        for label, path in builds.items():
            short, long = counts(base, path, SHORT), counts(base, path, LONG)
            per = {k: (long[k] - short[k]) / (LONG - SHORT) for k in short}
            out[label] = per
            print(
                f"{label:<16} {per['instructions'] / 1e6:7.2f} M instructions"
                f" {per['d1_misses'] / 1e3:7.1f} k D1 misses per call",
                flush=True,
            )
    (HERE / "results" / "tree-instructions.json").write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
