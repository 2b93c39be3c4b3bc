"""Take the README's screenshot of the feed page (docs/img/feed.png) on the simulator.

    python scripts/feed_screenshot.py [OUT.png]

Needs headless Chromium (Debian: apt-get install chromium) and the built extension.
"""

from __future__ import annotations

import sys
import urllib.request
from pathlib import Path
from tempfile import TemporaryDirectory
from urllib.parse import quote

import showctl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the repository: tests.kit
from tests.kit.browser import Browser  # noqa: E402


def trigger(sim: showctl.Simulator, layer: int, playlist: str, cue: int) -> None:
    path = f"/api/0/trigger/layer/{layer}/playlist/{quote(playlist)}/cue/{cue}"
    urllib.request.urlopen(urllib.request.Request(sim.url + path, method="POST")).close()


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "img" / "feed.png"
    with showctl.Simulator() as sim, TemporaryDirectory() as tmp:
        sim.set_sport("AustralianFootball")
        for field, value in (
            ("quarter", "3"),
            ("team1Goals", "9"),
            ("team1Behinds", "7"),
            ("team1Score", "61"),
            ("team2Goals", "8"),
            ("team2Behinds", "11"),
            ("team2Score", "59"),
        ):
            sim.set_score(field, value)
        trigger(sim, 1, "Main Show", 1)
        trigger(sim, 2, "Main Show", 2)
        with (
            showctl.Feed(sim.url, sim.url, interval=0.25) as feed,
            Browser(Path(tmp) / "profile", size=(1280, 760)) as browser,
        ):
            browser.goto(feed.url)
            browser.wait_for("document.querySelectorAll('.layer').length === 2")
            browser.wait_for("document.querySelector('#team1 .points').textContent === '61'")
            browser.screenshot(out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
