"""The feed's page in a real browser (headless Chromium over the DevTools protocol): the
playing layer's time remaining counts down, the score shows, and a failing application shows
"stale since"; screenshots are saved in the test's temporary directory."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from urllib.parse import quote

import showctl
from browser import Browser

PNG = b"\x89PNG\r\n\x1a\n"


def test_the_page_counts_down_shows_the_score_and_says_stale(tmp_path: Path) -> None:
    with showctl.Simulator() as sim:
        sim.set_sport("AustralianFootball")
        path = f"/api/0/trigger/layer/1/playlist/{quote('Main Show')}/cue/1"
        urllib.request.urlopen(urllib.request.Request(sim.url + path, method="POST")).close()
        view = showctl.Scoreboard(sim.url).scores().view()
        with (
            showctl.Feed(sim.url, sim.url, interval=0.25) as feed,
            Browser(tmp_path / "profile") as browser,
        ):
            browser.goto(feed.url)
            remaining = '.layer[data-layer="Main"] .remaining'
            seconds = f"document.querySelector('{remaining}')?.dataset.seconds"
            first = float(browser.wait_for(seconds))
            first_text = browser.evaluate(f"document.querySelector('{remaining}').textContent")
            assert 0 < first <= 60
            assert first_text.count(":") == 1, first_text  # mm:ss
            # Counting down: a whole second less, and the text follows.
            later = float(
                browser.wait_for(
                    f"(() => {{ const s = +document.querySelector('{remaining}').dataset.seconds;"
                    f" return s < {first - 1.0} ? s : 0; }})()"
                )
            )
            assert later < first - 1.0
            assert browser.evaluate(f"document.querySelector('{remaining}').textContent") != (
                first_text
            )
            state = browser.evaluate(
                "document.querySelector('.layer[data-layer=\"Main\"]').dataset.state"
            )
            assert state == "playing"
            what = browser.evaluate(
                "document.querySelector('.layer[data-layer=\"Main\"] .what').textContent"
            )
            assert "sponsors.mp4" in what
            # The score, as the scoreboard has it.
            teams = browser.wait_for(
                "(() => { const t = [...document.querySelectorAll('.team')].map(e => ["
                "e.querySelector('.name').textContent, e.querySelector('.points').textContent]);"
                " return t[0][1] ? JSON.stringify(t) : ''; })()"
            )
            assert json.loads(teams) == [[t.name, str(t.score)] for t in view.teams]
            assert browser.evaluate("document.getElementById('stale').hidden") is True
            shot = browser.screenshot(tmp_path / "feed.png")
            assert shot.startswith(PNG) and len(shot) > 10_000

            # The application stops answering: the page says so, with the time.
            sim.fail_next(503, times=100_000)
            banner = browser.wait_for(
                "(() => { const b = document.getElementById('stale');"
                " return b.hidden ? '' : b.textContent; })()"
            )
            assert "stale since" in banner
            assert browser.screenshot(tmp_path / "feed_stale.png").startswith(PNG)
            sim.fail_next(503, times=0)
            browser.wait_for("document.getElementById('stale').hidden")
