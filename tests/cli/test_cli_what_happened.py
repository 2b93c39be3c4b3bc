"""What the command line says is what happened: a trigger names the layer the cue plays on,
`--max-body` works, a wrong scheme gets one hint, a 401 says whether a key was sent,
`--count` counts printed lines, `--json` in both places, a busy feed port, a copied /api/0
prefix, whole option help, nameless teams and short paths in the venue views."""

from __future__ import annotations

import builtins
import io
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import showctl
from showctl import _core
from showctl._reports import EndpointResult, ProbeReport
from showctl._venue import SLOWEST_WIDTH, SourceReport, simulate_venue
from showctl.cli.parser import build_parser
from showctl.cli.status import score_lines

from tests.kit.clikit import at, cli_in_process, env, lines_json, one_error_line, showctl_cli, start
from tests.kit.fakeserver import FakeServer, Seen, close_at_once, forward, serve, stall
from tests.kit.netkit import free_port

EXAMPLE_VENUE = Path(__file__).parents[2] / "examples" / "venue.toml"


def plays(sim: showctl.Simulator, layer: str) -> str | None:
    with showctl.MediaPlayer(sim.url) as player:
        media = player.layer(layer).transport_state().playing_media
    return None if media is None else media.name


# 1. trigger: the cue lands on the layer asked for, and the message names where it plays.


def test_trigger_on_a_layer_targets_it_and_says_where_the_cue_plays(
    sim: showctl.Simulator,
) -> None:
    # "Main" is the targeted layer at start: without targeting first the cue played there.
    done = at(sim, "trigger", "Main Show", "Keynote Loop", "--layer", "Background")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "ok: triggered cue 'Keynote Loop' of playlist 'Main Show': it plays on layer "
        "0 (Background), now the targeted layer\n"
    )
    assert plays(sim, "Background") == "keynote_loop.mov" and plays(sim, "Main") is None
    posts = [(r.path, r.query) for r in sim.requests if r.method == "POST"]
    assert posts == [
        ("/api/0/select/layer/Background", {"target": "true"}),
        ("/api/0/trigger/layer/Background/playlist/Main%20Show/cue/Keynote%20Loop", {}),
    ]
    # Untargeted media now plays on Background too, as the message said.
    done = at(sim, "--json", "trigger", "Opening", "0")
    assert done.returncode == 0, done.stderr
    [line] = lines_json(done.stdout)
    assert line["ok"] is True and line["layer"] is None
    assert [(p["index"], p["name"]) for p in line["plays_on"]] == [(0, "Background")]
    text = at(sim, "trigger", "Opening", "Intro Video").stdout
    assert text == (
        "ok: triggered cue 'Intro Video' of playlist 'Opening': it plays on layer 0 (Background)\n"
    )


def test_a_cue_with_its_own_layer_is_reported_where_it_plays_and_fails(
    sim: showctl.Simulator,
) -> None:
    # "Speaker Lower Third" is configured to play on "Lower Third/Left".
    done = at(sim, "trigger", "Main Show", "2", "--layer", "Main")
    assert done.returncode == 1
    assert done.stdout == ""
    assert one_error_line(done) == (
        "showctl: triggered cue '2' (Speaker Lower Third) of playlist 'Main Show', but it "
        "plays on layer 2 (Lower Third/Left), not on layer 'Main': the cue has its own layer "
        "in the application, which wins over the targeted one"
    )
    assert plays(sim, "Lower Third/Left") == "lower_third_speaker.mov"
    as_json = at(sim, "trigger", "Main Show", "2", "--layer", "Main", "--json")
    assert as_json.returncode == 1
    [line] = lines_json(as_json.stdout)
    assert line["ok"] is False and line["plays_on"][0]["name"] == "Lower Third/Left"


