"""The shape of the code, read from its sources: no import cycle between the files of the
binding (binding/src/), of the media core (core/src/media/) or of the scoreboard core (core/src/score/),
nor between the modules of the core (media does not use score), no binding file over 600 lines,
no source file over 800 lines outside its tests, and no import cycle between the modules of the
Python package (python/showctl/), counting imports inside functions (which hide a cycle from
Python, not from a reader), and no test file or bench importing a test file."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INLINE = re.compile(r"(?<![\w:])(crate|super)::((?:\w+::)+\w+)")
USE = re.compile(r"^\s*(?:pub(?:\([\w:]+\))?\s+)?use\s+(crate|super)::([\w:{}, *\n]+?);", re.M)


def module_of(path: Path, package: Path) -> str:
    """`foo` for package/foo.rs, `foo/tests` for its test module package/foo/tests.rs (tests
    may use anything: nothing uses them)."""
    rel = path.relative_to(package)
    return "/".join(rel.parts).removesuffix(".rs")


def imports(path: Path, package: Path, crate_path: str) -> set[str]:
    """The sibling modules of ``package`` that ``path`` uses (``use crate::<pkg>::x`` or
    ``use super::x``)."""
    text = path.read_text(encoding="utf-8")
    own = module_of(path, package).split("/")[0]
    nested = path.parent != package  # a file's own submodule (its tests)
    found = set()
    uses = USE.findall(text)
    # Paths written out in the code (`crate::python::rt::spawn(...)`) are uses too.
    uses += [(root, rest) for root, rest in INLINE.findall(text)]
    for root, rest in uses:
        rest = " ".join(rest.split())
        if root == "crate":
            if not rest.startswith(crate_path + "::"):
                continue
            rest = rest[len(crate_path) + 2 :]
        elif nested:
            # `super::` of foo/tests.rs is foo itself; `super::super::x` is a sibling.
            if not rest.startswith("super::"):
                continue
            rest = rest[len("super::") :]
        names = re.findall(r"^\{?\s*(\w+)", rest)
        if rest.startswith("{"):
            names = re.findall(r"(?:^\{|,)\s*(\w+)", rest)
        for name in names:
            if (package / f"{name}.rs").exists() and (name != own or nested):
                found.add(name)
    if nested:
        found.add(own)
    return found


TABLE = re.compile(r"^operation_table! \{", re.M)


def graph(package: Path, crate_path: str) -> dict[str, set[str]]:
    """Each file's uses. An operation table (the file calling `operation_table!`) counts as
    using nothing: it is a declaration the macro makes modules of at two levels, its endpoint
    constants below the files that read with them (`endpoints` re-exports them) and its builders
    above (`builders` re-exports them), each seeing the table file's imports."""
    out: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.rs")):
        if path.name == "mod.rs":
            continue
        uses = out.setdefault(module_of(path, package), set())
        if not TABLE.search(path.read_text(encoding="utf-8")):
            uses.update(imports(path, package, crate_path))
    return out


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in sorted(g.get(n, ())):
            if state.get(m) == 1:
                found.append([*stack[stack.index(m) :], m])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(g):
        if n not in state:
            visit(n)
    return found


def test_the_checker_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_the_binding() -> None:
    g = graph(ROOT / "src" / "python", "python")
    assert "ops" in g["player"] and "convert" in g["models"], g
    assert cycles(g) == []


def test_no_import_cycle_in_the_media_core() -> None:
    g = graph(ROOT / "src" / "media", "media")
    assert "endpoints" in g["builders"], g
    assert cycles(g) == []


def test_no_import_cycle_in_the_scoreboard_core() -> None:
    g = graph(ROOT / "src" / "score", "score")
    assert "record" in g["client"] and "sports" in g["view"], g
    assert cycles(g) == []


CFG_TEST = re.compile(
    r"^#\[cfg\(test\)\]\n(?:#\[.*\]\n)*(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+);", re.M
)
CRATE_PATH = re.compile(r"(?<![\w:])crate::(?:\{([^}]*)\}|(\w+))")


