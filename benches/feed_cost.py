"""What one served `/scores.json` costs the feed, against nginx serving the file the same feed
writes (`--write`), in the same run on the same machine.

    python benches/feed_cost.py [--seconds 5] [--connections 50] [--readers 500]

For a venue of 8 scoreboards and one of 32 (polled every 0.25 s, one court scoring every
0.25 s), one feed process (`showctl feed --venue ... --write DIR`) and nginx serving DIR
(examples/nginx-feed.conf, `/files/`, 2 workers). `wrk` with `--connections` connections asks
as fast as it can for:

- the feed's `/scores.json`, plain;
- the same with the `ETag` of the last answer (`If-None-Match`: a 304 while it is current);
- the same asking for gzip (`Accept-Encoding: gzip`);
- nginx's `/files/scores.json`, the written file;

then all four again with `--readers` SSE readers attached to the feed's `/events`. For each:
requests per second, the CPU (user + system, /proc) the serving process spent per request
answered, and the status of the answers. The feed's CPU includes its polling and file writing
(measured alone first, and given as `feed_idle_cpu_percent`).

Writes benches/results/feed-cost.json. Linux only; needs nginx and wrk (benches/run.sh
installs both).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: tests.kit

from feed_behind_nginx import WRK_RATE, cpu  # noqa: E402
from showctl._venue import simulate_venue  # noqa: E402
from venue_scale import cpu_seconds, follow  # noqa: E402

from tests.kit.nginxkit import nginx_in_front, served_dir  # noqa: E402

INTERVAL = 0.25

# wrk's Lua: count the answers by status, and (with ETAG) send the ETag of the last answer
# this thread got, as a reader that keeps its copy does.
WRK_LUA = """
local threads = {}
function setup(thread) table.insert(threads, thread) end
statuses = {}  -- a global: done() reads it from each thread
local etag = nil
local conditional = os.getenv("FEED_COST_ETAG") == "1"
function request()
  if conditional and etag then
    return wrk.format(nil, nil, {["If-None-Match"] = etag})
  end
  return wrk.format()
end
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  local tag = headers["ETag"] or headers["etag"]
  if status == 200 and tag then etag = tag end
end
function done(summary, latency, requests)
  local total = {}
  for _, t in ipairs(threads) do
    local s = t:get("statuses")
    for k, v in pairs(s) do total[k] = (total[k] or 0) + v end
  end
  local parts = {}
  for k, v in pairs(total) do table.insert(parts, string.format('"%d": %d', k, v)) end
  io.write("STATUSES {" .. table.concat(parts, ", ") .. "}\\n")
