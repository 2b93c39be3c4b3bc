"""A playlist tree read in one pass (straight into Playlist and Cue objects) is the same tree as
the one the models read from the JSON: same fields, to_dict, ==, repr, pickling, find, walk."""

from __future__ import annotations

import asyncio
import json
import pickle
from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer


def make_tree(groups: int, playlists: int, cues: int) -> dict[str, Any]:
    n = iter(range(1, 1 << 20))

    def uid() -> str:
        return f"00000000-0000-4000-8000-{next(n):012d}"

    def cue(g: int, p: int, c: int) -> dict[str, Any]:
        item: dict[str, Any] = {"name": f"Cue {g}.{p}.{c}", "uuid": uid()}
        if c == 0:
            item["duration"] = 12.5  # unknown fields are kept
        return item

    children = [
        {
            "uuid": uid(),
            "name": f"Group {g}",
            "items": [],
            "children": [
                {
                    "uuid": uid(),
                    "name": f'Show "{g}/{p}" é',
                    "items": [cue(g, p, c) for c in range(cues)],
                    "children": [],
                }
                for p in range(playlists)
            ],
        }
        for g in range(groups)
    ]
    video = {"uuid": "null", "name": "Video Input", "items": [{"name": "Input 1", "uuid": ""}]}
    return {"uuid": uid(), "name": "Playlists", "children": [*children, video]}


def serve_tree(server: HTTPServer, tree: dict[str, Any], indent: int | None = None) -> None:
    body = json.dumps({"playlist": tree}, indent=indent, ensure_ascii=indent is None)
    server.expect_request("/api/0/data/playlists").respond_with_data(
        body, content_type="application/json"
    )


def names(p: showctl.Playlist) -> list[Any]:
    return [(q.uuid, q.name, [(c.uuid, c.name) for c in q.items]) for q in p.walk()]


@pytest.mark.parametrize("indent", [None, 2])
def test_same_tree_as_the_models_read(
    httpserver: HTTPServer, base_url: str, indent: int | None
) -> None:
    tree = make_tree(3, 4, 25)
    serve_tree(httpserver, tree, indent)
    expected = showctl.Playlist.from_dict(tree)
    with showctl.MediaPlayer(base_url) as player:
        root = player.playlists()
        again = asyncio.run(player.playlists_async())
    for got in (root, again):
        assert got == expected
        assert got.to_dict() == tree
        assert names(got) == names(expected)
        assert repr(got) == repr(expected)
    assert sum(len(p.items) for p in root.walk()) == 3 * 4 * 25 + 1
    video = root.children[-1]
    assert (video.uuid, video.items[0].uuid) == (None, None)
    assert root.children[0].children[1].name == 'Show "0/1" é'
    cue = root.children[0].children[0].items[0]
    assert cue.to_dict() == {"name": "Cue 0.0.0", "uuid": cue.uuid, "duration": 12.5}
    assert cue == showctl.Cue.from_dict(cue.to_dict())


def test_walk_gives_the_tree_objects_and_lists_are_copies(
    httpserver: HTTPServer, base_url: str
) -> None:
    serve_tree(httpserver, make_tree(2, 2, 3))
    root = showctl.MediaPlayer(base_url).playlists()
    walked = list(root.walk())
    assert walked[1] is root.children[0]
    assert walked[2] is root.children[0].children[0]
    items = walked[2].items
    items.clear()
    assert len(walked[2].items) == 3


def test_pickle_and_find(httpserver: HTTPServer, base_url: str) -> None:
    tree = make_tree(2, 2, 3)
    serve_tree(httpserver, tree)
    root = showctl.MediaPlayer(base_url).playlists()
    assert pickle.loads(pickle.dumps(root)) == root
    target = tree["children"][1]["children"][0]["items"][2]
    found = root.find(target["uuid"].upper())
    assert isinstance(found, showctl.Cue)
    assert found.to_dict() == target
    group = root.find("Group 1")
    assert isinstance(group, showctl.Playlist)
    assert group == root.children[1]
