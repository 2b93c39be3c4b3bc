"""The command line, run as a subprocess against a simulator: output, --json, exit codes and
one-line errors."""

from __future__ import annotations

import json
import signal
import subprocess
import sysconfig
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import showctl

from tests.kit.clikit import COMMANDS, at, env, lines_json, one_error_line, showctl_cli, start
from tests.kit.fakeserver import serving, stall
from tests.kit.netkit import free_port, posix_signals
from tests.kit.wait import until


def test_help_explains_every_command() -> None:
    result = showctl_cli("--help")
    assert result.returncode == 0
    for name in COMMANDS:
        assert name in result.stdout
        sub = showctl_cli(name, "--help")
        assert sub.returncode == 0, sub.stderr
        assert sub.stdout.startswith("usage: showctl " + name)


def test_console_script_is_installed() -> None:
    script = Path(sysconfig.get_path("scripts")) / "showctl"  # bin/ or Scripts\ (showctl.exe)
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.strip() == f"showctl {showctl.__version__}"


def test_layers_table_and_json(sim: showctl.Simulator) -> None:
    table = at(sim, "layers")
    assert table.returncode == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert header.split() == ["INDEX", "NAME", "MUTED", "HIDDEN", "OPACITY", "UUID"]
    assert len(rows) == 4 and "Lower Third/Left" in rows[2]
    ndjson = showctl_cli("--json", "layers", environ=env(SHOWCTL_MEDIA_URL=sim.url))
    layers = lines_json(ndjson.stdout)
    assert [layer["name"] for layer in layers] == [
        "Background",
        "Main",
        "Lower Third/Left",
        "Logo Bug",
    ]
    assert layers[3]["targetSetUUID"] == "null"  # as the application sent it


def test_commands_change_the_state(sim: showctl.Simulator) -> None:
    assert at(sim, "mute", "Lower Third/Left").returncode == 0
    assert at(sim, "hide", "1").returncode == 0
    done = at(sim, "clear", "--json")
    assert lines_json(done.stdout) == [{"ok": True, "command": "clear", "layer": None}]
    layers = lines_json(at(sim, "layers", "--json").stdout)
    assert [layer["isMuted"] for layer in layers] == [False, False, True, False]
    assert [layer["isHidden"] for layer in layers] == [False, True, False, False]
    assert [r.path for r in sim.requests[:3]] == [
        "/api/0/mute/layer/Lower%20Third%2FLeft",
        "/api/0/hide/layer/1",
        "/api/0/clear/workspace",
    ]


def test_trigger_and_transport(sim: showctl.Simulator) -> None:
    result = at(sim, "trigger", "Opening", "Intro Video", "--layer", "Main")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok: triggered cue 'Intro Video'")
    states = lines_json(at(sim, "transport", "--json").stdout)
    assert len(states) == 4
    assert states[1]["playingMedia"]["name"] == "intro_2024.mp4"
    assert "playingMedia" not in states[0]
    table = at(sim, "transport", "Main").stdout.splitlines()
    assert table[0].split() == ["LAYER", "NAME", "STATE", "ELAPSED", "REMAINING", "MEDIA"]
    assert "playing" in table[1] and "intro_2024.mp4" in table[1]
    # The video input playlist by index -1 (an argument, not an option). The application
    # ignores the layer a trigger names, so --layer targets the layer first: the cue plays there.
    result = at(sim, "trigger", "-1", "0", "--layer", "0")
    assert result.returncode == 0, result.stderr
    assert "it plays on layer 0 (Background), now the targeted layer" in result.stdout
    assert (
        lines_json(at(sim, "transport", "0", "--json").stdout)[0]["playingMedia"]["name"]
        == "Camera 1"
    )


