"""JSON to and from Python: the binding's own converter against pythonize 0.29 behind the same
iterative depth checks, on the benchmarks' workloads, in one process.

Needs a build with the measuring hook `_core._convert_bench` (see docs/architecture.md, "JSON
and Python"). Each round times A and B back to back (the order swapped every round); figures
are medians over the rounds of the time per conversion.

    python benches/convert.py --rounds 31 --out benches/results/convert/NAME.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import showctl
from showctl import _core

sys.path.insert(0, str(Path(__file__).parent))
from bench import make_tree  # noqa: E402


def workloads() -> dict[str, tuple[Any, int]]:
    """Each workload and how many conversions one timing takes."""
    with showctl.Simulator() as sim:
        player = showctl.MediaPlayer(sim.url)
        layers = [layer.to_dict() for layer in player.layers()]
        score = showctl.Scoreboard(sim.url).scores().to_dict()
        player.close()
    return {
        "tree (10,000 cues)": (make_tree()["playlist"], 3),
        f"layers ({len(layers)})": (layers, 200),
        "score record": (score, 2000),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    bench = getattr(_core, "_convert_bench", None)
    if bench is None:
        sys.exit("this build has no _core._convert_bench (see the module's docstring)")
    report: dict[str, Any] = {
        "rounds": args.rounds,
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average_start": os.getloadavg()[0],
        },
        "time_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "workloads": {},
    }
    print(f"{'workload':<20} {'direction':<12} {'hand':>12} {'pythonize':>12} {'pz / hand':>10}")
    for name, (obj, inner) in workloads().items():
        size = len(json.dumps(obj))
        hand_in, pz_in, hand_out, pz_out = bench(obj, args.rounds, inner)
        figures: dict[str, Any] = {"json_bytes": size, "conversions_per_timing": inner}
        for direction, hand, pz in [("py -> json", hand_in, pz_in), ("json -> py", hand_out, pz_out)]:
            h, p = statistics.median(hand), statistics.median(pz)
            # The ratio of each round (A and B back to back), then its median and spread.
            per_round = sorted(b / a for a, b in zip(hand, pz))
            figures[direction] = {
                "hand_us": h / 1000,
                "pythonize_us": p / 1000,
                "ratio_of_medians": p / h,
                "ratio_per_round": {
                    "median": statistics.median(per_round),
                    "min": per_round[0],
                    "max": per_round[-1],
                },
                "hand_ns_rounds": hand,
                "pythonize_ns_rounds": pz,
            }
            print(f"{name:<20} {direction:<12} {h / 1000:>10.1f}µs {p / 1000:>10.1f}µs {p / h:>10.2f}")
        report["workloads"][name] = figures
    report["machine"]["load_average_end"] = os.getloadavg()[0]
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
