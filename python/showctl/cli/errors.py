"""Exit codes, usage errors, and the client's messages rewritten in command-line syntax."""

from __future__ import annotations

import re

EXIT_OK = 0
EXIT_APP = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A bad command line, reported with exit code 2 (nothing was sent)."""


# `name="value"`, `name=value`, `name=` (the Python spelling of an option in a client message).
_ASSIGNMENT = re.compile(r'\b([a-z_]+)=("[^"]*"|[^\s,;()`]*[^\s,;().`])?')
# `name: ...` at the start of a message (the argument a ValueError names).
_LEADING_NAME = re.compile(r"^([a-z_]+):")


def in_cli_syntax(message: str, flags: dict[str, str]) -> str:
    """``message`` with each client option written as on the command line: ``flags`` maps an
    option's Python name to its flag (``tls_fingerprint`` → ``--tls-fingerprint``). A boolean
    option is written as the flag that sets that value (``verify=False`` → ``--insecure``, the
    flag of ``verify``; ``verify=True`` is the default, so no flag: left as written)."""

    def assignment(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2)
        flag = flags.get(name)
        if flag is None:
            return m.group(0)
        if value in ("True", "False"):
            sets = flags.get(f"{name}={value}")
            return sets if sets is not None else m.group(0)
        if value is None:
            return flag
        return f"{flag} {value.strip(chr(34))}"

    message = _ASSIGNMENT.sub(assignment, message)
    return _LEADING_NAME.sub(lambda m: f"{flags.get(m.group(1), m.group(1))}:", message)