def watching(sim: showctl.Simulator, *args: str) -> subprocess.Popen[str]:
    """`transport --watch` in the background, returned once its first poll (the baseline) was
    answered, so that a change made after this is one it reports."""
    sim.clear_requests()
    proc = start("transport", *args, "--watch", "--interval", "0.05", "--url", sim.url)
    until(
        lambda: proc.poll() is not None
        or any(r.path.endswith("/transportState/workspace") for r in sim.requests),
        "the watch's first poll",
        30,
    )
    assert proc.poll() is None, proc.stderr
    return proc


def test_transport_watch_prints_each_event(sim: showctl.Simulator) -> None:
    proc = watching(sim, "Main", "--json", "--count", "3")  # the current state, 2 events
    with showctl.MediaPlayer(sim.url) as player:
        # Media plays on the targeted layer (as in the field), so target each layer first.
        player.layer("Background").select(target=True)
        player.layer("Background").trigger("Opening", "Intro Video")  # not shown
        player.layer("Main").select(target=True)
        player.layer("Main").trigger("Main Show", 0)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    current, *events = lines_json(out)  # the layer's state when the watch began, then events
    assert current["kind"] == "current" and current["layer_name"] == "Main"
    assert [e["kind"] for e in events] == ["media_changed", "started"]
    assert {e["layer_name"] for e in events} == {"Main"}
    assert events[0]["layer_index"] == 1 and events[0]["error"] is None
    assert "playingMedia" not in events[0]["previous"]
    assert events[1]["current"]["playingMedia"]["name"] == "keynote_loop.mov"

    proc = watching(sim, "--count", "8")  # 4 rows of the current state, then 4 events
    assert proc.stdout is not None
    with showctl.MediaPlayer(sim.url) as player:
        player.layer("Background").clear()
        player.layer("Main").pause()
    table = [proc.stdout.readline() for _ in range(6)]  # the current state, a blank line
    assert table[0].split()[:3] == ["LAYER", "NAME", "STATE"] and table[5] == "\n"
    lines = [proc.stdout.readline(), proc.stdout.readline()]
    sim.fail_next(503, times=3)  # one poll fails, with its retries; the next one answers
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    lines = [line.split("  ", 1)[1].rstrip() for line in [*lines, *out.splitlines()]]
    assert lines[:2] == [
        "layer 0 (Background): emptied intro_2024.mp4",
        "layer 1 (Main): stopped keynote_loop.mov",
    ]
    assert lines[2].startswith("poll failed, still watching: 503 Service Unavailable")
    assert lines[3] == "the application answers again"


def test_opacity_get_set_fade(sim: showctl.Simulator) -> None:
    assert at(sim, "opacity", "Main", "0.25").returncode == 0
    assert at(sim, "opacity", "Main").stdout.strip() == "0.25"
    assert at(sim, "opacity", "Main", "0.75", "--fade", "0.2", "--steps", "4").returncode == 0
    assert lines_json(at(sim, "opacity", "1", "--json").stdout) == [{"layer": "1", "opacity": 0.75}]
    posts = [r for r in sim.requests if r.method == "POST"]
    assert len(posts) >= 2 and posts[-1].json() == {"value": 0.75}


def test_playlists(sim: showctl.Simulator) -> None:
    out = at(sim, "playlists").stdout
    assert "Opening  (playlist 0," in out
    assert "Video Input  (playlist -1, video input," in out
    assert "  Highlights  (playlist," in out
    tree = lines_json(at(sim, "playlists", "--json").stdout)[0]
    assert [p["name"] for p in tree["children"]][:2] == ["Opening", "Main Show"]


def test_request(sim: showctl.Simulator) -> None:
    got = at(sim, "request", "get", "/data/layer/0", "--json")
    assert lines_json(got.stdout)[0]["layer"]["name"] == "Background"
    posted = at(sim, "request", "POST", "/opacity/layer/0", '{"value": 0.5}')
    assert posted.returncode == 0 and posted.stdout == ""
    at(sim, "request", "POST", "/select/layer/2", "--param", "target=true")
    assert sim.requests[-1].query == {"target": "true"}
    assert sim.selection["target"] == 2
    pretty = at(sim, "request", "GET", "/opacity/layer/0")
    assert json.loads(pretty.stdout) == {"opacity": {"value": 0.5}}


