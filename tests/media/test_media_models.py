"""The media models as Python objects: attributes, ==, repr, pickling, to_dict/from_dict,
the playlist tree helpers and the HTML views."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
import showctl

from tests.kit.recording import load

PLAYLIST: dict[str, Any] = load("media/playlists").body_json["playlist"]
LAYER: dict[str, Any] = load("media/layer_state").body_json["layer"]
TRANSPORT: dict[str, Any] = load("media/layer_transport_state").body_json["transportState"]

MODELS: list[tuple[type[Any], dict[str, Any]]] = [
    (showctl.Playlist, PLAYLIST),
    (showctl.Cue, {"name": "Intro", "uuid": "C1", "extra": [1, 2]}),
    (showctl.Media, {"name": "clip.mov", "uuid": "M1"}),
    (showctl.LayerState, LAYER),
    (showctl.Effect, LAYER["effects"][0]["effect"]),
    (showctl.Variable, {"type": "Int", "base": {"value": 3}}),
    (showctl.FloatBase, {"value": 1, "max_value": 2, "min_value": 0, "name": "x"}),
    (showctl.ColorBase, {"name": "Tint", "color": "#000000"}),
    (showctl.EffectPreset, {"uuid": "EP", "name": "Warm", "effects": None}),
    (showctl.Transition, LAYER["transition"]),
    (showctl.BlendMode, {"name": "Add", "id": 1}),
    (showctl.LayerBlend, {"type": "Luma Matte", "base": {"isInverted": True}}),
    (showctl.LayerPreset, {"id": "P", "name": "Wide"}),
    (showctl.TargetSet, {"name": "All", "uuid": "null"}),
    (showctl.TransportState, TRANSPORT),
]


@pytest.mark.parametrize(("cls", "data"), MODELS, ids=[m[0].__name__ for m in MODELS])
def test_model_protocol(cls: type[Any], data: dict[str, Any]) -> None:
    model = cls.from_dict(data)
    assert model.to_dict() == data
    assert model.to_dict() is not model.to_dict()
    with pytest.raises(ValueError, match=r'^mode: must be "wire" .* got "json"$'):
        model.to_dict(mode="json")
    assert type(model).__module__ == "showctl._core"
    again = pickle.loads(pickle.dumps(model))
    assert type(again) is cls and again == model and again is not model
    assert copy.deepcopy(model) == model
    assert model != cls.from_dict({**data, "zzz": 1})
    assert model != data
    assert repr(model).startswith(f"{cls.__name__}(")
    with pytest.raises(AttributeError):
        model.name = "changed"
    # Hashable, consistently with ==: an equal model (keys in another order, or unpickled)
    # hashes the same; sets and dict keys work.
    shuffled = cls.from_dict(dict(reversed(list(data.items()))))
    assert shuffled == model and hash(shuffled) == hash(model) == hash(again)
    other = cls.from_dict({**data, "zzz": 1})
    assert hash(other) != hash(model)
    assert {model, again, shuffled, other} == {model, other}
    assert {model: 1}[again] == 1


def test_repr_is_dataclass_like() -> None:
    cue = showctl.Cue.from_dict({"name": "It's", "uuid": "null"})
    assert repr(cue) == 'Cue(uuid=None, name="It\'s")'
    blend = showctl.LayerBlend.from_dict(
        {"type": "Standard", "base": {"modeIndex": 2, "opacity": 1}}
    )
    assert repr(blend) == (
        "LayerBlend(type='Standard', base={'modeIndex': 2, 'opacity': 1}, name=None, "
        "mode_index=2, opacity=1.0, is_inverted=None)"
    )


def test_null_text_and_json_null_in_uuid_fields() -> None:
    for value in ["null", None]:
        layer = showctl.LayerState.from_dict(
            {"uuid": value, "effectPresetUUID": value, "targetSetUUID": value}
        )
        assert (layer.uuid, layer.effect_preset_uuid, layer.target_set_uuid) == (None, None, None)
    assert showctl.Cue.from_dict({"name": "null"}).name == "null"


def test_lenient_fields() -> None:
    layer = showctl.LayerState.from_dict(
        {"opacity": {"value": 1}, "isMuted": "true", "transitionDuration": "2.5", "effects": None}
    )
    assert layer.opacity == 1.0 and isinstance(layer.opacity, float)
    assert layer.is_muted is True
    assert layer.transition_duration == 2.5
    assert layer.effects == []
    assert layer.name is None and layer.transition is None


def test_from_dict_refuses_non_objects() -> None:
    with pytest.raises(ValueError, match=r"^data"):
        showctl.Cue.from_dict([1, 2])  # type: ignore[arg-type]


def test_variable_bases() -> None:
    var = showctl.Variable.from_dict(
        {"type": "Color", "base": {"name": "Tint", "color": "#FF0000"}}
    )
    assert isinstance(var.base, showctl.ColorBase) and var.base.color == "#FF0000"
    var = showctl.Variable.from_dict({"type": "Double", "base": {"value": 0.5}})
    assert var.base == {"value": 0.5}
    assert showctl.Variable.from_dict({"type": "Float"}).base is None


def test_playlist_find_and_walk() -> None:
    root = showctl.Playlist.from_dict(PLAYLIST)
    walked = list(root.walk())
    assert [p.name for p in walked] == ["Playlists", "Video Input", "Group", "Show A/B"]
    assert all(isinstance(p, showctl.Playlist) for p in walked)
    group = root.find("Group")
    assert isinstance(group, showctl.Playlist) and group.children[0].name == "Show A/B"
    cue = root.find("6f9619ff-8b86-d011-b42d-00c04fc90002")
    assert isinstance(cue, showctl.Cue) and cue.name == "Goal!"
    assert root.find("Playlists") == root
    assert root.find("Loose cue") == root.items[0]
    assert root.find("") is None


def test_html_views() -> None:
    root = showctl.Playlist.from_dict(
        {"name": "<root>", "items": [{"name": "a & b"}], "children": [{"name": "kid"}]}
    )
    html = root._repr_html_()
    assert "&lt;root&gt;" in html and "a &amp; b" in html and "<b>kid</b>" in html
    layer = showctl.LayerState.from_dict(LAYER)
    assert "<table>" in layer._repr_html_() and "Dissolve" in layer._repr_html_()
    state = showctl.TransportState.from_dict(TRANSPORT)
    assert "intro.mov" in state._repr_html_()
    layers = showctl.LayerList([layer])
    assert layers == [layer] and "Main" in layers._repr_html_()


def test_a_real_shows_tree_is_drawn_collapsed_capped_and_with_identifiers() -> None:
    """100 playlists of 100 cues: every playlist listed, closed, with its count and UUID; cues
    with their index and UUID up to the caps, the rest counted; tens of kilobytes, not 180."""
    from showctl import _html

    def uuid(p: int, c: int) -> str:
        return f"{p:04X}{c:04X}-0000-4000-8000-000000000000"

    tree = showctl.Playlist.from_dict(
        {
            "name": "Root",
            "uuid": uuid(0xFFFF, 0),
            "items": [],
            "children": [
                {
                    "name": f"Act {p}",
                    "uuid": uuid(p, 0xFFFF),
                    "items": [{"name": f"Cue {c}", "uuid": uuid(p, c)} for c in range(100)],
                    "children": [],
                }
                for p in range(100)
            ],
        }
    )
    html = tree._repr_html_()
    assert len(html) < 64 * 1024, len(html)
    assert html.count("<details") == 101 and html.count("<details open") == 1
    assert all(
        f"<b>Act {p}</b> · 100 cues <code>{uuid(p, 0xFFFF)}</code>" in html for p in range(100)
    )
    assert f"<li>7 · Cue 7 <code>{uuid(0, 7)}</code></li>" in html
    assert html.count("<li>") - 1 <= 100 + _html.CUES_DRAWN + 100  # playlists, cues, "more"s
    assert "… 80 more cues" in html and "… 100 more cues" in html
    small = showctl.Playlist.from_dict(
        {"name": "Root", "items": [], "children": [{"name": "A", "items": [{"name": "x"}]}]}
    )._repr_html_()
    assert "more" not in small and "<li>0 · x <code>no UUID</code></li>" in small
