"""``osc``: the OSC bridge (QLab, a lighting desk or TouchOSC drive the media application), until
Ctrl-C or SIGTERM. One line per message received: what it came to, escaped (text from the
network never reaches the terminal raw); with ``--json``, each message's record as a JSON line.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import showctl
from showctl.cli.connection import media, scoreboard, url_env
from showctl.cli.errors import EXIT_OK, UsageError
from showctl.cli.output import emit_json, safe
from showctl.cli.servers import until_interrupted
from showctl.cli.subcommands import Subcommands

#: The passcode is read from the environment only: on the command line, any user of the
#: machine could read it (ps).
PASSCODE_ENV = "SHOWCTL_OSC_PASSCODE"


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, got {text}")
    return value


def _rate(text: str) -> float:
    value = float(text)
    if not 1 <= value <= 100_000:
        raise argparse.ArgumentTypeError(f"must be 1 to 100000 messages per second, got {text}")
    return value


def message_line(record: dict[str, Any]) -> str:
    """One message's record as a line: sender, address, arguments, what it came to."""
    where = f"{record.get('transport', '?')} {record.get('sender', '?')}"
    if "address" not in record:
        return safe(f"{where} {record.get('status')}: {record.get('error')}")
    args = " ".join(repr(a) for a in record.get("args", []))
    line = f"{where} {record['address']} {args}".rstrip()
    line += f" -> {record['status']} ({record['delivery']})"
    if "data" in record:
        line += f" {record['data']!r}"
    if "error" in record:
        line += f": {record['error']}"
    return safe(line)


def cmd_osc(args: argparse.Namespace) -> int:
    url = getattr(args, "url", None)
    if url is not None and args.media is not None and url != args.media:
        raise UsageError("--url and --media name two media applications: pass one of them")
    media_url = args.media or url or os.environ.get(url_env("media")) or None
    if media_url is None:
        raise UsageError(f"no media application: pass --media URL (or set {url_env('media')})")
    board_url = args.scoreboard
    passcode = os.environ.get(PASSCODE_ENV) or None
    with media(args, url=media_url) as player:
        board = scoreboard(args, url=board_url) if board_url else None
        try:
            bridge = showctl.OscBridge(
                player,
                board,
                port=args.port,
                host=args.host,
                allow=args.allow,
                passcode=passcode,
                rate=args.rate,
                reply=not args.no_reply,
                confirm=args.confirm,
            )
            _serve(args, bridge, media_url, board_url, passcode is not None)
        finally:
            if board is not None:
                board.close()
    return EXIT_OK


def _serve(
    args: argparse.Namespace,
    bridge: showctl.OscBridge,
    media_url: str,
    board_url: str | None,
    passcode: bool,
) -> None:
    try:
        bridge.start()
    except ValueError as e:
        # A port in use is no bad command line: the bridge could not listen (exit 1).
        if "cannot listen" not in str(e):
            raise
        raise OSError(str(e)) from None
    with until_interrupted(bridge.stop):
        if args.json:
            emit_json({"host": bridge.host, "port": bridge.port, "allow": bridge.allow})
        else:
            print(f"OSC bridge on {bridge.host}:{bridge.port} (UDP and TCP)", flush=True)
            print(f"  media {safe(media_url)}")
            if board_url:
                print(f"  scoreboard {safe(board_url)}")
            print(f"  senders allowed: {', '.join(bridge.allow)}")
            print(f"  passcode: {'required (from $' + PASSCODE_ENV + ')' if passcode else 'none'}")
            print("  Ctrl-C to stop", flush=True)
        while True:
            record = bridge.next_message(timeout=0.25)
            if record is None:
                continue
            if args.json:
                emit_json(record)
            else:
                print(message_line(record), flush=True)


def register(commands: Subcommands) -> None:
    """Add ``osc``."""
    p = commands.connecting(
        "osc",
        "listen for OSC (UDP and TCP) and send each message's command to the media application",
        cmd_osc,
    )
    p.add_argument(
        "--media",
        metavar="URL",
        help=f"the media application, as --url (default: ${url_env('media')})",
    )
    p.add_argument("--scoreboard", metavar="URL", help="the scoreboard /showctl/scores reads")
    p.add_argument("--port", type=_port, default=53000, help="UDP and TCP port (default 53000)")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)"
    )
    p.add_argument(
        "--allow",
        metavar="NET",
        action="extend",
        nargs="+",
        help="senders' addresses or networks allowed (one or more, or the option repeated; "
        "default: this machine only); other senders are dropped unread",
    )
    p.add_argument(
        "--rate", type=_rate, default=100.0, help="messages per second per sender (default 100)"
    )
    p.add_argument("--no-reply", action="store_true", help="send no /reply to the senders")
    p.add_argument(
        "--confirm", action="store_true", help="read back the commands that can be (slower)"
    )
