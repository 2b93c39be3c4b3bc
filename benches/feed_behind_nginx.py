"""The feed behind nginx (examples/nginx-feed.conf, as docs/feed.md shows it) against the feed
alone, for more readers than one feed process should hold.

    python benches/feed_behind_nginx.py [--seconds 10] [--connections 200] [--readers 500]

One feed process (`showctl feed --venue ... --write DIR`) polls 8 simulated scoreboards every
0.25 s while one court scores every 0.25 s. Then:

1. documents: `wrk` with as many connections as `--connections`, each asking as fast as it can,
   against `/scores.json` of the feed itself, of nginx (micro-cached), and the written
   `scores.json` served by nginx (`/files/`): requests per second, latency, the CPU of the
   feed and of nginx, how many requests reached the feed, and the age of the data a reader
   gets (a reader asking 4 times a second beside `wrk`: now − the court's `polled_at`);
2. the event stream: `--readers` SSE readers on the feed itself, then through nginx: the CPU of
   each, and the age of the data as the readers get it.

Writes benches/results/feed-behind-nginx.json. Linux only (/proc); needs nginx and wrk
(benches/run.sh installs both).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: tests.kit

from showctl._venue import simulate_venue  # noqa: E402
from venue_scale import cpu_seconds, follow, memory, percentile  # noqa: E402

from tests.kit.nginxkit import Nginx, nginx_in_front, served_dir  # noqa: E402

COURTS = 8


def venue_spec(path: Path) -> None:
    lines = ["[defaults]\ninterval = 0.25\ntimeout = 2.0\n"]
    for i in range(1, COURTS + 1):
        # The port is replaced by simulate_venue (free ports).
        lines.append(f'[sources.court{i}]\nkind = "scoreboard"\nurl = "http://127.0.0.1:1"\n')
    path.write_text("\n".join(lines))


def cpu(pids: list[int]) -> float:
    return sum(cpu_seconds(p) for p in pids)


def age_of(body: bytes) -> float:
    """Seconds since court1 was polled, by this document (combined or one source's)."""
    doc = json.loads(body)
    doc = doc.get("sources", {}).get("court1", doc)
    at = datetime.fromisoformat(doc["polled_at"].replace("Z", "+00:00"))
    return time.time() - at.timestamp()


@contextmanager
def sampling(url: str) -> Iterator[list[float]]:
    """A reader asking `url` 4 times a second in a thread; yields the ages it saw."""
    ages: list[float] = []
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(0.25):
            with urllib.request.urlopen(url, timeout=5) as r:
                ages.append(age_of(r.read()))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    try:
        yield ages
    finally:
        stop.set()
        t.join(10)


WRK_RATE = re.compile(r"Requests/sec:\s+([\d.]+)")
WRK_LATENCY = re.compile(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", re.M)
UNIT = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def wrk(url: str, connections: int, seconds: float) -> dict[str, float]:
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds:g}s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rate = WRK_RATE.search(out)
    lat = {q: float(v) * UNIT[u] for q, v, u in WRK_LATENCY.findall(out)}
    return {
        "requests_per_s": float(rate.group(1)) if rate else 0.0,
        "latency_p50_ms": round(lat.get("50", float("nan")), 2),
        "latency_p99_ms": round(lat.get("99", float("nan")), 2),
    }


def documents(
    name: str, url: str, sample: str, feed: int, nginx: Nginx | None, args: Any
) -> dict[str, Any]:
    before = len(nginx.log()) if nginx else 0
    pids = nginx.pids() if nginx else []
    c0, n0, t0 = cpu_seconds(feed), cpu(pids), time.monotonic()
    with sampling(sample) as ages:
        result = wrk(url, args.connections, args.seconds)
    c1, n1, t1 = cpu_seconds(feed), cpu(pids), time.monotonic()
    result["feed_cpu_percent"] = round(100 * (c1 - c0) / (t1 - t0), 1)
    if nginx:
        result["nginx_cpu_percent"] = round(100 * (n1 - n0) / (t1 - t0), 1)
        log = nginx.log()[before:]
        # The cache status of each request (`-`: a location that is not cached, the files).
        # MISS and EXPIRED went to the feed; HIT, UPDATING and STALE were served from the cache.
        statuses = Counter(line.split()[0] for line in log)
        result["cache_statuses"] = dict(statuses)
        result["requests_to_feed"] = statuses["MISS"] + statuses["EXPIRED"]
        result["requests_served"] = len(log)
    result["data_age_median_s"] = round(statistics.median(ages), 3) if ages else None
    result["data_age_max_s"] = round(max(ages), 3) if ages else None
    print(f"{name:28} {result}", flush=True)
    return result


def events(
    name: str, url: str, feed: int, nginx: Nginx | None, args: Any, churn: Callable[[], None]
) -> dict[str, Any]:
    pids = nginx.pids() if nginx else []
    c0, n0, t0 = cpu_seconds(feed), cpu(pids), time.monotonic()
    readers = asyncio.run(follow(url, args.readers, args.seconds, churn))
    c1, n1, t1 = cpu_seconds(feed), cpu(pids), time.monotonic()
    result: dict[str, Any] = {
        "readers_connected": readers.connected,
        "feed_cpu_percent": round(100 * (c1 - c0) / (t1 - t0), 1),
        "scores_documents_received": len(readers.ages),
        "data_age_median_s": round(statistics.median(readers.ages), 3) if readers.ages else None,
        "data_age_p99_s": round(percentile(readers.ages, 0.99), 3),
    }
    if nginx:
        result["nginx_cpu_percent"] = round(100 * (n1 - n0) / (t1 - t0), 1)
    print(f"{name:28} {result}", flush=True)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--connections", type=int, default=200)
    ap.add_argument("--readers", type=int, default=500)
    args = ap.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk not found (benches/run.sh installs it)")

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, served_dir() as files:
        spec = Path(tmp) / "spec.toml"
        venue_spec(spec)
        with simulate_venue(spec) as venue:
            path = venue.write(Path(tmp) / "venue.toml")
            courts = [s.simulator for s in venue]
            for sim in courts:
                sim.set_sport("Basketball")
            points = {"n": 0}

            def churn() -> None:
                points["n"] += 1
                courts[points["n"] % len(courts)].set_score("team1Score", points["n"])

            stop_churn = threading.Event()

            def keep_churning() -> None:
                while not stop_churn.wait(0.25):
                    churn()

            feed = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "showctl",
                    "feed",
                    "--venue",
                    str(path),
                    "--write",
                    str(files),
                    "--json",
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            try:
                assert feed.stdout is not None
                url = json.loads(feed.stdout.readline())["url"]
                addr = url.split("//")[1].rstrip("/")
                with nginx_in_front(addr, files, workers=2) as nginx:
                    churner = threading.Thread(target=keep_churning, daemon=True)
                    churner.start()
                    try:
                        results["documents"] = {
                            "feed": documents(
                                "feed /scores.json",
                                url + "scores.json",
                                url + "scores/court1.json",
                                feed.pid,
                                None,
                                args,
                            ),
                            "nginx_cached": documents(
                                "nginx /scores.json",
                                nginx.url + "scores.json",
                                nginx.url + "scores/court1.json",
                                feed.pid,
                                nginx,
                                args,
                            ),
                            "nginx_files": documents(
                                "nginx /files/scores.json",
                                nginx.url + "files/scores.json",
                                nginx.url + "files/scores-court1.json",
                                feed.pid,
                                nginx,
                                args,
                            ),
                        }
                    finally:
                        stop_churn.set()
                        churner.join(5)
                    results["events"] = {
                        "feed": events("feed /events", url, feed.pid, None, args, churn),
                        "nginx": events("nginx /events", nginx.url, feed.pid, nginx, args, churn),
                    }
                    results["feed_rss_mib"] = round(memory(feed.pid).get("VmRSS", 0.0), 1)
                    nginx_version = subprocess.run(
                        ["nginx", "-v"], capture_output=True, text=True, check=False
                    ).stderr.strip()
            finally:
                feed.terminate()
                feed.wait(timeout=30)

    out = {
        "courts": COURTS,
        "interval_s": 0.25,
        "seconds": args.seconds,
        "wrk_connections": args.connections,
        "sse_readers": args.readers,
        **results,
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "kernel": platform.release(),
            "nginx": nginx_version.replace("nginx version: ", ""),
            "nginx_workers": 2,
            "load_average": os.getloadavg(),
        },
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    (HERE / "results" / "feed-behind-nginx.json").write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
