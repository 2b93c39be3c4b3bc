"""The shape of the code, read from its sources: no import cycle between the files of the
binding (src/python/) nor between those of the media core (src/media/), no binding file over
600 lines, and no import cycle between the modules of the Python package (python/showctl/),
counting imports inside functions (which hide a cycle from Python, not from a reader)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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


def graph(package: Path, crate_path: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.rs")):
        if path.name == "mod.rs":
            continue
        out.setdefault(module_of(path, package), set()).update(imports(path, package, crate_path))
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