def test_trigger_waits_for_an_application_that_applies_it_late() -> None:
    # The application applies a command a moment after its 200; here 0.8 s, later than the
    # client's default read-back of half a second.
    with showctl.Simulator(apply_delay=0.8) as sim:
        done = at(sim, "trigger", "Opening", "1", "--layer", "Background")
        assert done.returncode == 0, done.stderr
        assert "it plays on layer 0 (Background)" in done.stdout


def test_an_unknown_cue_fires_nothing(sim: showctl.Simulator) -> None:
    done = at(sim, "trigger", "Opening", "Nope", "--layer", "Main")
    assert done.returncode == 1
    assert 'no cue "Nope"' in one_error_line(done)
    assert [r.method for r in sim.requests] == ["GET"], "nothing was fired"


def test_the_cue_sheet_reports_where_each_cue_plays(sim: showctl.Simulator, tmp_path: Path) -> None:
    sheet = tmp_path / "show.csv"
    sheet.write_text(
        "at,action,layer,playlist,cue\n"
        "0,trigger,Background,Main Show,Keynote Loop\n"
        "0,trigger,Main,Main Show,Speaker Lower Third\n"
        "0,trigger,,Opening,Countdown\n"
    )
    result = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).parents[2] / "examples" / "cue_sheet.py"),
            str(sheet),
            "--url",
            sim.url,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env(),
    )
    assert result.returncode == 1, result.stdout + result.stderr
    lines = [line.split("  ", 2)[-1] for line in result.stdout.splitlines()]
    assert lines == [
        "ok    trigger 'Main Show'/'Keynote Loop' on 'Background': plays on layer 0 (Background)",
        "FAIL  trigger 'Main Show'/'Speaker Lower Third' on 'Main': plays on layer "
        "2 (Lower Third/Left), not on 'Main' (the cue has its own layer in the application)",
        "ok    trigger 'Opening'/'Countdown' on the workspace: plays on layer 1 (Main)",
    ]
    assert plays(sim, "Background") == "keynote_loop.mov"


# 1b. What `trigger` and `opacity --fade` say is about the command: a read before it that fails
# says it was not sent (within the command's deadline); a read after it was answered never
# turns it into a failure. Against scripted servers that count what they received.


def posts(server: FakeServer) -> list[str]:
    return [line for line in server.lines() if line.startswith("POST")]


def test_a_failed_read_before_the_trigger_says_the_trigger_was_not_sent() -> None:
    with FakeServer(close_at_once()) as server:
        done = showctl_cli("--json", "trigger", "Opening", "Countdown", "--url", server.url)
        assert done.returncode == 1
        [error] = lines_json(done.stderr)  # one JSON object, nothing else
        assert error["delivery"] == "not_sent" and error["type"] == "ConnectError"
        assert error["error"].startswith("reading the cue failed, so the trigger was not sent: ")
        assert error["error"].endswith("; not sent: safe to run again")
        assert "may have acted" not in error["error"]
        assert posts(server) == [] and server.connections == 3  # the read, tried 3 times
        text = showctl_cli("trigger", "Opening", "0", "--layer", "Main", "--url", server.url)
        assert one_error_line(text).startswith(
            "showctl: reading the cue failed, so the trigger was not sent: GET "
        )
        assert posts(server) == []


def test_a_refused_connection_before_the_trigger_still_says_the_trigger_was_not_sent() -> None:
    done = showctl_cli("trigger", "Opening", "0", "--url", f"127.0.0.1:{free_port()}")
    assert done.returncode == 1
    assert one_error_line(done).startswith(
        "showctl: reading the cue failed, so the trigger was not sent: cannot connect to "
    )


