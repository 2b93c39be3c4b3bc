"""Prove that adding a media operation takes two hand edits: its entry in the operation table
and its simulator route, and that every other copy comes from the generators.

In a copy of the tree (``$CARGO_TARGET_DIR/scratch-operation/tree``, or ``target/`` without the
variable: a fixed place, so cargo's incremental cache serves the next run), this

1. makes the two hand edits: a layer command ``scratch_dim(value, *, confirm=False)`` in
   ``core/src/media/table.rs`` (``POST /scratchDim/layer/{id}`` with ``{"value": value}``, read
   back as an opacity) and its route in ``core/src/simulator/routes.rs`` (the simulator sets the
   opacity);
2. builds the extension of the copy (``cargo build -p showctl-python --lib``, the dev profile,
   sharing the target directory's dependencies but not the working tree's own two crates: see
   ``APART``) and puts it into the copy's ``python/showctl``;
3. runs ``python scripts/gen_stubs.py`` in the copy, with the copy's package first on the path;
4. checks that the files that changed are exactly the two edited by hand and the generated
   copies (the stub, docs/api.md, README.md, docs/simulator.md, ``showctl.cmd``), each of which
   now has the operation, and that ``gen_stubs.py --check`` passes;
5. runs the table's guards in the copy (tests/project/test_operation_table.py: methods,
   ``_async`` twins, ``cmd`` functions, stub entries, docs rows, stale copies;
   tests/simulator/test_simulator_routes.py: a route for every endpoint) and calls the new
   operation against the simulator, confirmed.

Exit status 0 when all of it holds; otherwise each problem is printed. Run by .ci/run::

    python scripts/scratch_operation.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target").resolve()
TREE = TARGET / "scratch-operation" / "tree"
NAME = "scratch_dim"

# The two hand edits: (file, the line the entry goes after, the entry).
TABLE_ENTRY = """\
                /// POST /scratchDim/layer/{id} with {"value": value}, 0.0 to 1.0. `confirm=True`:
                /// read back until the opacity is the value.
                scratch_dim(layer, value: Number) {
                    SCRATCH_DIM: Endpoint<f64, ()> =
                        post("/scratchDim/layer/{layer:id}", opacity_body);
                } confirm {
                    Expect::Opacity { layer: layer.clone(), value }
                }

"""
SIMULATOR_ROUTE = """\
        .route(
            "/scratchDim/layer/{id}",
            command(true, |w, c| w.set_opacity(c.id(), c.number()?)),
        )
"""
HAND_EDITS = [
    ("core/src/media/table.rs", "            layer_commands {\n", TABLE_ENTRY),
    ("core/src/simulator/routes.rs", "        // Layer properties\n", SIMULATOR_ROUTE),
]
# Each generated copy, and the text it must hold once the operation is added.
GENERATED = {
    "python/showctl/_core.pyi": [
        "    def scratch_dim(self, value: SupportsFloat, *, confirm: bool = False) -> None:\n",
        "    async def scratch_dim_async(self, value: SupportsFloat, *, confirm: bool = False)"
        " -> None:\n",
        "    def scratch_dim(\n"
        "        layer: SupportsIndex | str | Layer, value: SupportsFloat, *,"
        " confirm: bool = False\n"
        "    ) -> Command:\n",
    ],
    "docs/api.md": [
        "| `Layer.scratch_dim(value, *, confirm=False)` | POST /scratchDim/layer/{id} | `None` | "
        'POST /scratchDim/layer/{id} with {"value": value}, 0.0 to 1.0 |'
    ],
    "README.md": ["| `scratch_dim(value)` | `POST /scratchDim/layer/{id}` |"],
    "docs/simulator.md": ["| POST | `/scratchDim/layer/{id}` | `Layer.scratch_dim` |"],
    "python/showctl/cmd.py": ['    "scratch_dim",', "scratch_dim: Final = Command.scratch_dim"],
}
# The copy's own two crates built apart from the working tree's in the shared target directory.
# Cargo names a workspace crate's artifacts by its path inside the workspace, not by where the
# workspace is, so the copy's `showctl` and `showctl-python` would overwrite the working tree's
# (the next build of the working tree then took the copy's core, `scratch_dim` and all, as up to
# date). A profile setting of these two crates alone is part of that name: the dependencies stay
# shared, these two do not.
APART = [
    arg
    for crate in ("showctl", "showctl-python")
    for arg in ("--config", f'profile.dev.package."{crate}".codegen-units=255')
]
GUARDS = ["tests/project/test_operation_table.py", "tests/simulator/test_simulator_routes.py"]
USE = """
import showctl
from showctl import cmd
assert repr(cmd.scratch_dim("Main", 0.25)) == \
    "Command('POST /scratchDim/layer/Main {\\"value\\":0.25}')", repr(cmd.scratch_dim("Main", 0.25))
with showctl.Simulator(strict=True, apply_delay=0.05) as sim, showctl.MediaPlayer(sim.url) as p:
    p.layer("Main").scratch_dim(0.25, confirm=True)
    assert p.layer("Main").opacity() == 0.25
    try:
        p.layer("Main").scratch_dim(1.5)
    except ValueError as e:
        assert "value" in str(e), e
    else:
        raise AssertionError("1.5 was sent")
