"""The shape of the code, read from its sources. For the three crates of the workspace
(core/: ``showctl``, binding/: ``showctl-python``, macros/: ``showctl-macros``):

- no import cycle between the child modules of any module of any crate (its top-level modules
  included), nothing exempted: a table file, a test module and a macro's tokens count as any
  other code;
- the core names no Python: no file under core/ says ``pyo3`` or ``python``, and its dependency
  graph (``cargo tree``) holds no pyo3 crate; the binding depends on the core;
- no production file over 800 lines outside its tests, no binding file over 600 lines, and no
  HTML drawn in the binding.

For the Python package (python/showctl/): no import cycle between its modules, counting
imports inside functions (which hide a cycle from Python, not from a reader), and no test file
or bench importing a test file."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable

import pytest

ROOT = Path(__file__).resolve().parents[2]
CRATES = {"core": ROOT / "core", "binding": ROOT / "binding", "macros": ROOT / "macros"}

# ---------------------------------------------------------------------------------------------
# Rust import cycles
# ---------------------------------------------------------------------------------------------

Module = tuple[str, ...]
"""A module of a crate as its path from the crate root: ``()`` for lib.rs, ``("transport",
"http1")`` for transport/http1.rs (or transport/http1/mod.rs)."""


def strip_rust(text: str) -> str:
    """``text`` with its comments and string and character literals blanked out (same length,
    same lines): what is left is code, macro invocations' tokens included."""
    out = list(text)
    i, n = 0, len(text)

    def blank(start: int, end: int) -> int:
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "
        return end

    while i < n:
        c = text[i]
        if c.isalnum() or c == "_":
            word = re.match(r"\w+", text[i:])
            assert word
            raw = re.match(r"(?:r|br)(#*)\"", text[i:]) if word.group() in ("r", "br") else None
            if raw:  # r"...", r#"..."#, br"..."
                close = text.find('"' + raw.group(1), i + raw.end())
                i = blank(i, n if close < 0 else close + 1 + len(raw.group(1)))
            else:  # an identifier, or the `b` of b"..." and b'.' (the quote comes next)
                i += word.end()
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = blank(i, n if end < 0 else end)
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            i = blank(i, j)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = blank(i, j + 1)
        elif c == "'" and (char := re.match(r"'(?:\\.[^']*|[^\\'])'", text[i:])):
            i = blank(i, i + char.end())  # a character; a lifetime ('a, 'static) stays
        else:
            i += 1
    return "".join(out)


def module_of(path: Path, src: Path) -> Module:
    """The module a file of ``src`` is: lib.rs (or main.rs) is the root, ``x/mod.rs`` and
    ``x.rs`` are ``x``."""
    parts = path.relative_to(src).with_suffix("").parts
    if parts in (("lib",), ("main",)):
        return ()
    if parts[-1] == "mod":
        return parts[:-1]
    return parts


INLINE_MOD = re.compile(r"\bmod\s+(r#)?(\w+)\s*\{")
USE = re.compile(r"\buse\s+([^;]*);")
PREFIXED = re.compile(r"(?<![\w$])(\$crate|crate|super|self)((?:\s*::\s*\w+)+)")
BARE = re.compile(r"(?<![\w$:])(\w+)\s*::\s*\w")


def inline_modules(code: str) -> list[tuple[str, int, int]]:
    """The ``mod name { ... }`` of a file's code: name, where its body starts and ends."""
    found = []
    for m in INLINE_MOD.finditer(code):
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        found.append((m.group(2), m.end(), j))
    return found


def use_paths(tree: str) -> list[tuple[list[str], bool]]:
    """The paths of a use tree (``crate::{a, b::{self, c as d}, e::*}``) as (segments, glob)."""
    tokens = re.findall(r"\$crate|\w+|::|[{},*]", tree)
    pos = 0

    def parse(prefix: list[str]) -> list[tuple[list[str], bool]]:
        nonlocal pos
        path = list(prefix)
        out: list[tuple[list[str], bool]] = []
        while pos < len(tokens):
            t = tokens[pos]
            if t == "::":
                pos += 1
            elif t == "{":
                pos += 1
                while pos < len(tokens) and tokens[pos] != "}":
                    if tokens[pos] == ",":
                        pos += 1
                        continue
                    out += parse(path)
                pos += 1
                return out
            elif t == "*":
                pos += 1
                return [*out, (path, True)]
            elif t in (",", "}"):
                break
            elif t == "as":
                pos += 2  # the alias names nothing new
            elif t == "self" and path:
                pos += 1  # `a::{self}` is `a`
            else:
                path = [*path, t]
                pos += 1
        return [*out, (path, False)]

    return parse([])