def test_scores_and_watch(sim: showctl.Simulator) -> None:
    table = showctl_cli("scores", environ=env(SHOWCTL_SCOREBOARD_URL=sim.url))
    assert table.returncode == 0
    assert table.stdout.startswith("Basketball: 48 - 51")
    assert "team1Fouls" in table.stdout
    proc = start("scores", "--watch", "--interval", "0.05", "--count", "2", "--url", sim.url)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("Basketball: 48 - 51")
    sim.set_score("team2Score", 53)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Basketball: 48 - 53  (team2Score: 51 -> 53)" in out
    sim.set_sport("Baseball")
    record = lines_json(at(sim, "scores", "--json").stdout)[0]
    assert record["sportMode"] == "Baseball" and record["teamOneLineScore1"] == ""


def test_api_key_from_option_and_env() -> None:
    with showctl.Simulator(api_key="k3y", strict=True) as sim:
        denied = at(sim, "layers")
        assert denied.returncode == 1
        assert "401 Unauthorized" in one_error_line(denied)
        assert at(sim, "layers", "--api-key", "k3y").returncode == 0
        assert (
            showctl_cli(
                "layers", environ=env(SHOWCTL_MEDIA_URL=sim.url, SHOWCTL_API_KEY="k3y")
            ).returncode
            == 0
        )
        assert "k3y" not in denied.stderr


def test_an_error_says_whether_the_command_went_out(sim: showctl.Simulator) -> None:
    answered = at(sim, "mute", "Nobody")
    assert one_error_line(answered).endswith("; answered")
    refused = showctl_cli("mute", "1", "--url", f"http://127.0.0.1:{free_port()}")
    assert refused.returncode == 1
    assert one_error_line(refused).endswith("; not sent: safe to run again")
    with serving(stall()) as url:
        hung = showctl_cli("mute", "1", "--url", url, "--timeout", "0.3")
    assert hung.returncode == 1
    assert one_error_line(hung).endswith("; sent, no answer: the application may have acted")


def test_json_errors_are_one_object_with_the_delivery(sim: showctl.Simulator) -> None:
    answered = at(sim, "mute", "Nobody", "--json")
    assert answered.returncode == 1 and answered.stdout == ""
    (line,) = answered.stderr.splitlines()
    error = json.loads(line)
    assert (error["type"], error["delivery"]) == ("BadRequestError", "answered")
    assert "400 Bad Request" in error["error"] and error["error"].endswith("; answered")
    refused = showctl_cli("--json", "mute", "1", "--url", f"http://127.0.0.1:{free_port()}")
    error = json.loads(refused.stderr)
    assert (error["type"], error["delivery"]) == ("ConnectError", "not_sent")
    usage = showctl_cli("--json", "opacity", "1", "2", "--url", sim.url)
    assert usage.returncode == 2
    assert json.loads(usage.stderr)["delivery"] == "not_sent"


def test_exit_codes_and_one_line_errors(sim: showctl.Simulator) -> None:
    unknown = at(sim, "mute", "Nobody")
    assert unknown.returncode == 1
    assert "400 Bad Request" in one_error_line(unknown) and "Nobody" in unknown.stderr

    no_url = showctl_cli("layers")
    assert no_url.returncode == 2
    assert "SHOWCTL_MEDIA_URL" in one_error_line(no_url)

    refused = showctl_cli("layers", "--url", f"http://127.0.0.1:{free_port()}", "--timeout", "2")
    assert refused.returncode == 1
    one_error_line(refused)

    sim.clear_requests()
    for args in (
        ("opacity", "Main", "1.5"),  # out of range: refused before sending
        ("opacity", "Main", "loud"),  # not a number
        ("opacity", "Main", "0.5", "--fade", "0.1", "--steps", "50"),  # too many steps
        ("mute", "-1"),  # negative layer index
        ("request", "POST", "/x", "{bad"),  # invalid JSON
        ("request", "PUT", "/x"),  # not a method the applications take
        ("scores", "--interval", "0"),
        ("frobnicate",),
    ):
        result = at(sim, *args)
        assert result.returncode == 2, (args, result.stderr)
        one_error_line(result)
    assert sim.requests == []

    sim.fail_next(503, times=5)
    busy = at(sim, "layers", "--timeout", "1")
    assert busy.returncode == 1
    assert "503 Service Unavailable" in one_error_line(busy)