"""


def tracked_files() -> list[str]:
    """The files of the working tree (tracked, and new ones not ignored)."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return sorted(f for f in out.split("\0") if f and (ROOT / f).is_file())


def write_if_changed(path: Path, data: bytes) -> None:
    """Write only what differs, so the copy's unchanged files keep their times (and cargo's
    fingerprints stay fresh between runs)."""
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    path.write_bytes(data)


def sync(files: list[str]) -> dict[str, bytes]:
    """The copy made the same as the working tree; the files' contents before the edits."""
    before = {}
    by_hand = {rel for rel, _, _ in HAND_EDITS}
    for rel in files:
        data = (ROOT / rel).read_bytes()
        if rel not in by_hand:  # written once, edited, by hand_edit()
            write_if_changed(TREE / rel, data)
        before[rel] = data
    keep = set(files)
    for path in TREE.rglob("*"):
        rel = path.relative_to(TREE).as_posix()
        generated_here = "__pycache__" in rel or rel.endswith(".so") or ".pytest_cache" in rel
        if path.is_file() and rel not in keep and not generated_here:
            path.unlink()
    return before


def hand_edit() -> None:
    for rel, anchor, entry in HAND_EDITS:
        text = (ROOT / rel).read_text(encoding="utf-8")
        if text.count(anchor) != 1:
            raise SystemExit(f"{rel}: the line {anchor!r} is not there once: update HAND_EDITS")
        write_if_changed(TREE / rel, text.replace(anchor, anchor + entry, 1).encode())


def build() -> Path:
    """Build the copy's extension; its path. The target directory's own `libshowctl.*` (the
    working tree's, which cargo copies its output to) are put back afterwards."""
    uplifted = [TARGET / "debug" / f"libshowctl_python.{ext}" for ext in ("so", "rlib", "d")]
    saved = {p: p.read_bytes() for p in uplifted if p.is_file()}
    try:
        started = time.monotonic()
        proc = subprocess.run(
            ["cargo", "build", "-p", "showctl-python", "--lib", "--message-format=json", *APART],
            cwd=TREE,
            capture_output=True,
            text=True,
            env={**os.environ, "CARGO_TARGET_DIR": str(TARGET)},
        )
        print(f"cargo build -p showctl-python --lib: {time.monotonic() - started:.1f} s")
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr[-4000:])
            raise SystemExit("the copy does not build with the two hand edits")
        library = None
        for line in proc.stdout.splitlines():
            msg = json.loads(line)
            target = msg.get("target", {})
            if msg.get("reason") == "compiler-artifact" and "cdylib" in target.get("kind", []):
                library = next(f for f in msg["filenames"] if f.endswith((".so", ".dylib")))
        assert library, "cargo reported no cdylib"
        built = TREE / "target-extension.so"
        write_if_changed(built, Path(library).read_bytes())
        return built
    finally:
        for path, data in saved.items():
            write_if_changed(path, data)


def install(built: Path) -> None:
    """The copy's extension where its package imports it from, named as the working tree's."""
    import showctl._core

    origin = Path(str(showctl._core.__file__))
    write_if_changed(TREE / "python" / "showctl" / origin.name, built.read_bytes())


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(TREE / "python"), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(args, cwd=TREE, env=env, capture_output=True, text=True)


def main() -> int:
    files = tracked_files()
    before = sync(files)
    hand_edit()
    install(build())
    problems = []
    where = run([sys.executable, "-c", "import showctl._core as c; print(c.__file__)"]).stdout
    if not where.startswith(str(TREE)):
        problems.append(f"the copy imported another extension: {where.strip()}")
    gen = run([sys.executable, "scripts/gen_stubs.py"])
    if gen.returncode != 0:
        problems.append("gen_stubs.py failed:\n" + gen.stdout + gen.stderr)
    changed = {rel for rel in files if (TREE / rel).read_bytes() != before[rel]}
    wanted = {rel for rel, _, _ in HAND_EDITS} | set(GENERATED)
    for rel in sorted(wanted - changed):
        problems.append(f"{rel} did not change: the new operation does not reach it")
    for rel in sorted(changed - wanted):
        problems.append(f"{rel} changed, but only the two hand edits and the generated copies may")
    for rel, texts in GENERATED.items():
        have = (TREE / rel).read_text(encoding="utf-8")
        problems += [f"{rel} lacks {text!r}" for text in texts if text not in have]
    check = run([sys.executable, "scripts/gen_stubs.py", "--check"])
    if check.returncode != 0:
        problems.append("gen_stubs.py --check fails after generating:\n" + check.stdout)
    tests = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *GUARDS])
    if tests.returncode != 0:
        problems.append("the table's guards fail in the copy:\n" + tests.stdout[-4000:])
    use = run([sys.executable, "-c", USE])
    if use.returncode != 0:
        problems.append("the new operation does not work:\n" + use.stderr[-2000:])
    for problem in problems:
        print(problem)
    if not problems:
        print(
            f"{NAME}: two hand edits ({', '.join(rel for rel, _, _ in HAND_EDITS)}); generated: "
            + ", ".join(GENERATED)
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
