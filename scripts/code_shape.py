"""The shape issue 33 asks of the code, measured: the binding's production lines against the
client core's, the `macro_rules!` in the binding and the operation grammar, and the test files
standing flat in tests/.

Production lines are non-blank lines outside tests (a `tests.rs`, a `tests/` folder, a module
declared under `#[cfg(test)]` such as `media/testing.rs`, or what follows a top-level
`#[cfg(test)]`). The binding is binding/src/; the client core is core/src/media/
and core/src/score/ (the clients it binds); the grammar is core/src/operation.rs and the tables.

    python scripts/code_shape.py          # print the figures
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def production_lines(path: Path) -> list[str]:
    lines: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#[cfg(test)]"):
            break
        if line.strip():
            lines.append(line)
    return lines


def test_modules() -> set[Path]:
    """The files of modules declared under `#[cfg(test)]` (`#[cfg(test)] mod testing;`)."""
    out: set[Path] = set()
    for parent in (ROOT / "src").rglob("*.rs"):
        text = parent.read_text(encoding="utf-8")
        folder = parent.parent if parent.name in ("mod.rs", "lib.rs") else parent.with_suffix("")
        for name in re.findall(
            r"#\[cfg\(test\)\]\s*(?:pub(?:\(crate\))?\s+)?mod\s+(\w+)\s*;", text
        ):
            out.update({folder / f"{name}.rs", folder / name / "mod.rs"})
    return out


def rust_files(*folders: str) -> list[Path]:
    out: list[Path] = []
    tests = test_modules()
    for folder in folders:
        base = ROOT / folder
        files = [base] if base.is_file() else sorted(base.rglob("*.rs"))
        out.extend(p for p in files if p not in tests and "tests" not in p.relative_to(ROOT).parts)
    return out


def count(files: list[Path]) -> int:
    return sum(len(production_lines(p)) for p in files)


def shape() -> dict[str, float | int]:
    binding = count(rust_files("binding/src"))
    core = count(rust_files("core/src/media", "core/src/score"))
    grammar = rust_files(
        "binding/src", "core/src/operation.rs", "core/src/media/table.rs", "core/src/score/table.rs"
    )
    macros = sum(
        len(re.findall(r"^\s*macro_rules!", p.read_text(encoding="utf-8"), re.M)) for p in grammar
    )
    flat = sorted(p.name for p in (ROOT / "tests").glob("*.py"))
    return {
        "binding_lines": binding,
        "core_lines": core,
        "ratio": round(binding / core, 3),
        "macro_rules": macros,
        "flat_test_files": len(flat),
    }


if __name__ == "__main__":
    json.dump(shape(), sys.stdout, indent=1)
    print()
