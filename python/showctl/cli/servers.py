"""The commands that listen: ``simulate`` (the built-in simulator of both applications) and
``feed`` (one poller serving a page, JSON, XML, CSV, events and files), until Ctrl-C or
SIGTERM."""

from __future__ import annotations

import argparse
import os
import re
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import showctl
from showctl.cli.connection import add_connection_options, declared, option, url_env
from showctl.cli.errors import EXIT_OK, UsageError
from showctl.cli.output import emit_json, safe
from showctl.cli.subcommands import Parser, Subcommands, json_option, poll_interval
from showctl.cli.venues import refuse_with_venue

SOURCES = ("media", "scoreboard")


def _feed_parameters() -> frozenset[str]:
    """The parameters of ``showctl.Feed``: the connection options it takes for every source
    (``api_key``, ``timeout``, ...). Read from its text signature (``inspect.signature`` would
    double the command line's start-up time)."""
    signature = showctl.Feed.__text_signature__ or "()"
    return frozenset(re.findall(r"(\w+)=", signature))


def _shared_feed_options(params: frozenset[str]) -> frozenset[str]:
    return frozenset(o["name"] for o in declared() if o["name"] in params)


#: The options a source of the feed may set for itself (the keys of its dict besides ``url``).
SOURCE_OPTIONS = frozenset({"api_key", "tls_fingerprint", "ca_cert", "verify"})


def feed_options(args: argparse.Namespace) -> dict[str, Any]:
    """The connection options given for every source of the feed, as keyword arguments."""
    names = _shared_feed_options(_feed_parameters())
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def feed_source(args: argparse.Namespace, source: str, url: str | None) -> Any:
    """A source of the feed: its URL, or a dict with its own connection options when any of
    ``--SOURCE-api-key``, ``--SOURCE-tls-fingerprint``, ``--SOURCE-ca-cert``,
    ``--SOURCE-insecure`` is given."""
    own = {
        name: getattr(args, f"{source}_{name}")
        for name in SOURCE_OPTIONS
        if getattr(args, f"{source}_{name}", None) is not None
    }
    if url is None:
        if own:
            raise UsageError(f"--{source}-* options given without --{source} URL")
        return None
    return {"url": url, **own} if own else url


def cmd_simulate(args: argparse.Namespace) -> int:
    if args.venue is not None:
        return _simulate_venue(args)
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
            blend_route=args.blend_route,
            read_content_type=args.read_content_type,
            score_tick=args.score_tick,
        )
    except OSError as e:
        # A missing workspace file is a bad argument, as a malformed one is (exit code 2).
        if args.workspace is None:
            raise
        raise UsageError(f"--workspace: {e}") from None
    except ValueError as e:
        # The simulator names its argument (`apply_delay: ...`): name the flag instead.
        name, _, rest = str(e).partition(":")
        if name in ("apply_delay", "read_content_type"):
            raise UsageError(f"--{name.replace('_', '-')}:{rest}") from None
        raise
    sim.start()
    # From here on Ctrl-C (or SIGTERM) is the normal way to stop, even while the URL is printed.
    try:
        # A service manager stops with SIGTERM: stop as cleanly as on Ctrl-C.
        if hasattr(signal, "SIGTERM"):
            signal.signal(signal.SIGTERM, raise_interrupt)
        if args.json:
            emit_json({"url": sim.url, "port": sim.port})
        else:
            print(f"showctl simulator listening on {sim.url} (media playback and scoreboard)")
            media_env, board_env = option("url")["env"]
            print(f"  export {media_env}={sim.url} {board_env}={sim.url}")
            if key:
                print(f"  requests need the header Authorization: Bearer <key> (set {key_env})")
            print("  Ctrl-C to stop", flush=True)
        sleep(float("inf"))
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()
    return EXIT_OK


def _simulate_venue(args: argparse.Namespace) -> int:
    from showctl._venue import simulate_venue

    refuse_with_venue(args, "workspace", "api_key", "blend_route", "read_content_type")
    if args.port:
        raise UsageError("--port: not with --venue (each simulator listens on its source's port)")
    venue = simulate_venue(
        args.venue, same_ports=True, strict=args.strict, score_tick=args.score_tick
    )
    with until_interrupted(venue.stop):
        if args.json:
            emit_json({s.name: {"kind": s.kind, "url": s.url} for s in venue})
        else:
            print(f"showctl simulators for {len(venue)} sources of {safe(args.venue)}:")
            for s in venue:
                print(f"  {safe(s.name):<16} {s.kind:<10} {s.url}")
            print("  Ctrl-C to stop", flush=True)
        sleep(float("inf"))
    return EXIT_OK


@contextmanager
def until_interrupted(stop: Callable[[], None]) -> Iterator[None]:
    """Run the body (which serves until Ctrl-C), and stop when it ends: Ctrl-C and SIGTERM
    (a service manager's stop) end it as cleanly as each other."""
    try:
        if hasattr(signal, "SIGTERM"):
            signal.signal(signal.SIGTERM, raise_interrupt)
        yield
    except KeyboardInterrupt:
        pass
    finally:
        stop()


