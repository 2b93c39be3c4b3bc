"""The commands on the media playback application: ``playlists``, ``layers``, ``trigger``,
``mute``/``unmute``/``hide``/``unhide``/``clear``, ``opacity``, ``transport`` and ``request``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable
from typing import Any, NamedTuple, TypeVar

import showctl
from showctl.cli.connection import cli_message, media
from showctl.cli.errors import EXIT_APP, EXIT_OK, UsageError
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


#: How long `trigger` reads back for the cue to play (five reads, the first at once): an
#: application applies a trigger a moment after its 200, sometimes later than the client's
#: default half second.
TRIGGER_READ_BACK = 2.0

T = TypeVar("T")


def cmd_trigger(args: argparse.Namespace) -> int:
    """Trigger a cue and say where it plays. The application ignores the layer a trigger names
    (a cue plays on its own configured layer, else on the targeted one), so `--layer` targets
    the layer first; the layers that play the cue are read back, not assumed."""
    with media(args, confirm_timeout=TRIGGER_READ_BACK) as player:
        done = asyncio.run(_trigger(args, player))
    named = "" if done.cue.name in (None, args.cue) else f" ({done.cue.name})"
    what = f"cue {args.cue!r}{named} of playlist {args.playlist!r}"
    fields: dict[str, Any] = {"layer": args.layer, "playlist": args.playlist, "cue": args.cue}
    if done.playing is None:
        return _unread(args, what, done, fields)
    playing = done.playing
    where = ", ".join(f"{i} ({name})" for i, name, _ in playing)
    layers = "layers" if len(playing) > 1 else "layer"
    if not playing:  # seen playing by the read-back, ended before the next read
        layers, where = "no layer", "any more (it ended right after it was seen playing)"
    fields["plays_on"] = [{"index": i, "name": name, "uuid": uuid} for i, name, uuid in playing]
    if args.layer is None:
        return _done(args, f"triggered {what}: it plays on {layers} {where}", **fields)
    if any(_is_layer(args.layer, *p) for p in playing):
        return _done(
            args,
            f"triggered {what}: it plays on layer {where}, now the targeted layer",
            targeted=args.layer,
            **fields,
        )
    # The cue has a layer of its own in the application, which wins over the targeted one.
    if args.json:
        emit_json({"ok": False, "command": args.command, "targeted": args.layer, **fields})
    print(
        safe(
            f"showctl: triggered {what}, but it plays on {layers} {where}, not on layer "
            f"{args.layer!r}: the cue has its own layer in the application, which wins over "
            f"the targeted one"
        ),
        file=sys.stderr,
    )
    return EXIT_APP


def _unread(args: argparse.Namespace, what: str, done: Triggered, fields: dict[str, Any]) -> int:
    """The trigger was answered 200, and where the cue plays could not be read afterwards: a
    success (exit 0: running it again would restart the cue on air), with the failed read as a
    warning (with ``--json``: ``plays_on`` null and ``read_back_error``, nothing on stderr)."""
    on = "" if args.layer is None else f" on layer {args.layer!r}"
    if done.seen:
        said = f"triggered {what}: the read-back saw it playing{on}"
        warning = f"where it plays could not be read afterwards: {done.unread}"
    else:
        said = f"triggered {what}: the trigger was answered 200"
        warning = f"whether it plays could not be read back: {done.unread}"
    warning = " ".join(cli_message(warning).split())
    if args.json:
        emit_json(
            {
                "ok": True,
                "command": args.command,
                **fields,
                "plays_on": None,
                "read_back_error": warning,
            }
        )
        return EXIT_OK
    print(safe(f"ok: {said}"))
    print(safe(f"showctl: warning: {warning}"), file=sys.stderr)
    return EXIT_OK


Playing = list[tuple[int, str, str]]


class Triggered(NamedTuple):
    """What `trigger` learnt: the cue, the layers that play it (None: that read failed, and
    `unread` says why), and whether the read-back saw it playing."""

    cue: showctl.Cue
    playing: Playing | None
    seen: bool
    unread: str


#: How `NotConfirmedError` ends when its read-back could not read (not when it read that the
#: cue did not play): `... was answered 200, but the cue playing on ... could not be read back: `.
_READ_BACK_FAILED = " could not be read back: "


async def _trigger(args: argparse.Namespace, player: showctl.MediaPlayer) -> Triggered:
    """Read the cue, target the layer (with `--layer`), trigger, and read where the cue plays.

    What comes before the trigger shares one deadline, the client's timeout (what the trigger
    itself may take): when it fails or runs out, the trigger was not sent and the error says
    so. A read after the trigger was answered never turns it into a failure."""
    deadline = player.timeout
    cue = await _before(player.cue_async(args.playlist, args.cue), deadline, "reading the cue")
    if args.layer is None:
        send = player.trigger_playlist_cue_async(args.playlist, args.cue, confirm=True)
    else:
        layer = player.layer(args.layer)
        await _before(
            layer.select_async(target=True),
            deadline,
            "targeting the layer",
            "the layer may be the targeted one now",
        )
        send = layer.trigger_async(args.playlist, args.cue, confirm=True)
    try:
        await send
    except showctl.NotConfirmedError as not_confirmed:
        # Answered 200, not seen where it was expected: where does it play?
        playing, unread = await _after(_playing(player, cue), deadline)
        if playing:
            return Triggered(cue, playing, False, "")
        text = str(not_confirmed)
        if playing is None and not_confirmed.actual is None and _READ_BACK_FAILED in text:
            # No read after the trigger worked: whether it plays is not known.
            return Triggered(cue, None, False, f"{text.split(_READ_BACK_FAILED, 1)[1]}; {unread}")
        raise  # it was read, and it plays nowhere: the read-back's own message says so
    playing, unread = await _after(_playing(player, cue), deadline)
    return Triggered(cue, playing, True, unread)


async def _before(call: Awaitable[T], deadline: float, step: str, acted: str = "") -> T:
    """A step before the trigger, within `deadline` seconds; its failure is the command's,
    with the trigger not sent (`acted`: what the step's own request may have done)."""
    try:
        return await asyncio.wait_for(call, deadline)
    except showctl.ShowctlError as e:
        raise _not_sent(e, f"{step} failed, so the trigger was not sent", acted) from None
    except asyncio.TimeoutError:
        raise showctl.Timeout(
            f"{step} took longer than {deadline:g} s (the timeout), so the trigger was not sent",
            delivery="not_sent",
        ) from None


def _not_sent(e: showctl.ShowctlError, what: str, acted: str = "") -> showctl.ShowctlError:
    """`e`, the failure of a step before a command, as the failure of that command, which was
    not sent: `what` first, then `e`'s own message, then `acted` (what `e`'s own request may
    have done) when that request went out and got no answer."""
    maybe = f" ({acted})" if acted and e.delivery == "sent_no_answer" else ""
    e.message = f"{what}: {e.message}{maybe}"
    e.args = (e.message,)
    e.delivery = "not_sent"
    return e


async def _after(call: Awaitable[T], deadline: float) -> tuple[T | None, str]:
    """A read after the trigger was answered, within `deadline` seconds: (its result, "") or
    (None, why it failed)."""
    try:
        return await asyncio.wait_for(call, deadline), ""
    except showctl.ShowctlError as e:
        return None, str(e)
    except asyncio.TimeoutError:
        return None, f"no answer within {deadline:g} s (the timeout)"


async def _playing(player: showctl.MediaPlayer, cue: showctl.Cue) -> Playing:
    """(index, name, UUID) of each layer that plays `cue`: its `playingItem` is the cue and it
    has media (`playingItem` alone is the last cue that touched the layer, never cleared)."""
    want = (cue.uuid or "").lower()
    return [
        (i, ts.layer.name or "", ts.layer.uuid or "")
        for i, ts in enumerate(await player.transport_state_async())
        if ts.layer is not None
        and ts.playing_media is not None
        and ts.playing_item is not None
        and (ts.playing_item.uuid or "").lower() == want
    ]


def _is_layer(given: str, index: int, name: str, uuid: str) -> bool:
    """Whether `given` (an index, a name or a UUID, as on the command line) is this layer."""
    if given.isdigit():
        return int(given) == index
    return given == name or given.lower() == uuid.lower()


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
            except showctl.ShowctlError as e:
                # A fade reads the opacity it starts from (its only GET), then sends its steps
                # (POST): a failed GET means that no step was sent.
                if e.method == "GET":
                    raise _not_sent(
                        e,
                        "reading the opacity to fade from failed, so no step of the fade was sent",
                    ) from None
                raise
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
        # The current state first (as `scores --watch` prints the current record): the watch's
        # own first poll, so that no change falls between it and the events. --count counts
        # what is printed: each layer's current state (a row, or a JSON line), then each event.
        watch = player.watch_transport(interval=args.interval)
        current = [
            (i, ts)
            for i, ts in enumerate(watch.baseline())
            if only is None
            or (ts.layer is not None and _layer_key(ts.layer.uuid, ts.layer.name) == only)
        ][: args.count]
        printed = len(current)
        if args.json:
            for label, ts in current:
                emit_json(current_json(label, ts))
        else:
            table(TRANSPORT_HEADERS, [transport_row(i, ts) for i, ts in current])
        if args.count and printed >= args.count:
            return EXIT_OK
        if not args.json:
            print(flush=True)  # the table, then the events
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


def _relative(path: str) -> str:
    """PATH relative to /api/0: a path copied with its /api/0 prefix (from a log, a browser, the
    API document) is the same request, not /api/0/api/0/..."""
    for prefix in ("/api/0/", "api/0/"):
        if path.startswith(prefix):
            return "/" + path[len(prefix) :]
    return path


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
        answer = player.request(args.method, _relative(args.path), json=body, params=params or None)
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
        "trigger a cue of a playlist and print the layer it plays on (--layer targets that "
        "layer first; a cue with a layer of its own plays there)",
        cmd_trigger,
    )
    p.add_argument("playlist", help="playlist index, name or UUID (-1: the video input playlist)")
    p.add_argument("cue", help="cue index, name or UUID")
    p.add_argument(
        "--layer",
        help="layer index, name or UUID: targeted first (select with target=true), since the "
        "application plays an untargeted cue on the targeted layer",
    )

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
    p.add_argument(
        "--count",
        type=positive_count,
        help="with --watch: stop after COUNT lines: each layer's current state (a row of the "
        "table, or a JSON line), then each change",
    )

    p = commands.connecting(
        "request",
        "send any request (PATH relative to /api/0) and print the JSON answer",
        cmd_request,
    )
    p.add_argument("method", type=str.upper, choices=("GET", "POST"), help="GET or POST")
    p.add_argument("path", help="for example /data/layers (a leading /api/0 is the same)")
    p.add_argument("body", nargs="?", metavar="JSON", help="a JSON body, e.g. '{\"value\": 0.5}'")
    p.add_argument(
        "--param", action="append", metavar="KEY=VALUE", help="a query parameter (repeatable)"
    )
