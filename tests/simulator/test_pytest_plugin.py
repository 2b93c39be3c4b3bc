"""The pytest plugin (showctl.testing), as a user's project gets it: a throwaway project in a
temporary directory, its own tests using the fixtures, run by pytest in a subprocess that finds
the plugin through the installed pytest11 entry point (no conftest, no -p option)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import showctl

CUE_SHEET = '''
"""The user's automation: run a cue sheet on the media player."""

def run(player, sheet):
    for step in sheet:
        if step["do"] == "cue":
            player.trigger_playlist_cue(step["playlist"], step["cue"])
        elif step["do"] == "opacity":
            player.layer(step["layer"]).set_opacity(step["value"])
        elif step["do"] == "mute":
            player.layer(step["layer"]).mute()
'''

TESTS = """
import pytest
import showctl
from cue_sheet import run


def test_the_opening(showctl_simulator, showctl_player):
    assert showctl_simulator.strict
    run(showctl_player, [
        {"do": "cue", "playlist": "Opening", "cue": "Countdown"},
        {"do": "opacity", "layer": "Main", "value": 0.5},
        {"do": "mute", "layer": "Logo Bug"},
    ])
    assert showctl_player.layer("Main").opacity() == 0.5
    assert showctl_player.layer("Logo Bug").state().is_muted
    posts = [r.path for r in showctl_simulator.requests if r.method == "POST"]
    assert posts == [
        "/api/0/trigger/playlist/Opening/cue/Countdown",
        "/api/0/opacity/layer/Main",
        "/api/0/mute/layer/Logo%20Bug",
    ]


def test_each_test_gets_a_fresh_simulator(showctl_simulator, showctl_player):
    assert showctl_simulator.requests == []
    assert showctl_player.layer("Main").state().is_muted is False


@pytest.mark.showctl_workspace("venue")
def test_on_the_recorded_venue(showctl_player):
    names = [layer.name for layer in showctl_player.layers()]
    assert names == ["Background", "Main", "Lower Third/Left", "Logo Bug"]
    assert showctl_player.layer("Main").opacity() == 0.25


@pytest.mark.showctl_simulator(strict=False, api_key="k3y", workspace={"layers": [{"name": "A"}]})
def test_the_simulator_marker_gives_the_factory_options(showctl_simulator, showctl_player):
    assert not showctl_simulator.strict and showctl_simulator.api_key == "k3y"
    assert [layer.name for layer in showctl_player.layers()] == ["A"]


def test_a_keyed_installation(showctl_simulator_factory):
    sim = showctl_simulator_factory(api_key="k3y")
    with pytest.raises(showctl.UnauthorizedError):
        showctl.MediaPlayer(sim.url).layers()
    assert len(showctl.MediaPlayer(sim.url, "k3y").layers()) == 4


def test_the_scoreboard(showctl_simulator, showctl_scoreboard):
    showctl_simulator.set_sport("Hockey")
    assert showctl_scoreboard.scores().sport_mode == "Hockey"
"""


def test_a_users_project_gets_the_fixtures(tmp_path: Path) -> None:
    project = tmp_path / "show-automation"
    project.mkdir()
    (project / "cue_sheet.py").write_text(textwrap.dedent(CUE_SHEET), encoding="utf-8")
    (project / "test_cue_sheet.py").write_text(textwrap.dedent(TESTS), encoding="utf-8")
    (project / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n", "utf-8")
    with showctl.Simulator() as venue:
        showctl.MediaPlayer(venue.url).layer("Main").set_opacity(0.25)
        showctl.MediaPlayer(venue.url).record(project / "venue")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SHOWCTL_", "PYTEST_"))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-W", "error::pytest.PytestUnknownMarkWarning"],
        cwd=project,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 passed" in done.stdout