def test_a_stalled_read_before_the_trigger_ends_at_the_timeout_with_nothing_sent() -> None:
    with FakeServer(stall()) as server:
        began = time.monotonic()
        done = showctl_cli(
            "--json", "trigger", "Opening", "0", "--url", server.url, "--timeout", "1"
        )
        took = time.monotonic() - began
        assert done.returncode == 1
        [error] = lines_json(done.stderr)
        assert error["type"] == "Timeout" and error["delivery"] == "not_sent"
        assert error["error"] == (
            "reading the cue took longer than 1 s (the timeout), so the trigger was not sent; "
            "not sent: safe to run again"
        )
        assert posts(server) == []
    # One deadline for what comes before the trigger: the read's three attempts of 1 s each
    # (retries=2) would take 3 s and more.
    assert took < 2.9, took


def test_a_failed_select_before_the_trigger_says_the_trigger_was_not_sent(
    sim: showctl.Simulator,
) -> None:
    def answer(seen: Seen) -> tuple[int, bytes]:
        if "/select/layer/" in seen.target:
            return 503, b""
        return forward(sim.url)(seen)

    with FakeServer(serve(answer)) as server:
        done = showctl_cli("trigger", "Opening", "0", "--layer", "Main", "--url", server.url)
        line = one_error_line(done)
        assert done.returncode == 1
        assert line.startswith(
            "showctl: targeting the layer failed, so the trigger was not sent: 503 "
        )
        assert line.endswith("retry later; not sent: safe to run again")
        assert [p.split()[1].split("?")[0] for p in posts(server)] == ["/api/0/select/layer/Main"]


def failing_after_the_trigger(sim: showctl.Simulator, reads_that_work: int) -> FakeServer:
    """A server in front of `sim` whose transport reads after the trigger's POST answer 503,
    once `reads_that_work` of them have been answered."""
    state = {"triggered": False, "reads": 0}

    def answer(seen: Seen) -> tuple[int, bytes]:
        if seen.method == "POST" and "/trigger/" in seen.target:
            state["triggered"] = True
        elif state["triggered"] and "/transportState/" in seen.target:
            state["reads"] += 1
            if state["reads"] > reads_that_work:
                return 503, b""
        return forward(sim.url)(seen)

    return FakeServer(serve(answer))


def test_a_failed_read_after_an_answered_trigger_is_a_warning_not_a_failure(
    sim: showctl.Simulator,
) -> None:
    # The read-back sees the cue playing, then the read of where it plays gets 503s.
    with failing_after_the_trigger(sim, reads_that_work=1) as server:
        done = showctl_cli("trigger", "Opening", "Countdown", "--url", server.url)
        assert done.returncode == 0, done.stderr
        assert done.stdout == (
            "ok: triggered cue 'Countdown' of playlist 'Opening': the read-back saw it playing\n"
        )
        [warning] = done.stderr.splitlines()
        assert warning.startswith(
            "showctl: warning: where it plays could not be read afterwards: 503 Service "
            "Unavailable for GET "
        )
        assert len(posts(server)) == 1
    assert plays(sim, "Main") == "countdown_10s.mov"
    with failing_after_the_trigger(sim, reads_that_work=1) as server:
        done = showctl_cli("--json", "trigger", "Opening", "1", "--layer", "0", "--url", server.url)
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""
        [line] = lines_json(done.stdout)
        assert line["ok"] is True and line["plays_on"] is None
        assert line["read_back_error"].startswith("where it plays could not be read afterwards")
        assert [p.split()[1] for p in posts(server)] == [
            "/api/0/select/layer/0?target=true",
            "/api/0/trigger/layer/0/playlist/Opening/cue/1",
        ]


def test_a_trigger_answered_with_no_read_back_at_all_is_still_a_success(
    sim: showctl.Simulator,
) -> None:
    with failing_after_the_trigger(sim, reads_that_work=0) as server:
        done = showctl_cli("trigger", "Opening", "Countdown", "--url", server.url)
        assert done.returncode == 0, done.stderr
        assert done.stdout == (
            "ok: triggered cue 'Countdown' of playlist 'Opening': the trigger was answered 200\n"
        )
        [warning] = done.stderr.splitlines()
        assert warning.startswith("showctl: warning: whether it plays could not be read back: ")
        assert len(posts(server)) == 1


