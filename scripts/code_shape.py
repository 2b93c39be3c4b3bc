"""The shape issue 33 asks of the code, measured: the binding's production lines against the
client core's, the `macro_rules!` in the binding and the operation grammar, and the test files
standing flat in tests/.

Production lines are non-blank lines outside tests (a `tests.rs`, a `tests/` folder, a module
declared under `#[cfg(test)]` such as `media/test_server.rs`, or what follows a top-level
`#[cfg(test)]`). The client core is core/src/media/ and core/src/score/ (the clients it binds);
the grammar is core/src/operation.rs and the tables.

The binding is every line that writes the binding's code: binding/src/, and the binding's
generators in macros/src/, which write every table method, its argument conversion, its
`_async` twin and the sport classes. Those are counted by item: the items named in
`BINDING_ITEMS` below, each its doc comments and attributes, its header and its body down to
its closing line (a method `Type::name` inside its `impl`; `//! # heading` a section of the
crate documentation, down to the next heading). They are the three binding generators
(`binding_methods!`, `sport_classes!`, `#[twins]`), every function, type and `impl` that
only they use, the grammar of the `binding(...)` head a binding puts before a table, and the
crate documentation's sections on them. What the core's generators (`operation_table!`,
`sport_table!`) use too, the tables' grammar (`Table`, `Op`, `Group`, `SportTable`'s parser,
`KINDS`, `err`, `once`), counts with neither; `macros_other_lines` prints the rest of
macros/src (the core's generators and that shared grammar). A reader checks the list with
the sources; the script checks it too: each listed item must be found exactly once in
macros/src, and an item left off the list that names the binding's code (`pyo3`, `pymethods`,
`pyclass`, `pyfunction`, or `crate::m` for a top-level module `m` of binding/src that the core
does not have, such as `crate::args`) stops it.

    python scripts/code_shape.py          # print the figures

It prints and enforces nothing (issue 33 aimed at a ratio of 0.8); neither .ci/run nor a test
runs it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATE_SOURCES = ("core/src", "binding/src", "macros/src")

BINDING_ITEMS = [
    # macros/src/lib.rs: the entry points and the crate documentation's sections
    "//! # `binding_methods!`",
    "//! # `#[twins]`",
    "fn binding_methods",
    "fn sport_classes",
    "fn twins",
    # macros/src/twins.rs
    "struct Inherited",
    "impl syn::parse::Parse for Inherited",
    "fn expand",
    "fn is_named",
    "struct Twin",
    "impl Twin",
    "fn text_of",
    "fn is_python",
    # macros/src/binding.rs
    "Table::binding",
    "struct PyParams",
    "fn py_params",
    "fn methods",
    "fn constructor",
    # macros/src/parse.rs
    "struct Classes",
    "impl Classes",
    # macros/src/sports.rs
    "struct Binding",
    "impl Parse for Binding",
    "SportTable::classes",
]


def binding_code() -> re.Pattern[str]:
    """What names the binding's code: pyo3 and its attributes, or `crate::m` for a top-level
    module `m` of binding/src that the core does not have too (the core's generators write
    `crate::media`, `crate::error`, ... into the core)."""

    def top(src: str) -> set[str]:
        return {p.stem for p in (ROOT / src).glob("*.rs")} | {
            p.name for p in (ROOT / src).iterdir() if p.is_dir()
        }

    own = sorted(top("binding/src") - top("core/src") - {"lib", "main", "mod"})
    return re.compile(rf"pyo3|\bpy(?:methods|class|function)\b|crate::(?:{'|'.join(own)})\b")


def production_lines(path: Path) -> list[str]:
    lines: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#[cfg(test)]"):
            break
        if line.strip():
            lines.append(line)
    return lines


def test_modules() -> set[Path]:
    """The files of modules declared under `#[cfg(test)]` (`#[cfg(test)] mod test_server;`)."""
    out: set[Path] = set()
    for crate in CRATE_SOURCES:
        for parent in (ROOT / crate).rglob("*.rs"):
            text = parent.read_text(encoding="utf-8")
            home = parent.parent if parent.name in ("mod.rs", "lib.rs") else parent.with_suffix("")
            for name in re.findall(
                r"#\[cfg\(test\)\]\s*(?:pub(?:\(crate\))?\s+)?mod\s+(\w+)\s*;", text
            ):
                out.update({home / f"{name}.rs", home / name / "mod.rs"})
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


ITEM = re.compile(
    r"(?:pub(?:\([\w:]+\))?\s+)?(?:(fn|struct|enum|const|static|type|trait|mod)\s+(\w+)"
    r"|(impl\b[^{]*?)\s*\{?$)"
)


def items(lines: list[str], indent: str = "") -> dict[str, tuple[int, int]]:
    """The items of ``lines`` at ``indent`` (rustfmt's layout): name → (first line, end line),
    the first line being its first doc comment or attribute. Names: ``fn name``, ``struct
    Name``, ``impl Trait for Type`` (the header as written, without generics' line breaks)."""
    found: dict[str, tuple[int, int]] = {}
    start: int | None = None
    i = 0

    def at_indent(line: str) -> bool:
        return line.startswith(indent) and line[len(indent) : len(indent) + 1] not in ("", " ")

    while i < len(lines):
        line = lines[i]
        body = line[len(indent) :]
        if not at_indent(line) or (body.startswith(("//", "}")) and not body.startswith("///")):
            start = None  # a comment (`// ---` between sections), a closing line, a deeper line
            i += 1
            continue
        if body.startswith("#!["):  # an inner attribute
            i += 1
            continue
        if body.startswith(("///", "#[")):
            start = i if start is None else start
            i += 1
            continue
        end = i
        while not (at_indent(lines[end]) and lines[end].rstrip().endswith((";", "}"))):
            end += 1
            if end == len(lines):
                raise SystemExit(f"no end to the item {body!r} (not rustfmt's layout?)")
        m = ITEM.match(body)
        if m:
            name = f"{m.group(1)} {m.group(2)}" if m.group(1) else " ".join(m.group(3).split())
            if name in found:
                raise SystemExit(f"two items named {name!r}: name them apart in BINDING_ITEMS")
            found[name] = (i if start is None else start, end)
        start = None
        i = end + 1
    return found


def doc_sections(lines: list[str]) -> dict[str, tuple[int, int]]:
    """The `//! # heading` sections of a crate documentation: heading → (first, last line)."""
    heads = [i for i, line in enumerate(lines) if line.startswith("//! # ")]
    doc_end = max((i for i, line in enumerate(lines) if line.startswith("//!")), default=-1)
    return {
        lines[h].rstrip(): (h, (heads[k + 1] - 1) if k + 1 < len(heads) else doc_end)
        for k, h in enumerate(heads)
    }


def binding_generators() -> tuple[int, int]:
    """The production lines of macros/src that write the binding's code (the items of
    `BINDING_ITEMS`), and the other production lines of macros/src."""
    found: dict[str, list[tuple[Path, int, int]]] = {}
    texts: dict[Path, list[str]] = {}
    for path in rust_files("macros/src"):
        lines = texts[path] = production_lines(path)
        spans = doc_sections(lines) | items(lines)
        for owner, (first, last) in items(lines).items():
            if owner.startswith("impl "):
                typ = owner.split(" for ")[-1].split()[-1].split("<")[0]
                for method, (a, b) in items(lines[first : last + 1], "    ").items():
                    spans[f"{typ}::{method.split()[-1]}"] = (first + a, first + b)
        for item, (first, last) in spans.items():
            found.setdefault(item, []).append((path, first, last))
    chosen: set[tuple[Path, int]] = set()
    for item in BINDING_ITEMS:
        if len(found.get(item, [])) != 1:
            where = [p.relative_to(ROOT).as_posix() for p, _, _ in found.get(item, [])]
            raise SystemExit(f"BINDING_ITEMS: {item!r} is in macros/src {len(where)} times {where}")
        path, first, last = found[item][0]
        chosen.update((path, n) for n in range(first, last + 1))
    writes_binding = binding_code()
    for item, places in found.items():
        for path, first, last in places:
            text = "\n".join(texts[path][first : last + 1])
            inside = range(first, last + 1)
            if all((path, n) in chosen for n in inside) or not writes_binding.search(text):
                continue
            if item.startswith("//!"):
                continue  # the crate documentation's sections on the core's generators
            typ = item.split(" for ")[-1].split()[-1].split("<")[0]
            if item.startswith("impl ") and any(k.startswith(f"{typ}::") for k in found):
                continue  # its methods are checked one by one
            raise SystemExit(
                f"{path.relative_to(ROOT).as_posix()}: {item} writes binding code and is not "
                "in BINDING_ITEMS"
            )
    return len(chosen), count(rust_files("macros/src")) - len(chosen)


def shape() -> dict[str, float | int]:
    binding_src = count(rust_files("binding/src"))
    macros_binding, macros_other = binding_generators()
    binding = binding_src + macros_binding
    core = count(rust_files("core/src/media", "core/src/score"))
    grammar = rust_files(
        "binding/src", "core/src/operation.rs", "core/src/media/table.rs", "core/src/score/table.rs"
    )
    macros = sum(
        len(re.findall(r"^\s*macro_rules!", p.read_text(encoding="utf-8"), re.M)) for p in grammar
    )
    flat = sorted(p.name for p in (ROOT / "tests").glob("*.py"))
    return {
        "binding_src_lines": binding_src,
        "macros_binding_lines": macros_binding,
        "binding_lines": binding,
        "core_lines": core,
        "ratio": round(binding / core, 3),
        "macros_other_lines": macros_other,
        "macro_rules": macros,
        "flat_test_files": len(flat),
    }


if __name__ == "__main__":
    json.dump(shape(), sys.stdout, indent=1)
    print()
