"""The operation tables (core/src/media/table.rs, the scoreboard's in core/src/score/table.rs)
against what is built from them and what is written about them: each operation has its method and
``_async`` twin on each class it belongs to, its ``showctl.cmd`` command (for a command), its stub
entries and its row in docs/api.md. A failure says the line to paste (or the command to run). Also:
the checked-in stub and docs, cmd.py, README.md's method tables and docs/simulator.md's routes are
what scripts/gen_stubs.py writes, every ``x_async`` in the stub has ``x``'s parameters and returns
an awaitable of ``x``'s type, and every class and method in the stub has a docstring."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import showctl
from showctl import _core, cmd

ROOT = Path(__file__).resolve().parents[2]
STUB = ROOT / "python" / "showctl" / "_core.pyi"
API_MD = ROOT / "docs" / "api.md"


def gen_stubs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_stubs", ROOT / "scripts" / "gen_stubs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_stubs"] = module
    spec.loader.exec_module(module)
    return module


OPS: list[dict[str, Any]] = list(_core._operations())


def stub_classes() -> dict[str, ast.ClassDef]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def members(cls: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = ast.unparse(node.returns) if node.returns else "None"
    return f"{prefix} {node.name}({ast.unparse(node.args)}) -> {returns}: ..."


def test_the_tables_list_every_operation_once() -> None:
    assert len(OPS) >= 55
    seen = [(c, op["name"]) for op in OPS for c in op["classes"]]
    assert len(seen) == len(set(seen)), "an operation is declared twice for a class"
    for op in OPS:
        assert op["async_name"] == op["name"] + "_async"
        assert op["endpoints"] and op["doc"].strip(), op["name"]


def test_each_operation_has_its_method_and_twin_on_each_class() -> None:
    missing = [
        f"{cls}.{name}"
        for op in OPS
        for cls in op["classes"]
        for name in (op["name"], op["async_name"])
        if not callable(getattr(getattr(showctl, cls), name, None))
    ]
    assert missing == [], "missing methods (the table's consumer macros make them): " + str(missing)


def test_each_command_is_a_cmd_function_that_takes_confirm_where_its_method_does() -> None:
    commands = [op for op in OPS if op["command"]]
    missing = [
        f"{op['name']} = Command.{op['name']}"
        for op in commands
        if getattr(cmd, op["name"], None) is not getattr(showctl.Command, op["name"])
    ]
    assert missing == [], "add to python/showctl/cmd.py:\n" + "\n".join(missing)
    unlisted = [f'    "{op["name"]}",' for op in commands if op["name"] not in cmd.__all__]
    assert unlisted == [], "add to cmd.__all__:\n" + "\n".join(unlisted)
    for op in commands:
        params = getattr(cmd, op["name"]).__text_signature__ or ""
        assert ("confirm" in params) == op["confirm"], (op["name"], params)


def test_each_operation_has_its_stub_entries() -> None:
    mod = gen_stubs()
    classes = stub_classes()
    wanted: dict[str, list[str]] = mod.generated_members()
    missing = []
    for cls, sources in wanted.items():
        have = {signature(n) for n in members(classes[cls]).values()} if cls in classes else set()
        for src in sources:
            node = ast.parse(src).body[0]
            assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            if signature(node) not in have:
                missing.append(f"{cls}: {signature(node)}")
    assert missing == [], (
        "stub entries missing or different (run python scripts/gen_stubs.py):\n"
        + "\n".join(missing)
    )


def test_each_operation_has_its_row_in_the_docs() -> None:
    text = API_MD.read_text(encoding="utf-8")
    missing = [row for row in gen_stubs().docs_rows() if row not in text]
    assert missing == [], (
        "docs/api.md lacks these rows (run python scripts/gen_stubs.py, or paste):\n"
        + "\n".join(missing)
    )


def test_the_checked_in_stub_and_docs_are_what_the_generator_writes() -> None:
    mod = gen_stubs()
    stub = STUB.read_text(encoding="utf-8")
    generated = mod.generate_stub(stub)
    if generated != stub:
        diff = [
            f"line {i}: {a!r} != {b!r}"
            for i, (a, b) in enumerate(zip(stub.splitlines(), generated.splitlines()), 1)
            if a != b
        ]
        pytest.fail(
            "python/showctl/_core.pyi differs from what scripts/gen_stubs.py writes (run it):\n"
            + "\n".join(diff[:10] or ["(lengths differ)"])
        )
    docs = API_MD.read_text(encoding="utf-8")
    assert mod.generate_docs(docs) == docs, "docs/api.md is stale: run python scripts/gen_stubs.py"


def test_the_other_copies_of_the_tables_are_what_the_generator_writes() -> None:
    # python/showctl/cmd.py, README.md's method tables, docs/simulator.md's routes.
    stale = [
        str(path.relative_to(ROOT))
        for path, text in gen_stubs().copies()
        if path.read_text(encoding="utf-8") != text
    ]
    assert stale == [], f"stale (run python scripts/gen_stubs.py): {stale}"


def test_each_async_twin_has_the_parameters_of_its_method_and_awaits_its_type() -> None:
    problems = []
    for name, cls in stub_classes().items():
        defs = members(cls)
        runtime = getattr(_core, name, None)
        for aname, anode in defs.items():
            if not aname.endswith("_async") or aname[: -len("_async")] not in defs:
                continue
            sync = defs[aname[: -len("_async")]]
            if ast.dump(anode.args) != ast.dump(sync.args):
                problems.append(f"{name}.{aname}: parameters differ from {sync.name}")
            same = ast.dump(anode.returns) == ast.dump(sync.returns) if sync.returns else False
            alias = runtime is not None and getattr(runtime, aname) is getattr(runtime, sync.name)
            if alias:
                # One method under two names (an iterator that is also an async iterator).
                if not same or isinstance(anode, ast.AsyncFunctionDef):
                    problems.append(f"{name}.{aname}: must be typed as {sync.name} is")
            elif not isinstance(anode, ast.AsyncFunctionDef) or not same:
                problems.append(
                    f"{name}.{aname}: must be 'async def' returning "
                    f"{ast.unparse(sync.returns) if sync.returns else None}"
                )
    assert problems == [], "\n".join(problems)


def test_every_class_and_method_of_the_stub_has_a_docstring() -> None:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    bare = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if not ast.get_docstring(node):
                bare.append(f"{node.name} (line {node.lineno})")
    assert bare == [], "no docstring (document it in the Rust source):\n" + "\n".join(bare)


def test_a_command_built_with_confirm_says_so_and_differs_from_one_without() -> None:
    plain = cmd.set_opacity("Main", 0.5)
    checked = cmd.set_opacity("Main", 0.5, confirm=True)
    assert (plain.confirm, checked.confirm) == (False, True)
    assert plain != checked and plain == cmd.set_opacity("Main", 0.5)
    assert repr(checked) == """Command('POST /opacity/layer/Main {"value":0.5}', confirm=True)"""
    with pytest.raises(TypeError):
        cmd.apply_preset("Main", "Look", confirm=True)  # type: ignore[call-arg]