end
"""


def venue_spec(path: Path, courts: int) -> None:
    lines = [f"[defaults]\ninterval = {INTERVAL}\ntimeout = 2.0\n"]
    for i in range(1, courts + 1):
        # The port is replaced by simulate_venue (free ports).
        lines.append(f'[sources.court{i}]\nkind = "scoreboard"\nurl = "http://127.0.0.1:1"\n')
    path.write_text("\n".join(lines))


def wrk(url: str, args: Any, lua: Path, *, etag: bool, headers: list[str]) -> dict[str, Any]:
    cmd = ["wrk", "-t2", f"-c{args.connections}", f"-d{args.seconds:g}s", "-s", str(lua)]
    for h in headers:
        cmd += ["-H", h]
    env = {**os.environ, "FEED_COST_ETAG": "1" if etag else "0"}
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True, env=env).stdout
    rate = WRK_RATE.search(out)
    statuses: dict[str, int] = {}
    for line in out.splitlines():
        if line.startswith("STATUSES "):
            statuses = json.loads(line.removeprefix("STATUSES "))
    return {"requests_per_s": float(rate.group(1)) if rate else 0.0, "statuses": statuses}


def measure(
    name: str, url: str, pids: list[int], args: Any, lua: Path, idle: float = 0.0, **how: Any
) -> dict[str, Any]:
    """`wrk` on `url`; the CPU of `pids` per answer, gross and less `idle` (their CPU, as a
    fraction of a core, when nobody asks)."""
    c0, t0 = cpu(pids), time.monotonic()
    result = wrk(url, args, lua, **how)
    c1, t1 = cpu(pids), time.monotonic()
    answered = sum(result["statuses"].values())
    spent = c1 - c0
    result["cpu_percent"] = round(100 * spent / (t1 - t0), 1)
    result["cpu_us_per_request"] = round(1e6 * spent / answered, 1) if answered else None
    net = max(0.0, spent - idle * (t1 - t0))
    result["cpu_us_per_request_less_idle"] = round(1e6 * net / answered, 1) if answered else None
    print(f"  {name:30} {result}", flush=True)
    return result


@contextmanager
def sse_readers(url: str, readers: int, seconds: float) -> Iterator[None]:
    """`readers` SSE readers on the feed for `seconds` (beside what runs meanwhile)."""
    if not readers:
        yield
        return
    t = threading.Thread(
        target=lambda: asyncio.run(follow(url, readers, seconds, lambda: None)), daemon=True
    )
    t.start()
    time.sleep(2)  # connected
    try:
        yield
    finally:
        t.join(seconds + 30)


def venue_run(courts: int, args: Any, lua: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"courts": courts}
    with tempfile.TemporaryDirectory() as tmp, served_dir() as files:
        spec = Path(tmp) / "spec.toml"
        venue_spec(spec, courts)
        with simulate_venue(spec) as venue:
            path = venue.write(Path(tmp) / "venue.toml")
            sims = [s.simulator for s in venue]
            for sim in sims:
                sim.set_sport("Basketball")
            stop = threading.Event()

            def churn() -> None:
                n = 0
                while not stop.wait(INTERVAL):
                    n += 1
                    sims[n % len(sims)].set_score("team1Score", n)

            feed = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "showctl",
                    "feed",
                    "--json",
                    "--venue",
                    str(path),
                    "--write",
                    str(files),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            churner = threading.Thread(target=churn, daemon=True)
            try:
                assert feed.stdout is not None
                url = json.loads(feed.stdout.readline())["url"]
                addr = url.split("//")[1].rstrip("/")
                churner.start()
                with nginx_in_front(addr, files, workers=2) as nginx:
                    time.sleep(1)
                    c0, t0 = cpu_seconds(feed.pid), time.monotonic()
                    time.sleep(3)
                    idle = (cpu_seconds(feed.pid) - c0) / (time.monotonic() - t0)
                    out["feed_idle_cpu_percent"] = round(100 * idle, 1)
                    doc, file = url + "scores.json", nginx.url + "files/scores.json"
                    gzip = ["Accept-Encoding: gzip"]
                    cases = [
                        ("feed_plain", "feed /scores.json", doc, [feed.pid], idle, False, []),
                        (
                            "feed_if_none_match",
                            "feed /scores.json, If-None-Match",
                            doc,
                            [feed.pid],
                            idle,
                            True,
                            [],
                        ),
                        (
                            "feed_gzip",
                            "feed /scores.json, gzip",
                            doc,
                            [feed.pid],
                            idle,
                            False,
                            gzip,
                        ),
                        (
                            "nginx_file",
                            "nginx /files/scores.json",
                            file,
                            nginx.pids(),
                            0.0,
                            False,
                            [],
                        ),
                    ]
                    for readers in (0, args.readers):
                        print(f"{courts} sources, {readers} SSE readers", flush=True)
                        # Long enough for the four runs, with a margin.
                        seconds = 4 * (args.seconds + 2) + 5
                        with sse_readers(url, readers, seconds):
                            run: dict[str, Any] = {
                                key: measure(name, u, pids, args, lua, idle, etag=e, headers=h)
                                for key, name, u, pids, idle, e, h in cases
                            }
                        theirs = run["nginx_file"]["cpu_us_per_request"]
                        for key in ("feed_plain", "feed_if_none_match", "feed_gzip"):
                            for per in ("cpu_us_per_request", "cpu_us_per_request_less_idle"):
                                mine = run[key][per]
                                ratio = round(mine / theirs, 2) if mine and theirs else None
                                run[key][per.replace("cpu_us", "over_nginx")] = ratio
                        out[f"sse_readers_{readers}"] = run
            finally:
                stop.set()
                feed.terminate()
                feed.wait(timeout=30)
                churner.join(5)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--readers", type=int, default=500)
    ap.add_argument("--sources", type=int, nargs="+", default=[8, 32])
    args = ap.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk not found (benches/run.sh installs it)")
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        lua = Path(tmp) / "feed_cost.lua"
        lua.write_text(WRK_LUA)
        runs = [venue_run(n, args, lua) for n in args.sources]
    out = {
        "interval_s": INTERVAL,
        "seconds": args.seconds,
        "wrk_connections": args.connections,
        "sse_readers": args.readers,
        "runs": runs,
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "kernel": platform.release(),
            "load_average_at_start": load,
            "load_average_at_end": os.getloadavg(),
        },
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    (HERE / "results" / "feed-cost.json").write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
