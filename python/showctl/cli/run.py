"""Run the command line: parse, run the command, and turn every failure into one line on
stderr and the exit code docs/cli.md defines."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from showctl.cli import keys
from showctl.cli.connection import cli_message, key_source, option
from showctl.cli.errors import EXIT_APP, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError
from showctl.cli.logfile import CommandLog, open_log
from showctl.cli.output import dumps, safe, warn
from showctl.cli.parser import build_parser
from showctl.exceptions import ConnectError, Delivery, ShowctlError, UnauthorizedError

#: What each delivery means for the operator, as the clause an error line ends with.
DELIVERY_CLAUSE: dict[Delivery, str] = {
    "not_sent": "not sent: safe to run again",
    "sent_no_answer": "sent, no answer: the application may have acted",
    "answered": "answered",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    _tolerant_output()
    if argv is None:
        argv = [_text_arg(a) for a in sys.argv[1:]]
    parser = build_parser()
    args = argparse.Namespace()
    try:
        args = parser.parse_args(argv)
        if getattr(args, "func", None) is None:
            # No command: the help, as `git` and `pip` print it (exit 0: nothing went wrong).
            parser.print_help()
            return EXIT_OK
        keys.resolve(args)
        with _command_log(args), _json_log_warnings(args):
            code = _run_scrubbed(args)
        _warnings_after(args)
        return code
    except (UsageError, ValueError) as e:
        _fail(f"error: {cli_message(str(e))}", args)
        return EXIT_USAGE
    except UnauthorizedError as e:
        _failed_call(_unauthorized(e, args), e, args)
        return EXIT_APP
    except ConnectError as e:
        _failed_call(_connect_line(e), e, args)
        return EXIT_APP
    except ShowctlError as e:
        _failed_call(cli_message(str(e)), e, args)
        return EXIT_APP
    except OSError as e:
        # The simulator could not listen, a file could not be written, stdout went away.
        if isinstance(e, BrokenPipeError):
            _silence_stdout()
            return EXIT_OK
        _fail(str(e), args, type(e).__name__, None)
        return EXIT_APP
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as e:
        # A bug in showctl itself: still one line (SHOWCTL_DEBUG=1 shows the traceback).
        if os.environ.get("SHOWCTL_DEBUG"):
            raise
        kind = type(e).__name__
        _fail(f"internal error (please report it): {kind}: {e}", args, kind, None)
        return EXIT_APP


def _unauthorized(e: UnauthorizedError, args: argparse.Namespace) -> str:
    """A 401 in one line: the client says whether a key was sent and how to pass one; the
    command line also says where the refused key came from."""
    text = cli_message(str(e))
    if "API key was sent" not in text and "API key sent was refused" not in text:
        return f"{text}; {_key_hint(args)}"
    source = key_source(args)
    if source is not None:
        text = text.replace("the API key sent was", f"the API key from {source} was")
    return text


def _run_scrubbed(args: argparse.Namespace) -> int:
    """Run the command with every key it may send masked in what it prints (an application
    may echo the key in its data)."""
    secrets = keys.secrets(args)
    if not secrets:
        return int(args.func(args))
    stdout = sys.stdout
    sys.stdout = keys.scrubbed(stdout, secrets)
    try:
        return int(args.func(args))
    finally:
        try:
            sys.stdout.flush()
        finally:
            sys.stdout = stdout


@contextmanager
def _command_log(args: argparse.Namespace) -> Iterator[None]:
    """With ``--log FILE``: each command's record (see docs/show-day.md) appended to FILE as a
    JSON line while the command runs (``showctl.cli.logfile``: which files are refused, and
    what a record that cannot be written does). Records lost are one warning (``warn``: with
    ``--json``, inside the one JSON object on stderr)."""
    path: str | None = getattr(args, "log", None)
    if path is None:
        yield
        return
    handler = CommandLog(path, open_log(path))
    logger = logging.getLogger("showctl.commands")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        handler.close()
        lost = handler.report()
        if lost:
            warn(args, lost)


class _KeptWarnings(logging.Handler):
    """The warnings showctl logs, kept for the one JSON object of ``--json`` (``warn``)."""

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(logging.WARNING)
        self.args = args

    def emit(self, record: logging.LogRecord) -> None:
        warn(self.args, record.getMessage())


@contextmanager
def _json_log_warnings(args: argparse.Namespace) -> Iterator[None]:
    """With ``--json``, the warnings showctl logs while the command runs (a short API key...)
    go into the one JSON object on stderr, not before it as plain lines (Python prints a
    warning of a logger without a handler). The commands that listen (``simulate``, ``feed``)
    log as they run, warnings included: they have no end to wait for."""
    listens = getattr(getattr(args, "func", None), "__module__", "") == "showctl.cli.servers"
    if not getattr(args, "json", False) or listens:
        yield
        return
    handler = _KeptWarnings(args)
    logger = logging.getLogger("showctl")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)



def _key_hint(args: argparse.Namespace) -> str:
    """Whether a key was sent, and how to pass one."""
    flag, env = option("api_key")["cli"], option("api_key")["env"][0]
    source = key_source(args)
    if source is None:
        return f"no API key was sent: pass {flag} KEY or set {env}"
    return f"the API key from {source} was refused: check it (pass {flag} KEY or set {env})"


def _connect_line(e: ConnectError) -> str:
    """A refused connection in one plain line, without the HTTP library's chain of causes;
    other connection failures (TLS, DNS, a dropped connection) as the client says them."""
    text = str(e)
    if "refused" not in text.lower() or not e.url:
        return cli_message(text)
    origin = e.url.split("/api/", 1)[0]
    note = text[text.rfind(" (") :] if text.endswith(" attempts)") else ""
    # What a command put before its request's failure ("reading the cue failed, so the
    # trigger was not sent: GET ...") stays.
    request = f"{e.method} {e.url}"
    lead = text[: text.index(request)] if e.method and request in text else ""
    return (
        f"{cli_message(lead)}cannot connect to {origin}: connection refused (is the "
        f"application running, with its API enabled, on this port?){note}"
    )


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


def _failed_call(message: str, e: ShowctlError, args: argparse.Namespace) -> None:
    """A call that failed: its message, and whether its request went out."""
    _fail(f"{message}; {DELIVERY_CLAUSE[e.delivery]}", args, type(e).__name__, e.delivery)


def _fail(
    message: str,
    args: argparse.Namespace,
    kind: str = "UsageError",
    delivery: Delivery | None = "not_sent",
) -> None:
    """The error line on stderr; with ``--json``, a JSON object: ``error`` (the line),
    ``type`` (the exception's class), ``delivery`` (``not_sent`` for a usage error, null
    where it cannot be told) and, when there were any, ``warnings``."""
    line = " ".join(message.split())
    if getattr(args, "json", False):
        error: dict[str, object] = {"error": line, "type": kind, "delivery": delivery}
        if getattr(args, "warnings", None):
            error["warnings"] = args.warnings
        print(dumps(error), file=sys.stderr)
        return
    print(f"showctl: {safe(line)}", file=sys.stderr)


def _warnings_after(args: argparse.Namespace) -> None:
    """With ``--json``, the warnings kept while the command ran (``output.warn``), as the one
    JSON object on stderr: ``{"warnings": [...]}``."""
    if getattr(args, "warnings", None):
        print(dumps({"warnings": args.warnings}), file=sys.stderr)


def _silence_stdout() -> None:
    """After a closed pipe (`showctl layers --json | head -1`), don't complain at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
