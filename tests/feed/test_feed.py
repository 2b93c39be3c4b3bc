"""showctl.Feed and `showctl feed` against the simulator: a cue shows on /events and
/transport.json within one interval, the score documents parse with the standard library,
written files are never seen half-written, stale and back, and 500 SSE readers hold the
feed's memory and open files flat."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
import showctl

from tests.kit.feedkit import Events, get
from tests.kit.wait import until

INTERVAL = 0.25


def post(sim: showctl.Simulator, path: str) -> None:
    req = urllib.request.Request(sim.url + "/api/0" + path, method="POST")
    urllib.request.urlopen(req, timeout=5).close()


def trigger(sim: showctl.Simulator, layer: int, playlist: str, cue: int) -> None:
    """Play a cue (one with no layer of its own) on `layer`: as in the application, untargeted
    media plays on the layer last selected with target=true."""
    post(sim, f"/select/layer/{layer}?target=true")
    post(sim, f"/trigger/playlist/{quote(playlist)}/cue/{cue}")


def layer(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(item for item in doc["layers"] if item["name"] == name)


def test_a_cue_shows_on_events_and_transport_json_within_one_interval(
    sim: showctl.Simulator,
) -> None:
    with showctl.Feed(sim.url, sim.url, interval=INTERVAL) as feed:
        events = Events(feed.url)
        try:
            events.until(lambda e, d: e == "transport" and d["polled_at"] is not None)
            trigger(sim, 1, "Main Show", 1)
            t0 = time.monotonic()
            _, started = events.until(
                lambda e, d: e == "layer" and d["kind"] == "started" and d["layer_name"] == "Main"
            )
            took = time.monotonic() - t0
            # The next poll is at most one interval away; allow it its own round trip.
            assert took < INTERVAL + 0.25, took
            assert started["layer"]["state"] == "playing"
            assert started["layer"]["media"] == "sponsors.mp4"
            # The document is updated before the event is sent.
            status, ctype, body = get(feed.url + "transport.json")
            assert (status, ctype) == (200, "application/json")
            main = layer(json.loads(body), "Main")
            assert main["state"] == "playing"
            assert main["cue"] == "Sponsor Reel"
            assert main["duration"] == 60.0
            assert 0 < main["remaining"] <= 60.0
            _, doc = events.until(lambda e, d: e == "transport")
            assert layer(doc, "Main")["state"] == "playing"
        finally:
            events.close()


def test_layer_states_still_live_paused_empty(sim: showctl.Simulator) -> None:
    trigger(sim, 0, "Opening", 2)  # a still image
    trigger(sim, 2, "Video Input", 0)  # a live input
    trigger(sim, 1, "Main Show", 0)
    player = showctl.MediaPlayer(sim.url)
    player.layer(1).pause()
    with showctl.Feed(sim.url, interval=INTERVAL) as feed:
        events = Events(feed.url)
        try:
            _, doc = events.until(lambda e, d: e == "transport" and d["polled_at"] is not None)
        finally:
            events.close()
    states = {item["name"]: item["state"] for item in doc["layers"]}
    assert states == {
        "Background": "still",
        "Main": "paused",
        "Lower Third/Left": "live input",
        "Logo Bug": "empty",
    }
    assert layer(doc, "Lower Third/Left")["remaining"] is None
    assert layer(doc, "Logo Bug")["cue"] is None


def test_scores_json_xml_and_csv_parse_with_the_standard_library(sim: showctl.Simulator) -> None:
    sim.set_sport("Tennis")
    with showctl.Feed(scoreboard=sim.url, interval=INTERVAL) as feed:
        events = Events(feed.url)
        try:
            _, doc = events.until(lambda e, d: e == "scores" and d["polled_at"] is not None)
        finally:
            events.close()
        assert doc["sport"] == "Tennis"
        assert doc["record"]["sportMode"] == "Tennis"
        teams = doc["view"]["teams"]
        assert all(isinstance(t["score"], int) for t in teams)

        status, ctype, body = get(feed.url + "scores.xml")
        assert (status, ctype) == (200, "application/xml; charset=utf-8")
        row = ET.fromstring(body).find("score")
        assert row is not None
        fields = {child.tag: child.text or "" for child in row}
        assert fields["sport"] == "Tennis"
        assert fields["team1_score"] == str(teams[0]["score"])
        assert fields["stale"] == "false"
        assert "team1_set1" in fields

        status, ctype, body = get(feed.url + "scores.csv")
        assert (status, ctype) == (200, "text/csv; charset=utf-8")
        rows = list(csv.DictReader(io.StringIO(body.decode())))
        assert len(rows) == 1
        assert rows[0] == fields

        # Without a media URL there is no transport document.
        status, _, body = get(feed.url + "transport.json")
        assert status == 404
        assert "--media" in json.loads(body)["error"]


def read_until(path: Path, pred: Any, timeout: float = 5.0) -> dict[str, Any]:
    """Read a written JSON file the way a file-reading tool does, until `pred` holds."""
    last: dict[str, Any] = {}

    def shows() -> bool:
        nonlocal last
        last = json.loads(path.read_bytes()) if path.exists() else {}
        return bool(last) and bool(pred(last))

    try:
        until(shows, f"{path.name} to show it", timeout)
    except AssertionError as e:
        raise AssertionError(f"{e}; it shows {last}") from None
    return last


def test_stale_with_its_age_when_the_application_fails_and_back(
    sim: showctl.Simulator, tmp_path: Path
) -> None:
    with showctl.Feed(sim.url, sim.url, interval=INTERVAL, timeout=2.0, write=tmp_path) as feed:
        events = Events(feed.url)
        try:
            answered = set()  # both sources have an age once they answered (None before)
            while len(answered) < 2:
                kind, _ = events.until(
                    lambda e, d: e in ("transport", "scores") and d["polled_at"] is not None
                )
                answered.add(kind)
            sim.fail_next(503, times=100_000)
            t0 = time.monotonic()
            stale: dict[str, Any] = {}
            while len(stale) < 2:  # both sources say so
                _, status = events.until(lambda e, d: e == "status" and d["stale"])
                stale[status["source"]] = status
            assert time.monotonic() - t0 < 2 * INTERVAL + 0.25
            assert sorted(stale) == ["media", "scoreboard"]
            assert all("503" in s["error"] for s in stale.values())
            for path in ("transport.json", "scores.json"):
                doc = json.loads(get(feed.url + path)[2])
                assert doc["stale"] is True
                assert doc["stale_since"] is not None
                assert doc["age"] > 0
            row = ET.fromstring(get(feed.url + "scores.xml")[2]).find("score")
            assert row is not None and row.findtext("stale") == "true"
            assert float(row.findtext("age") or "nan") > 0
            # The files say so too, and their age keeps up while the failure lasts.
            written = read_until(tmp_path / "transport.json", lambda d: d["stale"])
            read_until(tmp_path / "transport.json", lambda d: d["age"] > written["age"])
            read_until(tmp_path / "scores.json", lambda d: d["stale"])
            sim.fail_next(503, times=0)
            fresh = set()
            while len(fresh) < 2:
                _, status = events.until(lambda e, d: e == "status" and not d["stale"])
                fresh.add(status["source"])
            for path in ("transport.json", "scores.json"):
                doc = json.loads(get(feed.url + path)[2])
                assert doc["stale"] is False
                read_until(tmp_path / path, lambda d: not d["stale"])
        finally:
            events.close()


def test_written_files_are_never_seen_half_written(sim: showctl.Simulator, tmp_path: Path) -> None:
    trigger(sim, 1, "Main Show", 0)  # the transport changes on every poll
    out = tmp_path / "feed"
    with showctl.Feed(sim.url, sim.url, interval=0.05, write=out):
        # The writer follows the poller: wait until it wrote both sources once, every format
        # (each file is replaced on its own: scores.json can be there before scores.csv).
        read_until(out / "transport.json", lambda d: d["polled_at"] is not None)
        read_until(out / "scores.json", lambda d: d["polled_at"] is not None)
        written = ("scores.xml", "scores.csv")
        until(lambda: all((out / name).exists() for name in written), "every format written")
        versions = set()
        reads = 0
        deadline = time.monotonic() + 3.0
        score = 0
        # Read as fast as possible while the feed rewrites the files, until 20 versions went by.
        while len(versions) < 20 and time.monotonic() < deadline:
            doc = json.loads((out / "transport.json").read_bytes())
            versions.add(doc["polled_at"])
            json.loads((out / "scores.json").read_bytes())
            ET.fromstring((out / "scores.xml").read_bytes())
            rows = list(csv.reader(io.StringIO((out / "scores.csv").read_text())))
            assert len(rows) == 2 and len(rows[0]) == len(rows[1])
            reads += 1
            if reads % 50 == 0:
                score += 1
                sim.set_score("team1Score", str(score))
        assert len(versions) >= 20, (len(versions), reads)
    # No temporary file is left behind.
    assert sorted(p.name for p in out.iterdir()) == [
        "scores.csv",
        "scores.json",
        "scores.xml",
        "transport.json",
    ]


def test_feed_arguments_are_checked_before_anything_starts(sim: showctl.Simulator) -> None:
    with pytest.raises(ValueError, match=r"^media, scoreboard:"):
        showctl.Feed()
    with pytest.raises(ValueError, match=r"^interval:"):
        showctl.Feed(sim.url, interval=0.0)
    with pytest.raises(ValueError, match=r"^port:"):
        showctl.Feed(sim.url, port=70000)
    with pytest.raises(TypeError, match=r"^media: expected a URL or a dict with url, api_key, "):
        showctl.Feed(media=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r'^media\["url"\]: expected a URL string, got int$'):
        showctl.Feed(media={"url": 3})  # type: ignore[arg-type]
    feed = showctl.Feed(sim.url)
    assert not feed.running
    assert "running=False" in repr(feed)
    assert feed.transport() is None
    assert sim.requests == []


def start_cli(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "showctl", "feed", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline().strip()
    return proc, first


def stop_cli(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def test_cli_prints_the_url_first_and_needs_an_application() -> None:
    with showctl.Simulator() as sim:
        proc, first = start_cli("--media", sim.url, "--scoreboard", sim.url)
        try:
            assert first.startswith("http://127.0.0.1:") and first.endswith("/")
            status, ctype, body = get(first)
            assert status == 200 and ctype == "text/html; charset=utf-8"
            assert b"/feed.js" in body
            assert get(first + "feed.js")[0] == 200
        finally:
            stop_cli(proc)
        assert proc.returncode == 0
    done = subprocess.run(
        [sys.executable, "-m", "showctl", "feed"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "--media URL" in done.stderr


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_500_sse_readers_hold_memory_and_open_files_flat() -> None:
    readers = 500
    with showctl.Simulator() as sim:
        proc, url = start_cli("--media", sim.url, "--scoreboard", sim.url, "--interval", "0.25")
        try:
            parts = urlsplit(url)
            first = json.loads(get(url + "transport.json")[2])
            assert first["url"].startswith(sim.url)
            fds_before = open_fds(proc.pid)
            rss_before = rss_kib(proc.pid)
            trigger(sim, 1, "Main Show", 0)  # a message on every poll from now on
            counts = [0] * readers

            async def reader(i: int, stop: asyncio.Event, progress: asyncio.Condition) -> None:
                r, w = await asyncio.open_connection(parts.hostname, parts.port)
                try:
                    w.write(b"GET /events HTTP/1.1\r\nHost: feed\r\n\r\n")
                    await w.drain()
                    while not stop.is_set():
                        line = await r.readline()
                        if not line:
                            break
                        if line.startswith(b"event: transport"):
                            counts[i] += 1
                            async with progress:
                                progress.notify_all()
                finally:
                    # Also when cancelled in readline(): before 3.11 nothing else closes it,
                    # and the feed would keep the connection.
                    w.close()

            async def main() -> tuple[int, int, int, int]:
                stop = asyncio.Event()
                progress = asyncio.Condition()
                tasks = [asyncio.create_task(reader(i, stop, progress)) for i in range(readers)]
                # Everyone connected and got a few messages: the steady state.
                async with progress:
                    await progress.wait_for(lambda: min(counts) >= 4)
                rss_connected = rss_kib(proc.pid)
                fds_connected = open_fds(proc.pid)
                seen = min(counts)
                # 20 more polls (5 s) with every reader reading every message.
                async with progress:
                    await progress.wait_for(lambda: min(counts) >= seen + 20)
                rss_later = rss_kib(proc.pid)
                stop.set()
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                return rss_connected, fds_connected, rss_later, min(counts)

            rss_connected, fds_connected, rss_later, least = asyncio.run(
                asyncio.wait_for(main(), 120)
            )
            # Every reader's connection is held while memory is measured (a few of the feed's
            # own sockets, such as the first GET's, may close meanwhile).
            assert fds_connected >= fds_before + readers - 5, (fds_before, fds_connected)
            # Flat: 20 polls to 500 readers add less than 4 MiB.
            assert rss_later - rss_connected < 4096, (rss_before, rss_connected, rss_later)
            # Every reader kept up (none was dropped as slow).
            assert least >= 24
            # The connections are closed on the feed's side too.
            until(lambda: open_fds(proc.pid) <= fds_before + 5, "the feed to close them")
            print(
                f"\n500 SSE readers: RSS {rss_before} KiB idle, {rss_connected} KiB connected, "
                f"{rss_later} KiB after 20 more polls; fds {fds_before} -> {fds_connected} -> "
                f"{open_fds(proc.pid)}"
            )
        finally:
            stop_cli(proc)
