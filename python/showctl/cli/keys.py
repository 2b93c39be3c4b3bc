"""API keys on the command line: every key option has an environment and a file form, a key
given on the command line itself is warned about (once), and no key reaches the output.

A key on the command line (``--api-key KEY``) is readable by every user of the machine for as
long as the command runs (``ps``, ``/proc/PID/cmdline``): ``--api-key-file FILE`` (the file's
first line) or the environment (``SHOWCTL_API_KEY``, ``SHOWCTL_MEDIA_API_KEY``,
``SHOWCTL_SCOREBOARD_API_KEY`` for the feed's sources) keep it off it. A key file others may
read or write (a regular file with any permission for its group or for others, as ``ls -l``
shows ``-rw-r--r--``) is refused, as ssh refuses such a private key. An application may echo
the key in its data (a team name, a layer name): what a command prints is masked with the same
function that masks errors, ``record`` and the feed (``***``).
"""

from __future__ import annotations

import argparse
import os
import stat
from typing import TextIO, cast

from showctl import _core
from showctl.cli.errors import UsageError
from showctl.cli.output import warn

#: The environment variable of the key every client reads (the client resolves it itself).
KEY_ENV = "SHOWCTL_API_KEY"
#: The feed's sources' own key options, and their environment variables.
SOURCE_KEY_ENV = {
    "media_api_key": "SHOWCTL_MEDIA_API_KEY",
    "scoreboard_api_key": "SHOWCTL_SCOREBOARD_API_KEY",
}
KEY_DESTS = ("api_key", *SOURCE_KEY_ENV)


def flag_of(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _env_of(dest: str) -> str:
    """The environment variable that gives the key of ``dest``."""
    return SOURCE_KEY_ENV.get(dest, KEY_ENV)


def _private(flag: str, path: str, fd: int) -> None:
    """Refuse a key file (a regular one: a pipe from ``<(...)`` has no lasting mode) that
    its group or others may read or write."""
    if os.name != "posix":
        return
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode) and st.st_mode & 0o077:
        mode = stat.S_IMODE(st.st_mode)
        raise UsageError(
            f"{flag}: {path} has mode {mode:04o} ({stat.filemode(st.st_mode)}): other users of "
            f"this machine may read the key; make it private with `chmod 600 {path}`"
        )


def _read_key_file(flag: str, path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            _private(flag, path, f.fileno())
            first = f.readline()
    except OSError as e:
        raise UsageError(f"{flag}: cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{flag}: {path} is not UTF-8 text") from None
    key = first.strip()
    if not key:
        raise UsageError(f"{flag}: the first line of {path} is empty (it holds the key)")
    return key


def resolve(args: argparse.Namespace) -> None:
    """Read ``--*-api-key-file`` and the feed's sources' key variables into ``args``, and warn
    once on stderr when a key was given on the command line."""
    on_argv = []
    for dest in KEY_DESTS:
        path = getattr(args, f"{dest}_file", None)
        given = getattr(args, dest, None)
        if path is not None:
            flag = flag_of(dest) + "-file"
            if given is not None:
                raise UsageError(f"{flag_of(dest)} and {flag}: give the key one way, not both")
            setattr(args, dest, _read_key_file(flag, path))
            setattr(args, f"{dest}_from", flag)
        elif given is not None:
            on_argv.append(dest)
            setattr(args, f"{dest}_from", flag_of(dest))
        elif dest in SOURCE_KEY_ENV and getattr(args, dest.split("_")[0], None) is not None:
            # The feed's source is given (--media URL): its own key from the environment.
            env = os.environ.get(SOURCE_KEY_ENV[dest])
            if env:
                setattr(args, dest, env)
                setattr(args, f"{dest}_from", SOURCE_KEY_ENV[dest])
    if on_argv:
        names = " and ".join(flag_of(d) for d in on_argv)
        files = " and ".join(flag_of(d) + "-file FILE" for d in on_argv)
        envs = " and ".join(_env_of(d) for d in on_argv)
        warn(
            args,
            f"{names} on the command line can be read by every user of this "
            f"machine while the command runs (ps, /proc/PID/cmdline); pass {files} or set "
            f"{envs} instead",
        )


def secrets(args: argparse.Namespace) -> list[str]:
    """The keys this command may send (to be masked in what it prints)."""
    keys = [getattr(args, dest, None) for dest in KEY_DESTS]
    keys.append(os.environ.get(KEY_ENV))
    keys.extend(os.environ.get(env) for env in SOURCE_KEY_ENV.values())
    return sorted({k for k in keys if k}, key=len, reverse=True)


def scrub(text: str, keys: list[str]) -> str:
    for key in keys:
        text = _core._scrub(text, key)
    return text


class ScrubbedOut:
    """A text stream that masks ``keys`` in each line before it reaches ``out`` (a line is
    held until its end, or a flush, so a key is never split between two writes)."""

    def __init__(self, out: TextIO, keys: list[str]) -> None:
        self._out = out
        self._keys = keys
        self._held = ""

    def write(self, text: str) -> int:
        self._held += text
        if "\n" in self._held:
            done, self._held = self._held.rsplit("\n", 1)
            self._out.write(scrub(done + "\n", self._keys))
        return len(text)

    def flush(self) -> None:
        if self._held:
            self._out.write(scrub(self._held, self._keys))
            self._held = ""
        self._out.flush()

    def __getattr__(self, name: str) -> object:
        # fileno, isatty, encoding, reconfigure...: the stream's own.
        return getattr(self._out, name)


def scrubbed(out: TextIO, keys: list[str]) -> TextIO:
    """``out``, masking ``keys`` (itself when there is none)."""
    return cast(TextIO, ScrubbedOut(out, keys)) if keys else out
