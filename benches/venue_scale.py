"""A venue at scale: one feed process polling 32 sources every 0.25 s while 500 SSE readers
follow it, and one probe of 32 sources against 32 probes run one after another.

    python benches/venue_scale.py [--sources 32] [--readers 500] [--seconds 30]

The simulators (a quarter media players, the rest scoreboards) run in this process, which also
changes one court's score every 0.25 s and holds the readers; the feed runs in a process of its
own (`showctl feed --venue`), so its CPU time and memory are its own (read from /proc). Each
reader notes, for every scores document it receives, how old the data was when it arrived
(arrival time minus the document's `polled_at`). Prints a table and writes
benches/results/venue-scale.json. Linux only (/proc)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import showctl
from showctl._venue import simulate_venue

ROOT = Path(__file__).resolve().parent
POLLED_AT = re.compile(rb'"polled_at":"([^"]+)"')
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its threads, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def memory(pid: int) -> dict[str, float]:
    """Resident and peak resident memory of a process, in MiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    return out


def venue_file(sources: int, interval: float, path: Path) -> None:
    media = max(1, sources // 4)
    lines = [f"[defaults]\ninterval = {interval}\ntimeout = 2.0\n"]
    for i in range(sources):
        kind = "media" if i < media else "scoreboard"
        name = f"screen{i + 1}" if kind == "media" else f"court{i + 1 - media}"
        # The port is replaced by simulate_venue (free ports); any local URL will do here.
        lines.append(f'[sources.{name}]\nkind = "{kind}"\nurl = "http://127.0.0.1:1"\n')
    path.write_text("\n".join(lines))


class Readers:
    """SSE readers on raw sockets: each notes the age of the data of every scores document."""

    def __init__(self) -> None:
        self.ages: list[float] = []
        self.events = 0
        self.ended = 0
        self.connected = 0

    async def read(self, host: str, port: int, stop: asyncio.Event) -> None:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(f"GET /events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        await writer.drain()
        self.connected += 1
        buffer = b""
        try:
            while not stop.is_set():
                chunk = await reader.read(65536)
                if not chunk:
                    break
                now = time.time()
                buffer += chunk
                *done, buffer = buffer.split(b"\n\n")
                for message in done:
                    self.events += 1
                    if message.startswith(b"event: end") or b"\nevent: end" in message:
                        self.ended += 1
                    if b"event: scores" not in message:
                        continue
                    m = POLLED_AT.search(message)
                    if m:
                        at = datetime.fromisoformat(m.group(1).decode().replace("Z", "+00:00"))
                        self.ages.append(now - at.timestamp())
        finally:
            writer.close()


async def follow(url: str, readers: int, seconds: float, churn: Any) -> Readers:
    host, port = url.split("//")[1].rstrip("/").split(":")
    r = Readers()
    stop = asyncio.Event()
    tasks = [asyncio.create_task(r.read(host, int(port), stop)) for _ in range(readers)]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        churn()
        await asyncio.sleep(0.25)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return r


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=int, default=32)
    ap.add_argument("--readers", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--interval", type=float, default=0.25)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "venue-spec.toml"
        venue_file(args.sources, args.interval, spec)
        with simulate_venue(spec) as venue:
            path = Path(tmp) / "venue.toml"
            sources = venue.sources
            with path.open("w") as f:
                f.write(f"[defaults]\ninterval = {args.interval}\ntimeout = 2.0\n")
                for name, s in sources.items():
                    f.write(f'[sources.{name}]\nkind = "{s["kind"]}"\nurl = "{s["url"]}"\n')
            courts = [s for s in venue if s.kind == "scoreboard"]
            # Every scoreboard playing basketball; one court scores every 0.25 s.
            for s in courts:
                s.simulator.set_sport("Basketball")
            points = {"n": 0}

            def churn() -> None:
                points["n"] += 1
                court = courts[points["n"] % len(courts)]
                court.simulator.set_score("team1Score", points["n"])

            feed = subprocess.Popen(
                [sys.executable, "-m", "showctl", "feed", "--venue", str(path), "--json"],
                stdout=subprocess.PIPE,
                text=True,
            )
            try:
                assert feed.stdout is not None
                url = json.loads(feed.stdout.readline())["url"]
                cpu0, t0 = cpu_seconds(feed.pid), time.monotonic()
                readers = asyncio.run(follow(url, args.readers, args.seconds, churn))
                cpu1, t1 = cpu_seconds(feed.pid), time.monotonic()
                mem = memory(feed.pid)
            finally:
                feed.terminate()
                feed.wait(timeout=30)

            # One probe of every source against the same sources probed one after another.
            t = time.monotonic()
            report = showctl.probe_venue(sources=sources)
            together = time.monotonic() - t
            t = time.monotonic()
            for s in venue:
                cls = showctl.MediaPlayer if s.kind == "media" else showctl.Scoreboard
                with cls(s.url) as client:
                    client.probe()
            one_by_one = time.monotonic() - t

    result = {
        "sources": args.sources,
        "readers": args.readers,
        "interval": args.interval,
        "seconds": round(t1 - t0, 2),
        "feed_cpu_percent": round(100 * (cpu1 - cpu0) / (t1 - t0), 1),
        "feed_rss_mib": round(mem.get("VmRSS", 0.0), 1),
        "feed_peak_rss_mib": round(mem.get("VmHWM", 0.0), 1),
        "readers_connected": readers.connected,
        "readers_ended_by_feed": readers.ended,
        "events_received": readers.events,
        "scores_documents_received": len(readers.ages),
        "data_age_median_s": round(statistics.median(readers.ages), 3) if readers.ages else None,
        "data_age_p99_s": round(percentile(readers.ages, 0.99), 3),
        "data_age_max_s": round(max(readers.ages), 3) if readers.ages else None,
        "probe_venue_ok": report.ok,
        "probe_venue_s": round(together, 2),
        "probes_one_after_another_s": round(one_by_one, 2),
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "kernel": platform.release(),
            "load_average": os.getloadavg(),
        },
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    out = ROOT / "results" / "venue-scale.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    for k, v in result.items():
        print(f"{k:30} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
