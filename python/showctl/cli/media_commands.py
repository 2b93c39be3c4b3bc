"""The commands on the media playback application: ``playlists``, ``layers``, ``trigger``,
``mute``/``unmute``/``hide``/``unhide``/``clear``, ``opacity``, ``transport`` and ``request``."""

from __future__ import annotations

import argparse
import json
from typing import Any

import showctl
from showctl.cli.connection import media
from showctl.cli.errors import EXIT_OK, UsageError
from showctl.cli.output import (
    TRANSPORT_HEADERS,
    current_json,
    dumps,
    emit_json,
    event_json,
    event_line,
    safe,
    table,
    transport_row,
)
from showctl.cli.subcommands import Subcommands, poll_interval, positive_count, watch_only


def cmd_playlists(args: argparse.Namespace) -> int:
    with media(args) as player:
        root = player.playlists()
        if args.json:
            emit_json(root.to_dict())
            return EXIT_OK
        try:
            video_input = player.playlist(-1).uuid
        except showctl.ApiError:
            video_input = None
    top = [p for p in root.children if p.uuid != video_input]
    print(safe(f"{root.name}  ({root.uuid})"))
    for cue_index, cue in enumerate(root.items):
        print(safe(f"    {cue_index:>3}  {cue.name}  ({cue.uuid})"))

    def show(p: showctl.Playlist, depth: int) -> None:
        pad = "  " * depth
        if depth == 1 and p.uuid == video_input:
            label = "playlist -1, video input"
        elif depth == 1:
            label = f"playlist {top.index(p)}"
        else:
            label = "playlist"
        print(safe(f"{pad}{p.name}  ({label}, {p.uuid})"))
        for cue_index, cue in enumerate(p.items):
            print(safe(f"{pad}  {cue_index:>3}  {cue.name}  ({cue.uuid})"))
        for child in p.children:
            show(child, depth + 1)

    for child in root.children:
        show(child, 1)
    return EXIT_OK


def cmd_layers(args: argparse.Namespace) -> int:
    with media(args) as player:
        layers = player.layers()
    if args.json:
        for layer in layers:
            emit_json(layer.to_dict())
        return EXIT_OK
    table(
        ("INDEX", "NAME", "MUTED", "HIDDEN", "OPACITY", "UUID"),
        [(i, x.name, x.is_muted, x.is_hidden, x.opacity, x.uuid) for i, x in enumerate(layers)],
    )
    return EXIT_OK


def _done(args: argparse.Namespace, what: str, **fields: Any) -> int:
    if args.json:
        emit_json({"ok": True, "command": args.command, **fields})
    else:
        print(safe(f"ok: {what}"))
    return EXIT_OK


def cmd_trigger(args: argparse.Namespace) -> int:
    with media(args) as player:
        if args.layer is None:
            player.trigger_playlist_cue(args.playlist, args.cue)
            where = "the selected layer"
        else:
            player.layer(args.layer).trigger(args.playlist, args.cue)
            where = f"layer {args.layer!r}"
    return _done(
        args,
        f"triggered cue {args.cue!r} of playlist {args.playlist!r} on {where}",
        layer=args.layer,
        playlist=args.playlist,
        cue=args.cue,
    )


def cmd_layer_op(args: argparse.Namespace) -> int:
    op: str = args.command
    with media(args) as player:
        if args.layer is None:
            getattr(player, op)()
            where = "the workspace"
        else:
            getattr(player.layer(args.layer), op)()
            where = f"layer {args.layer!r}"
    return _done(args, f"{op} {where}", layer=args.layer)


def cmd_opacity(args: argparse.Namespace) -> int:
    with media(args) as player:
        layer = player.layer(args.layer)
        if args.value is None:
            if args.fade is not None or args.steps is not None:
                option = "--fade" if args.fade is not None else "--steps"
                raise UsageError(
                    f"{option}: needs VALUE, the opacity to fade to "
                    f"(for example: opacity LAYER 0.0 --fade 2)"
                )
            value = layer.opacity()
            if args.json:
                emit_json({"layer": args.layer, "opacity": value})
            else:
                print(value)
            return EXIT_OK
        if args.fade is not None:
            try:
                layer.fade(args.value, args.fade, args.steps)
            except ValueError as e:
                raise UsageError(_fade_error(e)) from None
        else:
            layer.set_opacity(args.value)
    how = f" over {args.fade} s" if args.fade is not None else ""
    return _done(
        args,
        f"opacity of layer {args.layer!r} set to {args.value}{how}",
        layer=args.layer,
        opacity=args.value,
    )


def _fade_error(error: ValueError) -> str:
    """`Layer.fade`'s "argument: problem", with the argument named as on the command line."""
    options = {"to": "VALUE", "seconds": "--fade", "steps": "--steps"}
    arg, sep, problem = str(error).partition(": ")
    return f"{options[arg]}: {problem}" if sep and arg in options else str(error)


def _transport(
    player: showctl.MediaPlayer, layer: str | None
) -> list[tuple[object, showctl.TransportState]]:
    """(label, transport state) of every layer, or of one."""
    if layer is None:
        return list(enumerate(player.transport_state()))
    return [(layer, player.layer(layer).transport_state())]


