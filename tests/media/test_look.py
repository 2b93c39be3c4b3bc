"""MediaPlayer.look() and apply() against the simulator: what a look is read from, its dict and
file forms, apply() sending only what differs in the safe order (hide and mute first, the blend
after the opacity, unhide and unmute last), each confirmed, and a look from another workspace
refused before anything is sent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import showctl

MAIN = "857CE06B-F9A2-4BE1-B55C-CA5DB3C7B88E"
LOWER = "D6442260-559D-4E79-82C8-9680E98C5884"
LOGO = "3CC89B41-F339-4684-8473-B8248AC03649"


def posts(sim: showctl.Simulator) -> list[str]:
    return [r.path.removeprefix("/api/0") for r in sim.requests if r.method == "POST"]


def layer_of(look: showctl.Look, name: str) -> dict[str, Any]:
    d = look.to_dict()
    return next(x for x in d["layers"] if x["name"] == name)  # type: ignore[no-any-return]


def with_layer(look: showctl.Look, name: str, **changes: Any) -> showctl.Look:
    d = look.to_dict()
    for x in d["layers"]:
        if x["name"] == name:
            x.update(changes)
    return showctl.Look.from_dict(d)


def test_a_look_is_read_and_round_trips(
    player: showctl.MediaPlayer, tmp_path: Path, sim: showctl.Simulator
) -> None:
    look = player.look()
    assert [x.name for x in look.layers] == ["Background", "Main", "Lower Third/Left", "Logo Bug"]
    assert look.not_read_back == ["preset", "effects"]
    main = layer_of(look, "Main")
    assert main["transition"]["name"] == "Dissolve" and main["target_set"] == "All Screens"
    lower = layer_of(look, "Lower Third/Left")
    assert lower["blend"]["type"] == "Standard" and lower["blend"]["base"]["name"] == "Screen"
    assert lower["transition"] is None and lower["transition_duration"] == 0.5
    assert layer_of(look, "Logo Bug")["opacity"] == pytest.approx(0.8)
    assert showctl.Look.from_dict(look.to_dict()) == look
    path = tmp_path / "look.json"
    look.save(path)
    assert json.loads(path.read_text())["format"] == "showctl.look/1"
    assert showctl.Look.load(path) == look
    only_main = player.look(["Main"])
    assert [x.uuid for x in only_main.layers] == [MAIN]
    assert posts(sim) == []


def test_looking_at_what_is_not_there_is_refused(player: showctl.MediaPlayer) -> None:
    with pytest.raises(showctl.NameLookupError, match='no layer "Nope" in the workspace'):
        player.look(["Main", "Nope"])
    with pytest.raises(ValueError, match=r"^layers\[1\]: "):
        player.look(["Main", -1])


def test_apply_sends_only_what_differs_in_a_safe_order(
    player: showctl.MediaPlayer, sim: showctl.Simulator
) -> None:
    look = player.look()
    main = player.layer("Main")
    main.set_opacity(0.3)
    main.hide()
    main.set_target_set("LED Wall")
    player.layer("Logo Bug").mute()
    sim.clear_requests()
    sent = player.apply(look)
    assert all(c.confirm for c in sent)
    # The simulator, as 3.8 and 3.9, has only the field path of the layer blend.
    assert posts(sim) == [c.path.replace("/blend/", "/layerBlend/") for c in sent]
    assert posts(sim) == [
        f"/targetSet/layer/{MAIN}",
        f"/opacity/layer/{MAIN}",
        f"/layerBlend/layer/{MAIN}",  # its Standard blend's opacity followed the layer's
        f"/unhide/layer/{MAIN}",
        f"/unmute/layer/{LOGO}",
    ]
    assert player.look() == look
    sim.clear_requests()
    assert player.apply(look) == []
    assert posts(sim) == []


def test_hiding_and_muting_come_first_and_the_blend_after_the_opacity(
    player: showctl.MediaPlayer, sim: showctl.Simulator
) -> None:
    look = player.look()
    matte = {"type": "Luma Matte", "base": {"isInverted": True}}
    wanted = with_layer(
        with_layer(look, "Main", hidden=True, opacity=0.5),
        "Lower Third/Left",
        opacity=0.4,
        blend=matte,
        muted=True,
    )
    sim.clear_requests()
    player.apply(wanted)
    sent = posts(sim)
    assert sent[:2] == [f"/hide/layer/{MAIN}", f"/mute/layer/{LOWER}"]
    assert sent.index(f"/opacity/layer/{LOWER}") < sent.index(f"/layerBlend/layer/{LOWER}")
    assert player.apply(wanted) == []  # the workspace is the look now (in single precision)
    # Only the opacity differs, but setting it replaces a matte blend with Normal: the blend is
    # sent again after it.
    player.layer("Lower Third/Left").set_opacity(0.9)
    sim.clear_requests()
    player.apply(wanted)
    assert posts(sim) == [f"/opacity/layer/{LOWER}", f"/layerBlend/layer/{LOWER}"]
    assert layer_of(player.look(), "Lower Third/Left")["blend"] == matte


def test_only_limits_the_fields_applied(
    player: showctl.MediaPlayer, sim: showctl.Simulator
) -> None:
    look = player.look()
    player.layer("Main").set_opacity(0.3)
    player.layer("Main").mute()
    sim.clear_requests()
    sent = player.apply(look, only=["muted"])
    assert [c.path for c in sent] == [f"/unmute/layer/{MAIN}"]
    with pytest.raises(ValueError, match=r'^only: "colour" is not a field of a look'):
        player.apply(look, only=["colour"])


def test_a_look_from_another_workspace_names_what_is_missing_and_sends_nothing(
    player: showctl.MediaPlayer, sim: showctl.Simulator
) -> None:
    d = player.look().to_dict()
    d["layers"][1].update(target_set="Balcony", transition={"name": "Star Wipe", "uuid": None})
    d["layers"][1]["opacity"] = 0.2
    d["layers"].append(dict(d["layers"][0], name="Rear Screen", uuid="0000"))
    with pytest.raises(showctl.NameLookupError) as missing:
        player.apply(showctl.Look.from_dict(d))
    text = str(missing.value)
    assert 'layer "Rear Screen"' in text
    assert 'layer "Main": target set "Balcony"' in text
    assert 'layer "Main": transition "Star Wipe"' in text
    assert "nothing was sent" in text
    assert posts(sim) == []


def test_a_bad_look_is_refused_naming_the_field(tmp_path: Path) -> None:
    good: dict[str, Any] = {
        "format": "showctl.look/1",
        "layers": [
            {
                "name": "Main",
                "opacity": 1.0,
                "hidden": False,
                "muted": False,
                "target_set": None,
                "effect_preset": None,
                "transition": None,
                "transition_duration": 1.0,
            }
        ],
    }
    assert showctl.Look.from_dict(good).layers[0].blend is None
    with pytest.raises(ValueError, match=r"layers\[0\]\.opacity: must be"):
        showctl.Look.from_dict({**good, "layers": [{**good["layers"][0], "opacity": 1.5}]})
    with pytest.raises(ValueError, match="format must be"):
        showctl.Look.from_dict({**good, "format": "other"})
    with pytest.raises(ValueError, match="colour"):
        showctl.Look.from_dict({**good, "layers": [{**good["layers"][0], "colour": 1}]})
    path = tmp_path / "bad.json"
    path.write_text("{")
    with pytest.raises(ValueError, match="not JSON"):
        showctl.Look.load(path)


def test_the_async_twins(player: showctl.MediaPlayer, sim: showctl.Simulator) -> None:
    async def main() -> list[showctl.Command]:
        look = await player.look_async(["Main"])
        await player.layer("Main").mute_async()
        return await player.apply_async(look)

    sent = asyncio.run(main())
    assert [c.path for c in sent] == [f"/unmute/layer/{MAIN}"]
