"""The public surface of the installed showctl, as text: what a refactoring must leave alone.

For every public class and function of ``showctl`` (and ``showctl.testing``, ``showctl.cmd``,
``showctl.exceptions``): its ``help()`` page, and for each of its members the docstring,
``__text_signature__``, ``inspect.signature`` and ``inspect.iscoroutinefunction``; then the
``--help`` of the CLI and of each of its subcommands. ``help()`` and argparse format a little
differently from one Python to the next, so the snapshot is kept per minor version
(``tests/surface/surface-3.11.txt``); the stubs are compared as they are
(their SHA-256, ``tests/surface/_core.pyi.sha256``: the stubs themselves are in the
repository, so a change to them shows in ``git diff python/showctl/_core.pyi``).

    python scripts/public_surface.py            # print the snapshot
    python scripts/public_surface.py --write    # rewrite the snapshot of this Python

``tests/docs/test_public_surface.py`` compares the build with the snapshot.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import io
import os
import pydoc
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "surface"


def stubs() -> Path:
    """The stubs of the showctl imported (the source tree's, or an installed wheel's)."""
    import showctl

    return Path(showctl.__file__).parent / "_core.pyi"


def stubs_digest() -> str:
    """The SHA-256 of the stubs' bytes, in hex."""
    return hashlib.sha256(stubs().read_bytes()).hexdigest()


def snapshot_path() -> Path:
    return SNAPSHOTS / f"surface-{sys.version_info[0]}.{sys.version_info[1]}.txt"


def _addresses(text: str) -> str:
    return re.sub(r" at 0x[0-9a-fA-F]+", " at 0x…", text)


def _member(owner: object, name: str) -> str:
    try:
        value = getattr(owner, name)
    except Exception as e:  # a property read on the class, a lazy attribute
        return f"  {name}: unreadable ({type(e).__name__})"
    if not callable(value):
        return f"  {name}: {type(value).__name__} doc={getattr(value, '__doc__', None)!r}"
    try:
        signature = str(inspect.signature(value))
    except (TypeError, ValueError) as e:
        signature = f"none ({type(e).__name__})"
    return (
        f"  {name}: signature={signature} "
        f"text_signature={getattr(value, '__text_signature__', None)!r} "
        f"coroutine_function={inspect.iscoroutinefunction(value)} "
        f"qualname={getattr(value, '__qualname__', None)!r}\n"
        f"    doc={getattr(value, '__doc__', None)!r}"
    )


def _public(module: object) -> list[tuple[str, object]]:
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    return [(n, getattr(module, n)) for n in sorted(names)]


def _cli_help() -> list[str]:
    from showctl.cli.parser import build_parser

    out: list[str] = []
    # argparse wraps to the terminal's width.
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        parser = build_parser()
        pages = [("", parser)]
        for action in parser._actions:
            choices = getattr(action, "choices", None)
            if isinstance(choices, dict):
                pages.extend(sorted((f" {name}", sub) for name, sub in choices.items()))
        for name, page in pages:
            out.append(f"== showctl{name} --help\n{page.format_help()}")
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    return out


def surface() -> str:
    import showctl
    import showctl.cmd
    import showctl.exceptions
    import showctl.testing

    parts: list[str] = [f"python {sys.version_info[0]}.{sys.version_info[1]}"]
    seen: set[int] = set()
    for module in (showctl, showctl.testing, showctl.cmd, showctl.exceptions):
        parts.append(f"=== module {module.__name__}")
        for name, value in _public(module):
            if inspect.ismodule(value):
                parts.append(f"- {name}: module {value.__name__}")
                continue
            if not (inspect.isclass(value) or callable(value)):
                parts.append(f"- {name} = {value!r}")
                continue
            if id(value) in seen:
                parts.append(f"- {name}: as above ({getattr(value, '__qualname__', name)})")
                continue
            seen.add(id(value))
            parts.append(f"- {name}")
            parts.append(_member(module, name))
            if inspect.isclass(value):
                for member in sorted(dir(value)):
                    if member in ("__doc__", "__module__", "__dict__", "__weakref__"):
                        continue
                    parts.append(_member(value, member))
            with contextlib.redirect_stdout(io.StringIO()):
                page = pydoc.render_doc(value, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
            parts.append(f"help({name}):\n{page}")
    parts.extend(_cli_help())
    return _addresses("\n".join(parts)) + "\n"


def main() -> int:
    text = surface()
    if "--write" in sys.argv[1:]:
        SNAPSHOTS.mkdir(parents=True, exist_ok=True)
        snapshot_path().write_text(text, encoding="utf-8")
        (SNAPSHOTS / "_core.pyi.sha256").write_text(stubs_digest() + "\n", encoding="ascii")
        print(f"wrote {snapshot_path().relative_to(ROOT)} and tests/surface/_core.pyi.sha256")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
