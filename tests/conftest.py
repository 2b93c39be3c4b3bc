from __future__ import annotations

import os
import signal
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pytest_httpserver import HTTPServer

from tests.kit.certkit import Cert, https_server, make_cert
from tests.kit.recording import load, serve

if TYPE_CHECKING:
    import showctl


def pytest_report_header() -> str:
    import showctl

    return f"showctl {showctl.__version__} from {Path(showctl.__file__).parent}"


def pytest_configure(config: pytest.Config) -> None:
    """A run started in the background by a non-interactive shell (`cmd &`) inherits SIGINT
    ignored, and Python then installs no KeyboardInterrupt handler, in this process or in the
    CLI processes it starts: the Ctrl-C tests need Python's own handler, as in a terminal.

    With SHOWCTL_TEST_INSTALLED=1 (scripts/test-wheel.sh), the suite refuses to run unless
    showctl is the package installed in this interpreter's site-packages (an installed wheel),
    not a source tree or an editable build."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if os.environ.get("SHOWCTL_TEST_INSTALLED") != "1":
        return
    import showctl
    import showctl._core

    site = Path(sysconfig.get_paths()["platlib"]).resolve() / "showctl"
    for module in (showctl.__file__, showctl._core.__file__):
        if module is None or Path(module).resolve().parent != site:
            raise pytest.UsageError(f"showctl is imported from {module}, not from {site}")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test sees the user's SHOWCTL_* variables unless it sets them."""
    for var in list(os.environ):
        if var.startswith("SHOWCTL_"):
            monkeypatch.delenv(var)
    yield


# The keys examples/venue.toml reads from the environment, exported as the README does (here,
# before any fixture of any scope loads the file).
os.environ["MAIN_SCREEN_KEY"] = "rehearsal-main"
os.environ["LOBBY_KEY"] = "rehearsal-lobby"


@pytest.fixture
def base_url(httpserver: HTTPServer) -> str:
    return f"http://{httpserver.host}:{httpserver.port}"


# The plugin's fixtures (showctl.testing) under the suite's short names: a fresh strict
# simulator per test (its options from the `showctl_simulator` marker) and a player bound to it.
@pytest.fixture
def sim(showctl_simulator: showctl.Simulator) -> showctl.Simulator:
    return showctl_simulator


@pytest.fixture
def player(showctl_player: showctl.MediaPlayer) -> showctl.MediaPlayer:
    return showctl_player


# The certificate of the media application's kind (self-signed, CA:TRUE, expired) and a
# scoreboard answering over HTTPS with it: pinning it is what connects (the client's TLS tests
# and the command line's pin flags).
@pytest.fixture
def expired(tmp_path: Path) -> Cert:
    return make_cert(tmp_path, name="expired", expired=True, ca=True)


@pytest.fixture
def expired_server(expired: Cert) -> Iterator[HTTPServer]:
    for server in https_server(expired):
        serve(server, load("scoreboard/hockey"))
        yield server
