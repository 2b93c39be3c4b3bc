"""The feed behind nginx, configured as docs/feed.md shows (examples/nginx-feed.conf): the live
documents micro-cached (many readers, one request to the feed per expiry), the event stream
passed on as it comes, and the written files served to a web server running as another user."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import showctl

from tests.kit.feedkit import Events
from tests.kit.nginxkit import EXAMPLE, Nginx, nginx_in_front, require_nginx, served_dir


@pytest.fixture(scope="module")
def sim() -> Iterator[showctl.Simulator]:
    with showctl.Simulator() as s:
        s.set_sport("Basketball")
        yield s


@pytest.fixture(scope="module")
def behind(sim: showctl.Simulator) -> Iterator[tuple[showctl.Feed, Nginx]]:
    with (
        served_dir() as files,
        showctl.Feed(scoreboard=sim.url, interval=0.25, write=str(files)) as feed,
        nginx_in_front(f"127.0.0.1:{feed.port}", files) as nginx,
    ):
        yield feed, nginx


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def test_many_readers_of_a_document_cost_the_feed_one_request_per_expiry(
    behind: tuple[showctl.Feed, Nginx],
) -> None:
    _feed, nginx = behind
    before = len(nginx.log())
    answers = [fetch(nginx.url + "scores.json") for _ in range(50)]
    assert all(status == 200 for status, _, _ in answers)
    doc = json.loads(answers[-1][2])
    assert doc["view"]["sport"] == "Basketball" and doc["stale"] is False
    headers = answers[-1][1]
    # The feed's CORS header passes through; browsers are told to ask again.
    assert headers["Access-Control-Allow-Origin"] == "*"
    assert headers["Cache-Control"] == "no-cache"
    statuses = [line.split()[0] for line in nginx.log()[before:]]
    assert len(statuses) == 50
    # A request reaches the feed only on a miss or an expiry: the 50 take at most a second
    # or two of cache lifetime, so at most a few go to the feed.
    to_feed = [s for s in statuses if s != "HIT"]
    assert len(to_feed) <= 3, statuses


def test_per_source_documents_are_cached_apart(sim: showctl.Simulator) -> None:
    sources = {f"court{i}": {"kind": "scoreboard", "url": sim.url} for i in (1, 2)}
    with (
        served_dir() as files,
        showctl.Feed(sources=sources, defaults={"interval": 0.25}) as feed,
        nginx_in_front(f"127.0.0.1:{feed.port}", files) as nginx,
    ):
        one = json.loads(fetch(nginx.url + "scores/court1.json")[2])
        two = json.loads(fetch(nginx.url + "scores/court2.json")[2])
        assert (one["source"], two["source"]) == ("court1", "court2")
        listed = json.loads(fetch(nginx.url + "sources.json")[2])["sources"]
        assert (
            [s["name"] for s in listed] == ["court1", "court2"] == [s["name"] for s in feed.sources]
        )


def test_events_pass_through_nginx_as_they_come(
    sim: showctl.Simulator, behind: tuple[showctl.Feed, Nginx]
) -> None:
    _, nginx = behind
    # As a browser's EventSource asks: compressed if the server will.
    events = Events(nginx.url, headers={"Accept-Encoding": "gzip, deflate, br"})
    try:
        _, doc = events.until(lambda e, d: e == "scores")
        assert doc["view"]["sport"] == "Basketball"
        points = doc["view"]["teams"][0]["score"] + 3
        sim.set_score("team1Score", points)
        # A proxy that compresses the stream holds a small event until kilobytes follow
        # (the next keep-alive comment is 15 s away): it would not come within the timeout.
        _name, change = events.until(lambda e, d: e == "score", timeout=5)
        assert change["field"] == "team1Score" and change["new"] == points
    finally:
        events.close()


def test_written_files_are_served_to_a_web_server_of_another_user(
    sim: showctl.Simulator, behind: tuple[showctl.Feed, Nginx]
) -> None:
    _, nginx = behind
    status, headers, body = fetch(nginx.url + "files/scores.json")
    assert status == 200, body  # 403 when the feed wrote its files readable by itself only
    assert headers["Content-Type"] == "application/json"
    assert headers["Access-Control-Allow-Origin"] == "*"
    etag = headers["ETag"]
    status, _, _ = fetch(nginx.url + "files/scores.json", {"If-None-Match": etag})
    assert status == 304
    _, headers, _ = fetch(nginx.url + "files/scores.csv")
    assert headers["Content-Type"] == "text/csv"
    # A change reaches the file (replaced by a rename: never half a file).
    points = json.loads(body)["view"]["teams"][1]["score"] + 2
    sim.set_score("team2Score", points)
    deadline = time.monotonic() + 5
    while True:
        status, _, body = fetch(nginx.url + "files/scores.json")
        if json.loads(body)["view"]["teams"][1]["score"] == points:
            break
        assert time.monotonic() < deadline, "the written file never showed the change"


def test_the_example_passes_nginx_t_as_given(tmp_path: Path) -> None:
    """examples/nginx-feed.conf, included word for word in an ``http`` block, passes
    ``nginx -t`` on a stock nginx: its cache folder's parent exists (nginx makes the folder,
    not its parent). Run as root, as a stock nginx's master runs; a folder ``nginx -t`` made is
    removed again."""
    nginx = require_nginx()
    if os.geteuid() != 0:
        pytest.skip("nginx -t makes the cache folder under /var/cache: that takes root")
    cache = Path(
        re.search(r"^proxy_cache_path (\S+) ", EXAMPLE.read_text(), re.MULTILINE).group(1)  # type: ignore[union-attr]
    )
    made = not cache.exists()
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log stderr;\nevents {{}}\n"
        f"http {{\n    include {EXAMPLE};\n}}\n"
    )
    try:
        done = subprocess.run(
            [nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-e", "stderr"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        if made and cache.is_dir():
            shutil.rmtree(cache)
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr
