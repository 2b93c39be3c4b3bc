"""The ``showctl`` command line (also ``python -m showctl``).

Human tables by default; ``--json`` prints JSON lines (NDJSON: one object per line, lists as
one line per item) for piping into other tools. Exit codes: 0 ok, 1 the application failed
(an HTTP error, no connection, a timeout), 2 a usage error (a bad argument, no URL). Errors
are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NoReturn

import showctl
from showctl import _showday
from showctl.exceptions import ShowctlError

EXIT_OK = 0
EXIT_APP = 1
EXIT_USAGE = 2

MEDIA_ENV = "SHOWCTL_MEDIA_URL"
SCOREBOARD_ENV = "SHOWCTL_SCOREBOARD_URL"
KEY_ENV = "SHOWCTL_API_KEY"


class UsageError(Exception):
    """A bad command line, reported with exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see: {self.prog} --help)")


# --- output ----------------------------------------------------------------------------------

# Control characters (C0, DEL, C1), line and paragraph separators and bidirectional overrides:
# from a name or a server's body, they could move the cursor, recolour or retitle the terminal,
# or make a line read other than it is. Printed escaped (`\x1b`, `\u202e`).
_CONTROLS = (range(0x20), range(0x7F, 0xA0), (0x2028, 0x2029), range(0x202A, 0x202F))
_UNSAFE = {
    c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"
    for group in (*_CONTROLS, range(0x2066, 0x206A))
    for c in group
}
_UNSAFE_IN_JSON = {c: f"\\u{c:04x}" for c in _UNSAFE if c >= 0x7F}


def safe(text: object) -> str:
    """``text`` as printed on a terminal: control and bidirectional characters escaped."""
    return str(text).translate(_UNSAFE)


def dumps(obj: Any, **kw: Any) -> str:
    """JSON text whose strings carry no raw control or bidirectional character (json escapes
    those below U+0020 itself; the rest become ``\\uXXXX``, which reads back the same)."""
    return json.dumps(obj, ensure_ascii=False, **kw).translate(_UNSAFE_IN_JSON)



def emit_json(obj: Any) -> None:
    """One JSON document on one line."""
    print(dumps(obj, separators=(",", ":")), flush=True)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], indent: str = "") -> None:
    """Aligned columns under a header row."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]
    for row in [list(headers), *cells]:
        print(indent + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1 else f"{v:.1f}"
    return safe(v)


def _flatten(record: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in record.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def score_line(record: showctl.ScoreRecord) -> str:
    """A one-line summary of a score record: sport and the two teams' scores if present."""
    d = record.to_dict()
    for one, two in (("team1Score", "team2Score"), ("teamOneRuns", "teamTwoRuns")):
        if one in d:
            return f"{record.sport_mode}: {d[one]} - {d.get(two)}"
    return f"{record.sport_mode}"


def transport_row(label: object, ts: showctl.TransportState) -> list[Any]:
    layer = ts.layer.name if ts.layer is not None else None
    media = ts.playing_media.name if ts.playing_media is not None else None
    return [label, layer, transport_word(ts), ts.time_elapsed, ts.time_remaining, media]


def transport_word(ts: showctl.TransportState) -> str:
    if ts.playing_media is None:
        return "empty"
    if ts.is_playing:
        return "still" if not ts.playback_rate else "playing"
    return "paused"


TRANSPORT_HEADERS = ("LAYER", "NAME", "STATE", "ELAPSED", "REMAINING", "MEDIA")


def event_line(event: showctl.TransportEvent) -> str:
    """One line for a person: time, layer, what happened and the media concerned."""
    stamp = time.strftime("%H:%M:%S", time.localtime(event.timestamp))
    if event.kind == "poll_failed":
        return f"{stamp}  poll failed, still watching: {event.error}"
    if event.kind == "poll_recovered":
        return f"{stamp}  the application answers again"
    state = event.previous if event.kind == "emptied" else event.current
    media = state.playing_media.name if state and state.playing_media else None
    if event.kind == "time_remaining":
        what = f"{event.threshold:g} s left of"
    else:
        what = event.kind.replace("_", " ")
    index = event.layer_index if event.layer_index is not None else "gone"
    return f"{stamp}  layer {index} ({event.layer_name}): {what} {media or ''}".rstrip()


