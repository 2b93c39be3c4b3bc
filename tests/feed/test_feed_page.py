"""The feed's page in a real browser (headless Chromium over the DevTools protocol): the
playing layer's time remaining counts down, the score shows, and a failing application shows
"stale since"; screenshots are saved in the test's temporary directory. Without Chromium the
page tests skip with the reason, or fail under SHOWCTL_REQUIRE_BROWSER=1 (as .ci/run sets)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
import showctl

from tests.kit import browser as browser_kit
from tests.kit.browser import Browser, require_chromium

PNG = b"\x89PNG\r\n\x1a\n"


def test_without_chromium_the_page_tests_skip_or_fail_where_it_is_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def outcome() -> BaseException:
        try:
            require_chromium()
        except BaseException as e:  # pytest's skip and fail outcomes are BaseExceptions
            return e
        raise AssertionError("require_chromium() returned with no Chromium on PATH")

    monkeypatch.setattr(browser_kit.shutil, "which", lambda name: None)
    monkeypatch.setattr(browser_kit, "REQUIRED", False)
    skipped = outcome()
    assert isinstance(skipped, pytest.skip.Exception), repr(skipped)
    assert "no headless Chromium on PATH" in str(skipped)
    monkeypatch.setattr(browser_kit, "REQUIRED", True)
    failed = outcome()
    assert isinstance(failed, pytest.fail.Exception), repr(failed)
    assert "SHOWCTL_REQUIRE_BROWSER=1 and no headless Chromium" in str(failed)


def test_the_page_counts_down_shows_the_score_and_says_stale(tmp_path: Path) -> None:
    require_chromium()
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


def test_the_page_of_a_venue_shows_a_card_per_source_with_its_own_stale_mark(
    tmp_path: Path,
) -> None:
    require_chromium()
    from showctl._venue import simulate_venue

    venue_file = Path(__file__).parents[2] / "examples" / "venue.toml"
    with simulate_venue(venue_file) as venue:
        venue["court2"].simulator.set_score("team1Score", 42)
        sources = {name: {**s, "interval": 0.25} for name, s in venue.sources.items()}
        with (
            showctl.Feed(sources=sources) as feed,
            Browser(tmp_path / "profile") as browser,
        ):
            browser.goto(feed.url)
            names = browser.wait_for(
                "(() => { const c = [...document.querySelectorAll('#sources .source')];"
                " return c.length === 10 ? JSON.stringify(c.map(e => e.dataset.source)) : ''; })()"
            )
            assert json.loads(names) == ["main", "lobby"] + [f"court{i}" for i in range(1, 9)]
            points = browser.wait_for(
                "document.querySelector('.source[data-source=\"court2\"] .sp')?.textContent"
            )
            assert points == "42"
            assert browser.evaluate("document.getElementById('layers').hidden") is True
            assert browser.screenshot(tmp_path / "venue.png").startswith(PNG)

            # One court stops answering: only its card is marked, and the banner names it.
            venue["court7"].simulator.fail_next(503, times=100_000)
            banner = browser.wait_for(
                "(() => { const b = document.getElementById('stale');"
                " return b.hidden ? '' : b.textContent; })()"
            )
            assert banner == "Stale: court7"
            stale = browser.evaluate(
                "JSON.stringify([...document.querySelectorAll('.source.is-stale')]"
                ".map(e => e.dataset.source))"
            )
            assert json.loads(stale) == ["court7"]
            assert browser.screenshot(tmp_path / "venue_stale.png").startswith(PNG)
