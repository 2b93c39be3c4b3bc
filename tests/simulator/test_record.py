"""record(): a read-only capture of every documented read into a directory (the recording
format, the key scrubbed) plus workspace.json; and the replay: a simulator started from the
directory answers every recorded GET with equal JSON."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer
from showctl.testing import SimulatorFactory

from tests.kit.clikit import showctl_cli

KEY = "record-K3Y-secret"

#: Times of a clip that is playing: its clock runs between the capture and the replay.
CLOCK = {"timeElapsed", "timeRemaining"}


def recordings(directory: Path) -> list[dict[str, Any]]:
    files = sorted((directory / "recordings").glob("*.json"))
    return [json.loads(f.read_text(encoding="utf-8")) for f in files]


def without_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_clock(v) for k, v in value.items() if k not in CLOCK}
    if isinstance(value, list):
        return [without_clock(v) for v in value]
    return value


def rehearse(source: showctl.Simulator) -> None:
    """Change the source's state the way a show does before it is recorded."""
    player = showctl.MediaPlayer(source.url, KEY)
    main = player.layer("Main")
    main.set_opacity(0.4)
    main.mute()
    main.set_blend_mode("Dissolve")
    player.layer("Logo Bug").hide()
    player.set_workspace_transition_duration(2.5)
    player.trigger_playlist_cue("Opening", "Countdown")
    # Effects and transitions with values of their own (kept in single precision).
    blur, tint, _ = player.effects()
    radius = {"type": "Float", "base": {"name": "Radius", "value": 20.05, "min_value": 0}}
    player.layer("Logo Bug").set_effect({"uuid": blur.uuid, "enabled": True, "variables": [radius]})
    player.set_workspace_effect({"uuid": tint.uuid, "enabled": True})
    cut, _, wipe = player.transitions()
    player.set_workspace_transition(cut)
    feather = {"type": "Float", "base": {"name": "Feather", "value": 0.05, "max_value": 1}}
    player.request(
        "POST", "/transition/layer/2", {"transition": {"uuid": wipe.uuid, "variables": [feather]}}
    )


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_record_then_replay(
    tmp_path: Path, mode: str, showctl_simulator_factory: SimulatorFactory
) -> None:
    directory = tmp_path / "venue"
    source = showctl_simulator_factory(api_key=KEY)
    rehearse(source)
    source.clear_requests()
    player = showctl.MediaPlayer(source.url, KEY)
    if mode == "sync":
        count = player.record(directory)
    else:
        count = asyncio.run(player.record_async(str(directory)))
    assert {r.method for r in source.requests} == {"GET"}, "record sent a command"
    assert count == len(source.requests)
    recorded = recordings(directory)
    assert len(recorded) == count
    assert (directory / "workspace.json").is_file()
    replay = showctl_simulator_factory(directory)
    again = showctl.MediaPlayer(replay.url)
    for rec in recorded:
        request, response = rec["request"], rec["response"]
        assert request["method"] == "GET" and request["path"].startswith("/api/0/")
        path = request["path"].removeprefix("/api/0")
        if response["status"] != 200:
            with pytest.raises(showctl.ApiError) as info:
                again.request("GET", path)
            assert info.value.status == response["status"], path
            continue
        got = again.request("GET", path)
        assert without_clock(got) == without_clock(response["body"]), path
    # The changes were recorded and replayed.
    transition = again.layer("Lower Third/Left").transition()
    assert transition is not None
    assert [v.to_dict() for v in transition.variables] == [
        {"type": "Float", "base": {"name": "Feather", "value": 0.05000000074505806, "max_value": 1}}
    ]
    assert [e.name for e in again.layer("Logo Bug").effects()] == ["Gaussian Blur"]
    # The replay is stateful: a command changes what it answers.
    again.layer("Main").unmute()
    assert again.layer("Main").state().is_muted is False


def test_a_pre_3_8_installation_replays_its_blend_route(tmp_path: Path) -> None:
    for old in (True, False):
        directory = tmp_path / f"blend-{old}"
        with showctl.Simulator(blend_route=old) as source:
            showctl.MediaPlayer(source.url).record(directory)
        workspace = json.loads((directory / "workspace.json").read_text(encoding="utf-8"))
        assert workspace["answers"]["blendRoute"] is old
        with showctl.Simulator(workspace=directory) as replay:
            assert replay.blend_route is old
            player = showctl.MediaPlayer(replay.url)
            assert player.layer(0).blend().type == "Standard"
            first = replay.requests[0]
            assert (first.path, first.status) == ("/api/0/blend/layer/0", 200 if old else 404)


