"""The example scripts, run against simulators (the notebook: tests/docs/test_notebook.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import showctl
from pytest_httpserver import HTTPServer

from tests.kit.wait import until

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def script(name: str, *args: str) -> list[str]:
    return [sys.executable, str(EXAMPLES / name), *args]


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SHOWCTL_")}


def run(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        script(name, *args), capture_output=True, text=True, timeout=60, env=env()
    )


def test_score_feed_writes_each_change(sim: showctl.Simulator, tmp_path: Path) -> None:
    out = tmp_path / "score.json"
    texts = tmp_path / "fields"
    proc = subprocess.Popen(
        script(
            "score_feed.py",
            "--url",
            sim.url,
            "--out",
            str(out),
            "--text-dir",
            str(texts),
            "--interval",
            "0.05",
            "--count",
            "2",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    until(lambda: out.exists() or proc.poll() is not None, f"{out.name} to be written", 30)
    assert json.loads(out.read_text())["team1Score"] == "48"
    sim.set_score("team1Score", 51)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert json.loads(out.read_text())["team1Score"] == "51"
    assert (texts / "team1Score.txt").read_text() == "51"
    assert (texts / "sportMode.txt").read_text() == "Basketball"
    assert not [p for p in tmp_path.rglob(".*")]  # no temporary file left behind


def test_score_feed_keeps_hostile_field_names_inside_its_folder(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    """Field names come from the application: one that is a path (`../x`, `/abs`) or would be a
    hidden file is not written (and said once on stderr); ordinary fields still are."""
    outside = tmp_path / "outside"
    outside.mkdir()
    record = {
        "sportMode": "Basketball",
        "team1Score": "7",
        "../outside/notes": "pwned",
        str(outside / "abs"): "pwned",
        ".hidden": "pwned",
        "game1": {"team1Goals": "3", "../../up": "pwned"},
    }
    httpserver.expect_request("/api/0/data/scores").respond_with_json(record)
    texts = tmp_path / "fields"
    result = run(
        "score_feed.py",
        *("--url", httpserver.url_for("/").rstrip("/"), "--out", str(tmp_path / "score.json")),
        *("--text-dir", str(texts), "--interval", "0.05", "--count", "1"),
    )
    assert result.returncode == 0, result.stderr
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "up.txt").exists() and not (tmp_path.parent / "up.txt").exists()
    written = sorted(p.name for p in texts.iterdir())
    assert written == ["game1.team1Goals.txt", "sportMode.txt", "team1Score.txt"], written
    assert (texts / "team1Score.txt").read_text() == "7"
    assert result.stderr.count("not written to a text file") == 4, result.stderr


def test_cue_sheet_plays_the_show(sim: showctl.Simulator) -> None:
    result = run("cue_sheet.py", str(EXAMPLES / "cue_sheet.csv"), "--url", sim.url, "--speed", "20")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(" ok ") == 10
    with showctl.MediaPlayer(sim.url) as player:
        layers = {layer.name: layer for layer in player.layers()}
        # 0.6 as the application keeps it, in single precision.
        assert layers["Background"].opacity == 0.6000000238418579 and layers["Background"].is_muted
        assert layers["Main"].opacity == 0.5
        assert layers["Lower Third/Left"].is_hidden
        main = player.layer("Main").transport_state()
        assert main.playing_media is not None and main.playing_media.name == "Camera 1"


def test_cue_sheet_checks_before_sending(sim: showctl.Simulator, tmp_path: Path) -> None:
    sheet = tmp_path / "bad.csv"
    sheet.write_text("at,action,layer,playlist,cue,value\n0,mute,Main,,,\n1,opacity,Main,,,1.5\n")
    result = run("cue_sheet.py", str(sheet), "--url", sim.url)
    assert result.returncode == 2
    assert "bad.csv:3: value must be an opacity" in result.stderr
    assert sim.requests == []
    sheet.write_text("at,action,layer,playlist,cue,value,seconds\n0,fade,Main,,,0.5,\n")
    result = run("cue_sheet.py", str(sheet), "--url", sim.url)
    assert result.returncode == 2 and "bad.csv:2: fade needs seconds" in result.stderr
    assert sim.requests == []
    dry = run("cue_sheet.py", str(EXAMPLES / "cue_sheet.csv"), "--dry-run")
    assert dry.returncode == 0 and "trigger 'Opening'/'Countdown' on 'Main'" in dry.stdout
    assert "fade on 'Main' to 0.5 over 1.0 s" in dry.stdout


def test_cue_sheet_goes_on_after_a_failure(sim: showctl.Simulator, tmp_path: Path) -> None:
    sheet = tmp_path / "show.csv"
    sheet.write_text("at,action,layer,playlist,cue,value\n0,mute,Nobody,,,\n0,mute,Main,,,\n")
    result = run("cue_sheet.py", str(sheet), "--url", sim.url)
    assert result.returncode == 1
    assert "FAIL  mute on 'Nobody'" in result.stdout and "ok    mute on 'Main'" in result.stdout


def test_fanout_reports_each_player() -> None:
    with (
        showctl.Simulator(strict=True) as a,
        showctl.Simulator(strict=True) as b,
        showctl.Simulator(strict=True) as c,
    ):
        b.fail_next(503)
        result = run(
            "fanout.py",
            a.url,
            b.url,
            c.url,
            "--layer",
            "Main",
            "--playlist",
            "Opening",
            "--cue",
            "Countdown",
        )
        assert result.returncode == 1
        lines = result.stdout.splitlines()
        assert lines[0] == f"{a.url}  ok    playing countdown_10s.mov"
        assert lines[1].startswith(f"{b.url}  FAIL  503 Service Unavailable")
        assert lines[2] == f"{c.url}  ok    playing countdown_10s.mov"
        again = run("fanout.py", a.url, b.url, "--layer", "1", "--playlist", "0", "--cue", "1")
        assert again.returncode == 0, again.stdout


def test_numpy_numbers_are_sent_as_the_numbers_they_hold() -> None:
    """examples/numpy_numbers.py: numpy's integers and floats and a Fraction as arguments (the
    stubs accept them: .ci/run's mypy --strict checks examples/), and what went out."""
    done = run("numpy_numbers.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        'POST /api/0/opacity/layer/1 {"value":0.5}',
        'POST /api/0/opacity/layer/1 {"value":0.375}',
        'POST /api/0/opacity/layer/1 {"value":0.25}',
        "POST /api/0/mute/layer/1 -",
        'POST /api/0/opacity/layer/2 {"value":0.75}',
        "POST /api/0/trigger/playlist/0/cue/1 -",
    ]
