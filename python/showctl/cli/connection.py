"""The connection options of every command that connects, made from the clients' own
declaration of their options (``showctl._core._client_options()``: name, type, default, range,
environment variable, flag, documentation), and the clients built from them.

Nothing here reads an environment variable or applies a default itself: an option not given is
not passed, so the client resolves it (``SHOWCTL_MEDIA_URL``, ``SHOWCTL_API_KEY``, …) as it
does for Python code. Only the names of the variables are read from the declaration, to say
where a value came from.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Union

import showctl
from showctl import _core
from showctl.cli.errors import in_cli_syntax
from showctl.cli.keys import SOURCE_KEY_ENV

Client = Union[showctl.MediaPlayer, showctl.Scoreboard]
_TYPES: dict[str, Any] = {"float": float, "int": int}


_DECLARED: list[tuple[dict[str, Any], ...]] = []


def declared() -> tuple[dict[str, Any], ...]:
    """The options every client takes, as the extension declares them (in signature order);
    read once."""
    if not _DECLARED:
        _DECLARED.append(
            tuple(o for o in _core._client_options() if len(o["classes"]) > 1 and o["cli"])
        )
    return _DECLARED[0]


def option(name: str) -> dict[str, Any]:
    return next(o for o in declared() if o["name"] == name)


def flags() -> dict[str, str]:
    """Python name → flag, and ``name=True``/``name=False`` → the flag that sets it, for
    rewriting the client's messages in command-line syntax."""
    out: dict[str, str] = {}
    for o in declared():
        out[o["name"]] = o["cli"]
        if o["type"] == "bool":
            out[f"{o['name']}={'False' if o['default'] == 'True' else 'True'}"] = o["cli"]
    return out


def cli_message(message: str) -> str:
    """A client message (``pass tls_fingerprint="sha256:…"``) as on the command line
    (``pass --tls-fingerprint sha256:…``)."""
    return in_cli_syntax(message, flags())


def _help(o: dict[str, Any], url_help: str | None) -> str:
    """An option's help: its documentation's first sentence (for a flag that turns an option
    off, the whole text: what is checked, then what the flag does), in command-line syntax."""
    if o["name"] == "url" and url_help is not None:
        return url_help
    doc = " ".join(str(o["doc"]).split())
    text = doc if o["type"] == "bool" and o["default"] == "True" else doc.split(". ")[0]
    parts = [cli_message(text.rstrip(".").replace("`", ""))]
    if o["range"]:
        parts.append(str(o["range"]))
    default = f"${o['env'][0]}" if o["env"] else o["default"]
    if o["type"] != "bool" and default != "None":
        parts.append(f"default: {default}")
    help = "; ".join(parts)
    return help[:1].lower() + help[1:]


def add_connection_options(
    parser: argparse.ArgumentParser,
    *,
    prefix: str = "",
    skip: frozenset[str] = frozenset(),
    only: frozenset[str] | None = None,
    suppress: bool = False,
    url_help: str | None = None,
) -> None:
    """Add the connection options to ``parser``: ``--url``, ``--api-key``, ``--timeout``, …
    With ``prefix`` ("media-"), the same options for one source (``--media-api-key``, dest
    ``media_api_key``). ``suppress`` leaves an option not given out of the namespace (for a
    subcommand, so that the same option given before the command is kept)."""
    for o in declared():
        if o["name"] in skip or (only is not None and o["name"] not in only):
            continue
        flag = "--" + prefix + o["cli"][2:]
        dest = prefix.replace("-", "_") + o["name"]
        kw: dict[str, Any] = {
            "dest": dest,
            "default": argparse.SUPPRESS if suppress else None,
            "help": _help(o, url_help),
        }
        if o["type"] == "bool":
            kw.update(action="store_const", const=o["default"] != "True")
        else:
            # "int | None" is an int on the command line (not given: None).
            kind = str(o["type"]).removesuffix(" | None")
            kw.update(type=_TYPES.get(kind, str), metavar=o["metavar"])
        if o["name"] == "api_key" and prefix:
            env = SOURCE_KEY_ENV[dest]
            kw["help"] = f"API key for this source only (default: ${env}, else --api-key's)"
        parser.add_argument(flag, **kw)
        if o["name"] == "api_key":
            parser.add_argument(
                flag + "-file",
                dest=dest + "_file",
                metavar="FILE",
                default=argparse.SUPPRESS if suppress else None,
                help=f"read the key of {flag} from the first line of FILE (off the command "
                "line, where other users of this machine can read it)",
            )


def given(args: argparse.Namespace, *, prefix: str = "") -> dict[str, Any]:
    """The connection options given on the command line, as keyword arguments of a client."""
    out = {}
    for o in declared():
        value = getattr(args, prefix + o["name"], None)
        if value is not None:
            out[o["name"]] = value
    return out


def media(args: argparse.Namespace, **fixed: Any) -> showctl.MediaPlayer:
    return showctl.MediaPlayer(**{**given(args), **fixed})


def scoreboard(args: argparse.Namespace, **fixed: Any) -> showctl.Scoreboard:
    return showctl.Scoreboard(**{**given(args), **fixed})


def key_source(args: argparse.Namespace) -> str | None:
    """Where the API key came from (``--api-key``, ``--api-key-file``, the environment
    variable), or None."""
    if getattr(args, "api_key", None) is not None:
        return str(getattr(args, "api_key_from", None) or option("api_key")["cli"])
    for env in option("api_key")["env"]:
        if os.environ.get(env):
            return str(env)
    return None


def url_env(app: str) -> str:
    """The environment variable the client reads its URL from (app: media or scoreboard)."""
    return str(_core._url_env(app))