def test_a_fade_whose_first_read_fails_says_no_step_was_sent() -> None:
    with FakeServer(close_at_once()) as server:
        done = showctl_cli(
            "--json", "opacity", "0", "0.5", "--fade", "1", "--url", server.url, "--retries", "0"
        )
        assert done.returncode == 1
        [error] = lines_json(done.stderr)
        assert error["delivery"] == "not_sent"
        assert error["error"].startswith(
            "reading the opacity to fade from failed, so no step of the fade was sent: GET "
        )
        assert posts(server) == [] and server.connections == 1


# 2. --max-body, and the exceptions the options' documentation names.


def test_max_body_is_an_int_on_the_command_line(sim: showctl.Simulator) -> None:
    small = at(sim, "layers", "--max-body", "100")
    assert small.returncode == 1
    assert "larger than max_body (100 bytes)" in one_error_line(small)
    assert at(sim, "layers", "--max-body", "1000000").returncode == 0
    bad = at(sim, "layers", "--max-body", "lots")
    assert bad.returncode == 2 and "--max-body: invalid int value" in one_error_line(bad)
    zero = at(sim, "layers", "--max-body", "0")
    assert zero.returncode == 2 and "--max-body: must be a positive number" in one_error_line(zero)


def test_every_exception_the_options_name_exists() -> None:
    stub = (Path(showctl.__file__).parent / "_core.pyi").read_text(encoding="utf-8")
    docs = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    texts = [o["doc"] for o in _core._client_options()] + [stub, docs]
    named = {n for text in texts for n in re.findall(r"`(\w+Error)`", text)}
    assert "DecodeError" in named
    # `UsageError` is the CLI's own refusal (the "type" of a --json error line), not an
    # exception of the package.
    named.discard("UsageError")
    assert sorted(n for n in named if not hasattr(showctl, n) and not hasattr(builtins, n)) == []
    assert "ResponseTooLargeError" not in showctl_cli("layers", "--help").stdout


# 4. https:// against a plain-HTTP port: one hint.


def test_https_against_a_plain_http_port_says_use_http(sim: showctl.Simulator) -> None:
    url = f"https://127.0.0.1:{sim.port}"
    hint = f"the application speaks plain HTTP: use http://127.0.0.1:{sim.port}"
    with pytest.raises(showctl.ConnectError) as info:
        showctl.MediaPlayer(url, retries=0).layers()
    assert hint in str(info.value) and "corrupt" not in str(info.value)
    line = one_error_line(showctl_cli("layers", "--url", url, "--retries", "0"))
    assert hint in line and "corrupt" not in line
    probe = showctl_cli("probe", url)
    assert probe.returncode == 1
    assert [x for x in probe.stdout.splitlines() if x.startswith("problem: ")] == [
        f"problem: {hint}"
    ]
    assert "  speaks       http" in probe.stdout.splitlines()


# 5. a 401 from Python says whether a key was sent, and how to give one.


def test_a_401_from_python_says_whether_a_key_was_sent() -> None:
    with showctl.Simulator(api_key="k3y") as sim:
        with pytest.raises(showctl.UnauthorizedError) as none:
            showctl.MediaPlayer(sim.url).layers()
        assert 'no API key was sent; pass api_key="KEY" or set SHOWCTL_API_KEY' in str(none.value)
        with pytest.raises(showctl.UnauthorizedError) as wrong:
            showctl.Scoreboard(sim.url, "nope").scores()
        text = str(wrong.value)
        assert "the API key sent was refused" in text and "SHOWCTL_API_KEY" in text
        assert "nope" not in text
        # The command line says it once, in its own syntax, with where the key came from.
        line = one_error_line(showctl_cli("layers", "--url", sim.url))
        assert line.count("no API key was sent") == 1 and "--api-key KEY" in line
        line = one_error_line(showctl_cli("layers", "--url", sim.url, "--api-key", "nope"))
        assert line.count("refused") == 1 and "the API key from --api-key was refused" in line


