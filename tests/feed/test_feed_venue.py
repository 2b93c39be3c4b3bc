"""A feed of every source of a venue: per-source documents, combined ones, events tagged with
their source, files per source, and a dead or hanging source that leaves the others fresh."""

from __future__ import annotations

import csv
import io
import json
import signal
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import showctl
from showctl._venue import SimulatedVenue, simulate_venue

from tests.kit.fakeserver import FakeServer, stall
from tests.kit.feedkit import Events, get
from tests.kit.wait import until

EXAMPLE = Path(__file__).parents[2] / "examples" / "venue.toml"
COURTS = [f"court{i}" for i in range(1, 9)]


@pytest.fixture(scope="module")
def venue() -> Iterator[SimulatedVenue]:
    with simulate_venue(EXAMPLE) as v:
        yield v


@pytest.fixture
def feed(venue: SimulatedVenue) -> Iterator[showctl.Feed]:
    sources = {name: {**s, "interval": 0.1} for name, s in venue.sources.items()}
    with showctl.Feed(sources=sources) as f:
        yield f


def doc(url: str) -> Any:
    status, ctype, body = get(url)
    assert status == 200, (url, body)
    assert ctype == "application/json"
    return json.loads(body)


def test_every_source_has_its_documents_and_the_combined_ones_list_them(
    feed: showctl.Feed,
) -> None:
    scores = doc(feed.url + "scores.json")
    assert list(scores["sources"]) == COURTS
    assert all(s["polled_at"] and not s["stale"] for s in scores["sources"].values())
    transport = doc(feed.url + "transport.json")
    assert list(transport["sources"]) == ["main", "lobby"]
    court3 = doc(feed.url + "scores/court3.json")
    assert court3["source"] == "court3" and court3["view"] is not None
    main = doc(feed.url + "transport/main.json")
    assert main["source"] == "main" and main["layers"]
    _, ctype, body = get(feed.url + "scores/court3.xml")
    assert ctype.startswith("application/xml")
    assert ET.fromstring(body).find("score/sport") is not None
    _, ctype, body = get(feed.url + "scores/court3.csv")
    header, row = list(csv.reader(io.StringIO(body.decode())))
    assert header[0] == "sport" and len(header) == len(row)
    # The combined XML and CSV prefix each field with its source.
    _, _, body = get(feed.url + "scores.xml")
    score = ET.fromstring(body).find("score")
    assert score is not None
    names = [e.tag for e in score]
    assert "court1_sport" in names and "court8_stale" in names
    listed = doc(feed.url + "sources.json")["sources"]
    assert [s["name"] for s in listed] == ["main", "lobby", *COURTS]
    # The same list from Python, known before the feed starts.
    assert feed.sources == listed
    unstarted = showctl.Feed(
        sources={
            "b": {"kind": "scoreboard", "url": "http://127.0.0.1:1"},
            "a": {"kind": "media", "url": "http://127.0.0.1:2"},
        }
    )
    assert unstarted.sources == [
        {"name": "a", "kind": "media", "documents": ["transport/a.json"]},
        {
            "name": "b",
            "kind": "scoreboard",
            "documents": ["scores/b.json", "scores/b.xml", "scores/b.csv"],
        },
    ]
    assert listed[2]["documents"] == [
        "scores/court1.json",
        "scores/court1.xml",
        "scores/court1.csv",
    ]


def test_an_unknown_source_is_404_naming_the_ones_polled(feed: showctl.Feed) -> None:
    status, _, body = get(feed.url + "scores/court9.json")
    assert status == 404
    assert "court1, court2" in json.loads(body)["error"]
    status, _, _ = get(feed.url + "transport/court1.json")
    assert status == 404
    status, _, _ = get(feed.url + "scores/court1.txt")
    assert status == 404


def test_events_list_the_sources_then_carry_each_ones_documents_and_changes(
    venue: SimulatedVenue, feed: showctl.Feed
) -> None:
    events = Events(feed.url)
    try:
        name, data = events.until(lambda e, d: True)
        assert name == "venue"
        assert [s["name"] for s in data["sources"]] == ["main", "lobby", *COURTS]
        seen = set()
        for _ in range(10):
            name, data = events.until(lambda e, d: e in ("transport", "scores"))
            seen.add(data["source"])
        assert seen == {"main", "lobby", *COURTS}
        venue["court5"].simulator.set_score("team1Score", 77)
        name, data = events.until(lambda e, d: e == "score" and d["source"] == "court5")
        assert data["field"] == "team1Score" and data["new"] == 77
    finally:
        events.close()


def test_a_hanging_and_a_dead_source_leave_the_others_fresh(venue: SimulatedVenue) -> None:
    hang = FakeServer(stall()).__enter__()  # stopped below
    port = hang.port
    with socket.create_server(("127.0.0.1", 0)) as s:
        dead = s.getsockname()[1]
    sources: dict[str, Any] = {
        # Polled every 0.25 s: stale after two intervals without an answer (0.5 s), a margin a
        # loaded test machine keeps; the hanging source is polled every 0.1 s.
        "court1": {**venue.sources["court1"], "interval": 0.25},
        "main": {**venue.sources["main"], "interval": 0.25},
        "hanging": {
            "kind": "scoreboard",
            "url": f"127.0.0.1:{port}",
            "timeout": 30.0,
            "interval": 0.1,
        },
        "dead": {"kind": "scoreboard", "url": f"127.0.0.1:{dead}", "interval": 0.1},
    }
    try:
        with showctl.Feed(sources=sources) as feed:
            # Wait until the hanging source has been marked stale (two intervals without an
            # answer), then watch the others stay fresh for several of their intervals while
            # it still hangs (its request's own timeout is 30 s).
            until(
                lambda: doc(feed.url + "scores/hanging.json")["stale"],
                "the hanging source to be marked stale",
            )
            first = doc(feed.url + "scores/court1.json")["polled_at"]
            for _ in range(10):
                time.sleep(0.1)  # watched over time: the test is that they never go stale
                court = doc(feed.url + "scores/court1.json")
                main = doc(feed.url + "transport/main.json")
                assert not court["stale"] and court["age"] < 1.0, court
                assert not main["stale"] and main["age"] < 1.0, main
            assert doc(feed.url + "scores/court1.json")["polled_at"] != first
            hanging = doc(feed.url + "scores/hanging.json")
            assert hanging["stale"] and "no answer" in hanging["error"]
            assert doc(feed.url + "scores/dead.json")["stale"]
    finally:
        hang.stop()


