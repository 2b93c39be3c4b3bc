"""The venue command ``status --venue FILE`` (a live view of every source), and what the
``--venue`` forms of ``probe``, ``simulate`` and ``feed`` share."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from showctl.cli.errors import UsageError
from showctl.cli.keys import scrub
from showctl.cli.output import safe
from showctl.cli.subcommands import Subcommands


class SafeOut:
    """A text stream that escapes control characters line by line (names and errors come from
    the applications), keeping the status view's own clear-screen code."""

    CLEAR = "\x1b[H\x1b[2J"

    def __init__(self, out: TextIO, keys: list[str] | None = None) -> None:
        self._out = out
        self._keys = keys or []

    def isatty(self) -> bool:
        return self._out.isatty()

    def write(self, text: str) -> int:
        clear = text.startswith(self.CLEAR)
        body = text[len(self.CLEAR) :] if clear else text
        # The sources' keys masked (an application may echo its key in a name).
        lines = "\n".join(safe(scrub(line, self._keys)) for line in body.split("\n"))
        return self._out.write((self.CLEAR if clear else "") + lines)

    def flush(self) -> None:
        self._out.flush()


def refuse_with_venue(args: argparse.Namespace, *names: str) -> None:
    """A venue file names every source's URL and options: a URL or option given beside it is
    refused, not silently ignored."""
    for name in names:
        if getattr(args, name, None) not in (None, False):
            flag = "URL" if name == "target" else "--" + name.replace("_", "-")
            raise UsageError(
                f"{flag}: not with --venue (the venue file names each source's URL and options)"
            )


def cmd_status(args: argparse.Namespace) -> int:
    from showctl import _core
    from showctl.cli import status

    sources = _core._load_venue(args.venue, reveal_keys=True)
    out = SafeOut(sys.stdout, [s["api_key"] for s in sources if s.get("api_key")])
    return status.run(args.venue, once=args.once, refresh=args.refresh, out=out, json=args.json)


def _refresh(text: str) -> float:
    value = float(text)
    if not 0.1 <= value <= 60:
        raise argparse.ArgumentTypeError(f"must be between 0.1 and 60 seconds, got {text}")
    return value


def register(commands: Subcommands) -> None:
    """Add ``status``."""
    p = commands.add(
        "status",
        "a live view of every source of a venue file: what each media player plays and its "
        "time remaining, each court's score, stale or not (refreshes like top; Ctrl-C ends it)",
        cmd_status,
    )
    p.add_argument("--venue", metavar="FILE", required=True, help="the venue file (TOML)")
    p.add_argument(
        "--once",
        action="store_true",
        help="print one snapshot once every source answered (or timed out); exit 0 when all "
        "are fresh, 1 otherwise",
    )
    p.add_argument(
        "--refresh",
        type=_refresh,
        default=0.5,
        metavar="SECONDS",
        help="redraw every SECONDS (default: 0.5; each source polls at its own interval)",
    )