# 7. transport --watch --count counts the lines printed.


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_transport_watch_count_counts_printed_lines_on_an_idle_workspace(
    sim: showctl.Simulator, json_flag: list[str]
) -> None:
    done = at(sim, "transport", "--watch", "--count", "1", "--interval", "0.05", *json_flag)
    assert done.returncode == 0, done.stderr
    if json_flag:
        [line] = lines_json(done.stdout)
        assert line["kind"] == "current" and line["layer_index"] == 0
    else:
        header, row = done.stdout.splitlines()
        assert header.split()[:2] == ["LAYER", "NAME"] and row.split()[:2] == ["0", "Background"]
    three = at(sim, "transport", "--watch", "--count", "3", "--json")
    assert [x["layer_index"] for x in lines_json(three.stdout)] == [0, 1, 2]


# 8. --json before or after every command, or refused.


def commands() -> dict[str, list[str]]:
    """Every command with the arguments it needs to parse."""
    needs = {
        "trigger": ["P", "C"],
        "opacity": ["L"],
        "request": ["GET", "/data/layers"],
        "record": ["DIR"],
        "status": ["--venue", "v.toml"],
        "run": ["show.toml"],
        "look": ["save", "look.json"],
    }
    parser = build_parser()
    [sub] = [a for a in parser._actions if a.dest == "command"]
    assert isinstance(sub.choices, dict)
    return {name: needs.get(name, []) for name in sub.choices}


def test_json_means_the_same_before_and_after_every_command() -> None:
    for name, needs in commands().items():
        before = build_parser().parse_args(["--json", name, *needs])
        after = build_parser().parse_args([name, *needs, "--json"])
        neither = build_parser().parse_args([name, *needs])
        assert (before.json, after.json, neither.json) == (True, True, False), name


def test_a_command_without_a_json_form_refuses_it() -> None:
    for argv in (["--json", "demo"], ["demo", "--json"]):
        done = showctl_cli(*argv)
        assert done.returncode == 2 and done.stdout == ""
        # With --json the refusal is one JSON object on stderr, like every error.
        (line,) = done.stderr.splitlines()
        error = json.loads(line)
        assert error["error"].startswith("error: --json: demo has no JSON form"), error
        assert error["type"] == "UsageError" and error["delivery"] == "not_sent"


def test_simulate_json_before_the_command() -> None:
    proc = start("--json", "simulate")
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first["url"].startswith("http://127.0.0.1:")
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_status_json_in_both_places(tmp_path: Path) -> None:
    with simulate_venue(EXAMPLE_VENUE) as venue:
        path = venue.write(tmp_path / "venue.toml")
        for argv in (["--json", "status", "--venue", path], ["status", "--venue", path]):
            code, out, err = cli_in_process(*argv, "--once", "--json")
            assert code == 0, err
            [snapshot] = lines_json(out)
            assert snapshot["ok"] is True and len(snapshot["sources"]) == 10
            court = next(s for s in snapshot["sources"] if s["name"] == "court1")
            assert court["kind"] == "scoreboard" and court["stale"] is False
            assert court["data"]["sportMode"] == court["lines"][0].split(":")[0]
            main = next(s for s in snapshot["sources"] if s["name"] == "main")
            assert isinstance(main["data"], list) and "layer" in main["data"][0]


# 13. feed on a busy port: exit 1, as simulate.


def test_feed_on_a_busy_port_exits_1_like_simulate(sim: showctl.Simulator) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = str(busy.getsockname()[1])
        feed = showctl_cli("feed", "--media", sim.url, "--port", port)
        simulate = showctl_cli("simulate", "--port", port)
    assert feed.returncode == simulate.returncode == 1
    assert one_error_line(feed).startswith(f"showctl: port: cannot listen on 127.0.0.1:{port}")


