"""Every media read and every reply variant: the exact request, then the decoded values, for
the sync method and its ``_async`` twin."""

from __future__ import annotations

from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.mediakit import MODES, assert_sent, expect, invoke

U = "6F9619FF-8B86-D011-B42D-00C04FC9{:04X}".format
LOWER = "Lower Third/Left"


def read(
    server: HTTPServer, base_url: str, mode: str, name: str, target: Any, method: str, *args: Any
) -> Any:
    """Serve recording ``name``, call ``method`` on the player (``target="player"``) or on
    ``player.layer(target)``, and check the request sent."""
    rec = expect(server, name)
    with showctl.MediaPlayer(base_url) as player:
        obj = player if target == "player" else player.layer(target)
        got = invoke(mode, obj, method, *args)
    assert_sent(server, rec)
    return got


pytestmark = pytest.mark.parametrize("mode", MODES)


def test_playlists_tree(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    root = read(httpserver, base_url, mode, "playlists", "player", "playlists")
    assert isinstance(root, showctl.Playlist)
    assert (root.uuid, root.name) == (U(40), "Playlists")
    assert [c.name for c in root.items] == ["Loose cue"]
    video, group = root.children
    assert video.name == "Video Input"
    assert video.items[0] == showctl.Cue.from_dict({"name": "Camera 1", "uuid": U(11)})
    show = group.children[0]
    assert show.name == "Show A/B"
    assert [(c.name, c.uuid) for c in show.items] == [("Intro", U(1)), ("Goal!", U(2))]
    assert [p.name for p in root.walk()] == ["Playlists", "Video Input", "Group", "Show A/B"]
    assert root.find("Show A/B") == show
    assert root.find(U(2).lower()) == show.items[1]
    assert isinstance(root.find("Camera 1"), showctl.Cue)
    assert root.find("nothing") is None
    assert root.to_dict() == expect_body("playlists")["playlist"]


def expect_body(name: str) -> Any:
    from tests.kit.recording import load

    return load(f"media/{name}").body_json


def test_playlist_by_index_and_name(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    video = read(httpserver, base_url, mode, "playlist_video_input", "player", "playlist", -1)
    assert video.name == "Video Input"
    httpserver.clear()
    show = read(httpserver, base_url, mode, "playlist_by_name", "player", "playlist", "Show A/B")
    assert show.uuid == U(20)


def test_cue(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    cue = read(httpserver, base_url, mode, "cue", "player", "cue", "Show A/B", 1)
    assert isinstance(cue, showctl.Cue)
    assert (cue.name, cue.uuid) == ("Goal!", U(2))


def test_layers(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    layers = read(httpserver, base_url, mode, "layers", "player", "layers")
    assert isinstance(layers, showctl.LayerList)
    assert issubclass(showctl.LayerList, list)
    main, lower = layers
    assert isinstance(main, showctl.LayerState)
    assert (main.uuid, main.name, main.is_hidden, main.is_muted) == (U(70), "Main", False, False)
    assert main.opacity == 1.0 and isinstance(main.opacity, float)
    assert main.effect_preset_uuid is None  # the text "null"
    assert main.target_set_uuid == U(80)
    assert main.transition_duration == 1.0
    assert main.transition is not None and main.transition.name == "Dissolve"
    (blur,) = main.effects
    assert (blur.name, blur.enabled) == ("Blur", True)
    amount, tint, direction = blur.variables
    assert amount.type == "Float"
    assert isinstance(amount.base, showctl.FloatBase)
    assert (amount.base.value, amount.base.max_value, amount.base.min_value) == (0.5, 1.0, 0.0)
    assert amount.base.name == "Amount"
    assert isinstance(tint.base, showctl.ColorBase)
    assert (tint.base.name, tint.base.color) == ("Tint", "#FF8800")
    assert direction.base == {"value": "Left"}
    assert main.to_dict()["futureField"] == {"kept": True}
    assert (lower.name, lower.is_hidden, lower.is_muted, lower.opacity) == (LOWER, True, True, 0.5)
    assert lower.target_set_uuid is None
    assert lower.effect_preset_uuid == U(90)
    assert lower.transition is None
    assert "<table>" in layers._repr_html_() and "Lower Third/Left" in layers._repr_html_()


def test_layers_bare_items(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    (lower,) = read(httpserver, base_url, mode, "layers_bare", "player", "layers")
    assert lower.name == LOWER


def test_layer_state(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    main = read(httpserver, base_url, mode, "layer_state", 0, "state")
    assert main.name == "Main"
    httpserver.clear()
    lower = read(httpserver, base_url, mode, "layer_state_by_name", LOWER, "state")
    assert lower.uuid == U(71)


def summary(value: Any) -> Any:
    """A model as ``"Class:name"`` (lists item by item); numbers, text and None as they are."""
    if value is None or isinstance(value, (float, int, str)):
        return value
    if isinstance(value, list):
        return [summary(v) for v in value]
    return f"{type(value).__name__}:{value.name}"


# (recording, "player" or a layer id, method, what it reads as)
VARIANTS: list[tuple[str, Any, str, Any]] = [
    ("opacity_field", 2, "opacity", 0.75),
    ("opacity_document", 2, "opacity", 0.25),
    ("opacity_int", 2, "opacity", 1.0),
    ("blend_modes", "player", "blend_modes", ["BlendMode:Normal", "BlendMode:Add"]),
    ("blend_modes_bare", "player", "blend_modes", ["BlendMode:Normal", "BlendMode:Screen"]),
    ("blend_mode", 2, "blend_mode", "BlendMode:Add"),
    ("layer_presets", "player", "layer_presets", ["LayerPreset:Wide", "LayerPreset:Tight"]),
    ("layer_presets_wrapped", 2, "presets", ["LayerPreset:Tight"]),
    ("target_sets", "player", "target_sets", ["TargetSet:All Screens", "TargetSet:Left"]),
    ("target_set", 2, "target_set", "TargetSet:All Screens"),
    ("target_set_null", 2, "target_set", None),
    ("target_set_null_text", 2, "target_set", None),
    ("target_set_missing", 2, "target_set", None),
    ("target_set_empty", 2, "target_set", None),
    ("effects", "player", "effects", ["Effect:Blur", "Effect:Glow"]),
    ("workspace_effects", "player", "workspace_effects", ["Effect:Glow"]),
    ("layer_effects", 2, "effects", ["Effect:Blur"]),
    ("effect_presets", "player", "effect_presets", ["EffectPreset:Warm", "EffectPreset:Empty"]),
    ("workspace_effect_preset", "player", "workspace_effect_preset", "EffectPreset:Warm"),
    ("workspace_effect_preset_null", "player", "workspace_effect_preset", None),
    ("layer_effect_preset", 2, "effect_preset", "EffectPreset:Warm"),
    ("layer_effect_preset_empty", 2, "effect_preset", None),
    ("transitions", "player", "transitions", ["Transition:Dissolve", "Transition:Cut"]),
    ("transitions_key", "player", "transitions", ["Transition:Cut"]),
    ("workspace_transition", "player", "workspace_transition", "Transition:Dissolve"),
    ("layer_transition", 2, "transition", "Transition:Cut"),
    ("layer_transition_null", 2, "transition", None),
    ("workspace_transition_duration", "player", "workspace_transition_duration", 1.5),
    ("layer_transition_duration", 2, "transition_duration", 2.0),
]


@pytest.mark.parametrize(
    ("name", "target", "method", "expected"), VARIANTS, ids=[v[0] for v in VARIANTS]
)
def test_read_variant(
    httpserver: HTTPServer,
    base_url: str,
    mode: str,
    name: str,
    target: Any,
    method: str,
    expected: Any,
) -> None:
    got = read(httpserver, base_url, mode, name, target, method)
    assert summary(got) == expected
    assert type(summary(got)) is type(expected)


def test_typed_fields_of_the_small_models(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    modes = read(httpserver, base_url, mode, "blend_modes_bare", "player", "blend_modes")
    assert [m.id for m in modes] == [0, 4]
    httpserver.clear()
    presets = read(httpserver, base_url, mode, "layer_presets", "player", "layer_presets")
    assert [p.id for p in presets] == ["P-1", "P-2"]
    httpserver.clear()
    sets = read(httpserver, base_url, mode, "target_sets", "player", "target_sets")
    assert [t.uuid for t in sets] == [U(80), U(81)]
    httpserver.clear()
    (cut,) = read(httpserver, base_url, mode, "transitions_key", "player", "transitions")
    assert (cut.uuid, cut.enabled, cut.variables) == (U(61), True, [])


def test_layer_blend(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    got = read(httpserver, base_url, mode, "blend", 2, "blend")
    assert isinstance(got, showctl.LayerBlend)
    assert (got.type, got.name, got.mode_index, got.opacity) == ("Standard", "Normal", 0, 1.0)
    assert got.is_inverted is None
    assert got.base == {"name": "Normal", "modeIndex": 0, "opacity": 1}


def test_effect_presets(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    warm, empty = read(httpserver, base_url, mode, "effect_presets", "player", "effect_presets")
    assert (warm.uuid, warm.name, [e.name for e in warm.effects]) == (U(90), "Warm", ["Blur"])
    assert (empty.name, empty.effects) == ("Empty", [])


def test_workspace_transport_state(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    playing, empty = read(
        httpserver, base_url, mode, "transport_state", "player", "transport_state"
    )
    assert isinstance(playing, showctl.TransportState)
    assert (playing.time_elapsed, playing.time_remaining, playing.playback_rate) == (
        12.5,
        47.5,
        1.0,
    )
    assert (playing.is_playing, playing.is_scrubbing) == (True, False)
    assert playing.playing_item is not None and playing.playing_item.name == "Intro"
    assert isinstance(playing.playing_media, showctl.Media)
    assert playing.playing_media.name == "intro.mov"
    assert playing.layer is not None and playing.layer.name == "Main"
    assert playing.layer.transition is not None
    assert empty.playing_media is None  # absent when the layer is empty
    assert empty.playing_item is not None and empty.playing_item.name == "Goal!"
    assert empty.is_playing is False
    assert "<table>" in playing._repr_html_()


@pytest.mark.parametrize("name", ["layer_transport_state", "layer_transport_state_array"])
def test_layer_transport_state(httpserver: HTTPServer, base_url: str, mode: str, name: str) -> None:
    got = read(httpserver, base_url, mode, name, 2, "transport_state")
    assert isinstance(got, showctl.TransportState)
    assert got.layer is not None
    if name == "layer_transport_state":
        assert (got.is_playing, got.layer.name) == (True, "Main")
    else:
        assert (got.is_playing, got.playing_media, got.layer.name) == (False, None, LOWER)


def test_request_get(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    rec = expect(httpserver, "request_get")
    with showctl.MediaPlayer(base_url) as player:
        got = invoke(
            mode,
            player,
            "request",
            "GET",
            "/data/layer/Lower Third",
            params={"verbose": True, "n": 2},
        )
    assert got == rec.body_json
    assert_sent(httpserver, rec)


def test_unknown_layer_is_a_bad_request(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    rec = expect(httpserver, "unknown_layer")
    with showctl.MediaPlayer(base_url) as player, pytest.raises(showctl.BadRequestError) as err:
        invoke(mode, player.layer(9), "state")
    assert err.value.status == 400
    assert err.value.url is not None and err.value.url.endswith("/api/0/data/layer/9")
    assert_sent(httpserver, rec)


def test_a_page_where_json_is_expected_is_a_decode_error(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    rec = expect(httpserver, "not_json")
    with showctl.MediaPlayer(base_url) as player, pytest.raises(showctl.DecodeError) as err:
        invoke(mode, player.layer(2), "opacity")
    assert "<title>Error</title>" in err.value.body
    assert_sent(httpserver, rec)


def test_closed_client_sends_nothing(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    player = showctl.MediaPlayer(base_url)
    layer = player.layer(0)
    player.close()
    assert player.closed
    with pytest.raises(showctl.ClientClosedError):
        invoke(mode, layer, "mute")
    assert httpserver.log == []