def test_files_per_source(venue: SimulatedVenue, tmp_path: Path) -> None:
    sources = {n: venue.sources[n] for n in ("court1", "court2", "main")}
    with showctl.Feed(sources=sources, write=tmp_path) as feed:
        assert feed.running
        want = {
            "scores.json",
            "scores.xml",
            "scores.csv",
            "transport.json",
            "scores-court1.json",
            "scores-court1.xml",
            "scores-court1.csv",
            "scores-court2.json",
            "transport-main.json",
        }
        until(lambda: want <= {p.name for p in tmp_path.iterdir()}, f"the files {sorted(want)}")
    court2 = json.loads((tmp_path / "scores-court2.json").read_text())
    assert court2["source"] == "court2"
    assert list(json.loads((tmp_path / "scores.json").read_text())["sources"]) == [
        "court1",
        "court2",
    ]


def test_venue_options_beside_a_venue_are_refused(venue: SimulatedVenue) -> None:
    with pytest.raises(ValueError, match="media: not with a venue"):
        showctl.Feed("http://127.0.0.1:1", sources=venue.sources)
    with pytest.raises(ValueError, match=r"interval: not with venue= \(set it in the file's"):
        showctl.Feed(venue=EXAMPLE, interval=1.0)
    # Even with the values that are the defaults without a venue: given is given.
    for given in ({"timeout": 5.0}, {"verify": True}):
        with pytest.raises(ValueError, match=f"{next(iter(given))}: not with a venue"):
            showctl.Feed(sources=venue.sources, **given)
    with pytest.raises(ValueError, match="api_key: not with a venue"):
        showctl.Feed(sources=venue.sources, api_key="k")
    with pytest.raises(ValueError, match=r"sources\.court1\.kind"):
        showctl.Feed(sources={"court1": {"kind": "scorebaord", "url": "http://h:1"}})
    with pytest.raises(ValueError, match="defaults: only with sources"):
        showctl.Feed("http://127.0.0.1:1", defaults={"timeout": 1})


def test_interval_beside_sources_is_every_sources_default(venue: SimulatedVenue) -> None:
    """As ``defaults={"interval": ...}`` is: a source's own interval still wins; both given is
    refused (one would be ignored)."""
    sources = {
        "court1": venue.sources["court1"],
        "main": {**venue.sources["main"], "interval": 1.0},
    }
    with showctl.Feed(sources=sources, interval=0.2) as feed:
        assert feed.interval == 0.2
        assert feed.scores()["sources"]["court1"]["interval"] == 0.2
        assert feed.transport()["sources"]["main"]["interval"] == 1.0
    with pytest.raises(ValueError, match="interval: given both as interval= and in defaults="):
        showctl.Feed(sources=sources, interval=0.2, defaults={"interval": 0.3})
    for interval in (None, 0.2):  # defaults that are no dict: refused alike, beside interval too
        with pytest.raises(ValueError, match="sources: defaults: must be a table, got a list"):
            showctl.Feed(sources=sources, interval=interval, defaults=[1])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="interval: must be a finite number of seconds"):
        showctl.Feed(sources=sources, interval=0.01)
    assert "`interval`: seconds between polls" in (showctl.Feed.__doc__ or "")
    for documented in ("`write`", "`port`", "`host`", "`header_timeout`", "`defaults`"):
        assert documented in (showctl.Feed.__doc__ or ""), documented


def test_the_one_source_form_keeps_its_shape(venue: SimulatedVenue) -> None:
    with showctl.Feed(scoreboard=venue["court1"].url) as feed:
        scores = doc(feed.url + "scores.json")
        assert "sources" not in scores and scores["source"] == "scoreboard"
        # Its one source is also reachable by its name.
        assert doc(feed.url + "scores/scoreboard.json")["source"] == "scoreboard"


def test_cli_feed_venue(venue: SimulatedVenue, tmp_path: Path) -> None:
    path = venue.write(tmp_path / "venue.toml")
    proc = subprocess.Popen(
        [sys.executable, "-m", "showctl", "feed", "--venue", path, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = json.loads(proc.stdout.readline())["url"]
        assert list(doc(url + "scores.json")["sources"]) == COURTS
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    # Without --json: one line per source, from the venue as loaded.
    proc = subprocess.Popen(
        [sys.executable, "-m", "showctl", "feed", "--venue", path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if "Ctrl-C to stop" in line:
                break
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    printed = "".join(lines)
    assert "polling main (media): transport/main.json" in printed, printed
    assert "polling court8 (scoreboard): scores/court8.json scores/court8.xml" in printed
    assert proc.returncode == 0, err
    bad = subprocess.run(
        [sys.executable, "-m", "showctl", "feed", "--venue", path, "--interval", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "--interval: not with --venue" in bad.stderr, bad.stderr
