"""confirm=True: the command, then reads back until the change shows (five reads over about
half a second); NotConfirmedError with what was expected and what was read when it never does.
From recordings (a change that lands late, one that never lands, a rounded value, a residual
playingItem), then against the simulator."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import showctl
from mediakit import MODES, invoke
from pytest_httpserver import HTTPServer
from recording import load, sent, serve

READS = 5
# Five reads over half a second, then the error: generous bound for a loaded machine.
BOUND = 0.5 + 3.0


def rec(server: HTTPServer, name: str, times: int | None = None) -> None:
    serve(server, load(f"automation/{name}"), times=times)


def paths(server: HTTPServer) -> list[str]:
    return [f"{r.method} {r.path}" for r in sent(server)]


@pytest.mark.parametrize("mode", MODES)
def test_a_change_that_lands_late_is_confirmed(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    rec(httpserver, "set_opacity")
    rec(httpserver, "opacity_old", times=2)
    rec(httpserver, "opacity_new")  # 0.498...: the application rounds to 1/255
    layer = showctl.MediaPlayer(base_url).layer("Main")
    assert invoke(mode, layer, "set_opacity", 0.5, confirm=True) is None
    assert (
        paths(httpserver)
        == ["POST /api/0/opacity/layer/Main"] + ["GET /api/0/opacity/layer/Main"] * 3
    )


@pytest.mark.parametrize("mode", MODES)
def test_a_change_that_never_lands_raises(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    rec(httpserver, "set_opacity")
    rec(httpserver, "opacity_old")
    layer = showctl.MediaPlayer(base_url).layer("Main")
    started = time.monotonic()
    with pytest.raises(showctl.NotConfirmedError) as info:
        invoke(mode, layer, "set_opacity", 0.5, confirm=True)
    assert time.monotonic() - started < BOUND
    err = info.value
    assert isinstance(err, showctl.ShowctlError)
    assert (err.expected, err.actual) == (0.5, 0.3)
    assert err.method == "POST" and err.url == f"{base_url}/api/0/opacity/layer/Main"
    assert 'the opacity of layer "Main" read back 0.3, not 0.5' in str(err)
    assert paths(httpserver).count("GET /api/0/opacity/layer/Main") == READS


def test_without_confirm_nothing_is_read(httpserver: HTTPServer, base_url: str) -> None:
    rec(httpserver, "set_opacity")
    showctl.MediaPlayer(base_url).layer("Main").set_opacity(0.5)
    assert paths(httpserver) == ["POST /api/0/opacity/layer/Main"]


@pytest.mark.parametrize("mode", MODES)
def test_mute_read_back_from_the_layer_state(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    rec(httpserver, "mute")
    rec(httpserver, "layer_unmuted", times=1)
    rec(httpserver, "layer_muted")
    invoke(mode, showctl.MediaPlayer(base_url).layer("Main"), "mute", confirm=True)
    assert paths(httpserver)[-1] == "GET /api/0/data/layer/Main"


def test_unmute_not_confirmed(httpserver: HTTPServer, base_url: str) -> None:
    rec(httpserver, "layer_muted")
    httpserver.expect_request("/api/0/unmute/layer/Main", method="POST").respond_with_data("")
    with pytest.raises(showctl.NotConfirmedError) as info:
        showctl.MediaPlayer(base_url).layer("Main").unmute(confirm=True)
    assert (info.value.expected, info.value.actual) == (False, True)


@pytest.mark.parametrize("mode", MODES)
def test_a_trigger_is_confirmed_by_what_plays(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    rec(httpserver, "trigger")
    rec(httpserver, "cue")
    rec(httpserver, "main_residual", times=1)
    rec(httpserver, "main_playing")
    layer = showctl.MediaPlayer(base_url).layer("Main")
    invoke(mode, layer, "trigger", "Show", 3, confirm=True)
    assert "GET /api/0/data/playlist/Show/cue/3" in paths(httpserver)


def test_a_residual_playing_item_is_no_confirmation(httpserver: HTTPServer, base_url: str) -> None:
    """playingItem names the cue, but playingMedia is absent: nothing plays."""
    rec(httpserver, "trigger")
    rec(httpserver, "cue")
    rec(httpserver, "main_residual")
    with pytest.raises(showctl.NotConfirmedError) as info:
        showctl.MediaPlayer(base_url).layer("Main").trigger("Show", 3, confirm=True)
    assert (info.value.expected, info.value.actual) == ("Goal!", None)
    assert "the cue playing on layer" in str(info.value)


def test_a_failed_command_is_raised_as_it_is(httpserver: HTTPServer, base_url: str) -> None:
    httpserver.expect_request("/api/0/opacity/layer/Main").respond_with_data("no", status=400)
    with pytest.raises(showctl.BadRequestError):
        showctl.MediaPlayer(base_url).layer("Main").set_opacity(0.5, confirm=True)
    assert len(sent(httpserver)) == 1


def test_reads_that_fail_are_reported(httpserver: HTTPServer, base_url: str) -> None:
    rec(httpserver, "set_opacity")
    httpserver.expect_request("/api/0/opacity/layer/Main", method="GET").respond_with_data(
        "busy", status=503
    )
    player = showctl.MediaPlayer(base_url, retries=0)
    with pytest.raises(showctl.NotConfirmedError) as info:
        player.layer("Main").set_opacity(0.5, confirm=True)
    assert info.value.actual is None
    assert "could not be read back: 503" in str(info.value)


def test_refusals_come_before_anything_is_sent(httpserver: HTTPServer, base_url: str) -> None:
    layer = showctl.MediaPlayer(base_url).layer("Main")
    with pytest.raises(ValueError, match=r"value:"):
        layer.set_opacity(1.5, confirm=True)
    with pytest.raises(TypeError):
        layer.mute(True)  # type: ignore[misc]
    assert sent(httpserver) == []


# ---------------------------------------------------------------------------------------------
# Against the simulator: every confirmable command lands, so each is confirmed.
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def player() -> Iterator[showctl.MediaPlayer]:
    with showctl.Simulator(strict=True) as sim, showctl.MediaPlayer(sim.url) as p:
        yield p


@pytest.mark.parametrize("mode", MODES)
def test_every_confirmable_command_on_the_simulator(player: showctl.MediaPlayer, mode: str) -> None:
    main = player.layer("Main")
    transition = player.transitions()[-1]
    mode_name = player.blend_modes()[1].name
    preset = player.effect_presets()[0]
    target = player.target_sets()[0]
    for obj, name, args in [
        (main, "set_opacity", (0.25,)),
        (main, "mute", ()),
        (main, "unmute", ()),
        (main, "hide", ()),
        (main, "unhide", ()),
        (main, "set_blend_mode", (mode_name,)),
        (main, "set_blend", ({"type": "Luma Matte", "base": {"isInverted": True}},)),
        (main, "set_target_set", (target,)),
        (main, "set_target_set", (None,)),
        (main, "set_effect_preset", (preset,)),
        (main, "set_effect_preset", (None,)),
        (main, "set_transition", (transition,)),
        (main, "set_transition", (None,)),
        (main, "set_transition_duration", (2.5,)),
        (main, "trigger", ("Opening", "Intro Video")),
        (main, "clear", ()),
        (player, "trigger_playlist_cue", ("Highlights", 1)),
        (player, "trigger_playlist", ("Main Show",)),
        (player, "mute", ()),
        (player, "unmute", ()),
        (player, "hide", ()),
        (player, "unhide", ()),
        (player, "clear", ()),
        (player, "set_workspace_transition", (transition,)),
        (player, "set_workspace_transition_duration", (0.5,)),
        (player, "set_workspace_effect_preset", (preset,)),
        (player, "set_workspace_effect_preset", (None,)),
    ]:
        invoke(mode, obj, name, *args, confirm=True)
    assert main.opacity() == 0.25
    assert main.transition_duration() == 2.5
    assert all(t.playing_media is None for t in player.transport_state())