def outside_tests(text: str) -> list[str]:
    """The lines of a Rust file outside its top-level ``#[cfg(test)]`` items (the test module
    and test-only helpers; rustfmt closes a top-level item with a ``}`` in column 0)."""
    lines = text.splitlines()
    kept: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i] != "#[cfg(test)]":
            kept.append(lines[i])
            i += 1
            continue
        i += 1
        while i < len(lines) and lines[i].startswith("#["):
            i += 1
        if i < len(lines) and lines[i].rstrip().endswith(";"):
            i += 1
            continue
        while i < len(lines) and lines[i] != "}":
            i += 1
        i += 1
    return kept


def rust_test_files(src: Path) -> set[Path]:
    """The files of modules declared under ``#[cfg(test)]`` (``mod tests;``), and theirs."""
    found: set[Path] = set()
    for path in sorted(src.rglob("*.rs")):
        home = path.parent if path.name in ("mod.rs", "lib.rs") else path.with_suffix("")
        for name in CFG_TEST.findall(path.read_text(encoding="utf-8")):
            for child in (home / f"{name}.rs", home / name / "mod.rs"):
                if child.exists():
                    found.add(child)
    homes = {t.parent if t.name == "mod.rs" else t.with_suffix("") for t in found}
    return found | {f for f in src.rglob("*.rs") if any(h in f.parents for h in homes)}


# Over the limit and to be split: none now. The test fails once a listed file is under the
# limit, so the list only shrinks.
OVER_800: set[str] = set()


def long_files(src: Path, limit: int = 800) -> dict[str, int]:
    tests = rust_test_files(src)
    out = {}
    for path in sorted(src.rglob("*.rs")):
        if path in tests:
            continue
        n = len(outside_tests(path.read_text(encoding="utf-8")))
        if n > limit:
            out[path.relative_to(src.parent).as_posix()] = n
    return out


def test_the_line_counter_leaves_out_tests_only(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "big").mkdir(parents=True)
    body = "fn f() {\n" + "    let x = 1;\n" * 797 + "}\n"  # 799 lines
    tests = "#[cfg(test)]\nmod tests {\n" + "    #[test]\n    fn t() {}\n" * 400 + "}\n"
    (src / "lib.rs").write_text("pub mod big;\n#[cfg(test)]\nmod helpers;\n")
    (src / "big.rs").write_text(body + tests)
    (src / "helpers.rs").write_text(body * 3)
    assert long_files(src) == {}
    (src / "big.rs").write_text(body + "fn g() {}\n#[cfg(test)]\nuse std::fmt;\n" + body + tests)
    assert long_files(src) == {"core/src/big.rs": 2 * 799 + 1}


def test_no_core_source_file_over_800_lines_outside_its_tests() -> None:
    long = long_files(ROOT / "src")
    assert set(long) - OVER_800 == set(), f"split these files (lines outside tests): {long}"
    assert OVER_800 - set(long) == set(), "under 800 lines now: remove them from OVER_800"


def core_graph(src: Path) -> dict[str, set[str]]:
    """Top-level module of the core (``core/src/X.rs`` with ``core/src/X/``, or ``core/src/X/mod.rs``) →
    the top-level modules its code uses (``crate::Y`` anywhere outside comments and tests)."""
    modules = sorted(
        {p.stem for p in src.glob("*.rs")} | {p.name for p in src.iterdir() if p.is_dir()}
    )
    modules = [m for m in modules if m not in ("lib", "python")]
    tests = rust_test_files(src)
    out: dict[str, set[str]] = {}
    for m in modules:
        files = [p for p in [src / f"{m}.rs", *(src / m).rglob("*.rs")] if p.exists()]
        used: set[str] = set()
        for path in files:
            if path in tests:
                continue
            code = [ln.split("//")[0] for ln in outside_tests(path.read_text(encoding="utf-8"))]
            for group, name in CRATE_PATH.findall("\n".join(code)):
                names = re.findall(r"(?:^|,)\s*(\w+)", group) if group else [name]
                used.update(n for n in names if n in modules and n != m)
        out[m] = used
    return out