def event_json(event: showctl.TransportEvent) -> dict[str, Any]:
    """A transport event as JSON; `previous` and `current` are the application's own objects."""
    return {
        "kind": event.kind,
        "layer_index": event.layer_index,
        "layer_name": event.layer_name,
        "layer_uuid": event.layer_uuid,
        "timestamp": event.timestamp,
        "threshold": event.threshold,
        "error": str(event.error) if event.error is not None else None,
        "previous": event.previous.to_dict() if event.previous is not None else None,
        "current": event.current.to_dict() if event.current is not None else None,
    }


# --- clients ---------------------------------------------------------------------------------


def _url(args: argparse.Namespace, env: str) -> str:
    url = args.url or os.environ.get(env)
    if not url:
        raise UsageError(
            f"no URL: pass --url http://HOST:PORT or set {env} "
            "(`showctl simulate` starts a stand-in)"
        )
    return str(url)


def media(args: argparse.Namespace) -> showctl.MediaPlayer:
    return showctl.MediaPlayer(_url(args, MEDIA_ENV), args.api_key, timeout=args.timeout)


def scoreboard(args: argparse.Namespace) -> showctl.Scoreboard:
    return showctl.Scoreboard(_url(args, SCOREBOARD_ENV), args.api_key, timeout=args.timeout)


# --- commands --------------------------------------------------------------------------------


def cmd_simulate(args: argparse.Namespace) -> int:
    key = args.api_key if args.api_key is not None else os.environ.get(KEY_ENV) or None
    sim = showctl.Simulator(
        port=args.port,
        api_key=key,
        workspace=args.workspace,
        strict=args.strict,
        apply_delay=args.apply_delay,
        host=args.host,
        blend_route=args.blend_route,
    )
    sim.start()
    # From here on Ctrl-C (or SIGTERM) is the normal way to stop, even while the URL is printed.
    try:
        # A service manager stops with SIGTERM: stop as cleanly as on Ctrl-C.
        if hasattr(signal, "SIGTERM"):
            signal.signal(signal.SIGTERM, _raise_interrupt)
        if args.json:
            emit_json({"url": sim.url, "port": sim.port})
        else:
            print(f"showctl simulator listening on {sim.url} (media playback and scoreboard)")
            print(f"  export {MEDIA_ENV}={sim.url} {SCOREBOARD_ENV}={sim.url}")
            if key:
                print(f"  requests need the header Authorization: Bearer <key> (set {KEY_ENV})")
            print("  Ctrl-C to stop", flush=True)
        board = showctl.Scoreboard(sim.url, key) if args.score_tick else None
        while True:
            _sleep(args.score_tick or 3600)
            if board is not None:
                _bump_score(sim, board)
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()
    return EXIT_OK


