"""Every media command: the exact request (method, encoded path, query, body) for the sync
method and its ``_async`` twin, and ``None`` back from the empty 200."""

from __future__ import annotations

from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.mediakit import MODES, assert_sent, expect, invoke

LOWER = "Lower Third/Left"
U = "6F9619FF-8B86-D011-B42D-00C04FC9{:04X}".format

# (recording, "player" or a layer id, method, args, kwargs)
CASES: list[tuple[str, Any, str, tuple[Any, ...], dict[str, Any]]] = [
    *[(f"{op}_workspace", "player", op, (), {}) for op in ["clear", "mute", "unmute"]],
    *[(f"{op}_workspace", "player", op, (), {}) for op in ["hide", "unhide"]],
    *[(f"{op}_layer", 2, op, (), {}) for op in ["clear", "mute", "unmute", "hide", "unhide"]],
    ("play_workspace", "player", "play", (), {}),
    ("pause_workspace", "player", "pause", (), {}),
    ("play_layer", LOWER, "play", (), {}),
    ("pause_layer", LOWER, "pause", (), {}),
    ("go_to_start", 2, "go_to", (12.5,), {}),
    ("go_to_end", 2, "go_to", (-3,), {}),
    ("go_to_very_end", 2, "go_to", (-0.0,), {}),
    ("skip_forwards", 2, "skip", (5,), {}),
    ("skip_backwards", 2, "skip", (-2.5,), {}),
    ("select_layer", 2, "select", (), {}),
    ("select_layer_target", 2, "select", (), {"target": True}),
    ("select_playlist", "player", "select_playlist", (1,), {}),
    ("trigger_cue", "player", "trigger_cue", (3,), {}),
    ("trigger_playlist", "player", "trigger_playlist", ("Show A/B",), {}),
    ("trigger_playlist_cue", "player", "trigger_playlist_cue", (-1, U(11)), {}),
    ("trigger_layer", 2, "trigger", ("Show A/B", "Goal!"), {}),
    ("set_opacity", 2, "set_opacity", (0.25,), {}),
    ("set_blend_mode", 2, "set_blend_mode", ("Add",), {}),
    ("set_blend", 2, "set_blend", ({"type": "Luma Matte", "base": {"isInverted": True}},), {}),
    ("apply_preset", 2, "apply_preset", ("Tight",), {}),
    ("set_target_set", 2, "set_target_set", ("All Screens",), {}),
    ("set_target_set_none", 2, "set_target_set", (None,), {}),
    (
        "set_workspace_effect",
        "player",
        "set_workspace_effect",
        ({"uuid": U(51), "enabled": True},),
        {},
    ),
    ("set_workspace_effect_preset", "player", "set_workspace_effect_preset", (U(90),), {}),
    ("set_workspace_effect_preset_none", "player", "set_workspace_effect_preset", (None,), {}),
    ("set_layer_effect_preset", 2, "set_effect_preset", ("Warm",), {}),
    ("set_layer_effect_preset_none", 2, "set_effect_preset", (None,), {}),
    ("set_workspace_transition", "player", "set_workspace_transition", (U(60),), {}),
    ("set_layer_transition", 2, "set_transition", (U(61),), {}),
    ("set_layer_transition_none", 2, "set_transition", (None,), {}),
    ("set_workspace_transition_duration", "player", "set_workspace_transition_duration", (5,), {}),
    ("set_layer_transition_duration", 2, "set_transition_duration", (0.5,), {}),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("name", "target", "method", "args", "kwargs"), CASES, ids=[c[0] for c in CASES]
)
def test_command(
    httpserver: HTTPServer,
    base_url: str,
    mode: str,
    name: str,
    target: Any,
    method: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    rec = expect(httpserver, name)
    with showctl.MediaPlayer(base_url) as player:
        obj = player if target == "player" else player.layer(target)
        assert invoke(mode, obj, method, *args, **kwargs) is None
    assert_sent(httpserver, rec)


@pytest.mark.parametrize("mode", MODES)
def test_commands_take_the_models_they_read(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    """An Effect, BlendMode, LayerPreset, TargetSet, EffectPreset, Transition and LayerBlend
    read from the application can be sent back as they are."""
    for name in ["effects", "blend_modes", "layer_presets_wrapped", "target_sets"]:
        expect(httpserver, name)
    for name in ["effect_presets", "transitions", "blend"]:
        expect(httpserver, name)
    with showctl.MediaPlayer(base_url) as player:
        layer = player.layer(2)
        effect = invoke(mode, player, "effects")[1]
        blend_mode = invoke(mode, player, "blend_modes")[1]
        preset = invoke(mode, layer, "presets")[0]
        target_set = invoke(mode, player, "target_sets")[0]
        effect_preset = invoke(mode, player, "effect_presets")[0]
        transition = invoke(mode, player, "transitions")[0]
        blend = invoke(mode, layer, "blend")
        httpserver.clear()
        writes = ["set_layer_effect", "set_blend_mode", "apply_preset", "set_target_set"]
        writes += ["set_layer_effect_preset", "set_workspace_transition", "set_blend_standard"]
        recs = [expect(httpserver, name) for name in writes]
        invoke(mode, layer, "set_effect", effect)
        invoke(mode, layer, "set_blend_mode", blend_mode)
        invoke(mode, layer, "apply_preset", preset)
        invoke(mode, layer, "set_target_set", target_set)
        invoke(mode, layer, "set_effect_preset", effect_preset)
        invoke(mode, player, "set_workspace_transition", transition)
        invoke(mode, layer, "set_blend", blend)
    assert_sent(httpserver, *recs)


@pytest.mark.parametrize("mode", MODES)
def test_layer_blend_falls_back_to_the_field_path(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    """/blend/layer answered 405: the same body goes to /layerBlend/layer, and the client
    keeps using it (reads included)."""
    first = expect(httpserver, "set_blend_405")
    field = expect(httpserver, "set_layer_blend_field")
    read = expect(httpserver, "layer_blend_field")
    with showctl.MediaPlayer(base_url) as player:
        layer = player.layer(2)
        invoke(mode, layer, "set_blend", {"type": "White Matte"})
        invoke(mode, layer, "set_blend", {"type": "White Matte", "base": {}})
        blend = invoke(mode, player.layer(2), "blend")
    assert blend.type == "Alpha Matte"
    assert blend.is_inverted is False
    assert_sent(httpserver, first, field, field, read)


@pytest.mark.parametrize("mode", MODES)
def test_layer_blend_read_falls_back_on_404(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    first = expect(httpserver, "blend_404")
    field = expect(httpserver, "layer_blend_field")
    with showctl.MediaPlayer(base_url) as player:
        blend = invoke(mode, player.layer(2), "blend")
        again = invoke(mode, player.layer(2), "blend")
    assert blend == again
    assert blend.to_dict() == {"type": "Alpha Matte", "base": {"isInverted": False}}
    assert_sent(httpserver, first, field, field)


@pytest.mark.parametrize("mode", MODES)
def test_request_post(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    rec = expect(httpserver, "request_post")
    with showctl.MediaPlayer(base_url) as player:
        got = invoke(mode, player, "request", "post", "opacity/layer/2", json={"value": 0.5})
    assert got is None
    assert_sent(httpserver, rec)