def test_the_recording_shows_the_installation(tmp_path: Path) -> None:
    with showctl.Simulator() as source:
        rehearse(source)
        showctl.MediaPlayer(source.url).record(tmp_path / "rec")
    workspace = json.loads((tmp_path / "rec" / "workspace.json").read_text(encoding="utf-8"))
    assert workspace["format"] == 1
    main = next(layer for layer in workspace["layers"] if layer["name"] == "Main")
    # The opacity as the application keeps it: in single precision.
    assert (main["opacity"], main["isMuted"], main["blendMode"]) == (
        0.4000000059604645,
        True,
        "Dissolve",
    )
    assert main["transport"]["playingItem"]["name"] == "Countdown"
    assert workspace["workspace"]["transitionDuration"] == 2.5
    assert [p["name"] for p in workspace["playlists"]["children"]][:2] == ["Opening", "Main Show"]
    assert any(p.get("videoInput") for p in workspace["playlists"]["children"])


def test_the_scoreboard_replays_its_record(tmp_path: Path) -> None:
    with showctl.Simulator() as source:
        source.set_sport("Hockey")
        source.set_score("team1Score", "3")
        assert showctl.Scoreboard(source.url).record(tmp_path / "board") == 1
    [rec] = recordings(tmp_path / "board")
    want = rec["response"]["body"]
    assert (want["sportMode"], want["team1Score"]) == ("Hockey", "3")
    with showctl.Simulator(workspace=tmp_path / "board") as replay:
        got = showctl.MediaPlayer(replay.url).request("GET", "/data/scores")
        assert got == want


def test_the_key_is_scrubbed(tmp_path: Path, httpserver: HTTPServer) -> None:
    """Wherever the application echoes the key (a debug field), the recording says ***."""
    httpserver.expect_request("/api/0/data/scores").respond_with_json(
        {"sportMode": "Hockey", "uuid": "u", "version": "1", "debug": f"Bearer {KEY}"}
    )
    board = showctl.Scoreboard(f"http://127.0.0.1:{httpserver.port}", KEY)
    board.record(tmp_path / "echo")
    for path in (tmp_path / "echo").rglob("*.json"):
        text = path.read_text(encoding="utf-8")
        assert KEY not in text, path
    [rec] = recordings(tmp_path / "echo")
    assert rec["response"]["body"]["debug"] == "Bearer ***"
    with showctl.Simulator(api_key=KEY) as source:
        showctl.MediaPlayer(source.url, KEY).record(tmp_path / "keyed")
    assert not any(KEY in p.read_text("utf-8") for p in (tmp_path / "keyed").rglob("*.json"))


@pytest.mark.parametrize(("umask", "want"), [(0o077, 0o700), (0o022, 0o755), (0o027, 0o750)])
def test_the_recording_follows_the_umask(tmp_path: Path, umask: int, want: int) -> None:
    """The directory gets 0777 less the umask, as `mkdir` gives (it was 0755 whatever the
    umask: a recording made under `umask 077` was readable by everyone). A subprocess, so the
    umask of this process is never changed."""
    with showctl.Simulator() as source:
        code = f"import showctl; showctl.Scoreboard({source.url!r}).record({str(tmp_path / 'r')!r})"
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=lambda: os.umask(umask),
        )
        assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((tmp_path / "r").stat().st_mode) == want
    assert stat.S_IMODE((tmp_path / "r" / "recordings").stat().st_mode) == want


def test_refusals(tmp_path: Path) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    with showctl.Simulator(api_key=KEY) as source:
        player = showctl.MediaPlayer(source.url, KEY)
        with pytest.raises(ValueError, match=r"^dir: .* is not empty"):
            player.record(full)
        with pytest.raises(showctl.UnauthorizedError):
            showctl.MediaPlayer(source.url, "wrong").record(tmp_path / "nothing")
        assert not (tmp_path / "nothing").exists()
        assert {r.method for r in source.requests} == {"GET"}


def test_the_command_line(tmp_path: Path) -> None:
    with showctl.Simulator() as source:
        done = showctl_cli("record", source.url, str(tmp_path / "cli"))
        assert done.returncode == 0, done.stderr
        assert f"showctl simulate --workspace {tmp_path / 'cli'}" in done.stdout
        assert {r.method for r in source.requests} == {"GET"}
    assert (tmp_path / "cli" / "workspace.json").is_file()
