"""Workspace files: a workspace built from a recording replays the recorded answers as equal
JSON (extra keys kept, list order kept), a directory is read through its workspace.json, and a
malformed file is reported with the file, the JSON path and what was expected."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import showctl

U = "00000000-0000-4000-8000-{:012d}".format

BLUR = {"uuid": U(9), "name": "Blur", "enabled": False, "variables": [], "category": "Stylize"}
FADE = {"uuid": U(11), "name": "Fade", "enabled": True, "variables": []}

# What an installation answered (with keys the documents do not describe, and lists in an
# order that is not alphabetical).
RECORDED: dict[str, Any] = {
    "/data/playlists": {
        "playlist": {
            "uuid": U(1),
            "name": "Root",
            "items": [],
            "children": [
                {
                    "uuid": U(2),
                    "name": "Zulu",
                    "items": [{"name": "Clip", "uuid": U(3), "duration": 12.5}],
                    "children": [],
                    "kind": "playlist",
                },
                {"uuid": U(4), "name": "Alpha", "items": [], "children": [], "kind": "group"},
            ],
        }
    },
    "/data/playlist/0/cue/0": {"playlistItem": {"name": "Clip", "uuid": U(3), "duration": 12.5}},
    "/data/layers": {
        "data": [
            {
                "layer": {
                    "uuid": U(5),
                    "name": "Main",
                    "isHidden": False,
                    "isMuted": True,
                    "opacity": 0.75,
                    "effects": [BLUR],
                    "effectPresetUUID": "null",
                    "targetSetUUID": U(6),
                    "transitionDuration": 0.5,
                    "layerIndex": 0,
                }
            }
        ]
    },
    "/opacity/layer/0": {"value": 0.75},
    "/blendMode": {
        "data": [
            {"blendMode": {"name": "Normal", "id": 0}},
            {"blendMode": {"name": "Add", "id": 1}},
        ]
    },
    "/blendMode/layer/0": {"blendMode": {"name": "Add", "id": 1}},
    "/blend/layer/0": {"layerBlend": {"type": "Luma Matte", "base": {"isInverted": True}}},
    "/layerPreset": {"data": [{"id": "B", "name": "Second"}, {"id": "A", "name": "First"}]},
    "/layerPreset/layer/0": {"data": [{"id": "A", "name": "First"}]},
    "/targetSet": {"data": [{"targetSet": {"name": "Wall", "uuid": U(6), "screens": 3}}]},
    "/targetSet/layer/0": {"targetSet": {"name": "Wall", "uuid": U(6), "screens": 3}},
    "/effects": {"data": [{"effect": {**BLUR, "enabled": True}}]},
    "/effects/layer/0": {"data": [{"effect": BLUR}]},
    "/effects/workspace": {"data": []},
    "/effectsPreset": {
        "data": [{"effectPreset": {"uuid": U(10), "name": "None yet", "effects": None}}]
    },
    "/effectsPreset/layer/0": {"effectPreset": None},
    "/transition": {"transitions": [{"transition": FADE}]},
    "/transition/workspace": {"transition": FADE},
    "/transition/layer/0": {"transition": None},
    "/transitionDuration/workspace": {"transitionDuration": {"value": 2.0}},
    "/transitionDuration/layer/0": {"transitionDuration": {"value": 0.5}},
    "/transportState/layer/0": {
        "transportState": {
            "timeElapsed": 3.0,
            "timeRemaining": 9.5,
            "playbackRate": 0.0,
            "isPlaying": False,
            "isScrubbing": False,
            "playingItem": {"name": "Clip", "uuid": U(3)},
            "playingMedia": {"name": "clip.mov", "uuid": U(7)},
            "layer": {
                "uuid": U(5),
                "name": "Main",
                "isHidden": False,
                "isMuted": True,
                "opacity": 0.75,
                "effects": [BLUR],
                "effectPresetUUID": "null",
                "targetSetUUID": U(6),
                "transitionDuration": 0.5,
                "layerIndex": 0,
                "layerBlend": {"type": "Luma Matte", "base": {"isInverted": True}},
                "transition": {**FADE, "duration": 0.5, "favoriteUUID": U(12)},
            },
        }
    },
}

# The same installation in the workspace format (docs/simulator.md, "Workspace file").
WORKSPACE: dict[str, Any] = {
    "format": 1,
    # The installation answered /blend/layer/{id}, as versions before 3.8 do.
    "answers": {"opacity": "document", "transitionList": "transitions", "blendRoute": True},
    "playlists": {
        "name": "Root",
        "uuid": U(1),
        "children": [
            {
                "name": "Zulu",
                "uuid": U(2),
                "items": [{"name": "Clip", "uuid": U(3), "extra": {"duration": 12.5}}],
                "extra": {"kind": "playlist"},
            },
            {"name": "Alpha", "uuid": U(4), "extra": {"kind": "group"}},
        ],
    },
    "layers": [
        {
            "name": "Main",
            "uuid": U(5),
            "opacity": 0.75,
            "isMuted": True,
            "blendMode": "Add",
            "layerBlend": {"type": "Luma Matte", "base": {"isInverted": True}},
            "targetSet": U(6),
            "layerPreset": "A",
            "transitionDuration": 0.5,
            "effects": [
                {"uuid": U(9), "name": "Blur", "enabled": False, "extra": {"category": "Stylize"}}
            ],
            "transport": {
                "playingItem": {"name": "Clip", "uuid": U(3)},
                "playingMedia": {"name": "clip.mov", "uuid": U(7)},
                "timeElapsed": 3.0,
                "timeRemaining": 9.5,
                "isPlaying": False,
            },
            "extra": {"layerIndex": 0},
        }
    ],
    "blendModes": [{"name": "Normal", "id": 0}, {"name": "Add", "id": 1}],
    "layerPresets": [{"id": "B", "name": "Second"}, {"id": "A", "name": "First"}],
    "targetSets": [{"name": "Wall", "uuid": U(6), "extra": {"screens": 3}}],
    "effects": [{"uuid": U(9), "name": "Blur", "extra": {"category": "Stylize"}}],
    "effectPresets": [{"uuid": U(10), "name": "None yet", "effects": None}],
    "transitions": [{"uuid": U(11), "name": "Fade", "favoriteUUID": U(12)}],
    "workspace": {"transition": "Fade", "transitionDuration": 2.0},
}


def fetch(sim: showctl.Simulator, path: str) -> Any:
    with urllib.request.urlopen(f"{sim.url}/api/0{path}", timeout=5) as resp:
        return json.load(resp)


def test_a_recorded_installation_replays_equal_json(tmp_path: Path) -> None:
    (tmp_path / "workspace.json").write_text(json.dumps(WORKSPACE))
    with showctl.Simulator(workspace=tmp_path, strict=True) as sim:
        assert sim.blend_route  # from the file's answers.blendRoute
        for path, answer in RECORDED.items():
            assert fetch(sim, path) == answer, path
        # Order kept, not only content.
        names = [c["name"] for c in fetch(sim, "/data/playlists")["playlist"]["children"]]
        assert names == ["Zulu", "Alpha"]
        assert sim.warnings == []


def test_a_malformed_file_names_the_file_the_path_and_the_expectation(tmp_path: Path) -> None:
    bad = tmp_path / "show.json"
    ws = {
        "playlists": {
            "name": "Root",
            "children": [
                {"name": "A"},
                {"name": "B"},
                {"name": "C", "items": [{"name": "c", "duration": "long"}]},
            ],
        }
    }
    bad.write_text(json.dumps(ws))
    with pytest.raises(ValueError) as err:
        showctl.Simulator(workspace=bad)
    message = str(err.value)
    assert "show.json" in message
    assert "playlists.children[2].items[0].duration" in message
    assert "expected f64" in message
    # A wrong reference: the JSON path and the names it could be.
    with pytest.raises(
        ValueError, match=r'at layers\[0\]\.targetSet: "Nowhere" is not in targetSets'
    ):
        showctl.Simulator(workspace={"layers": [{"name": "A", "targetSet": "Nowhere"}]})
    # A directory without workspace.json.
    with pytest.raises(FileNotFoundError, match=r"workspace\.json"):
        showctl.Simulator(workspace=tmp_path)


def test_the_built_in_workspace_is_a_workspace_file() -> None:
    path = Path(__file__).parents[2] / "core" / "src" / "simulator" / "default_workspace.json"
    with showctl.Simulator(workspace=path) as from_file, showctl.Simulator() as builtin:
        for read in ["/data/playlists", "/blendMode", "/effectsPreset", "/transition"]:
            assert fetch(from_file, read) == fetch(builtin, read)