def test_no_import_cycle_between_core_modules() -> None:
    g = core_graph(ROOT / "src")
    assert "operation" in g["media"] and "media" in g["probe"], g
    # Media and the scoreboard share what both need through json, poll and operation.
    assert "score" not in g["media"] and "media" not in g["score"], g
    assert cycles(g) == []


def test_the_core_graph_sees_a_use_and_skips_tests_and_comments(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod a;\npub mod b;\n")
    (src / "a" / "mod.rs").write_text("//! see crate::b\nmod x;\n#[cfg(test)]\nmod tests;\n")
    (src / "a" / "x.rs").write_text("fn f() {}\n#[cfg(test)]\nmod t {\n    use crate::b;\n}\n")
    (src / "a" / "tests.rs").write_text("use crate::b::Y;\n")
    (src / "b.rs").write_text("use crate::{a, b};\n")
    assert core_graph(src) == {"a": set(), "b": {"a"}}
    (src / "a" / "x.rs").write_text("fn f() { crate::b::g() }\n")
    assert cycles(core_graph(src)) == [["a", "b", "a"]]


def test_no_binding_file_over_600_lines() -> None:
    long = {
        p.name: n
        for p in (ROOT / "src" / "python").glob("*.rs")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}


def python_module(path: Path, root: Path) -> str:
    """``showctl.cli.output`` for root/showctl/cli/output.py (``showctl.cli`` for its
    ``__init__.py``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module → the modules of ``package`` it imports, anywhere in the file (inside functions
    and ``if`` blocks too). Importing a submodule runs its parent packages first, but a
    parent already being imported is no cycle, so a module's own parents are left out."""
    modules = {python_module(p, root): p for p in (root / package).rglob("*.py")}
    out: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = name.split(".")
                    anchor = anchor if is_package else anchor[:-1]
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for target in targets:
                if target in modules and not name.startswith(target + ".") and target != name:
                    found.add(target)
        out[name] = found
    return out


def test_the_python_checker_sees_a_cycle_hidden_in_a_function(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub import a\n")
    (pkg / "sub" / "a.py").write_text("from pkg.sub.b import helper\n")
    (pkg / "sub" / "b.py").write_text("def helper():\n    from . import a\n    return a\n")
    g = python_graph(tmp_path, "pkg")
    assert g["pkg.sub.b"] == {"pkg.sub.a"}, g
    assert cycles(g) == [["pkg.sub.a", "pkg.sub.b", "pkg.sub.a"]]


def test_no_import_cycle_in_the_python_package() -> None:
    g = python_graph(ROOT / "python", "showctl")
    assert "showctl.cli.connection" in g["showctl.cli.media_commands"], g
    assert cycles(g) == []


def test_the_binding_draws_no_html() -> None:
    """Every HTML view is drawn in one place, `showctl._html`: the binding (which converts)
    hands it data, as `ScoreRecord._display()` does, and writes no markup itself."""
    markup = re.compile(r"<(table|tr|td|th|div|caption)[ >]")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "src" / "python").rglob("*.rs"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if markup.search(line)
    ]
    assert found == [], f"HTML drawn in the binding (draw it in python/showctl/_html.py): {found}"


def imported_test_files(path: Path) -> list[str]:
    """The test files (``tests/**/test_*.py``) that ``path`` imports."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found += [n for n in names if n.startswith("tests.") and n.rsplit(".")[-1][:5] == "test_"]
    return found


def test_no_test_file_or_bench_imports_a_test_file() -> None:
    """A helper that two test files (or a bench) need lives in tests/kit/ (tests/README.md):
    importing a test file runs its module and hides where the helper is."""
    files = sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "benches").rglob("*.py"))
    found = {str(p.relative_to(ROOT)): imported_test_files(p) for p in files}
    assert {k: v for k, v in found.items() if v} == {}
