"""One version everywhere: Cargo.toml's [workspace.package] is the only source; the package
metadata, showctl.__version__, `showctl --version` and the User-Agent header all say the same."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import showctl
from pytest_httpserver import HTTPServer

CARGO_TOML = Path(__file__).resolve().parents[2] / "Cargo.toml"
# PEP 440 public versions (what a registry accepts): 1.2.3, 1.2.3rc1, 1.2.3.post1, 1.2.3.dev4
PEP440 = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")


def cargo_version() -> str:
    """The [workspace.package] version of Cargo.toml, which every crate inherits (tomllib is
    3.11+: read the one line it needs)."""
    text = CARGO_TOML.read_text(encoding="utf-8")
    package = re.search(r"^\[workspace\.package\]$(.*?)(?=^\[)", text, re.M | re.S)
    assert package, f"no [workspace.package] table in {CARGO_TOML}"
    found = re.search(r'^version\s*=\s*"([^"]+)"$', package.group(1), re.M)
    assert found, f"no version in [workspace.package] of {CARGO_TOML}"
    return found.group(1)


def test_every_crate_inherits_the_workspace_version() -> None:
    for crate in ("core", "binding", "macros"):
        manifest = CARGO_TOML.parent / crate / "Cargo.toml"
        package = manifest.read_text(encoding="utf-8").split("[package]", 1)[1].split("\n[", 1)[0]
        assert re.search(r"^version\.workspace = true$", package, re.M), manifest


def test_version_is_cargo_toml_version() -> None:
    assert showctl.__version__ == cargo_version()


def test_version_is_the_installed_metadata_version() -> None:
    assert metadata.version("showctl") == showctl.__version__
    assert PEP440.match(showctl.__version__), showctl.__version__


def test_cli_version_option() -> None:
    """`python -m showctl --version` (the console script is checked in test_cli)."""
    args = [sys.executable, "-m", "showctl", "--version"]
    result = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"showctl {showctl.__version__}"


def test_user_agent_names_the_version(httpserver: HTTPServer, base_url: str) -> None:
    httpserver.expect_request("/api/0/clear/workspace", method="POST").respond_with_data("")
    showctl.MediaPlayer(base_url, timeout=5).request("POST", "/clear/workspace")
    (request, _), *_ = httpserver.log
    assert request.headers["User-Agent"] == f"showctl/{showctl.__version__}"
