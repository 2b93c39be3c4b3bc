"""An exception raised inside Python's logging while the core logs never surfaces as a
SystemError from an unrelated call: Ctrl-C stays a KeyboardInterrupt, anything else is
reported as unraisable and the call succeeds."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator

import pytest
import showctl
from pytest_httpserver import HTTPServer


class _Raise(logging.Filter):
    def __init__(self, exc: BaseException) -> None:
        super().__init__()
        self.exc = exc
        self.armed = True

    def filter(self, record: logging.LogRecord) -> bool:
        if self.armed and record.name.startswith("showctl"):
            self.armed = False
            raise self.exc
        return True


class _Quiet(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        pass


@pytest.fixture
def raising_handler() -> Iterator[logging.Handler]:
    handler = _Quiet()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def _serve_scores(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/api/0/data/scores").respond_with_json(
        {"uuid": "u", "version": "1", "sportMode": "Hockey"}
    )


def test_ctrl_c_inside_logging_is_a_keyboard_interrupt(
    httpserver: HTTPServer, base_url: str, raising_handler: logging.Handler
) -> None:
    _serve_scores(httpserver)
    raising_handler.addFilter(_Raise(KeyboardInterrupt()))
    board = showctl.Scoreboard(base_url)
    with pytest.raises(KeyboardInterrupt):
        board.scores()
        for _ in range(1000):  # Python's next signal check
            pass
    assert board.scores().sport_mode == "Hockey"


def test_other_errors_inside_logging_do_not_break_the_call(
    httpserver: HTTPServer,
    base_url: str,
    raising_handler: logging.Handler,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _serve_scores(httpserver)
    seen: list[BaseException | None] = []
    monkeypatch.setattr("sys.unraisablehook", lambda u: seen.append(u.exc_value))
    raising_handler.addFilter(_Raise(RuntimeError("handler broke")))
    board = showctl.Scoreboard(base_url)
    assert board.scores().sport_mode == "Hockey"
    assert any(isinstance(e, RuntimeError) for e in seen)


_GIL_HOSTAGE = r"""
import logging, sys, time
import showctl

logging.basicConfig(level=logging.WARNING)  # the core's debug records are dropped
with showctl.Simulator() as primary, showctl.Simulator() as mirror:
    with showctl.MediaPlayer(primary.url, mirrors=[mirror.url]) as player:
        # Python is asked once for each logging target's level (again after a client is
        # built): a first command, with the GIL free until the mirror has it, fills the cache.
        player.layer(0).mute()
        deadline = time.monotonic() + 10.0
        while player.mirror_status()[0].sent < 1:
            assert time.monotonic() < deadline, "the mirror never got the first command"
            time.sleep(0.001)
        sys.setswitchinterval(60.0)  # this thread keeps the GIL while it runs Python
        player.layer(0).unmute()  # the mirror's copy is sent by a runtime thread
        deadline = time.monotonic() + 10.0
        while player.mirror_status()[0].sent < 2:
            if time.monotonic() > deadline:
                sys.setswitchinterval(0.005)
                print("the mirror's command waited for the GIL")
                sys.exit(1)
        sys.setswitchinterval(0.005)
print("sent")
"""


def test_records_python_drops_never_wait_for_the_gil() -> None:
    """A runtime thread that logs a record below Python's level does not take the GIL: the
    mirror's copy of a command is sent while the main thread keeps the GIL (once, every
    finished request of an async fan-out waited for the event loop's GIL here: 2.4× slower)."""
    out = subprocess.run(
        [sys.executable, "-c", _GIL_HOSTAGE], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0 and out.stdout.strip() == "sent", out.stdout + out.stderr
