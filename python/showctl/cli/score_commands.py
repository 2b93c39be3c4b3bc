"""The command on the scoreboard application: ``scores`` (the record, or a watch of it)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import showctl
from showctl.cli.connection import scoreboard
from showctl.cli.errors import EXIT_OK
from showctl.cli.output import emit_json, flatten, safe, score_line, table
from showctl.cli.subcommands import Subcommands, poll_interval, positive_count, watch_only


def cmd_scores(args: argparse.Namespace) -> int:
    watch_only(args)
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
            current = dict(flatten(record.to_dict()))
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
            for k, v in flatten(record.to_dict())
            if k not in ("uuid", "version", "sportMode")
        ],
    )
    sys.stdout.flush()


def register(commands: Subcommands) -> None:
    """Add ``scores``."""
    p = commands.connecting(
        "scores", "print the scoreboard's score record (or follow it with --watch)", cmd_scores
    )
    p.add_argument("--watch", action="store_true", help="print each change until Ctrl-C")
    p.add_argument(
        "--interval", type=poll_interval, default=0.5, help="poll interval (default: 0.5)"
    )
    p.add_argument("--count", type=positive_count, help="with --watch: stop after COUNT records")
