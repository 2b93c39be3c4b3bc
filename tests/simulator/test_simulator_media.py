"""The media client end to end against the simulator: every command's effect is visible through
the read endpoints, sync and async, and the simulator's faults reach the client as typed
errors."""

from __future__ import annotations

import pytest
import showctl


def test_playlists_and_cues(player: showctl.MediaPlayer) -> None:
    root = player.playlists()
    assert [p.name for p in root.children] == ["Opening", "Main Show", "Sports", "Video Input"]
    assert [c.name for c in root.children[0].items] == ["Countdown", "Intro Video", "Welcome Still"]
    assert player.playlist(-1).name == "Video Input"
    assert player.playlist("Highlights").items[0].name == "Goal Replay"
    main_show = root.children[1]
    assert player.playlist(str(main_show.uuid)) == main_show
    assert player.cue("Highlights", 1).name == "Crowd Shot"
    assert player.cue(-1, "NDI Feed").name == "NDI Feed"


def test_layer_flags(player: showctl.MediaPlayer) -> None:
    third = player.layer("Lower Third/Left")
    third.mute()
    third.hide()
    state = third.state()
    assert (state.name, state.is_muted, state.is_hidden) == ("Lower Third/Left", True, True)
    third.unmute()
    third.unhide()
    assert (third.state().is_muted, third.state().is_hidden) == (False, False)
    player.mute()
    player.hide()
    assert all(layer.is_muted and layer.is_hidden for layer in player.layers())
    player.unmute()
    player.unhide()
    assert not any(layer.is_muted or layer.is_hidden for layer in player.layers())


def test_names_are_encoded_once(sim: showctl.Simulator, player: showctl.MediaPlayer) -> None:
    player.layer("Lower Third/Left").mute()
    assert sim.requests[-1].path == "/api/0/mute/layer/Lower%20Third%2FLeft"
    assert player.layers()[2].is_muted


def test_opacity_field_form(sim: showctl.Simulator, player: showctl.MediaPlayer) -> None:
    main = player.layer(1)
    main.set_opacity(0.3)
    # Read back in single precision, as the application keeps it; sent as given.
    assert main.opacity() == 0.30000001192092896
    assert player.layers()[1].opacity == 0.30000001192092896
    assert sim.requests[0].json() == {"value": 0.3}
    with pytest.raises(ValueError, match="value"):
        main.set_opacity(1.5)


def test_trigger_plays_and_transport_moves(player: showctl.MediaPlayer) -> None:
    main = player.layer("Main")
    main.trigger("Opening", "Intro Video")
    state = main.transport_state()
    assert state.is_playing and state.playback_rate == 1.0
    assert state.playing_media is not None and state.playing_media.name == "intro_2024.mp4"
    assert state.playing_item is not None and state.playing_item.name == "Intro Video"
    assert state.layer is not None and state.layer.name == "Main"
    main.pause()
    assert not main.transport_state().is_playing
    main.go_to(10)
    assert main.transport_state().time_elapsed == 10.0
    main.skip(-4)
    assert main.transport_state().time_elapsed == 6.0
    main.go_to(-5)  # from the end
    assert main.transport_state().time_remaining == 5.0
    main.play()
    assert main.transport_state().is_playing
    main.clear()
    cleared = main.transport_state()
    assert cleared.playing_media is None and not cleared.is_playing
    assert cleared.playing_item is not None and cleared.playing_item.name == "Intro Video"


def test_workspace_play_pause_and_transport(player: showctl.MediaPlayer) -> None:
    # Media plays on the targeted layer (as in the field): target each layer first.
    player.layer(0).select(target=True)
    player.layer(0).trigger(1, 0)
    player.layer(3).select(target=True)
    player.layer(3).trigger("Opening", "Welcome Still")
    player.pause()
    states = player.transport_state()
    assert len(states) == 4 and not any(s.is_playing for s in states)
    player.play()
    states = player.transport_state()
    assert [s.is_playing for s in states] == [True, False, False, True]
    assert states[3].playback_rate == 0.0  # a still image plays at rate 0