def resolve(segments: list[str], here: Module) -> Module | None:
    """The absolute path that ``segments`` names from the module ``here`` (``None`` for a path
    that does not start at ``crate``, ``$crate``, ``self`` or ``super``, or goes above the
    crate's root)."""
    if segments[:1] in (["crate"], ["$crate"]):
        return tuple(segments[1:])
    if segments[:1] not in (["self"], ["super"]):
        return None
    base = list(here)
    while segments and segments[0] in ("self", "super"):
        if segments[0] == "super":
            if not base:
                return None
            base.pop()
        segments = segments[1:]
    return (*base, *segments)


def rust_modules(src: Path) -> dict[Path, Module]:
    return {p: module_of(p, src) for p in sorted(src.rglob("*.rs"))}


def named_modules(
    code: str, mod: Module, inline: list[tuple[str, int, int]], known: set[Module]
) -> list[tuple[Module, Module]]:
    """What the code of the file of module ``mod`` names: (the module the code is in, the
    absolute path it names), for every ``use``, every path from ``crate``/``$crate``,
    ``super`` or ``self``, and every path from a module's own child or from a name one of its
    glob imports brings in."""

    def here(offset: int) -> Module:
        return mod + tuple(name for name, s, e in inline if s <= offset < e)

    named: list[tuple[Module, Module]] = []
    globs: dict[Module, set[Module]] = {}
    for u in USE.finditer(code):
        at = here(u.start())
        for segments, glob in use_paths(u.group(1)):
            target = resolve(segments, at)
            if target is not None:
                named.append((at, target))
                if glob:
                    globs.setdefault(at, set()).add(target)
    for p in PREFIXED.finditer(code):
        at = here(p.start())
        target = resolve([p.group(1), *re.findall(r"\w+", p.group(2))], at)
        if target is not None:
            named.append((at, target))
    for b in BARE.finditer(code):
        at = here(b.start())
        for scope in [at, *globs.get(at, ())]:
            if (*scope, b.group(1)) in known:
                named.append((at, (*scope, b.group(1))))
    return named


def folder_graphs(src: Path) -> dict[Module, dict[str, set[str]]]:
    """For every module of the crate at ``src`` that has child modules: its children, each →
    the children its code names (a file of the child, or of a module under it, names the
    other one by a ``use`` or a path: ``crate::``/``$crate::``, ``super::``, ``self::``, or a
    name a glob import ``use ...::*`` of the parent brings in; in a macro's tokens too). A
    child is a file ``x.rs`` (with a folder ``x/``), a folder ``x/mod.rs`` or an inline
    ``mod x { ... }``. ``graphs[()]`` is the graph of the crate's top-level modules."""
    files = rust_modules(src)
    known: set[Module] = {()}
    texts: dict[Path, tuple[str, list[tuple[str, int, int]]]] = {}
    for path, mod in files.items():
        known.update(mod[:k] for k in range(len(mod) + 1))
        code = strip_rust(path.read_text(encoding="utf-8"))
        inline = inline_modules(code)
        texts[path] = (code, inline)
        for name, start, _ in inline:
            outer = [nm for nm, s, e in inline if s <= start < e and s != start]
            known.add(mod + tuple(outer) + (name,))
    graphs: dict[Module, dict[str, set[str]]] = {}
    for m in known:
        if m:
            graphs.setdefault(m[:-1], {}).setdefault(m[-1], set())

    for path, mod in files.items():
        code, inline = texts[path]
        for at, target in named_modules(code, mod, inline, known):
            d = 0
            while d < min(len(at), len(target)) and at[d] == target[d]:
                d += 1
            if d < len(at) and d < len(target) and target[: d + 1] in known:
                graphs[at[:d]][at[d]].add(target[d])
    return graphs


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """A cycle for each edge back to a module still being visited (each strongly connected
    group of modules shows at least one)."""
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