@posix_signals
def test_simulate_serves_until_interrupted(tmp_path: Path) -> None:
    workspace = tmp_path / "ws.json"
    workspace.write_text(json.dumps({"layers": [{"name": "Solo"}]}))
    proc = start("simulate", "--json", "--api-key", "k", "--workspace", str(workspace))
    assert proc.stdout is not None
    info = json.loads(proc.stdout.readline())
    req = urllib.request.Request(
        info["url"] + "/api/0/data/layers", headers={"Authorization": "Bearer k"}
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        assert resp.headers.get("Content-Type") is None  # reads are not typed by default
        assert json.load(resp)["data"][0]["layer"]["name"] == "Solo"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


@posix_signals
def test_simulate_a_workspace_directory_strictly(tmp_path: Path) -> None:
    (tmp_path / "workspace.json").write_text(json.dumps({"layers": [{"name": "Recorded"}]}))
    proc = start(
        "simulate",
        "--json",
        "--workspace",
        str(tmp_path),
        "--strict",
        "--blend-route",
        "--read-content-type",
        "application/json",
    )
    assert proc.stdout is not None
    url = json.loads(proc.stdout.readline())["url"] + "/api/0"
    with urllib.request.urlopen(url + "/data/layers", timeout=5) as resp:
        assert resp.headers.get("Content-Type") == "application/json"
        assert json.load(resp)["data"][0]["layer"]["name"] == "Recorded"
    # --blend-route answers the path versions before 3.8 have (404 without it).
    with urllib.request.urlopen(url + "/blend/layer/0", timeout=5) as resp:
        assert json.load(resp)["layerBlend"]["type"] == "Standard"
    # The Companion module's body: accepted by the application, refused when strict.
    req = urllib.request.Request(url + "/opacity/layer/0", data=b"[object Object]")
    req.add_header("Content-Type", "text/plain")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=5)
    assert refused.value.code == 400
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "not JSON" in err  # logged as a warning


def test_simulate_refuses_a_bad_read_content_type() -> None:
    result = showctl_cli("simulate", "--read-content-type", "text/plain\tx")
    assert result.returncode == 2
    assert result.stderr.startswith("showctl: error: --read-content-type: must be a media type")


def test_simulate_a_malformed_workspace(tmp_path: Path) -> None:
    bad = tmp_path / "show.json"
    bad.write_text(json.dumps({"layers": [{"name": "A", "opacity": "full"}]}))
    result = showctl_cli("simulate", "--workspace", str(bad))
    assert result.returncode == 2
    assert "show.json" in result.stderr and "layers[0].opacity" in result.stderr


@posix_signals
def test_simulate_score_tick_moves_the_score() -> None:
    proc = start("simulate", "--json", "--score-tick", "0.05")
    try:
        assert proc.stdout is not None
        url = json.loads(proc.stdout.readline())["url"]
        watch = showctl_cli(
            "scores", "--watch", "--json", "--count", "2", "--interval", "0.05", "--url", url
        )
        first, second = lines_json(watch.stdout)
        assert first["sportMode"] == second["sportMode"] == "Basketball"
        # Every tick adds to a team's score; a game lasts 20 ticks (one second here), so the two
        # records may straddle a new game's 0-0: the scores differ either way.
        scores = [(r["team1Score"], r["team2Score"]) for r in (first, second)]
        assert scores[0] != scores[1], scores
        # The period moves on too, so a loop waiting for it ends (the README's tour).
        with showctl.Scoreboard(url) as board:
            kinds = (ev.kind for ev in board.watch_events(interval=0.05))
            assert "period_changed" in kinds
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    assert proc.returncode == 0


