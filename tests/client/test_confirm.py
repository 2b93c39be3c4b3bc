"""confirm=True: the command, then reads back until the change shows (five reads over about
half a second); NotConfirmedError with what was expected and what was read when it never does.
From recordings (a change that lands late, one that never lands, a single-precision value, a
residual playingItem), then against the simulator."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit import fakeserver
from tests.kit.mediakit import MODES, invoke
from tests.kit.recording import load, sent, serve

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
    rec(httpserver, "set_opacity_small")
    rec(httpserver, "opacity_old", times=2)
    # 0.0099999997764825821: the application keeps 0.01 in single precision.
    rec(httpserver, "opacity_new")
    layer = showctl.MediaPlayer(base_url).layer("Main")
    assert invoke(mode, layer, "set_opacity", 0.01, confirm=True) is None
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


def test_confirm_timeout_sets_how_long_the_value_is_read_back(
    httpserver: HTTPServer, base_url: str
) -> None:
    rec(httpserver, "set_opacity")
    rec(httpserver, "opacity_old")
    layer = showctl.MediaPlayer(base_url, confirm_timeout=0.2).layer("Main")
    started = time.monotonic()
    with pytest.raises(showctl.NotConfirmedError, match=r"\(5 reads over 0\.2 s\)"):
        layer.set_opacity(0.5, confirm=True)
    assert time.monotonic() - started >= 0.2
    assert paths(httpserver).count("GET /api/0/opacity/layer/Main") == READS
    with pytest.raises(ValueError, match=r"confirm_timeout: must be a number of seconds"):
        showctl.MediaPlayer(base_url, confirm_timeout=-1.0)
    with pytest.raises(TypeError):
        showctl.Scoreboard(base_url, confirm_timeout=0.2)  # type: ignore[call-arg]


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


def showing(ts: showctl.TransportState) -> str | None:
    """What a layer shows, as NotConfirmedError reports it."""
    if ts.playing_media is None:
        return None
    item = ts.playing_item
    return item.name or item.uuid if item is not None else ts.playing_media.name


def test_every_confirmable_command_that_never_lands_raises_with_what_was_read() -> None:
    """Each confirmable command, sent to an application that accepts it and never applies it:
    NotConfirmedError, whose `expected` is what was asked and whose `actual` is what the
    application shows (read independently, before)."""
    with showctl.Simulator() as sim, showctl.MediaPlayer(sim.url) as direct:
        # In front of the simulator: reads are forwarded, commands answered 200 and dropped.
        deaf = fakeserver.FakeServer(fakeserver.serve(fakeserver.forward(sim.url, commands=False)))
        deaf.__enter__()
        try:
            # Read back over 0.05 s, not the default 0.5 s: each of the 22 cases fails.
            player = showctl.MediaPlayer(deaf.url, confirm_timeout=0.05)
            main, real = player.layer("Main"), direct.layer("Main")
            current = real.transition()
            assert current is not None
            transition = next(t for t in direct.transitions() if t.uuid != current.uuid)
            modes = [m.name for m in direct.blend_modes()]
            other_mode = next(m for m in modes if m != real.blend_mode().name)
            was_target = real.target_set()
            assert was_target is not None
            target = next(t for t in direct.target_sets() if t.uuid != was_target.uuid)
            preset = direct.effect_presets()[0]
            assert real.effect_preset() is None and direct.workspace_effect_preset() is None
            ws_transition = direct.workspace_transition()
            assert ws_transition is not None
            ws_other = next(t for t in direct.transitions() if t.uuid != ws_transition.uuid)
            real.hide()
            real.mute()
            # Untargeted media plays on the layer selected with target=True (as in the
            # application): Background for this cue, then Main is the target again.
            direct.layer("Background").select(target=True)
            direct.layer("Background").trigger("Opening", "Intro Video")
            direct.layer("Main").select(target=True)
            layers = direct.layers()

            def each(read: Callable[[showctl.LayerState], object]) -> dict[str, object]:
                return {str(x.name): read(x) for x in layers}

            shows = {ts.layer.name: showing(ts) for ts in direct.transport_state() if ts.layer}
            assert shows["Background"] == "Intro Video"
            blend = real.blend()
            background = player.layer("Background")
            named = (target.name, target.uuid), (preset.name, preset.uuid)
            # (object, command, arguments, expected, actual); a pair of names for `expected`:
            # either the name or the UUID given is what was asked.
            cases: list[tuple[object, str, tuple[object, ...], object, object]] = [
                (main, "set_opacity", (0.25,), 0.25, real.opacity()),
                (main, "unmute", (), False, True),
                (main, "unhide", (), False, True),
                (background, "mute", (), True, False),
                (background, "hide", (), True, False),
                (main, "set_blend_mode", (other_mode,), other_mode, real.blend_mode().name),
                (
                    main,
                    "set_blend",
                    ({"type": "Luma Matte", "base": {"isInverted": True}},),
                    {"type": "Luma Matte", "base": {"isInverted": True}},
                    {"type": blend.type, "base": blend.base},
                ),
                (main, "set_target_set", (target,), named[0], was_target.name),
                (main, "set_effect_preset", (preset,), named[1], None),
                (main, "set_transition", (transition,), transition.uuid, current.name),
                (main, "set_transition", (None,), None, current.name),
                (main, "set_transition_duration", (3.5,), 3.5, real.transition_duration()),
                (main, "trigger", ("Opening", "Intro Video"), "Intro Video", None),
                (background, "clear", (), None, "Intro Video"),
                (player, "trigger_playlist_cue", ("Highlights", 1), "cue", shows),
                (player, "trigger_playlist", ("Main Show",), "cue", shows),
                (player, "mute", (), True, each(lambda x: x.is_muted)),
                (player, "unhide", (), False, each(lambda x: x.is_hidden)),
                (player, "clear", (), None, shows),
                (
                    player,
                    "set_workspace_transition",
                    (ws_other,),
                    ws_other.uuid,
                    ws_transition.name,
                ),
                (
                    player,
                    "set_workspace_transition_duration",
                    (4.5,),
                    4.5,
                    direct.workspace_transition_duration(),
                ),
                (player, "set_workspace_effect_preset", (preset,), named[1], None),
            ]
            for obj, name, args, expected, actual in cases:
                with pytest.raises(showctl.NotConfirmedError) as info:
                    getattr(obj, name)(*args, confirm=True)
                err = info.value
                label = (name, args, err.expected, err.actual)
                if isinstance(expected, tuple):
                    assert err.expected in expected, label
                elif expected == "cue":  # the playlist's cue, read from the playlist
                    assert isinstance(err.expected, str) and err.expected not in shows.values()
                else:
                    assert err.expected == expected, label
                assert err.actual == actual, label
                assert err.method == "POST", label
                assert "read back" in str(err), label
            # Nothing ever reached the application through the deaf proxy.
            assert main.opacity() == real.opacity() != 0.25
        finally:
            deaf.stop()


def test_a_trigger_the_application_plays_on_another_layer_says_where() -> None:
    """In the field the layer of /trigger/layer/... is ignored: an untargeted cue plays on the
    targeted layer. confirm=True on another layer raises, and the message names the layer
    where the cue plays instead."""
    with showctl.Simulator(strict=True) as sim, showctl.MediaPlayer(sim.url) as player:
        player.layer("Background").select(target=True)
        was = showing(player.layer("Main").transport_state())
        with pytest.raises(showctl.NotConfirmedError) as info:
            player.layer("Main").trigger("Opening", "Intro Video", confirm=True)
        assert (info.value.expected, info.value.actual) == ("Intro Video", was)
        assert 'plays on layer "Background" instead' in str(info.value), str(info.value)
        # On the layer where it lands, the same trigger is confirmed.
        player.layer("Background").trigger("Opening", "Intro Video", confirm=True)
