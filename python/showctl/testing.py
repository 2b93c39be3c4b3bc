"""A pytest plugin for testing show automation against the built-in simulator.

Installing showctl registers it (entry point ``pytest11``), so any project's tests get these
fixtures with no configuration:

- ``showctl_simulator``: a fresh, strict simulator for each test (a request that breaks the
  API documents is refused with 400, so your code is held to the documents), started from
  the built-in workspace, or from the one named by the ``showctl_workspace`` marker; the
  ``showctl_simulator`` marker gives it the options of ``showctl_simulator_factory``
  (``@pytest.mark.showctl_simulator(strict=False)``, ``workspace={...}``, ``apply_delay=0.2``);
- ``showctl_player`` / ``showctl_scoreboard``: clients bound to it (its key included);
- ``showctl_simulator_factory``: a function that starts more simulators (another workspace,
  a key, ``strict=False``, an ``apply_delay``); each is stopped after the test;
- ``showctl_venue``: a simulator per source of the venue file named by the ``showctl_venue``
  marker (each from the source's ``workspace``, with its key), as a ``SimulatedVenue``: its
  ``sources`` go to ``Feed(sources=...)`` or ``probe_venue(sources=...)``; each simulator is
  stopped after the test.

The marker takes a workspace file or a directory written by ``showctl record``; a relative
path is relative to the test file's folder::

    @pytest.mark.showctl_workspace("venue")  # ./venue/workspace.json, from `showctl record`
    def test_opening(showctl_player):
        showctl_player.trigger_playlist_cue("Opening", "Countdown")
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Union

import pytest

import showctl

__all__ = [
    "SimulatorFactory",
    "showctl_player",
    "showctl_scoreboard",
    "showctl_simulator",
    "showctl_simulator_factory",
    "showctl_venue",
]

Workspace = Union[str, "os.PathLike[str]", dict[str, Any], None]
#: ``showctl_simulator_factory(workspace=None, *, api_key=None, strict=True, apply_delay=0.0,
#: score_tick=None)``: the fixture is this function itself (call it; it has no methods).
SimulatorFactory = Callable[..., showctl.Simulator]

MARKER = "showctl_workspace"
SIMULATOR_MARKER = "showctl_simulator"
VENUE_MARKER = "showctl_venue"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(path): start showctl_simulator from this workspace file, or from a "
        "directory written by `showctl record` (relative to the test file)",
    )
    config.addinivalue_line(
        "markers",
        f"{SIMULATOR_MARKER}(**options): start showctl_simulator with these options of "
        "showctl_simulator_factory (workspace=, api_key=, strict=, apply_delay=, score_tick=)",
    )
    config.addinivalue_line(
        "markers",
        f"{VENUE_MARKER}(path): start showctl_venue from this venue file (relative to the test "
        "file): a simulator per source",
    )


def _resolve(request: pytest.FixtureRequest, workspace: Workspace) -> Workspace:
    if isinstance(workspace, (str, os.PathLike)):
        path = Path(workspace)
        if not path.is_absolute():
            path = Path(request.path).parent / path
        return path
    return workspace


@pytest.fixture
def showctl_simulator_factory(request: pytest.FixtureRequest) -> Iterator[SimulatorFactory]:
    """A function that starts a simulator and returns it: call the fixture itself,
    ``showctl_simulator_factory(workspace=None, *, api_key=None, strict=True, apply_delay=0.0,
    score_tick=None)`` (``workspace``: a file, a directory written by ``showctl record``, a dict
    or None; ``apply_delay`` and ``score_tick`` in seconds, as ``showctl.Simulator`` takes
    them). Every simulator it started is stopped after the test."""
    started: list[showctl.Simulator] = []

    def start(
        workspace: Workspace = None,
        *,
        api_key: str | None = None,
        strict: bool = True,
        apply_delay: float = 0.0,
        score_tick: float | None = None,
    ) -> showctl.Simulator:
        sim = showctl.Simulator(
            api_key=api_key,
            workspace=_resolve(request, workspace),
            strict=strict,
            apply_delay=apply_delay,
            score_tick=score_tick,
        )
        started.append(sim)
        return sim.start()

    yield start
    for sim in reversed(started):
        sim.stop()


@pytest.fixture
def showctl_simulator(
    request: pytest.FixtureRequest, showctl_simulator_factory: SimulatorFactory
) -> showctl.Simulator:
    """A fresh, strict simulator for this test (the ``showctl_workspace`` marker picks its
    workspace; the ``showctl_simulator`` marker gives the options of
    ``showctl_simulator_factory``)."""
    options: dict[str, Any] = {}
    given = request.node.get_closest_marker(SIMULATOR_MARKER)
    if given is not None:
        if given.args:
            raise pytest.UsageError(
                f"@pytest.mark.{SIMULATOR_MARKER} takes keyword options (workspace=, api_key=, "
                f"strict=, apply_delay=, score_tick=), got {given.args!r}"
            )
        options.update(given.kwargs)
    marker = request.node.get_closest_marker(MARKER)
    if marker is not None:
        if len(marker.args) != 1:
            raise pytest.UsageError(f"@pytest.mark.{MARKER} takes one path, got {marker.args!r}")
        options.update(marker.kwargs, workspace=marker.args[0])
    return showctl_simulator_factory(**options)


@pytest.fixture
def showctl_player(showctl_simulator: showctl.Simulator) -> Iterator[showctl.MediaPlayer]:
    """A ``MediaPlayer`` bound to ``showctl_simulator`` (with its key), closed afterwards."""
    with showctl.MediaPlayer(showctl_simulator.url, showctl_simulator.api_key) as player:
        yield player


@pytest.fixture
def showctl_scoreboard(showctl_simulator: showctl.Simulator) -> Iterator[showctl.Scoreboard]:
    """A ``Scoreboard`` bound to ``showctl_simulator`` (with its key), closed afterwards."""
    with showctl.Scoreboard(showctl_simulator.url, showctl_simulator.api_key) as board:
        yield board


@pytest.fixture
def showctl_venue(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A simulator per source of the venue file the ``showctl_venue`` marker names (a
    ``showctl._venue.SimulatedVenue``); every one is stopped after the test."""
    from showctl._venue import simulate_venue

    marker = request.node.get_closest_marker(VENUE_MARKER)
    if marker is None or len(marker.args) != 1:
        raise pytest.UsageError(
            f"showctl_venue needs @pytest.mark.{VENUE_MARKER}(path) naming a venue file"
        )
    path = _resolve(request, marker.args[0])
    if not isinstance(path, (str, os.PathLike)):
        raise pytest.UsageError(f"@pytest.mark.{VENUE_MARKER} takes a path, got {path!r}")
    venue = simulate_venue(path, **marker.kwargs)
    try:
        yield venue
    finally:
        venue.stop()
