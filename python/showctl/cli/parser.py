"""The parser of the whole command line: the program's options, then each command module's
commands (``register``)."""

from __future__ import annotations

import argparse

import showctl
from showctl.cli import (
    demo,
    media_commands,
    osc,
    preshow,
    score_commands,
    sequence,
    servers,
    venues,
)
from showctl.cli.connection import add_connection_options
from showctl.cli.subcommands import Parser, Subcommands, json_option, log_option, url_help

DESCRIPTION = (
    "Remote control for a media playback application and a scoreboard application, with a "
    "built-in simulator of both."
)
EPILOG = (
    "Start with `showctl demo`, or `showctl simulate` and point the other commands (or your "
    "own tools) at the URL it prints. Without a command, this help. Exit codes: 0 ok, 1 the "
    "application failed, 2 a usage error (see docs/cli.md)."
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="showctl", description=DESCRIPTION, epilog=EPILOG)
    add_connection_options(parser, url_help=url_help())
    json_option(parser, suppress=False)
    log_option(parser, suppress=False)
    parser.add_argument("--version", action="version", version=f"showctl {showctl.__version__}")
    commands = Subcommands(parser)
    for module in (servers, demo, score_commands, media_commands, sequence, preshow, venues, osc):
        module.register(commands)
    commands.json_everywhere()
    return parser
