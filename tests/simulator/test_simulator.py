"""The simulator on its own: HTTP behaviour (plain urllib), the scoreboard client against it,
fault injection, the request log, the key check and the Python surface."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import showctl

from tests.kit.wait import until


def call(
    sim: showctl.Simulator,
    method: str,
    path: str,
    body: Any = None,
    *,
    key: str | None = None,
    raw: bytes | None = None,
) -> tuple[int, bytes]:
    """One request with the standard library; returns (status, body)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(f"{sim.url}/api/0{path}", data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if key is not None:
        req.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def get(sim: showctl.Simulator, path: str) -> Any:
    status, body = call(sim, "GET", path)
    assert status == 200, body
    return json.loads(body)


def test_url_port_and_repr() -> None:
    sim = showctl.Simulator(api_key="k3y", strict=True)
    assert not sim.running
    with pytest.raises(RuntimeError, match="not running"):
        _ = sim.url
    assert "running=False" in repr(sim)
    with sim:
        assert sim.running
        assert sim.url == f"http://127.0.0.1:{sim.port}"
        assert sim.port > 0
        assert repr(sim) == f"Simulator(url='{sim.url}')"
        assert "k3y" not in repr(sim)
        assert sim.api_key == "k3y"
    assert not sim.running
    sim.stop()  # idempotent


def test_commands_change_what_reads_answer(sim: showctl.Simulator) -> None:
    assert call(sim, "POST", "/mute/layer/Main") == (200, b"")
    assert call(sim, "POST", "/opacity/layer/0", {"value": 0.4}) == (200, b"")
    assert get(sim, "/data/layer/1")["layer"]["isMuted"] is True
    # Kept in single precision, as the application does.
    assert get(sim, "/opacity/layer/0") == {"opacity": {"value": 0.4000000059604645}}
    assert call(sim, "POST", "/select/layer/Lower%20Third%2FLeft?target=true")[0] == 200
    assert call(sim, "POST", "/trigger/playlist/0/cue/Intro%20Video")[0] == 200
    state = get(sim, "/transportState/layer/Lower%20Third%2FLeft")["transportState"]
    assert state["isPlaying"] is True
    assert state["playingMedia"]["name"] == "intro_2024.mp4"
    assert state["layer"]["name"] == "Lower Third/Left"


def test_playlist_tree_and_identifier_rule(sim: showctl.Simulator) -> None:
    root = get(sim, "/data/playlists")["playlist"]
    names = [p["name"] for p in root["children"]]
    assert names == ["Opening", "Main Show", "Sports", "Video Input"]
    opening = root["children"][0]
    assert [set(c) for c in opening["items"]] == [{"name", "uuid"}] * 3
    video = get(sim, "/data/playlist/-1")["playlist"]
    assert video["name"] == "Video Input"
    assert get(sim, f"/data/playlist/{video['uuid']}")["playlist"] == video
    assert get(sim, "/data/playlist/1")["playlist"]["name"] == "Main Show"
    cue = get(sim, "/data/playlist/Highlights/cue/1")
    assert cue["playlistItem"]["name"] == "Crowd Shot"
    assert set(cue["playlistItem"]) == {"name", "uuid"}


def test_field_status_codes(sim: showctl.Simulator) -> None:
    assert call(sim, "GET", "/no/such/path")[0] == 404
    assert call(sim, "GET", "/mute/workspace")[0] == 405
    status, body = call(sim, "POST", "/mute/layer/Nobody")
    assert status == 400 and b"Nobody" in body
    assert call(sim, "POST", "/opacity/layer/0", raw=b"{not json")[0] == 400
    assert call(sim, "POST", "/opacity/layer/0", {"value": "high"})[0] == 400
    assert call(sim, "GET", "/data/layer/-1")[0] == 400


def test_api_key(sim: showctl.Simulator) -> None:
    with showctl.Simulator(api_key="s3cret", strict=True) as locked:
        assert call(locked, "GET", "/data/layers")[0] == 401
        assert call(locked, "GET", "/data/layers", key="wrong")[0] == 401
        assert call(locked, "GET", "/data/layers", key="s3cret")[0] == 200
        with showctl.Scoreboard(locked.url, "s3cret") as board:
            assert board.scores().sport_mode == "Basketball"
        with showctl.Scoreboard(locked.url) as board, pytest.raises(showctl.UnauthorizedError):
            board.scores()
        assert all("authorization" not in r.headers for r in locked.requests)


def test_request_log(sim: showctl.Simulator) -> None:
    call(sim, "POST", "/select/layer/2?target=true")
    call(sim, "POST", "/effectsPreset/layer/0", {"value": "Dreamy"})
    call(sim, "GET", "/nope")
    first, second, third = sim.requests
    assert (first.method, first.path) == ("POST", "/api/0/select/layer/2")
    assert first.query == {"target": "true"}
    assert first.json() is None and first.body == b""
    assert second.json() == {"value": "Dreamy"}
    assert second.headers["content-type"] == "application/json"
    assert [r.status for r in sim.requests] == [200, 200, 404]
    assert third.status == 404
    assert (sim.selection["layer"], sim.selection["target"]) == (2, 2)
    assert "POST" in repr(first) and "/api/0/select/layer/2?target=true" in repr(first)
    assert first == sim.requests[0]
    sim.clear_requests()
    assert sim.requests == []


def test_fail_next_and_retries(sim: showctl.Simulator) -> None:
    sim.fail_next(503, times=2)
    with showctl.Scoreboard(sim.url, retries=0) as board:
        with pytest.raises(showctl.ServiceUnavailableError) as err:
            board.scores()
        assert err.value.status == 503
    # The client retries a GET on 503: the second failure is absorbed.
    with showctl.Scoreboard(sim.url, retries=2) as board:
        assert board.scores().sport_mode == "Basketball"
    assert [r.status for r in sim.requests] == [503, 503, 200]
    sim.fail_next(500, times=3)
    sim.fail_next(500, times=0)  # cancels
    assert call(sim, "GET", "/data/scores")[0] == 200


def test_drop_next_is_a_connect_error(sim: showctl.Simulator) -> None:
    sim.drop_next()
    with showctl.Scoreboard(sim.url, retries=0) as board:
        with pytest.raises(showctl.ConnectError):
            board.scores()
        assert board.scores().sport_mode == "Basketball"
    assert [r.status for r in sim.requests] == [None, 200]


def test_delay_ends_in_timeout_within_bounds(sim: showctl.Simulator) -> None:
    sim.delay(3.0)
    with showctl.Scoreboard(sim.url, timeout=0.3, retries=0) as board:
        started = time.monotonic()
        with pytest.raises(showctl.Timeout):
            board.scores()
        assert time.monotonic() - started < 2.0
    sim.delay(0)
    with showctl.Scoreboard(sim.url) as board:
        board.scores()


def test_many_threads_at_once(sim: showctl.Simulator) -> None:
    failures: list[BaseException] = []

    def work(layer: int) -> None:
        try:
            for i in range(25):
                op = "mute" if i % 2 == 0 else "unmute"
                assert call(sim, "POST", f"/{op}/layer/{layer}")[0] == 200
                assert get(sim, f"/data/layer/{layer}")["layer"]["isMuted"] is (op == "mute")
        except BaseException as e:
            failures.append(e)

    threads = [threading.Thread(target=work, args=(n % 4,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failures == []
    assert len(sim.requests) == 4 * 25 * 2
    assert all(r.status == 200 for r in sim.requests)


def test_stop_while_delayed_is_prompt() -> None:
    sim = showctl.Simulator(strict=True).start()
    sim.delay(30)

    errors: list[BaseException] = []

    def poll() -> None:
        try:
            with showctl.Scoreboard(sim.url, timeout=20, retries=0) as board:
                board.scores()
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=poll)
    t.start()
    until(lambda: sim.requests, "the poll to reach the simulator")
    started = time.monotonic()
    sim.stop()
    t.join(10)
    assert time.monotonic() - started < 5
    assert len(errors) == 1 and isinstance(errors[0], showctl.ConnectError)


def test_watch_follows_set_score(sim: showctl.Simulator) -> None:
    with showctl.Scoreboard(sim.url) as board:
        watch = board.watch(interval=0.05)
        first = next(watch)
        assert isinstance(first, showctl.BasketballScore)
        sim.set_score("team1Score", 50)
        changed = next(watch)
        assert isinstance(changed, showctl.BasketballScore)
        assert changed.team1_score == "50"  # sent as text, as the application does
        sim.set_sport("Tennis")
        tennis = next(watch)
        assert isinstance(tennis, showctl.TennisScore)
        assert tennis.team1_set_scores == [" "] * 9


async def test_async_watch_and_async_with() -> None:
    async with showctl.Simulator(strict=True) as sim:
        async with showctl.Scoreboard(sim.url) as board:
            it = board.watch_async(interval=0.05)
            first = await it.__anext__()
            sim.set_score("period", "3")
            second = await it.__anext__()
            assert first.get("period") == "2" and second.get("period") == "3"
    assert not sim.running


CLASSES = {
    "AustralianFootball": showctl.AustralianFootballScore,
    "Baseball": showctl.BaseballScore,
    "Basketball": showctl.BasketballScore,
    "Football": showctl.FootballScore,
    "Hockey": showctl.HockeyScore,
    "Lacrosse": showctl.LacrosseScore,
    "Soccer": showctl.SoccerScore,
    "Tennis": showctl.TennisScore,
    "Volleyball": showctl.VolleyballScore,
    "Custom": showctl.CustomScore,
}


@pytest.mark.parametrize("mode", sorted(CLASSES))
def test_every_sport_mode(sim: showctl.Simulator, mode: str) -> None:
    sim.set_sport(mode)
    with showctl.Scoreboard(sim.url) as board:
        rec = board.scores()
    assert type(rec) is CLASSES[mode]
    assert rec.sport_mode == mode and rec.uuid and rec.version == "1"


def test_custom_game_fields(sim: showctl.Simulator) -> None:
    sim.set_sport("Custom")
    sim.set_score("game1.team2Goals", 4)
    with showctl.Scoreboard(sim.url) as board:
        rec = board.scores()
    assert isinstance(rec, showctl.CustomScore)
    assert rec.games[0]["team2Goals"] == "4"


def test_workspace_file_and_dict(tmp_path: Path) -> None:
    ws = {
        "layers": [{"name": "Only"}],
        "playlists": {"name": "Root", "children": [{"name": "P", "items": [{"name": "C"}]}]},
        "scoreboard": {"sport": "Soccer"},
    }
    path = tmp_path / "show.json"
    path.write_text(json.dumps(ws))
    for source in (path, str(path), ws):
        with showctl.Simulator(workspace=source, strict=True) as sim:
            assert [d["layer"]["name"] for d in get(sim, "/data/layers")["data"]] == ["Only"]
            assert get(sim, "/data/scores")["sportMode"] == "Soccer"
            assert call(sim, "POST", "/trigger/playlist/P")[0] == 200


def test_bad_workspace(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="workspace"):
        showctl.Simulator(workspace=tmp_path / "missing.json", strict=True)
    bad = tmp_path / "bad.json"
    bad.write_text('{"layers": [{"name": "A", "blendMode": "Sepia"}]}')
    with pytest.raises(ValueError, match=r"layers\[0\]\.blendMode"):
        showctl.Simulator(workspace=bad, strict=True)
    bad.write_text("{")
    with pytest.raises(ValueError, match=r"bad\.json"):
        showctl.Simulator(workspace=bad, strict=True)
    with pytest.raises(TypeError, match="workspace"):
        showctl.Simulator(workspace=42, strict=True)  # type: ignore[arg-type]


def test_bad_arguments(sim: showctl.Simulator) -> None:
    with pytest.raises(ValueError, match="port"):
        showctl.Simulator(port=70000, strict=True)
    with pytest.raises(ValueError, match="api_key"):
        showctl.Simulator(api_key="a\r\nb", strict=True)
    with pytest.raises(ValueError, match="status"):
        sim.fail_next(200)
    with pytest.raises(ValueError, match="times"):
        sim.fail_next(500, -1)
    with pytest.raises(ValueError, match="seconds"):
        sim.delay(float("nan"))
    with pytest.raises(ValueError, match="times"):
        sim.drop_next(-1)
    with pytest.raises(ValueError, match="Basketball"):
        sim.set_sport("Curling")
    with pytest.raises(ValueError, match="set_sport"):
        sim.set_score("sportMode", "Hockey")
    assert sim.requests == []


def test_port_in_use(sim: showctl.Simulator) -> None:
    with pytest.raises(OSError, match="cannot listen"):
        showctl.Simulator(port=sim.port, strict=True).start()


def test_restart_and_reset(sim: showctl.Simulator) -> None:
    call(sim, "POST", "/hide/layer/0")
    sim.stop()
    sim.start()
    assert get(sim, "/data/layer/0")["layer"]["isHidden"] is True
    sim.reset()
    assert get(sim, "/data/layer/0")["layer"]["isHidden"] is False
    assert len(sim.requests) == 1
