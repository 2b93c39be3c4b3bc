"""scripts/scratch_operation.py (run by .ci/run, where it builds a copy of the tree) stays in
step with the tree without a build: its two hand edits still find their place, and it checks
every file the generators write that an operation reaches."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tests.kit.scripts import script

ROOT = Path(__file__).resolve().parents[2]


def scratch() -> ModuleType:
    return script("scratch_operation")


def test_each_hand_edit_finds_its_line_once() -> None:
    for rel, anchor, _ in scratch().HAND_EDITS:
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert text.count(anchor) == 1, f"{rel}: {anchor!r} (update HAND_EDITS)"


def test_it_checks_every_copy_the_generators_write() -> None:
    mod = script("gen_stubs")
    written = {mod.STUB, mod.API_MD} | {path for path, _ in mod.copies()}
    # docs/cli.md (the client options) is the one generated file an operation does not reach.
    wanted = {str(p.relative_to(ROOT)) for p in written}
    assert set(scratch().GENERATED) == wanted
