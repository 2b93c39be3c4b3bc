"""The commands that listen: ``simulate`` (the built-in simulator of both applications) and
``feed`` (one poller serving a page, JSON, XML, CSV, events and files), until Ctrl-C or
SIGTERM."""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import time
from typing import Any

import showctl
from showctl.cli.connection import add_connection_options, declared, option, url_env
from showctl.cli.errors import EXIT_OK, UsageError
from showctl.cli.output import emit_json
from showctl.cli.subcommands import Parser, Subcommands, json_option, poll_interval

SOURCES = ("media", "scoreboard")


def _feed_parameters() -> frozenset[str]:
    """The parameters of ``showctl.Feed``: its connection options are the declared ones it
    takes, shared (``api_key``) or per source (``media_api_key``). Read from its text signature
    (``inspect.signature`` would double the command line's start-up time)."""
    signature = showctl.Feed.__text_signature__ or "()"
    return frozenset(re.findall(r"(\w+)=", signature))


def _shared_feed_options(params: frozenset[str]) -> frozenset[str]:
    return frozenset(o["name"] for o in declared() if o["name"] in params)


def _source_feed_options(source: str, params: frozenset[str]) -> frozenset[str]:
    return frozenset(o["name"] for o in declared() if f"{source}_{o['name']}" in params)


def feed_options(args: argparse.Namespace) -> dict[str, Any]:
    """The connection options given for the feed, as keyword arguments of ``Feed``."""
    params = _feed_parameters()
    names = list(_shared_feed_options(params))
    for source in SOURCES:
        names += [f"{source}_{n}" for n in _source_feed_options(source, params)]
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def cmd_simulate(args: argparse.Namespace) -> int:
    key_env = option("api_key")["env"][0]
    key = args.api_key if args.api_key is not None else os.environ.get(key_env) or None
    try:
        sim = showctl.Simulator(
            port=args.port,
            api_key=key,
            workspace=args.workspace,
            strict=args.strict,
            apply_delay=args.apply_delay,
            host=args.host,
        )
    except OSError as e:
        # A missing workspace file is a bad argument, as a malformed one is (exit code 2).
        if args.workspace is None:
            raise
        raise UsageError(f"--workspace: {e}") from None
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
            media_env, board_env = option("url")["env"]
            print(f"  export {media_env}={sim.url} {board_env}={sim.url}")
            if key:
                print(f"  requests need the header Authorization: Bearer <key> (set {key_env})")
            print("  Ctrl-C to stop", flush=True)
        board = showctl.Scoreboard(sim.url, key) if args.score_tick else None
        while True:
            sleep(args.score_tick or 3600)
            if board is not None:
                _bump_score(sim, board)
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()
    return EXIT_OK


def sleep(seconds: float) -> None:
    """``time.sleep`` in steps of at most 0.25 s: Ctrl-C then ends the wait within 0.25 s even
    when the signal did not wake this thread's sleep (it is still handled between steps)."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        time.sleep(min(left, 0.25))


def cmd_feed(args: argparse.Namespace) -> int:
    if getattr(args, "url", None) is not None:
        raise UsageError(
            "--url: the feed polls two applications; pass --media URL and/or --scoreboard URL"
        )
    media_url, board_url = args.media, args.scoreboard
    if media_url is None and board_url is None:
        media_url = os.environ.get(url_env("media")) or None
        board_url = os.environ.get(url_env("scoreboard")) or None
    if media_url is None and board_url is None:
        raise UsageError(
            f"nothing to poll: pass --media URL and/or --scoreboard URL "
            f"(or set {url_env('media')} / {url_env('scoreboard')})"
        )
    feed = showctl.Feed(
        media_url,
        board_url,
        interval=args.interval,
        port=args.port,
        host=args.host,
        write=args.write,
        **feed_options(args),
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
            sleep(3600)
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


def register(commands: Subcommands) -> None:
    """Add ``simulate`` and ``feed``."""
    p = commands.add(
        "simulate",
        "run the built-in simulator of both applications until Ctrl-C",
        cmd_simulate,
        description="Run the built-in simulator of both applications (media playback and "
        "scoreboard on one port) until Ctrl-C. It prints its URL; --json prints "
        '{"url": ..., "port": ...} as one line.',
    )
    p.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument(
        "--api-key",
        help=f"require this key on every request (default: ${option('api_key')['env'][0]}, "
        "else none)",
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
        "--score-tick",
        type=poll_interval,
        metavar="SECONDS",
        help="add points to the score every SECONDS (to see `showctl scores --watch` move)",
    )
    p.add_argument("--json", action="store_true", help="print the URL as a JSON line")

    # The feed's connection options: the shared ones Feed takes, and their per-source variants
    # (--media-api-key) where Feed takes them; no --url (the sources have their own).
    params = _feed_parameters()
    connection = Parser(add_help=False)
    add_connection_options(connection, only=_shared_feed_options(params), suppress=True)
    for source in SOURCES:
        add_connection_options(
            connection,
            prefix=f"{source}-",
            only=_source_feed_options(source, params),
            suppress=True,
        )
    json_option(connection, suppress=True)
    p = commands.add(
        "feed",
        "poll the applications once and serve a clock and score page, JSON, XML, CSV, "
        "Server-Sent Events and files to any number of readers (until Ctrl-C)",
        cmd_feed,
        parents=[connection],
    )
    # Refused with a hint (the sources have their own URLs), rather than "unrecognized".
    p.add_argument("--url", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.add_argument("--media", metavar="URL", help="the media application to poll")
    p.add_argument("--scoreboard", metavar="URL", help="the scoreboard application to poll")
    p.add_argument(
        "--interval", type=poll_interval, default=0.5, help="poll interval (default: 0.5)"
    )
    p.add_argument("--port", type=int, default=0, help="port to serve on (default: a free one)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to serve on (default: 127.0.0.1; 0.0.0.0 for other machines)",
    )
    p.add_argument(
        "--write", metavar="DIR", help="also write the documents into DIR on each change"
    )