def test_selection_drives_trigger_cue(sim: showctl.Simulator, player: showctl.MediaPlayer) -> None:
    player.select_playlist("Main Show")
    player.layer("Lower Third/Left").select(target=True)
    assert sim.selection["target"] == 2
    player.trigger_cue(2)
    media = player.layer(2).transport_state().playing_media
    assert media is not None and media.name == "lower_third_speaker.mov"
    player.select_playlist(-1)
    player.layer(0).select()  # selects without retargeting: media still plays on layer 2
    assert sim.selection == {"layer": 0, "target": 2, "playlist": sim.selection["playlist"]}
    player.trigger_playlist(-1)
    media = player.layer(2).transport_state().playing_media
    assert media is not None and media.name == "Camera 1"
    assert player.layer(0).transport_state().playing_media is None
    player.trigger_playlist_cue("Highlights", "Crowd Shot")
    media = player.layer(2).transport_state().playing_media
    assert media is not None and media.name == "crowd.mov"
    # A name is refused, as in the field; a UUID of a cue of the selected playlist fires.
    with pytest.raises(showctl.BadRequestError, match="not a name"):
        player.trigger_cue("Camera 1")
    camera = player.playlist(-1).items[1]
    player.trigger_cue(camera.uuid)
    media = player.layer(2).transport_state().playing_media
    assert media is not None and media.name == camera.name


def test_blend_and_field_fallback(sim: showctl.Simulator, player: showctl.MediaPlayer) -> None:
    assert [m.name for m in player.blend_modes()][:4] == [
        "Normal",
        "Dissolve",
        "Darken",
        "Multiply",
    ]
    layer = player.layer(0)
    layer.set_blend_mode("Multiply")
    assert layer.blend_mode().name == "Multiply"
    # The documented path is not routed (as in 3.8/3.9): the client moves to /layerBlend.
    blend = layer.blend()
    assert (blend.type, blend.mode_index, blend.opacity) == ("Standard", 3, 1.0)
    assert [(r.path, r.status) for r in sim.requests[-2:]] == [
        ("/api/0/blend/layer/0", 404),
        ("/api/0/layerBlend/layer/0", 200),
    ]
    layer.set_blend({"type": "Luma Matte", "base": {"isInverted": True}})
    assert sim.requests[-1].path == "/api/0/layerBlend/layer/0"
    blend = layer.blend()
    assert (blend.type, blend.is_inverted) == ("Luma Matte", True)
    assert sim.requests[-1].path == "/api/0/layerBlend/layer/0"


def test_presets_and_target_sets(sim: showctl.Simulator, player: showctl.MediaPlayer) -> None:
    assert [p.name for p in player.layer_presets()] == [
        "Full Screen",
        "Picture in Picture",
        "Ghost",
    ]
    layer = player.layer("Main")
    assert layer.presets() == []  # what the layer has applied: nothing yet
    layer.apply_preset("Ghost")
    assert [p.name for p in layer.presets()] == ["Ghost"]
    # Kept in single precision, as the application does.
    assert layer.opacity() == 0.3499999940395355 and layer.blend_mode().name == "Screen"
    assert [t.name for t in player.target_sets()] == ["All Screens", "LED Wall", "Projectors"]
    layer.set_target_set("Projectors")
    target = layer.target_set()
    assert target is not None and target.name == "Projectors"
    assert layer.state().target_set_uuid == target.uuid
    layer.set_target_set(None)
    assert sim.requests[-1].body == b""
    assert layer.target_set() is None
    assert layer.state().target_set_uuid is None  # the text "null"


def test_effects_and_presets(player: showctl.MediaPlayer) -> None:
    blur, tint, _ = player.effects()
    layer = player.layer(0)
    layer.set_effect(blur)
    assert [e.name for e in layer.effects()] == ["Gaussian Blur"]
    layer.set_effect({"uuid": blur.uuid, "enabled": False})
    assert layer.effects()[0].enabled is False
    player.set_workspace_effect(tint)
    assert [e.name for e in player.workspace_effects()] == ["Color Tint"]
    assert [p.name for p in player.effect_presets()] == ["Dreamy", "Clean"]
    layer.set_effect_preset("Dreamy")
    preset = layer.effect_preset()
    assert preset is not None and preset.name == "Dreamy"
    assert layer.state().effect_preset_uuid == preset.uuid
    assert [e.name for e in layer.effects()] == ["Gaussian Blur", "Color Tint"]
    layer.set_effect_preset(None)
    assert layer.effect_preset() is None
    assert player.workspace_effect_preset() is None
    player.set_workspace_effect_preset(preset.uuid)
    chosen = player.workspace_effect_preset()
    assert chosen is not None and chosen.name == "Dreamy"