def groups(g: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules that each reach the others (Tarjan's strongly
    connected components): every cycle lies within one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(n: str) -> None:
        index[n] = low[n] = len(index)
        stack.append(n)
        for m in sorted(g.get(n, ())):
            if m not in index:
                visit(m)
                low[n] = min(low[n], low[m])
            elif m in stack:
                low[n] = min(low[n], index[m])
        if low[n] == index[n]:
            group = []
            while True:
                m = stack.pop()
                group.append(m)
                if m == n:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for n in sorted(g):
        if n not in index:
            visit(n)
    return sorted(found)


def per_folder(
    src: Path, top: bool, find: Callable[[dict[str, set[str]]], list[Any]]
) -> dict[str, list[Any]]:
    """What ``find`` finds in the graph of the top-level modules (``top``) or of every other
    module's children, as ``{folder: found}`` (folders relative to the repository; a folder
    where nothing is found is left out)."""
    out = {}
    for folder, g in sorted(folder_graphs(src).items()):
        if (folder == ()) != top:
            continue
        if found := find(g):
            out["/".join([src.relative_to(src.parents[1]).as_posix(), *folder])] = found
    return out


def all_groups(src: Path, top: bool) -> dict[str, list[Any]]:
    """``all_cycles``'s folders with their groups of modules in a cycle."""
    return per_folder(src, top, groups)


def all_cycles(src: Path, top: bool) -> dict[str, list[Any]]:
    """The cycles of each folder's graph, as ``{folder: ["a -> b -> a", ...]}``."""
    return per_folder(src, top, lambda g: [" -> ".join(c) for c in cycles(g)])


def test_the_rust_checker_finds_planted_cycles(tmp_path: Path) -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert groups({"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": {"e"}, "e": {"d"}}) == [
        ["a", "b", "c"],
        ["d", "e"],
    ]
    src = tmp_path / "core" / "src"
    (src / "a" / "y").mkdir(parents=True)
    (src / "b").mkdir()
    (src / "lib.rs").write_text("pub mod a;\npub mod b;\nmod c;\n")
    # `a` in the `a.rs` + `a/` form, `b` in the `b/mod.rs` form.
    (src / "a.rs").write_text("mod x;\nmod y;\npub fn f() {}\n")
    (src / "a" / "x.rs").write_text("use super::y::g;\n// crate::b in a comment\n")
    (src / "a" / "y" / "mod.rs").write_text('pub fn g() { let _ = "super::x::h"; }\n')
    (src / "b" / "mod.rs").write_text("use crate::{a::f, c};\n")
    (src / "c.rs").write_text("pub fn h() {}\n")
    g = folder_graphs(src)
    assert g[()] == {"a": set(), "b": {"a", "c"}, "c": set()}, g
    assert g[("a",)] == {"x": {"y"}, "y": set()}, g
    assert all_cycles(src, top=True) == {} and all_cycles(src, top=False) == {}
    # Through a macro call's tokens: a -> b at the top.
    (src / "a.rs").write_text("mod x;\nmod y;\npub fn f() { log!(crate::b::k()) }\n")
    assert all_cycles(src, top=True) == {"core/src": ["a -> b -> a"]}
    # Inside a folder, through `super::` in an inline module and a glob import's bare name.
    (src / "a" / "y" / "mod.rs").write_text(
        "mod z;\n#[cfg(test)]\nmod tests {\n    use super::super::*;\n    fn t() { x::h() }\n}\n"
    )
    (src / "a" / "y" / "z.rs").write_text("")
    assert all_cycles(src, top=False) == {"core/src/a": ["x -> y -> x"]}
    # `self::`, `$crate::` and a nested use tree name modules too.
    (src / "a" / "y" / "mod.rs").write_text("mod z;\nmacro_rules! m { () => { $crate::c::h() } }\n")
    (src / "c.rs").write_text("use self::super::{b::{self as bb}};\n")
    g = folder_graphs(src)
    assert g[()] == {"a": {"b", "c"}, "b": {"a", "c"}, "c": {"b"}}, g
    assert all_cycles(src, top=True) == {"core/src": ["a -> b -> a", "b -> c -> b"]}
    assert all_groups(src, top=True) == {"core/src": [["a", "b", "c"]]}


@pytest.mark.parametrize("crate", sorted(CRATES))
def test_no_import_cycle_between_top_level_modules(crate: str) -> None:
    src = CRATES[crate] / "src"
    g = folder_graphs(src)[()]
    assert any(g.values()), f"{crate}: no use between top-level modules seen: {g}"
    found = all_cycles(src, top=True)
    assert found == {}, (
        f"modules in a cycle: {all_groups(src, top=True)}; "
        f"import cycles between top-level modules: {found}"
    )


@pytest.mark.parametrize("crate", sorted(CRATES))
def test_no_import_cycle_inside_any_module(crate: str) -> None:
    src = CRATES[crate] / "src"
    found = all_cycles(src, top=False)
    assert found == {}, (
        f"modules in a cycle: {all_groups(src, top=False)}; "
        f"import cycles between sibling modules: {found}"
    )


def test_the_rust_checker_sees_the_core_folders() -> None:
    graphs = folder_graphs(CRATES["core"] / "src")
    folders = {"/".join(f) for f, g in graphs.items() if any(g.values())}
    assert {"media", "score", "transport"} <= folders, folders


# ---------------------------------------------------------------------------------------------
# The core names no Python; the binding depends on it
# ---------------------------------------------------------------------------------------------

PYTHON = re.compile(rb"pyo3|python", re.IGNORECASE)


def python_mentions(folder: Path, root: Path = ROOT) -> list[str]:
    """``path:line`` (relative to ``root``) of every line of every file under ``folder``
    naming pyo3 or Python, whatever the case."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        for n, line in enumerate(path.read_bytes().splitlines(), 1):
            if PYTHON.search(line):
                found.append(f"{path.relative_to(root).as_posix()}:{n}")
    return found


def test_the_python_checker_reads_every_file(tmp_path: Path) -> None:
    (tmp_path / "src" / "page").mkdir(parents=True)
    (tmp_path / "src" / "lib.rs").write_text("//! For PYTHON.\nfn f() {}\n")
    (tmp_path / "src" / "page" / "x.js").write_text("\n\n// pyo3\n")
    (tmp_path / "Cargo.toml").write_text('[package]\ndescription = "no Python"\n')
    (tmp_path / "clean.rs").write_text("fn f() {}\n")
    found = [f.split(tmp_path.name + "/", 1)[1] for f in python_mentions(tmp_path, tmp_path.parent)]
    assert found == ["Cargo.toml:2", "src/lib.rs:1", "src/page/x.js:3"], found


def test_no_file_of_the_core_names_python() -> None:
    found = python_mentions(CRATES["core"])
    assert found == [], f"the core names Python ({len(found)} lines): {found}"


def cargo_tree(*args: str) -> str:
    cargo = shutil.which("cargo")
    assert cargo, "cargo is not on PATH: the core's dependency graph cannot be read"
    run = subprocess.run(
        [cargo, "tree", "-p", "showctl", "-e", "normal", "--offline", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_the_core_depends_on_no_python_crate() -> None:
    for args in [(), ("--all-features", "--target", "all")]:
        tree = cargo_tree(*args)
        assert tree.startswith("showctl v"), tree[:200]
        found = [line for line in tree.splitlines() if PYTHON.search(line.encode())]
        assert found == [], f"cargo tree -p showctl -e normal {' '.join(args)}: {found}"


def manifest_table(crate: str, table: str) -> str:
    """The lines of ``[table]`` in the crate's Cargo.toml (tomllib is 3.11+, the suite runs on
    3.9 too)."""
    text = (CRATES[crate] / "Cargo.toml").read_text(encoding="utf-8")
    found = re.search(rf"^\[{re.escape(table)}\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    assert found, f"{crate}/Cargo.toml has no [{table}]"
    return found.group(1)


def test_the_binding_depends_on_the_core() -> None:
    assert re.search(r'^name = "showctl"$', manifest_table("core", "package"), re.M)
    deps = manifest_table("binding", "dependencies")
    assert re.search(r'^showctl = \{ path = "\.\./core" \}$', deps, re.M), deps


# ---------------------------------------------------------------------------------------------
# File sizes; HTML
# ---------------------------------------------------------------------------------------------

CFG_TEST = re.compile(
    r"^#\[cfg\(test\)\]\n(?:#\[.*\]\n)*(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+);", re.M
)


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


def rust_test_files(crate: Path) -> set[Path]:
    """The test files of a crate: its integration tests (``tests/``), the files of modules
    declared under ``#[cfg(test)]`` (``mod tests;``) and theirs."""
    found: set[Path] = set((crate / "tests").rglob("*.rs"))
    for path in sorted(crate.rglob("*.rs")):
        home = path.parent if path.name in ("mod.rs", "lib.rs", "main.rs") else path.with_suffix("")
        for name in CFG_TEST.findall(path.read_text(encoding="utf-8")):
            for child in (home / f"{name}.rs", home / name / "mod.rs"):
                if child.exists():
                    found.add(child)
    homes = {t.parent if t.name == "mod.rs" else t.with_suffix("") for t in found}
    return found | {f for f in crate.rglob("*.rs") if any(h in f.parents for h in homes)}


