"""Every operation of the tables has a route in the simulator. The walk reads the operation
tables themselves (`showctl._core._operations()`: the media table and the scoreboard's), sends
each endpoint of each operation to the simulator as raw HTTP, and fails for an endpoint the
simulator does not route (404 or 405), naming the line to add to `core/src/simulator/routes.rs` (and
the behaviour to write in `core/src/simulator/state/`, in the file of the resource it touches)."""

from __future__ import annotations

import re
from typing import Any

import showctl
from showctl import _core

from tests.kit.netkit import send

# What each identifier of a path template is filled with: the first layer, top-level playlist
# and cue of the built-in workspace.
FILL = {"layer": "0", "playlist": "0", "cue": "0"}

# Endpoints of the table the simulator leaves out by default, as the 3.8/3.9 application does,
# and the path the client falls back to (each is routed with `Simulator(blend_route=True)`).
ABSENT_BY_DEFAULT = {
    ("GET", "/blend/layer/{layer:id}"): "/layerBlend/layer/{layer:id}",
    ("POST", "/blend/layer/{layer:id}"): "/layerBlend/layer/{layer:id}",
}

PLACEHOLDER = re.compile(r"\{(\w+):(\w+)\}")


def endpoints() -> list[tuple[dict[str, Any], str, str]]:
    """(operation, method, path template) of every endpoint of both tables."""
    return [(op, method, path) for op in _core._operations() for method, path in op["endpoints"]]


def concrete(path: str) -> str:
    """The path template with its identifiers filled (without the /api/0 prefix)."""
    return PLACEHOLDER.sub(lambda m: FILL[m.group(1)], path)


def line_to_add(op: dict[str, Any], method: str, path: str) -> str:
    """The route line for routes.rs, in its conventions: `{id}` for one identifier, else
    `{l}`, `{p}`, `{c}` read with `c.nth(i)`."""
    kinds = PLACEHOLDER.findall(path)
    if len(kinds) == 1:
        route = PLACEHOLDER.sub("{id}", path)
        args = ["c.id()"]
    else:
        route = PLACEHOLDER.sub(lambda m: "{" + m.group(1)[0] + "}", path)
        args = [f"c.nth({i})" for i in range(len(kinds))]
    world = f"w.{op['name']}"
    if method == "GET":
        handler = f"read(|w, c| {world}_json({', '.join(args)}))"
    else:
        if op["arg"] is not None:
            args.append("c.given(false)?")
        takes_body = "true" if op["arg"] is not None else "false"
        handler = f"command({takes_body}, |w, c| {world}({', '.join(args)}))"
    return (
        f'{method} {path} ({op["name"]}): add `.route("{route}", {handler})` to router() in '
        f"core/src/simulator/routes.rs (reading the argument where the client sends it: the body "
        f"or the query), and `World::{op['name']}` in core/src/simulator/state/ (the file of the "
        f"resource it touches: layers.rs, playlists.rs, transport.rs, effects.rs)"
    )


def unrouted(sim: showctl.Simulator) -> list[tuple[dict[str, Any], str, str]]:
    """The endpoints the simulator answers 404 or 405 (no route for the path or the method)."""
    missing = []
    for op, method, path in endpoints():
        status, _ = send(sim, method, concrete(path))
        if status in (404, 405):
            missing.append((op, method, path))
    return missing


def test_the_walk_reads_both_tables() -> None:
    walked = endpoints()
    names = {op["name"] for op, _, _ in walked}
    # Both tables: a media read, a media command, a layer command and the score record.
    assert {"playlists", "set_opacity", "mute", "scores"} <= names
    assert len(walked) >= 60, len(walked)
    assert all(PLACEHOLDER.sub("", p).count("{") == 0 for _, _, p in walked)


def test_every_operation_has_a_route() -> None:
    with showctl.Simulator(blend_route=True) as sim:
        missing = unrouted(sim)
    assert not missing, "no simulator route:\n" + "\n".join(line_to_add(*m) for m in missing)


def test_by_default_only_the_blend_route_is_left_out_and_its_fallback_answers() -> None:
    with showctl.Simulator() as sim:
        missing = {(method, path) for _, method, path in unrouted(sim)}
        assert missing == set(ABSENT_BY_DEFAULT), "\n".join(
            line_to_add(op, m, p)
            for op, m, p in endpoints()
            if (m, p) in missing - set(ABSENT_BY_DEFAULT)
        )
        for (method, _), fallback in ABSENT_BY_DEFAULT.items():
            status, body = send(sim, method, concrete(fallback))
            assert status not in (404, 405), (method, fallback, body)


def test_the_line_to_add_follows_the_router_conventions() -> None:
    ops = {(op["name"], m, p): op for op, m, p in endpoints()}
    trigger = ops[
        (
            "trigger",
            "POST",
            "/trigger/layer/{layer:id}/playlist/{playlist:playlist_id}/cue/{cue:cue_id}",
        )
    ]
    want = (
        '.route("/trigger/layer/{l}/playlist/{p}/cue/{c}", command(false, |w, c| '
        "w.trigger(c.nth(0), c.nth(1), c.nth(2))))"
    )
    assert want in line_to_add(
        trigger,
        "POST",
        "/trigger/layer/{layer:id}/playlist/{playlist:playlist_id}/cue/{cue:cue_id}",
    )
    opacity = ops[("set_opacity", "POST", "/opacity/layer/{layer:id}")]
    assert (
        '.route("/opacity/layer/{id}", command(true, |w, c| w.set_opacity(c.id(), '
        "c.given(false)?)))" in line_to_add(opacity, "POST", "/opacity/layer/{layer:id}")
    )