# 14. request with the /api/0 prefix copied in.


def test_request_with_the_api_prefix_is_not_doubled(sim: showctl.Simulator) -> None:
    done = at(sim, "request", "GET", "/api/0/data/layers")
    assert done.returncode == 0, done.stderr
    assert [r.path for r in sim.requests] == ["/api/0/data/layers"]
    assert at(sim, "request", "GET", "api/0/opacity/layer/0").returncode == 0
    assert sim.requests[-1].path == "/api/0/opacity/layer/0"


# 16. --insecure's help says what it turns off.


def test_insecure_help_says_what_is_turned_off() -> None:
    text = " ".join(showctl_cli("layers", "--help").stdout.split())
    help = text.split("--insecure ", 1)[1].split(" --ca-cert", 1)[0]
    assert help.startswith("check the application's certificate (HTTPS); --insecure turns the")
    assert "accepts any certificate" in help


# 19. nameless basketball teams in the status view.


def test_status_names_nameless_teams_by_their_number() -> None:
    with showctl.Simulator() as sim, showctl.Scoreboard(sim.url) as board:
        record = board.scores()
        assert [t.name for t in record.view().teams] == [None, None]
        assert score_lines(record) == ["Basketball: Team 1 48 - Team 2 51 (period 2)"]
    # A named team keeps its name; a blank one is nameless too.
    teams = [SimpleNamespace(name="Lakers", score=48), SimpleNamespace(name=" ", score=51)]
    view = SimpleNamespace(sport="Basketball", teams=teams, period=None)
    named = SimpleNamespace(view=lambda: view, sport_mode="Basketball")
    assert score_lines(named) == ["Basketball: Lakers 48 - Team 2 51"]


def test_status_once_gives_each_source_its_timeout_after_the_clients_are_built(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from showctl.cli import status

    path = tmp_path / "venue.toml"
    path.write_text(
        f'[sources.a]\nkind = "scoreboard"\nurl = "127.0.0.1:{free_port()}"\ntimeout = 0.5\n'
    )
    build = status._client

    def slow(spec: dict[str, Any]) -> Any:  # building clients can take longer than a timeout
        time.sleep(1.0)
        return build(spec)

    monkeypatch.setattr(status, "_client", slow)
    out = io.StringIO()
    assert status.run(path, once=True, out=out) == 1
    assert "error: GET http://127.0.0.1:" in out.getvalue(), out.getvalue()


# 20. probe --venue: the slowest read fits its column.


def report_with_slowest(path: str) -> ProbeReport:
    read = EndpointResult(path=path, status=200, seconds=0.0123, variant=None, error=None)
    fields: dict[str, Any] = dict(
        url="http://h:1/api/0",
        app="media",
        reachable=True,
        rtt=0.001,
        scheme="http",
        doc_port=False,
        tls=None,
        auth="not_needed",
        endpoints=(read,),
        layers=1,
        playlists=1,
        cues=1,
        slowest=read,
        ok=True,
        problems=(),
    )
    return ProbeReport(**fields)


def slowest(path: str) -> str:
    """The "slowest read" cell of a source whose slowest read is `path`."""
    report = report_with_slowest(path)
    source = SourceReport("main", "media", report, None, 0.1, pinned=False, verify=True)
    return source.row()["slowest"]


def test_probe_venue_shortens_the_slowest_read() -> None:
    uuid = "3A7CFB36-6088-455F-8763-54B65ED08D6B"
    path = f"/data/playlist/{uuid}/cue/{uuid.lower()}"
    assert slowest(path) == "/data/playlist/3A7CFB36.../cue/3a7cfb36... 12 ms"
    long = slowest("/x" * 60)
    assert len(long.rsplit(" ", 2)[0]) == SLOWEST_WIDTH and "..." in long
    assert slowest("/data/layers") == "/data/layers 12 ms"
