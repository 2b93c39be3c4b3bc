"""The command line as the tests run it: ``python -m showctl`` in a subprocess (its environment
without the user's SHOWCTL_* variables), in the background, or in this process; and what its
output must look like (one error line, JSON lines)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from typing import Any

import showctl

from tests.kit.netkit import sigint_default

COMMANDS = [
    "simulate",
    "demo",
    "scores",
    "playlists",
    "layers",
    "trigger",
    "mute",
    "unmute",
    "hide",
    "unhide",
    "clear",
    "opacity",
    "transport",
    "request",
]


def env(**extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SHOWCTL_")}
    return {**clean, **extra}


def showctl_cli(
    *args: str, environ: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "showctl", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=environ if environ is not None else env(),
    )


def start(*args: str) -> subprocess.Popen[str]:
    """The command line running in the background, its output readable line by line."""
    return subprocess.Popen(
        [sys.executable, "-m", "showctl", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        preexec_fn=sigint_default,
    )


def at(sim: showctl.Simulator, *args: str) -> subprocess.CompletedProcess[str]:
    return showctl_cli(*args, "--url", sim.url)


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    # Warnings about the key (given on the command line, or short) come before the error.
    lines = [
        line
        for line in result.stderr.strip().splitlines()
        if not line.startswith(("showctl: warning: ", "the API key is "))
    ]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert lines[0].startswith("showctl: ")
    return lines[0]


def lines_json(out: str) -> list[Any]:
    return [json.loads(line) for line in out.splitlines()]


def cli_in_process(*argv: str) -> tuple[int, str, str]:
    """`showctl ARGV` run in this process: (exit code, stdout, stderr)."""
    import contextlib

    from showctl.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()