def test_transitions(player: showctl.MediaPlayer) -> None:
    names = [t.name for t in player.transitions()]
    assert names == ["Cut", "Dissolve", "Wipe Left"]
    workspace = player.workspace_transition()
    assert workspace is not None and workspace.name == "Dissolve"
    cut = player.transitions()[0]
    player.set_workspace_transition(cut)
    now = player.workspace_transition()
    assert now is not None and now.name == "Cut"
    player.set_workspace_transition_duration(2.5)
    assert player.workspace_transition_duration() == 2.5
    main = player.layer("Main")
    current = main.transition()
    assert current is not None and current.name == "Dissolve"
    main.set_transition(None)  # back to the master transition
    assert main.transition() is None
    main.set_transition_duration(0.25)
    assert main.transition_duration() == 0.25
    assert main.state().transition_duration == 0.25


def test_request_escape_hatch(sim: showctl.Simulator, player: showctl.MediaPlayer) -> None:
    assert player.request("GET", "/data/layer/0")["layer"]["name"] == "Background"
    assert player.request("POST", "/opacity/layer/0", json={"value": 0.5}) is None
    assert player.request("GET", "/opacity/layer/0") == {"opacity": {"value": 0.5}}
    player.request("POST", "/select/layer/3", params={"target": True})
    assert sim.selection["target"] == 3


def test_errors_are_typed(sim: showctl.Simulator, player: showctl.MediaPlayer) -> None:
    with pytest.raises(showctl.BadRequestError) as err:
        player.layer("Nobody").mute()
    assert err.value.status == 400 and "Nobody" in err.value.body
    with pytest.raises(showctl.NotFoundError):
        player.request("GET", "/no/such/thing")
    with pytest.raises(showctl.MethodNotAllowedError):
        player.request("GET", "/mute/workspace")
    sim.clear_requests()
    with pytest.raises(ValueError):
        player.layer(-1)
    with pytest.raises(ValueError):
        player.playlist(-2)
    assert sim.requests == []
    sim.fail_next(503, times=3)
    with pytest.raises(showctl.ServiceUnavailableError):
        player.layers()  # two retries, three 503s
    # A command on a new connection that the application read and left unanswered is not
    # sent again (on a kept one it would be: docs/reliability.md, "Never read, so sent again").
    sim.drop_next()
    with showctl.MediaPlayer(sim.url) as fresh, pytest.raises(showctl.ConnectError) as dropped:
        fresh.mute()
    assert dropped.value.delivery == "sent_no_answer"


def test_api_key() -> None:
    with showctl.Simulator(api_key="s3cret", strict=True) as sim:
        with showctl.MediaPlayer(sim.url) as anonymous, pytest.raises(showctl.UnauthorizedError):
            anonymous.layers()
        with showctl.MediaPlayer(sim.url, "s3cret") as player:
            player.mute()
            assert player.layers()[0].is_muted
            assert "s3cret" not in repr(player)


async def test_async_twins(sim: showctl.Simulator) -> None:
    async with showctl.MediaPlayer(sim.url) as player:
        main = player.layer("Main")
        await main.trigger_async("Opening", "Countdown")
        await main.set_opacity_async(0.5)
        await player.layer(0).mute_async()
        state = await main.transport_state_async()
        assert state.playing_media is not None and state.playing_media.name == "countdown_10s.mov"
        assert await main.opacity_async() == 0.5
        layers = await player.layers_async()
        assert layers[0].is_muted and not layers[1].is_muted
        root = await player.playlists_async()
        assert root.children[0].name == "Opening"
        await player.set_workspace_transition_duration_async(3.0)
        assert await player.workspace_transition_duration_async() == 3.0
        sim.fail_next(400)
        with pytest.raises(showctl.BadRequestError):
            await player.clear_async()
