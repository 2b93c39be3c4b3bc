"""Bad input is refused with ValueError naming the argument, before anything is sent (sync
and async alike)."""

from __future__ import annotations

import math
from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.mediakit import MODES, invoke

# (argument named in the message, "player" or a layer id, method, args)
CASES: list[tuple[str, Any, str, tuple[Any, ...]]] = [
    ("id", "player", "playlist", (-2,)),
    ("id", "player", "playlist", ("",)),
    ("id", "player", "playlist", (False,)),
    ("id", "player", "playlist", ("-7",)),
    ("playlist_id", "player", "cue", (-2, 0)),
    ("cue_id", "player", "cue", (0, -1)),
    ("cue_id", "player", "cue", (0, True)),
    ("id", "player", "select_playlist", (-2,)),
    ("id", "player", "trigger_cue", (-1,)),
    ("id", "player", "trigger_playlist", ("",)),
    ("playlist_id", "player", "trigger_playlist_cue", (-5, 0)),
    ("cue_id", "player", "trigger_playlist_cue", (0, "")),
    ("playlist_id", 0, "trigger", (-2, 0)),
    ("cue_id", 0, "trigger", (0, -1)),
    ("cue_id", 0, "trigger", (0, True)),
    ("value", 0, "set_opacity", (1.5,)),
    ("value", 0, "set_opacity", (-0.1,)),
    ("value", 0, "set_opacity", (math.nan,)),
    ("value", 0, "set_opacity", (math.inf,)),
    ("value", 0, "set_opacity", (True,)),
    ("value", 0, "set_opacity", (10**400,)),
    ("seconds", 0, "set_transition_duration", (5.5,)),
    ("seconds", 0, "set_transition_duration", (-1,)),
    ("seconds", 0, "set_transition_duration", (math.nan,)),
    ("seconds", 0, "set_transition_duration", (False,)),
    ("seconds", "player", "set_workspace_transition_duration", (6,)),
    ("seconds", "player", "set_workspace_transition_duration", (-math.inf,)),
    ("seconds", 0, "go_to", (math.nan,)),
    ("seconds", 0, "go_to", (math.inf,)),
    ("seconds", 0, "go_to", (True,)),
    ("seconds", 0, "skip", (-math.inf,)),
    ("name", 0, "set_blend_mode", ("",)),
    ("name", 0, "apply_preset", ("",)),
    ("name_or_none", 0, "set_target_set", ("",)),
    ("name_or_none", 0, "set_effect_preset", ("",)),
    ("transition_or_none", 0, "set_transition", ("",)),
    ("transition", "player", "set_workspace_transition", ("",)),
    ("uuid_or_none", "player", "set_workspace_effect_preset", ("",)),
    ("effect", 0, "set_effect", ({"name": "no uuid"},)),
    ("effect", 0, "set_effect", ({"uuid": "U", "enable": True},)),
    ("effect", "player", "set_workspace_effect", ({"uuid": "U", "enabled": "yes"},)),
    ("blend", 0, "set_blend", ({"type": "Multiply"},)),
    ("blend", 0, "set_blend", ({"type": "Standard", "base": {"modeIndex": 0, "opacity": 2}},)),
    ("blend", 0, "set_blend", ({"type": "Standard", "base": {"opacity": 1}},)),
    ("blend", 0, "set_blend", ({"type": "Alpha Matte", "base": {"isInverted": "no"}},)),
    ("blend", 0, "set_blend", ({"type": "White Matte", "base": {"isInverted": True}},)),
    ("method", "player", "request", ("DELETE", "/data/layers")),
    ("path", "player", "request", ("GET", "/data/layers?x=1")),
    ("path", "player", "request", ("GET", "http://elsewhere/api/0/data/layers")),
    ("path", "player", "request", ("GET", "/data/../../admin")),
    ("json", "player", "request", ("POST", "/x", {"value": math.nan})),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("arg", "target", "method", "args"), CASES, ids=[f"{c[2]}{c[3]!r}" for c in CASES]
)
def test_refused_before_sending(
    httpserver: HTTPServer,
    base_url: str,
    mode: str,
    arg: str,
    target: Any,
    method: str,
    args: tuple[Any, ...],
) -> None:
    with showctl.MediaPlayer(base_url) as player:
        obj = player if target == "player" else player.layer(target)
        with pytest.raises(ValueError, match=rf"^{arg}\b"):
            invoke(mode, obj, method, *args)
    assert httpserver.log == []


@pytest.mark.parametrize("bad", [-1, "", True, "-1", ".."])
def test_layer_handle_refuses_bad_ids(base_url: str, bad: Any) -> None:
    player = showctl.MediaPlayer(base_url)
    with pytest.raises(ValueError, match=r"^id\b"):
        player.layer(bad)


@pytest.mark.parametrize("mode", MODES)
def test_wrong_types_are_type_errors(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    with showctl.MediaPlayer(base_url) as player:
        for target, method, args in [
            (player, "playlist", (1.5,)),
            (player.layer(0), "set_opacity", ("0.5",)),
            (player.layer(0), "set_effect", (["uuid"],)),
            (player.layer(0), "set_blend", ("Standard",)),
            (player.layer(0), "set_blend_mode", (3,)),
            (player, "request", ("GET", "/x", None, {"a": [1]})),
        ]:
            with pytest.raises(TypeError):
                invoke(mode, target, method, *args)
    assert httpserver.log == []


def test_no_url_is_a_clear_value_error() -> None:
    with pytest.raises(ValueError, match="SHOWCTL_MEDIA_URL"):
        showctl.MediaPlayer()


def test_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOWCTL_MEDIA_URL", "10.0.0.5:4000")
    monkeypatch.setenv("SHOWCTL_API_KEY", "s3cret-key")
    player = showctl.MediaPlayer()
    assert player.url == "http://10.0.0.5:4000/api/0"
    assert repr(player) == "MediaPlayer(url='http://10.0.0.5:4000/api/0')"
    assert "s3cret" not in repr(player) + repr(player.layer("Main"))
