"""The public surface is what it was: every class's help(), docstrings, signatures,
``__text_signature__`` and coroutine functions, the CLI's help, and the stubs, compared with
the snapshot in tests/surface/ (written by ``python scripts/public_surface.py --write``, on
purpose, when the surface is meant to change)."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "public_surface", ROOT / "scripts" / "public_surface.py"
)
assert _spec is not None and _spec.loader is not None
public_surface = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(public_surface)


def _diff(want: str, got: str, name: str) -> str:
    lines = difflib.unified_diff(
        want.splitlines(),
        got.splitlines(),
        f"{name} (snapshot)",
        f"{name} (this build)",
        lineterm="",
    )
    return "\n".join(list(lines)[:80])


def test_the_stubs_are_the_snapshot() -> None:
    want = (ROOT / "tests" / "surface" / "_core.pyi.sha256").read_text(encoding="ascii").strip()
    assert public_surface.stubs_digest() == want, (
        "the stubs are not byte for byte the snapshot's: see `git diff python/showctl/_core.pyi`"
    )


def test_help_signatures_and_cli_help_are_the_snapshot() -> None:
    path = public_surface.snapshot_path()
    if not path.exists():
        have = sorted(p.name for p in path.parent.glob("surface-*.txt"))
        pytest.skip(f"no snapshot of help() for this Python (its format differs): {have}")
    want = path.read_text(encoding="utf-8")
    got = public_surface.surface()
    assert got == want, _diff(want, got, path.name)