def sleep(seconds: float) -> None:
    """``time.sleep`` in steps of at most 0.25 s: Ctrl-C then ends the wait within 0.25 s even
    when the signal did not wake this thread's sleep (it is still handled between steps)."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        time.sleep(min(left, 0.25))


def _feed_venue(args: argparse.Namespace) -> showctl.Feed:
    given = [f"--{n.replace('_', '-')}" for n in feed_options(args)]
    for source in SOURCES:
        if getattr(args, source) is not None:
            given.append(f"--{source}")
        given += [
            f"--{source}-{n.replace('_', '-')}"
            for n in SOURCE_OPTIONS
            if getattr(args, f"{source}_{n}", None) is not None
        ]
    if args.interval is not None:
        given.append("--interval")
    if given:
        raise UsageError(
            f"{given[0]}: not with --venue (the venue file sets each source's URL, options and "
            "interval)"
        )
    return showctl.Feed(venue=args.venue, port=args.port, host=args.host, write=args.write)


def cmd_feed(args: argparse.Namespace) -> int:
    if args.venue is not None:
        return _serve_feed(args, _feed_venue(args), None)
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
        feed_source(args, "media", media_url),
        feed_source(args, "scoreboard", board_url),
        interval=args.interval,
        port=args.port,
        host=args.host,
        write=args.write,
        **feed_options(args),
    )
    return _serve_feed(args, feed, (media_url, board_url))


def _serve_feed(
    args: argparse.Namespace, feed: showctl.Feed, urls: tuple[str | None, str | None] | None
) -> int:
    """Start the feed, print where it serves (``urls``: the one-source form's URLs; ``None``
    for a venue), and serve until Ctrl-C or SIGTERM."""
    try:
        feed.start()
    except ValueError as e:
        # A port in use (or an address not of this machine) is no bad command line: the feed
        # could not listen, exit 1 as for `simulate` (the client names the argument first).
        if "cannot listen on" not in str(e):
            raise
        raise OSError(str(e)) from None
    with until_interrupted(feed.stop):
        if args.json:
            emit_json({"url": feed.url, "port": feed.port})
        else:
            # The URL alone on the first line, for scripts that start the feed.
            print(feed.url, flush=True)
            if urls is None:
                docs = _print_venue_sources(feed)
            else:
                media_url, board_url = urls
                interval = feed.interval
                for what, url in (("media", media_url), ("scoreboard", board_url)):
                    if url:
                        print(f"  polling {what} {url} every {interval:g} s")
                docs = ["transport.json"] if media_url else []
                docs += ["scores.json", "scores.xml", "scores.csv"] if board_url else []
            print(f"  page {feed.url}  data {' '.join(feed.url + d for d in docs)}")
            print(f"  events {feed.url}events (Server-Sent Events)")
            if args.write:
                print(f"  writing {', '.join(docs)} into {args.write} on each change")
            print("  Ctrl-C to stop", flush=True)
        sleep(float("inf"))
    return EXIT_OK


def _print_venue_sources(feed: showctl.Feed) -> list[str]:
    """What a venue feed polls, one line per source; returns its combined documents."""
    sources = feed.sources
    for s in sources:
        print(f"  polling {safe(s['name'])} ({s['kind']}): {' '.join(s['documents'])}")
    kinds = {s["kind"] for s in sources}
    docs = ["sources.json"] + (["transport.json"] if "media" in kinds else [])
    return docs + (["scores.json", "scores.xml", "scores.csv"] if "scoreboard" in kinds else [])


def raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


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
        "--api-key-file",
        metavar="FILE",
        help="read the key of --api-key from the first line of FILE (off the command line)",
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
        "--read-content-type",
        metavar="TYPE",
        help="the Content-Type of read answers, such as application/json (default: none, as "
        "field sources suggest the application does not type them JSON)",
    )
    p.add_argument(
        "--score-tick",
        type=poll_interval,
        metavar="SECONDS",
        help="play the score: a team scores every SECONDS and every 5th time the period ends "
        "(quarter, half-inning or set, as the sport counts it); after the last period a new "
        "game starts (to see `showctl scores --watch` and a watch loop move)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,  # as given before the command when not repeated after it
        help="print the URL as a JSON line",
    )
    p.add_argument(
        "--venue",
        metavar="FILE",
        help="a simulator for every source of this venue file, each on the port of its URL, "
        "from its workspace and with its key",
    )

    # The feed's connection options: the shared ones Feed takes, and each source's own
    # (--media-api-key, --scoreboard-tls-fingerprint, ...); no --url (the sources have their
    # own).
    params = _feed_parameters()
    connection = Parser(add_help=False)
    add_connection_options(connection, only=_shared_feed_options(params), suppress=True)
    for source in SOURCES:
        add_connection_options(connection, prefix=f"{source}-", only=SOURCE_OPTIONS, suppress=True)
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
        "--interval", type=poll_interval, default=None, help="poll interval (default: 0.5)"
    )
    p.add_argument(
        "--venue",
        metavar="FILE",
        help="poll every source of this venue file (each with its own options and interval): "
        "per-source documents, combined ones, events tagged with their source",
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
