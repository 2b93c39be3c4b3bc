"""The parser class of the command line (one-line errors, "did you mean …?") and the helper
with which each command module adds its commands."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, NoReturn

from showctl.cli.connection import add_connection_options, option
from showctl.cli.errors import UsageError

Command = Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors, and a suggestion for a mistyped command."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}{_suggestion(self, message)} (see: {self.prog} --help)")


def _suggestion(parser: argparse.ArgumentParser, message: str) -> str:
    """ "; did you mean layers?" for "argument COMMAND: invalid choice: 'layrs' (…)"."""
    if "invalid choice: " not in message:
        return ""
    typed = message.split("invalid choice: ", 1)[1].split("'")[1]
    choices = [
        name
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    ]
    import difflib  # only for this message: not worth its import time on every start

    close = difflib.get_close_matches(typed, choices, n=1)
    return f"; did you mean {close[0]}?" if close else ""


def json_option(parser: argparse.ArgumentParser, suppress: bool) -> None:
    parser.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="print JSON lines (NDJSON) instead of tables",
    )


def log_option(parser: argparse.ArgumentParser, suppress: bool) -> None:
    parser.add_argument(
        "--log",
        metavar="FILE",
        default=argparse.SUPPRESS if suppress else None,
        help="append a JSON line per command sent to FILE (created with mode 0600; a symbolic "
        "link is refused)",
    )


class Subcommands:
    """Adds commands to the parser: ``connecting`` ones take the connection options (after the
    command as well as before it) and ``--json``."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self._sub = parser.add_subparsers(dest="command", metavar="COMMAND")
        self._connecting = Parser(add_help=False)
        add_connection_options(self._connecting, suppress=True, url_help=url_help())
        json_option(self._connecting, suppress=True)
        log_option(self._connecting, suppress=True)

    def add(self, name: str, help: str, func: Command, **kw: Any) -> argparse.ArgumentParser:
        """A command that takes no connection options (``description`` defaults to ``help``)."""
        kw.setdefault("description", help)
        p: argparse.ArgumentParser = self._sub.add_parser(name, help=help, **kw)
        p.set_defaults(func=func)
        return p

    def connecting(self, name: str, help: str, func: Command) -> argparse.ArgumentParser:
        """A command that talks to an application: the connection options and ``--json``."""
        return self.add(name, help, func, parents=[self._connecting])

    def json_everywhere(self) -> None:
        """``--json`` after every command that has no ``--json`` of its own, as before it
        (the value given before the command is kept when it is not repeated after): a command
        without a JSON form refuses it when it runs, rather than printing text silently."""
        for p in self._sub.choices.values():
            if "--json" not in p._option_string_actions:
                json_option(p, suppress=True)


def url_help() -> str:
    media, board = option("url")["env"]
    return f"the application, http(s)://HOST:PORT (default: ${media}, or ${board} for scores)"


def no_json(args: argparse.Namespace, why: str) -> None:
    """--json on a command that has no JSON form: refused, not ignored."""
    if args.json:
        raise UsageError(f"--json: {args.command} has no JSON form ({why})")


def watch_only(args: argparse.Namespace) -> None:
    """--count means nothing without --watch: refused rather than ignored."""
    if not args.watch and args.count is not None:
        raise UsageError("--count: only with --watch (it stops the watch after COUNT lines)")


def poll_interval(text: str) -> float:
    value = float(text)
    if not value >= 0.05:
        raise argparse.ArgumentTypeError(f"must be at least 0.05 seconds, got {text}")
    return value


def pause(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"must be between 0 and 60 seconds, got {text}")
    return value


def positive_count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {text}")
    return value