def cmd_transport(args: argparse.Namespace) -> int:
    watch_only(args)
    with media(args) as player:
        if not args.watch:
            states = _transport(player, args.layer)
            if args.json:
                for _, ts in states:
                    emit_json(ts.to_dict())
            else:
                table(TRANSPORT_HEADERS, [transport_row(i, ts) for i, ts in states])
            return EXIT_OK
        # One layer: matched by UUID, else name (read once: an unknown layer fails here).
        only = None
        if args.layer is not None:
            state = player.layer(args.layer).state()
            only = _layer_key(state.uuid, state.name)
        printed = 0
        # The current state first (as `scores --watch` prints the current record): the watch's
        # own first poll, so that no change falls between it and the events.
        watch = player.watch_transport(interval=args.interval)
        states = [
            (i, ts)
            for i, ts in enumerate(watch.baseline())
            if only is None
            or (ts.layer is not None and _layer_key(ts.layer.uuid, ts.layer.name) == only)
        ]
        if args.json:
            for label, ts in states:
                emit_json(current_json(label, ts))
        else:
            table(TRANSPORT_HEADERS, [transport_row(i, ts) for i, ts in states])
            print(flush=True)
        for event in watch:
            if (
                only is not None
                and not event.kind.startswith("poll_")
                and _layer_key(event.layer_uuid, event.layer_name) != only
            ):
                continue
            if args.json:
                emit_json(event_json(event))
            else:
                print(safe(event_line(event)), flush=True)
            printed += 1
            if args.count and printed >= args.count:
                break
    return EXIT_OK


def _layer_key(uuid: str | None, name: str | None) -> str | None:
    return uuid.lower() if uuid else name


def cmd_request(args: argparse.Namespace) -> int:
    body = None
    if args.body is not None:
        try:
            body = json.loads(args.body)
        except json.JSONDecodeError as e:
            raise UsageError(f"JSON: not valid JSON ({e})") from None
    params: dict[str, str | int | float | bool] = {}
    for pair in args.param or []:
        key, sep, value = pair.partition("=")
        if not sep:
            raise UsageError(f"--param: expected KEY=VALUE, got {pair!r}")
        params[key] = value
    with media(args) as player:
        answer = player.request(args.method, args.path, json=body, params=params or None)
    if answer is None:
        return EXIT_OK
    if args.json:
        emit_json(answer)
    else:
        print(dumps(answer, indent=2))
    return EXIT_OK


def register(commands: Subcommands) -> None:
    """Add the media commands."""
    commands.connecting(
        "playlists", "print the playlist tree with cue indexes and UUIDs", cmd_playlists
    )
    commands.connecting(
        "layers", "print the layers: index, name, muted, hidden, opacity, UUID", cmd_layers
    )

    p = commands.connecting(
        "trigger",
        "trigger a cue of a playlist (on a layer with --layer, else on the selected layer)",
        cmd_trigger,
    )
    p.add_argument("playlist", help="playlist index, name or UUID (-1: the video input playlist)")
    p.add_argument("cue", help="cue index, name or UUID")
    p.add_argument("--layer", help="layer index, name or UUID")

    for op, what in (
        ("mute", "mute"),
        ("unmute", "unmute"),
        ("hide", "hide"),
        ("unhide", "unhide"),
        ("clear", "clear (empty)"),
    ):
        p = commands.connecting(
            op, f"{what} a layer, or the whole workspace without LAYER", cmd_layer_op
        )
        p.add_argument("layer", nargs="?", help="layer index, name or UUID")

    p = commands.connecting(
        "opacity", "print a layer's opacity, or set it (0.0-1.0), or fade to it", cmd_opacity
    )
    p.add_argument("layer", help="layer index, name or UUID")
    p.add_argument("value", nargs="?", type=float, help="new opacity, 0.0 to 1.0")
    p.add_argument("--fade", type=float, metavar="SECONDS", help="fade to VALUE over SECONDS")
    p.add_argument("--steps", type=positive_count, help="steps of a fade (default: 20 a second)")

    p = commands.connecting(
        "transport",
        "print what each layer plays (or one layer's), --watch to follow",
        cmd_transport,
    )
    p.add_argument("layer", nargs="?", help="layer index, name or UUID (default: all)")
    p.add_argument(
        "--watch",
        action="store_true",
        help="print the current state, then a line per change: started, stopped, media "
        "changed, emptied, 10 s left, poll failed (until Ctrl-C)",
    )
    p.add_argument(
        "--interval", type=poll_interval, default=0.5, help="poll interval (default: 0.5)"
    )
    p.add_argument("--count", type=positive_count, help="with --watch: stop after COUNT lines")

    p = commands.connecting(
        "request",
        "send any request (PATH relative to /api/0) and print the JSON answer",
        cmd_request,
    )
    p.add_argument("method", type=str.upper, choices=("GET", "POST"), help="GET or POST")
    p.add_argument("path", help="for example /data/layers")
    p.add_argument("body", nargs="?", metavar="JSON", help="a JSON body, e.g. '{\"value\": 0.5}'")
    p.add_argument(
        "--param", action="append", metavar="KEY=VALUE", help="a query parameter (repeatable)"
    )
