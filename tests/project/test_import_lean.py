"""``import showctl`` imports only what it needs at import time: the modules below are needed
only by parts of the package a program may never use (HTML views, the probe and venue reports,
the status page, asyncio calls), and each would add milliseconds to every program's start. Run
in a fresh interpreter, since this test session has imported most of them already."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Imported when first needed, never by `import showctl`.
NOT_AT_IMPORT = [
    "asyncio",  # the _async calls (the running loop imported it already)
    "html",  # the HTML views (_repr_html_)
    "html.entities",
    "xml",
    "json",
    "dataclasses",  # the probe and venue reports
    "inspect",  # the _async twins ask for it only when inspect itself looks
    "ssl",
    "subprocess",
    "showctl._reports",
    "showctl._connections",
    "showctl._venue",
    "showctl.cli.status",
    "showctl.cli",
]

SCRIPT = """
import sys
import showctl
print("\\n".join(sorted(name for name in sys.argv[1:] if name in sys.modules)))
"""


def modules_after_import(names: list[str], code: str = SCRIPT) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-I", "-c", code, *names],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    return out.split()


def test_import_showctl_imports_none_of_the_lazy_modules() -> None:
    assert modules_after_import(NOT_AT_IMPORT) == []


@pytest.mark.parametrize(
    ("use", "module"),
    [
        ("showctl.LayerList([])._repr_html_()", "html"),
        ("showctl.ProbeReport", "showctl._reports"),
        ("showctl.MirrorSpec", "showctl._connections"),
        ("showctl.VenueReport", "showctl._venue"),
    ],
)
def test_a_lazy_module_comes_when_its_part_is_used(use: str, module: str) -> None:
    # The check above would also pass if the check itself could not see a module: here the
    # same check sees it once the part that needs it is used.
    code = SCRIPT.replace("import showctl\n", f"import showctl\n{use}\n")
    assert modules_after_import([module], code) == [module]
