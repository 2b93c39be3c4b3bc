"""showctl benchmark: showctl, the pure-Python clients a user would pick instead, and the floor.

Starts one nginx on loopback (benches/nginx.conf) serving fixed JSON, a generated playlist
tree and empty command answers; measures every client against it, each case in its own
interpreter (cases.py) so that its peak RSS is its own; repeats the whole set in interleaved
rounds so that a burst of load on a shared machine hits every client alike; prints a table,
writes results/latest.json and, with --readme, the table into README.md beside this file.

Goals are ratios from the same run; absolute times drift with the machine.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases.py"
RESULTS = HERE / "results" / "latest.json"
README = HERE / "README.md"
TABLE_START = "<!-- bench-table:start -->"
TABLE_END = "<!-- bench-table:end -->"

TREE_GROUPS = 10
TREE_PLAYLISTS_PER_GROUP = 10
TREE_CUES_PER_PLAYLIST = 100  # 10 x 10 x 100 = 10,000 cues
VIDEO_INPUTS = 4

SYNC_CLIENTS = ["showctl", "httpx", "requests", "http.client", "pyreqwest", "rnet"]
FANOUT_CLIENTS = ["showctl", "aiohttp", "httpx", "showctl batch_async"]
TREE_CLIENTS = ["showctl", "httpx+dataclasses", "requests+dataclasses", "httpx+json (dicts only)"]
IMPORTS = ["showctl", "httpx", "requests", "aiohttp"]
# The Rust-core clients showctl is measured against for latency and CPU per call.
RUST_CLIENTS = ("pyreqwest", "rnet")
CPU_CLIENTS = ["showctl", *RUST_CLIENTS]
# The servers of the CPU benchmark: nginx on loopback, and delay_server.py answering after
# each of these delays (milliseconds), as a device on a LAN does.
CPU_DELAYS_MS = [0.5, 2.0]
CPU_MODES = ["back-to-back", "paced"]
BENCHES = ["sync", "fanout", "tree", "import", "cpu", "sequence"]
#: The device delay of the sequence benchmark, and the most a step may cost beyond the
#: device's answers (µs).
SEQUENCE_DELAY_MS = 2.0
SEQUENCE_GOAL_US = 1000.0


def cpu_bench(mode: str, server: str) -> str:
    """The name of one CPU benchmark: mode ("back-to-back" or "paced") and server."""
    return f"cpu {mode} {server}"


def delay_label(delay_ms: float) -> str:
    return f"{delay_ms:g} ms"


CPU_SERVERS = ["loopback", *map(delay_label, CPU_DELAYS_MS)]
CPU_BENCHES = [cpu_bench(m, s) for s in CPU_SERVERS for m in CPU_MODES]

# (label, numerator, denominator, goal, "max" or "min"); a ratio of medians from this run.
# A tuple of clients stands for the best (lowest) of them.
Side = tuple[str, str | tuple[str, ...]]  # (benchmark, client or clients)
GOALS: list[tuple[str, Side, Side, float | None, str]] = [
    ("sync latency: showctl / floor", ("sync", "showctl"), ("sync", "floor"), 2.0, "max"),
    ("sync latency: httpx / showctl", ("sync", "httpx"), ("sync", "showctl"), 3.0, "min"),
    (
        "sync latency: best of pyreqwest, rnet / showctl",
        ("sync", RUST_CLIENTS),
        ("sync", "showctl"),
        1.5,
        "min",
    ),
    ("fan-out: aiohttp / showctl", ("fanout", "aiohttp"), ("fanout", "showctl"), 1.5, "min"),
    ("fan-out: httpx / showctl", ("fanout", "httpx"), ("fanout", "showctl"), None, "min"),
    (
        "big tree: httpx+json+dataclasses / showctl",
        ("tree", "httpx+dataclasses"),
        ("tree", "showctl"),
        2.0,
        "min",
    ),
    *(
        (
            f"CPU per call, {mode}, {server}: showctl / best of pyreqwest, rnet",
            (cpu_bench(mode, server), "showctl"),
            (cpu_bench(mode, server), RUST_CLIENTS),
            target,
            "max",
        )
        for mode, server, target in [
            ("paced", "loopback", 1.0),
            ("back-to-back", "loopback", 1.0),
            ("paced", "0.5 ms", 0.75),
            ("paced", "2 ms", 0.75),
            ("back-to-back", "0.5 ms", None),
            ("back-to-back", "2 ms", None),
        ]
    ),
]
IMPORT_GOAL_MS = 50.0

# The figure a benchmark is judged by, per result.
KEY = {"sync": "median_us", "fanout": "wall_ms", "tree": "median_ms", "import": "median_ms"}
KEY.update({b: "cpu_us" for b in CPU_BENCHES})
KEY["sequence"] = "sequence_beyond_answers_us_per_step"


# ---------------------------------------------------------------------------------------------
# server


def make_tree() -> dict[str, Any]:
    """A deterministic playlist tree: 10 groups x 10 playlists x 100 cues, plus video input."""
    counter = iter(range(1, 1 << 30))

    def uid() -> str:
        return str(uuid.UUID(int=next(counter), version=4))

    groups = []
    for g in range(TREE_GROUPS):
        playlists = []
        for p in range(TREE_PLAYLISTS_PER_GROUP):
            items = [
                {"name": f"Show {g + 1}.{p + 1} cue {c + 1:03d}", "uuid": uid()}
                for c in range(TREE_CUES_PER_PLAYLIST)
            ]
            playlists.append(
                {"uuid": uid(), "name": f"Show {g + 1}.{p + 1}", "items": items, "children": []}
            )
        groups.append({"uuid": uid(), "name": f"Group {g + 1}", "items": [], "children": playlists})
    video = {
        "uuid": uid(),
        "name": "Video Input",
        "items": [{"name": f"Input {i + 1}", "uuid": uid()} for i in range(VIDEO_INPUTS)],
        "children": [],
    }
    root = {"uuid": uid(), "name": "Root", "items": [], "children": [*groups, video]}
    return {"playlist": root}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_listening(port: int, proc: subprocess.Popen[bytes], work: Path) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log = (work / "error.log").read_text() if (work / "error.log").exists() else ""
            raise SystemExit(f"nginx exited ({proc.returncode}): {log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("nginx did not start listening within 10 s")


def stop(proc: subprocess.Popen[Any]) -> None:
    """End a server this benchmark started: SIGTERM, then SIGKILL after 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def nginx_server() -> Iterator[tuple[str, dict[str, Any]]]:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        raise SystemExit("nginx not found (benches/run.sh installs it)")
    work = Path(tempfile.mkdtemp(prefix="showctl-bench-"))
    work.chmod(0o755)  # nginx workers may run as another user
    try:
        for sub in ["body", "proxy", "fastcgi", "uwsgi", "scgi"]:
            (work / "tmp" / sub).mkdir(parents=True)
        tree = json.dumps(make_tree(), separators=(",", ":")).encode()
        (work / "playlists.json").write_bytes(tree)
        port = free_port()
        conf = (HERE / "nginx.conf").read_text()
        conf = conf.replace("@WORK@", str(work)).replace("@PORT@", str(port))
        (work / "nginx.conf").write_text(conf)
        proc = subprocess.Popen([nginx, "-c", str(work / "nginx.conf"), "-p", str(work)])
        try:
            wait_listening(port, proc, work)
            version = subprocess.run(
                [nginx, "-v"], capture_output=True, text=True, check=False
            ).stderr.strip()
            info = {
                "software": version.replace("nginx version: ", ""),
                "worker_processes": 1,
                "tree_bytes": len(tree),
                "tree_cues": TREE_GROUPS * TREE_PLAYLISTS_PER_GROUP * TREE_CUES_PER_PLAYLIST,
                "tree_playlists": 1 + TREE_GROUPS * (1 + TREE_PLAYLISTS_PER_GROUP) + 1,
            }
            yield f"http://127.0.0.1:{port}", info
        finally:
            stop(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@contextmanager
def delay_server(delay_ms: float) -> Iterator[tuple[str, Callable[[], dict[str, Any]]]]:
    """delay_server.py in its own process; yields its URL and a function returning the holds
    it measured since the last call."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "delay_server.py"), f"{delay_ms:g}"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if not line.isdigit():
            raise SystemExit(f"delay_server.py did not start (exit {proc.poll()}): {line!r}")
        base = f"http://127.0.0.1:{line}"

        def stats() -> dict[str, Any]:
            with urllib.request.urlopen(base + "/stats", timeout=10) as r:
                figures: dict[str, Any] = json.loads(r.read())
                return figures

        yield base, stats
    finally:
        stop(proc)


# ---------------------------------------------------------------------------------------------
# measurements


def to_us(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", text.strip())
    if not m:
        raise ValueError(f"cannot read a wrk duration: {text!r}")
    return float(m.group(1)) * {"us": 1.0, "ms": 1e3, "s": 1e6}[m.group(2)]


def wrk(args: list[str]) -> str:
    out = subprocess.run(["wrk", *args], capture_output=True, text=True, timeout=60, check=True)
    return out.stdout


def floor_sync(base: str, seconds: int) -> dict[str, Any]:
    """One connection, one thread, no decoding: the latency of the loopback and the server."""
    out = wrk(["-c1", "-t1", f"-d{seconds}s", "--latency", base + "/api/0/opacity/layer/0"])
    median = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p90 = re.search(r"^\s+90%\s+(\S+)", out, re.M)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if not (median and p90 and rps):
        raise RuntimeError(f"cannot read wrk output:\n{out}")
    return {
        "median_us": to_us(median.group(1)),
        "p90_us": to_us(p90.group(1)),
        "mean_us": 1e6 / float(rps.group(1)),
    }


def floor_fanout(base: str, seconds: int, commands: int, in_flight: int) -> dict[str, Any]:
    """The server's own pace for empty POSTs with as many connections as commands in flight."""
    script = str(HERE / "wrk-post.lua")
    url = base + "/api/0/mute/layer/0"
    out = wrk([f"-c{in_flight}", "-t1", f"-d{seconds}s", "-s", script, url])
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if not rps:
        raise RuntimeError(f"cannot read wrk output:\n{out}")
    return {"wall_ms": commands / float(rps.group(1)) * 1000, "requests_per_s": float(rps.group(1))}


def run_case(bench: str, client: str, base: str, path: str | None = None) -> dict[str, Any]:
    """Run one case in a fresh interpreter; `path` first on its import path (a variant build)."""
    env = dict(os.environ, PYTHONPATH=path) if path else None
    proc = subprocess.run(
        [sys.executable, str(CASES), bench, client, base],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{bench}/{client} failed ({proc.returncode}):\n{proc.stderr}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


def import_time(module: str) -> dict[str, Any]:
    """Wall time of `import module` in a fresh interpreter, and that interpreter's peak RSS."""
    code = (
        "import time\n"
        "t = time.perf_counter()\n"
        f"import {module}\n"
        "t = time.perf_counter() - t\n"
        "hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM:')]\n"
        "print(t, int(hwm[0].split()[1]) / 1024 if hwm else 0)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    seconds, rss = out.stdout.split()
    return {"median_ms": float(seconds) * 1000, "peak_rss_mib": float(rss)}


def combine(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Median of each figure over the rounds (keeps the per-round judged figure too)."""
    out: dict[str, Any] = {}
    for k in samples[0]:
        values = [s[k] for s in samples]
        if all(isinstance(v, (int, float)) for v in values):
            out[k] = statistics.median(values)
        else:
            out[k] = values[0]
    return out


def measure(
    base: str,
    rounds: int,
    import_runs: int,
    wrk_seconds: int,
    variants: dict[str, str],
    only: list[str],
    delayed: dict[str, str],
    sequence_url: str | None = None,
) -> dict[str, Any]:
    """Every benchmark of `only`, in interleaved rounds; `delayed` maps a delay's label to the
    URL of the delay server answering after it; `sequence_url` is the sequence benchmark's own
    delay server (its holds are counted by the case itself)."""
    per_round: dict[str, dict[str, list[dict[str, Any]]]] = {}

    def add(bench: str, client: str, figures: dict[str, Any]) -> None:
        per_round.setdefault(bench, {}).setdefault(client, []).append(figures)
        key = KEY[bench]
        print(f"  {bench:26} {client:26} {figures[key]:10.2f} {key}", flush=True)

    def cases(
        bench: str,
        clients: list[str],
        url: str = base,
        case: str | None = None,
        with_variants: bool = True,
    ) -> None:
        for c in clients:
            add(bench, c, run_case(case or bench, c, url))
            if c == "showctl" and with_variants:  # each variant right after the build
                for label, path in variants.items():
                    add(bench, f"showctl {label}", run_case(case or bench, c, url, path))

    if "import" in only:
        for module in IMPORTS:  # warm the bytecode caches
            import_time(module)
    for r in range(rounds):
        print(f"round {r + 1} of {rounds}", flush=True)
        if "sync" in only:
            add("sync", "floor", floor_sync(base, wrk_seconds))
            cases("sync", SYNC_CLIENTS)
        if "fanout" in only:
            add("fanout", "floor", floor_fanout(base, wrk_seconds, 2000, 64))
            cases("fanout", FANOUT_CLIENTS)
        if "tree" in only:
            cases("tree", TREE_CLIENTS)
        if "import" in only:
            for module in IMPORTS:
                runs = [import_time(module) for _ in range(import_runs)]
                add("import", module, combine(runs))
        if "cpu" in only:
            for server, url in [("loopback", base), *delayed.items()]:
                for mode in CPU_MODES:
                    cases(cpu_bench(mode, server), CPU_CLIENTS, url, f"cpu-{mode}")
        if "sequence" in only and sequence_url is not None:
            # The installed build only: a variant built before sequences has none to run.
            cases("sequence", ["showctl"], sequence_url, with_variants=False)
    return {b: {c: combine(s) for c, s in clients.items()} for b, clients in per_round.items()}


# ---------------------------------------------------------------------------------------------
# report


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def version(dist: str) -> str | None:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return None

    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True, check=False)
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "kernel": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "loadavg_at_start": os.getloadavg()[0],
        "versions": {
            "showctl": version("showctl"),
            "httpx": version("httpx"),
            "requests": version("requests"),
            "aiohttp": version("aiohttp"),
            "pyreqwest": version("pyreqwest"),
            "rnet": version("rnet"),
            "wrk": (wrk_version.stdout or wrk_version.stderr).split(" [")[0].strip(),
        },
    }


def ratios(results: dict[str, Any], variants: list[str]) -> list[dict[str, Any]]:
    goals = []
    for build in ["showctl"] + [f"showctl {v}" for v in variants]:  # each build's own goals
        for label, (nb, nc), (db, dc), target, kind in GOALS:
            num = figure(results, nb, build if nc == "showctl" else nc)
            den = figure(results, db, build if dc == "showctl" else dc)
            value = num / den if num and den else None
            met = None
            if value is not None and target is not None:
                met = value <= target if kind == "max" else value >= target
            goal = label.replace("showctl", build)
            goals.append({"goal": goal, "ratio": value, "target": target, "kind": kind, "met": met})
    seq = results.get("sequence", {}).get("showctl", {}).get(KEY["sequence"])
    goals.append(
        {
            "goal": "sequence: µs per step beyond the device's answers (2 ms device)",
            "ratio": seq,
            "target": SEQUENCE_GOAL_US,
            "kind": "max",
            "met": None if seq is None else seq <= SEQUENCE_GOAL_US,
        }
    )
    imp = results.get("import", {}).get("showctl", {}).get("median_ms")
    goals.append(
        {
            "goal": "import showctl (ms)",
            "ratio": imp,
            "target": IMPORT_GOAL_MS,
            "kind": "max",
            "met": None if imp is None else imp < IMPORT_GOAL_MS,
        }
    )
    return goals


def figure(results: dict[str, Any], bench: str, clients: str | tuple[str, ...]) -> float | None:
    """The judged figure of a client in a benchmark, or the best (lowest) of several clients;
    None when one of them was not measured in this run."""
    names = (clients,) if isinstance(clients, str) else clients
    values = [results.get(bench, {}).get(c, {}).get(KEY[bench]) for c in names]
    if any(v is None for v in values):
        return None
    return float(min(values))


UNITS = {"sync": "µs", "fanout": "ms", "tree": "ms", "import": "ms"}
UNITS.update({b: "µs" for b in CPU_BENCHES})
UNITS["sequence"] = "µs"
TITLES = {
    "sync": "sync latency: `layer(0).opacity()` on one keep-alive connection, median per call",
    "fanout": "async fan-out: 2,000 × `POST /mute/layer/{i}`, 64 in flight, wall time",
    "tree": "big tree: `/data/playlists` (10,000 cues) into typed objects and walked, median",
    "import": "import time in a fresh interpreter, median",
    "sequence": "sequence: 20 × `set_opacity` steps against delay_server.py answering after "
    "2 ms, time per step beyond the answers it held (mean over 25 runs)",
}
for _server, _answer in [("loopback", "at once (nginx on loopback)")] + [
    (delay_label(d), f"after {delay_label(d)}") for d in CPU_DELAYS_MS
]:
    for _mode, _pace in [("back-to-back", "back-to-back"), ("paced", "paced at 200/s")]:
        TITLES[cpu_bench(_mode, _server)] = (
            f"CPU per call (process, user + system), 1,000 calls {_pace}, "
            f"server answering {_answer}"
        )


def table(report: dict[str, Any]) -> str:
    results = report["results"]
    lines = ["| benchmark | client | figure | × showctl | peak RSS |", "|---|---|--:|--:|--:|"]
    for bench in ["sync", "fanout", "tree", "import", *CPU_BENCHES, "sequence"]:
        if bench not in results:
            continue
        clients = results[bench]
        unit = UNITS[bench]
        ref = clients.get("showctl", {}).get(KEY[bench])
        for i, (client, fig) in enumerate(clients.items()):
            value = fig[KEY[bench]]
            rel = f"{value / ref:.2f}×" if ref else ""
            rss = f"{fig['peak_rss_mib']:.0f} MiB" if "peak_rss_mib" in fig else "–"
            name = TITLES[bench] if i == 0 else ""
            shown = f"{value:,.1f} {unit}" if value < 100 else f"{value:,.0f} {unit}"
            lines.append(f"| {name} | {client} | {shown} | {rel} | {rss} |")
    lines += ["", "| goal | measured | target | met |", "|---|--:|--:|:-:|"]
    for g in report["goals"]:
        sign = "≤" if g["kind"] == "max" else "≥"
        target = f"{sign} {g['target']}" if g["target"] is not None else "(reported)"
        value = "n/a" if g["ratio"] is None else f"{g['ratio']:.2f}"
        met = {True: "yes", False: "**no**", None: "–"}[g["met"]]
        lines.append(f"| {g['goal']} | {value} | {target} | {met} |")
    m = report["machine"]
    lines += [
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['kernel']}, {m['python']}; "
        f"showctl {m['versions']['showctl']}, httpx {m['versions']['httpx']}, "
        f"requests {m['versions']['requests']}, aiohttp {m['versions']['aiohttp']}, "
        f"pyreqwest {m['versions']['pyreqwest']}, rnet {m['versions']['rnet']}; "
        f"server {report['server']['software']} (1 worker) on loopback{delays(report)}; "
        f"{report['params']['rounds']} interleaved rounds, medians; "
        f"load average {m['loadavg_at_start']:.2f} at start, {m['loadavg_at_end']:.2f} at end; "
        f"{report['date']}.",
    ]
    return "\n".join(lines)


def delays(report: dict[str, Any]) -> str:
    """What the delay servers actually held, for the table's footnote."""
    held = report["server"].get("delayed", {})
    parts = [
        f"{label}: median {s['median_us'] / 1000:.3f} ms, p99 {s['p99_us'] / 1000:.3f} ms"
        for label, s in held.items()
        if s.get("count")
    ]
    return f"; delay_server.py holds {'; '.join(parts)}" if parts else ""


def update_readme(text: str) -> None:
    readme = README.read_text()
    start, end = readme.find(TABLE_START), readme.find(TABLE_END)
    if start < 0 or end < start:
        raise SystemExit(f"{README} lacks the {TABLE_START} / {TABLE_END} markers")
    readme = readme[: start + len(TABLE_START)] + "\n" + text + "\n" + readme[end:]
    README.write_text(readme)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    ap.add_argument("--import-runs", type=int, default=7, help="imports per module and round")
    ap.add_argument("--wrk-seconds", type=int, default=3, help="length of each wrk run")
    ap.add_argument("--readme", action="store_true", help="write the table into README.md")
    ap.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON figures")
    ap.add_argument(
        "--only",
        default=",".join(BENCHES),
        metavar="LIST",
        help=f"comma-separated benchmarks to run (default all: {','.join(BENCHES)})",
    )
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="also measure the showctl package in DIR (another build), as 'showctl LABEL'",
    )
    args = ap.parse_args()
    variants = dict(v.split("=", 1) for v in args.variant)
    only = [b.strip() for b in args.only.split(",") if b.strip()]
    unknown = [b for b in only if b not in BENCHES]
    if unknown or not only:
        raise SystemExit(f"--only: unknown benchmark {unknown}; known: {','.join(BENCHES)}")
    if args.readme and set(only) != set(BENCHES):
        raise SystemExit("--readme needs every benchmark (leave out --only)")
    if shutil.which("wrk") is None:
        raise SystemExit("wrk not found (benches/run.sh installs it)")

    started = time.monotonic()
    info = machine()
    with ExitStack() as stack:
        base, server = stack.enter_context(nginx_server())
        print(f"server: {server['software']} at {base}", flush=True)
        delayed, stats = {}, {}
        if "cpu" in only:
            for delay_ms in CPU_DELAYS_MS:
                url, stat = stack.enter_context(delay_server(delay_ms))
                delayed[delay_label(delay_ms)], stats[delay_label(delay_ms)] = url, stat
                stat()  # the count starts here
                print(f"server: delay_server.py answering after {delay_ms:g} ms at {url}")
        sequence_url = None
        if "sequence" in only:
            sequence_url, _ = stack.enter_context(delay_server(SEQUENCE_DELAY_MS))
            print(f"server: delay_server.py for the sequence case at {sequence_url}")
        results = measure(
            base,
            args.rounds,
            args.import_runs,
            args.wrk_seconds,
            variants,
            only,
            delayed,
            sequence_url,
        )
        server["delayed"] = {label: stat() for label, stat in stats.items()}
    info["loadavg_at_end"] = os.getloadavg()[0]
    report: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": info,
        "server": server,
        "params": {
            "rounds": args.rounds,
            "import_runs": args.import_runs,
            "wrk_seconds": args.wrk_seconds,
            "duration_s": round(time.monotonic() - started, 1),
            "variants": list(variants),
            "only": only,
        },
        "results": results,
    }
    report["goals"] = ratios(results, list(variants))
    text = table(report)
    print()
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(f"\nfigures written to {args.out}")
    if args.readme:
        update_readme(text)
        print(f"table written to {README}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