def _sleep(seconds: float) -> None:
    """``time.sleep`` in steps of at most 0.25 s: Ctrl-C then ends the wait within 0.25 s even
    when the signal did not wake this thread's sleep (it is still handled between steps)."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        time.sleep(min(left, 0.25))


def cmd_feed(args: argparse.Namespace) -> int:
    media_url, board_url = args.media, args.scoreboard
    if media_url is None and board_url is None:
        media_url = os.environ.get(MEDIA_ENV) or None
        board_url = os.environ.get(SCOREBOARD_ENV) or None
    if media_url is None and board_url is None:
        raise UsageError(
            f"nothing to poll: pass --media URL and/or --scoreboard URL "
            f"(or set {MEDIA_ENV} / {SCOREBOARD_ENV})"
        )
    feed = showctl.Feed(
        media_url,
        board_url,
        interval=args.interval,
        port=args.port,
        host=args.host,
        write=args.write,
        api_key=args.api_key,
        timeout=args.timeout,
    )
    feed.start()
    try:
        if hasattr(signal, "SIGTERM"):
            signal.signal(signal.SIGTERM, _raise_interrupt)
        if args.json:
            emit_json({"url": feed.url, "port": feed.port})
        else:
            # The URL alone on the first line, for scripts that start the feed.
            print(feed.url, flush=True)
            for what, url in (("media", media_url), ("scoreboard", board_url)):
                if url:
                    print(f"  polling {what} {url} every {args.interval:g} s")
            docs = ["transport.json"] if media_url else []
            docs += ["scores.json", "scores.xml", "scores.csv"] if board_url else []
            print(f"  page {feed.url}  data {' '.join(feed.url + d for d in docs)}")
            print(f"  events {feed.url}events (Server-Sent Events)")
            if args.write:
                print(f"  writing {', '.join(docs)} into {args.write} on each change")
            print("  Ctrl-C to stop", flush=True)
        while True:
            _sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        feed.stop()
    return EXIT_OK


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _bump_score(sim: showctl.Simulator, board: showctl.Scoreboard) -> None:
    """Add a point or two to one team of the active sport (for `scores --watch`)."""
    record = board.scores().to_dict()
    for pair in (("team1Score", "team2Score"), ("teamOneRuns", "teamTwoRuns")):
        if pair[0] in record:
            field = random.choice(pair)
            try:
                value = int(record.get(field) or 0)
            except ValueError:
                value = 0
            sim.set_score(field, value + random.choice((1, 2)))
            return


def cmd_demo(args: argparse.Namespace) -> int:
    from showctl._demo import run

    pace = args.pace if args.pace is not None else (0.6 if sys.stdout.isatty() else 0.0)
    run(pace=pace)
    return EXIT_OK


def cmd_scores(args: argparse.Namespace) -> int:
    _watch_only(args)
    with scoreboard(args) as board:
        if not args.watch:
            record = board.scores()
            if args.json:
                emit_json(record.to_dict())
            else:
                _print_record(record)
            return EXIT_OK
        previous: dict[str, Any] | None = None
        for n, record in enumerate(board.watch(interval=args.interval), start=1):
            current = dict(_flatten(record.to_dict()))
            if args.json:
                emit_json(record.to_dict())
            elif previous is None:
                _print_record(record)
            else:
                stamp = time.strftime("%H:%M:%S")
                changes = [
                    f"{k}: {previous.get(k)} -> {v}"
                    for k, v in current.items()
                    if previous.get(k) != v
                ]
                line = f"{stamp}  {score_line(record)}  ({', '.join(changes)})"
                print(safe(line), flush=True)
            previous = current
            if args.count and n >= args.count:
                break
    return EXIT_OK


def _print_record(record: showctl.ScoreRecord) -> None:
    print(safe(f"{score_line(record)}  (uuid {record.uuid}, version {record.version})"))
    table(
        ("FIELD", "VALUE"),
        [
            (k, repr(v) if isinstance(v, str) and v.strip() == "" else v)
            for k, v in _flatten(record.to_dict())
            if k not in ("uuid", "version", "sportMode")
        ],
    )
    sys.stdout.flush()


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


def _watch_only(args: argparse.Namespace) -> None:
    """--count means nothing without --watch: refused rather than ignored."""
    if not args.watch and args.count is not None:
        raise UsageError("--count: only with --watch (it stops the watch after COUNT lines)")


def cmd_transport(args: argparse.Namespace) -> int:
    _watch_only(args)
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
        for event in player.watch_transport(interval=args.interval):
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


# --- parser ----------------------------------------------------------------------------------


def _interval(text: str) -> float:
    value = float(text)
    if not value >= 0.05:
        raise argparse.ArgumentTypeError(f"must be at least 0.05 seconds, got {text}")
    return value


def _pace(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"must be between 0 and 60 seconds, got {text}")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {text}")
    return value


def _connection(suppress: bool) -> _Parser:
    """--url, --api-key, --timeout and --json, accepted before or after the command."""
    p = _Parser(add_help=False)

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if suppress else value

    p.add_argument(
        "--url",
        default=default(None),
        help=f"the application, http(s)://HOST:PORT (default: ${MEDIA_ENV}, "
        f"or ${SCOREBOARD_ENV} for scores)",
    )
    p.add_argument("--api-key", default=default(None), help=f"API key (default: ${KEY_ENV})")
    p.add_argument(
        "--timeout",
        type=float,
        default=default(5.0),
        help="seconds per attempt (default: 5)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        default=default(False),
        help="print JSON lines (NDJSON) instead of tables",
    )
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="showctl",
        description="Remote control for a media playback application and a scoreboard "
        "application, with a built-in simulator of both.",
        epilog="Start with `showctl demo`, or `showctl simulate` and point the other "
        "commands (or your own tools) at the URL it prints. Exit codes: 0 ok, "
        "1 the application failed, 2 a usage error.",
        parents=[_connection(False)],
    )
    parser.add_argument("--version", action="version", version=f"showctl {showctl.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    common = [_connection(True)]

    def command(name: str, help: str, **kw: Any) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help, parents=common, **kw)

    p: argparse.ArgumentParser = sub.add_parser(
        "simulate",
        help="run the built-in simulator of both applications until Ctrl-C",
        description="Run the built-in simulator of both applications (media playback and "
        "scoreboard on one port) until Ctrl-C. It prints its URL; --json prints "
        '{"url": ..., "port": ...} as one line.',
    )
    p.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument(
        "--api-key",
        help=f"require this key on every request (default: ${KEY_ENV}, else none)",
    )
    p.add_argument(
        "--workspace",
        metavar="PATH",
        help="a JSON workspace file to start from, or a directory holding workspace.json "
        "(as `showctl record` writes it)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="answer 400 to requests the applications accept but the API documents do not "
        "(they are logged as warnings either way)",
    )
    p.add_argument(
        "--apply-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="apply each change this long after its 200, as the real application does (default: 0)",
    )
    p.add_argument(
        "--blend-route",
        action="store_true",
        help="also answer /blend/layer/{id}, as versions before 3.8 do (3.8 and 3.9 have only "
        "/layerBlend/layer/{id})",
    )
    p.add_argument(
        "--score-tick",
        type=_interval,
        metavar="SECONDS",
        help="add points to the score every SECONDS (to see `showctl scores --watch` move)",
    )
    p.add_argument("--json", action="store_true", help="print the URL as a JSON line")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "demo",
        help="run a short scripted show on the built-in simulator and print what happened",
        description="Start the built-in simulator and run a short show through the public "
        "client: list playlists, trigger a cue on a layer, fade its opacity, read the "
        "transport state, switch the scoreboard's sport and watch the score change.",
    )
    p.add_argument(
        "--pace",
        type=_pace,
        metavar="SECONDS",
        help="pause between steps (default: 0.6 on a terminal, else 0)",
    )
    p.set_defaults(func=cmd_demo)

    p = command(
        "feed",
        "poll the applications once and serve a clock and score page, JSON, XML, CSV, "
        "Server-Sent Events and files to any number of readers (until Ctrl-C)",
    )
    p.add_argument("--media", metavar="URL", help="the media application to poll")
    p.add_argument("--scoreboard", metavar="URL", help="the scoreboard application to poll")
    p.add_argument("--interval", type=_interval, default=0.5, help="poll interval (default: 0.5)")
    p.add_argument("--port", type=int, default=0, help="port to serve on (default: a free one)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to serve on (default: 127.0.0.1; 0.0.0.0 for other machines)",
    )
    p.add_argument(
        "--write", metavar="DIR", help="also write the documents into DIR on each change"
    )
    p.set_defaults(func=cmd_feed)

    p = command("scores", "print the scoreboard's score record (or follow it with --watch)")
    p.add_argument("--watch", action="store_true", help="print each change until Ctrl-C")
    p.add_argument("--interval", type=_interval, default=0.5, help="poll interval (default: 0.5)")
    p.add_argument("--count", type=_count, help="with --watch: stop after COUNT records")
    p.set_defaults(func=cmd_scores)

    p = command("playlists", "print the playlist tree with cue indexes and UUIDs")
    p.set_defaults(func=cmd_playlists)

    p = command("layers", "print the layers: index, name, muted, hidden, opacity, UUID")
    p.set_defaults(func=cmd_layers)

    p = command(
        "trigger",
        "trigger a cue of a playlist (on a layer with --layer, else on the selected layer)",
    )
    p.add_argument("playlist", help="playlist index, name or UUID (-1: the video input playlist)")
    p.add_argument("cue", help="cue index, name or UUID")
    p.add_argument("--layer", help="layer index, name or UUID")
    p.set_defaults(func=cmd_trigger)

    for op, what in (
        ("mute", "mute"),
        ("unmute", "unmute"),
        ("hide", "hide"),
        ("unhide", "unhide"),
        ("clear", "clear (empty)"),
    ):
        p = command(op, f"{what} a layer, or the whole workspace without LAYER")
        p.add_argument("layer", nargs="?", help="layer index, name or UUID")
        p.set_defaults(func=cmd_layer_op)

    p = command("opacity", "print a layer's opacity, or set it (0.0-1.0), or fade to it")
    p.add_argument("layer", help="layer index, name or UUID")
    p.add_argument("value", nargs="?", type=float, help="new opacity, 0.0 to 1.0")
    p.add_argument("--fade", type=float, metavar="SECONDS", help="fade to VALUE over SECONDS")
    p.add_argument("--steps", type=_count, help="steps of a fade (default: 20 a second)")
    p.set_defaults(func=cmd_opacity)

    p = command("transport", "print what each layer plays (or one layer's), --watch to follow")
    p.add_argument("layer", nargs="?", help="layer index, name or UUID (default: all)")
    p.add_argument(
        "--watch",
        action="store_true",
        help="print a line per change: started, stopped, media changed, emptied, "
        "10 s left, poll failed (until Ctrl-C)",
    )
    p.add_argument("--interval", type=_interval, default=0.5, help="poll interval (default: 0.5)")
    p.add_argument("--count", type=_count, help="with --watch: stop after COUNT lines")
    p.set_defaults(func=cmd_transport)

    p = command(
        "request",
        "send any request (PATH relative to /api/0) and print the JSON answer",
    )
    p.add_argument("method", type=str.upper, choices=("GET", "POST"), help="GET or POST")
    p.add_argument("path", help="for example /data/layers")
    p.add_argument("body", nargs="?", metavar="JSON", help="a JSON body, e.g. '{\"value\": 0.5}'")
    p.add_argument(
        "--param", action="append", metavar="KEY=VALUE", help="a query parameter (repeatable)"
    )
    p.set_defaults(func=cmd_request)

    _showday.register(command)
    return parser


def _text_arg(arg: str) -> str:
    """An argument as the user typed it: under an ASCII-only locale Python decodes a UTF-8
    name ("Écran") to lone surrogates, which no request can carry; decode its bytes as UTF-8."""
    try:
        return os.fsencode(arg).decode("utf-8")
    except UnicodeError:
        return arg


def _tolerant_output() -> None:
    """Under an ASCII-only locale, print what the terminal cannot show as escapes
    (``\\xc9cran``) instead of failing on the first non-ASCII name."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    _tolerant_output()
    if argv is None:
        argv = [_text_arg(a) for a in sys.argv[1:]]
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except (UsageError, ValueError) as e:
        _fail(f"error: {e}")
        return EXIT_USAGE
    except ShowctlError as e:
        _fail(str(e))
        return EXIT_APP
    except OSError as e:
        # The simulator could not listen, a workspace file is missing, stdout went away.
        if isinstance(e, BrokenPipeError):
            _silence_stdout()
            return EXIT_OK
        _fail(str(e))
        return EXIT_APP
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        # A bug in showctl itself: still one line (SHOWCTL_DEBUG=1 shows the traceback).
        if os.environ.get("SHOWCTL_DEBUG"):
            raise
        _fail(f"internal error (please report it): {type(e).__name__}: {e}")
        return EXIT_APP


def _fail(message: str) -> None:
    print(f"showctl: {safe(' '.join(message.split()))}", file=sys.stderr)


def _silence_stdout() -> None:
    """After a closed pipe (`showctl layers --json | head -1`), don't complain at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
