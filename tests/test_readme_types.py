"""The README's code and the examples pass ``mypy --strict`` as a user would run it: the tour
is what a new user copies first, and its types are part of what it promises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", markdown, flags=re.DOTALL | re.MULTILINE)


def mypy_strict(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            *map(str, paths),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def test_python_blocks_are_found() -> None:
    text = "a\n```python\nx = 1\n```\n```sh\nls\n```\n```python\ny = 2\n```\n"
    assert python_blocks(text) == ["x = 1\n", "y = 2\n"]


def test_the_readme_and_the_examples_pass_mypy_strict(tmp_path: Path) -> None:
    blocks = python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert any("board.scores" in b for b in blocks), "the tour is gone from the README"
    files = []
    for i, block in enumerate(blocks):
        path = tmp_path / f"readme_block_{i}.py"
        path.write_text(block, encoding="utf-8")
        files.append(path)
    done = mypy_strict(*files, ROOT / "examples")
    assert done.returncode == 0, done.stdout + done.stderr