def long_files(crate: Path, limit: int = 800) -> dict[str, int]:
    """Every Rust file of the crate (sources, benches, build script) with more than ``limit``
    lines outside its tests, relative to the crate's parent."""
    tests = rust_test_files(crate)
    out = {}
    for path in sorted(crate.rglob("*.rs")):
        if path in tests:
            continue
        n = len(outside_tests(path.read_text(encoding="utf-8")))
        if n > limit:
            out[path.relative_to(crate.parent).as_posix()] = n
    return out


def test_the_line_counter_leaves_out_tests_only(tmp_path: Path) -> None:
    crate = tmp_path / "core"
    src = crate / "src"
    (src / "big").mkdir(parents=True)
    (crate / "tests").mkdir()
    (crate / "benches").mkdir()
    body = "fn f() {\n" + "    let x = 1;\n" * 797 + "}\n"  # 799 lines
    tests = "#[cfg(test)]\nmod tests {\n" + "    #[test]\n    fn t() {}\n" * 400 + "}\n"
    (src / "lib.rs").write_text("pub mod big;\n#[cfg(test)]\nmod helpers;\n")
    (src / "big.rs").write_text(body + tests)
    (src / "helpers.rs").write_text(body * 3)
    (crate / "tests" / "it.rs").write_text(body * 3)
    (crate / "benches" / "b.rs").write_text(body)
    assert long_files(crate) == {}
    (src / "big.rs").write_text(body + "fn g() {}\n#[cfg(test)]\nuse std::fmt;\n" + body + tests)
    (crate / "benches" / "b.rs").write_text(body * 2)
    assert long_files(crate) == {"core/src/big.rs": 2 * 799 + 1, "core/benches/b.rs": 2 * 799}


@pytest.mark.parametrize("crate", sorted(CRATES))
def test_no_rust_file_over_800_lines_outside_its_tests(crate: str) -> None:
    long = long_files(CRATES[crate])
    assert long == {}, f"split these files (lines outside tests): {long}"


def test_no_binding_file_over_600_lines() -> None:
    long = {
        p.relative_to(ROOT).as_posix(): n
        for p in (CRATES["binding"] / "src").rglob("*.rs")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}, f"binding files over 600 lines: {long}"


def test_the_binding_draws_no_html() -> None:
    """Every HTML view is drawn in one place, `showctl._html`: the binding (which converts)
    hands it data, as `ScoreRecord._display()` does, and writes no markup itself."""
    markup = re.compile(r"<(table|tr|td|th|div|caption)[ >]")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((CRATES["binding"] / "src").rglob("*.rs"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if markup.search(line)
    ]
    assert found == [], f"HTML drawn in the binding (draw it in python/showctl/_html.py): {found}"


# ---------------------------------------------------------------------------------------------
# The Python package and the tests
# ---------------------------------------------------------------------------------------------


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
