"""The repository's scripts (``scripts/NAME.py``) loaded as modules, for the tests that check
them or compare the tree with what they generate. Each call loads the file afresh."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def script(name: str) -> ModuleType:
    """``scripts/{name}.py`` as the module ``name`` (registered in ``sys.modules`` first, as
    its dataclasses need)."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