@posix_signals
def test_ctrl_c_ends_a_watch_quietly(sim: showctl.Simulator) -> None:
    proc = start("scores", "--watch", "--interval", "0.05", "--url", sim.url)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("Basketball")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err == ""


def test_simulate_port_in_use(sim: showctl.Simulator) -> None:
    result = showctl_cli("simulate", "--port", str(sim.port))
    assert result.returncode == 1
    assert "cannot listen" in one_error_line(result)


def test_demo_runs_to_completion() -> None:
    result = showctl_cli("demo", "--pace", "0")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for expected in (
        "1. Playlists",
        "Main is playing intro_2024.mp4",
        "opacity 1.00 -> 0.30\n",
        "intro_2024.mp4",
        "Hockey: 0 - 0",
        "team1Score -> 2: Hockey: 2 - 1",
        "Done:",
    ):
        assert expected in out, out


def test_options_that_would_be_ignored_or_fail_late_are_usage_errors(
    sim: showctl.Simulator,
) -> None:
    sim.clear_requests()
    for args, words in (
        (("opacity", "Main", "--fade", "1"), "--fade: needs VALUE"),
        (("opacity", "Main", "--steps", "5"), "--steps: needs VALUE"),
        (("transport", "--count", "3"), "--count: only with --watch"),
        (("scores", "--count", "3"), "--count: only with --watch"),
        (("demo", "--pace", "-1"), "--pace"),
        (("demo", "--pace", "nan"), "--pace"),
    ):
        result = at(sim, *args)
        assert result.returncode == 2, (args, result.returncode, result.stdout, result.stderr)
        assert result.stdout == "", (args, result.stdout)
        assert words in one_error_line(result), (args, result.stderr)
    assert sim.requests == []


ESC = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eevil"


def test_terminal_escapes_from_names_and_bodies_are_printed_escaped() -> None:
    workspace = {
        "playlists": {"name": "Workspace", "items": [], "children": []},
        "layers": [{"name": f"Main{ESC}"}],
    }
    with showctl.Simulator(workspace=workspace) as sim:
        for args in (
            ("layers",),
            ("transport",),
            ("request", "GET", "/data/layers"),
            ("layers", "--json"),
            ("mute", f"Main{ESC}"),
            ("mute", f"No{ESC}"),
        ):
            result = at(sim, *args)
            printed = result.stdout + result.stderr
            assert "Main" in printed or "No" in printed, (args, printed)
            for raw in ("\x1b", "\x07", "\x9b", "\u202e"):
                assert raw not in printed, (args, printed)
            if args[0] == "request" or "--json" in args:
                assert "\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u202eevil" in printed
            elif args == ("layers",):
                assert "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eevil" in printed, printed
        as_json = at(sim, "layers", "--json")
        assert json.loads(as_json.stdout.splitlines()[0])["name"] == f"Main{ESC}"


def test_an_ascii_only_locale_prints_non_ascii_names() -> None:
    workspace = {
        "playlists": {"name": "Workspace", "items": [], "children": []},
        "layers": [{"name": "Écran"}, {"name": "Main"}],
    }
    ascii_only = env(LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    ascii_only.pop("PYTHONIOENCODING", None)
    with showctl.Simulator(workspace=workspace) as sim:
        ascii_only["SHOWCTL_MEDIA_URL"] = sim.url
        listed = showctl_cli("layers", environ=ascii_only)
        assert listed.returncode == 0, listed.stderr
        assert "\\xc9cran" in listed.stdout
        muted = showctl_cli("mute", "Écran", environ=ascii_only)
        assert muted.returncode == 0, muted.stderr
        assert sim.requests[-1].path == "/api/0/mute/layer/%C3%89cran"
        missing = showctl_cli("mute", "Écrin", environ=ascii_only)
        assert missing.returncode == 1, missing.stderr
        assert "\\xc9crin" in missing.stderr
