"""watch_transport() and watch_transport_async(): typed events per layer from recorded polls
(each kind, the field facts: playingMedia absent is empty, playingItem is residual, a still image
plays at rate 0), transient failures reported and outlived, bounded poll rate; then against the
simulator, with real state changes."""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Awaitable, Callable

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.mediakit import MODES
from tests.kit.recording import load, serve
from tests.kit.wait import until, until_async

Event = tuple[str, "str | None", "float | None"]

# The events of the recorded polls watch_0 .. watch_3 (a 503 between watch_2 and watch_3).
RECORDED: list[Event] = [
    ("time_remaining", "Main", 10.0),
    ("media_changed", "Lower Third/Left", None),
    ("stopped", "Main", None),
    ("started", "Lower Third/Left", None),
    ("poll_failed", None, None),
    ("poll_recovered", None, None),
    ("emptied", "Main", None),
    ("media_changed", "Lower Third/Left", None),
    ("started", "Lower Third/Left", None),
]


def polls(server: HTTPServer, names: list[str]) -> None:
    """Answer GET /transportState/workspace with each recording in turn, the last for good."""
    for name in names[:-1]:
        serve(server, load(f"automation/{name}"), times=1)
    serve(server, load(f"automation/{names[-1]}"))


def collect(watch: showctl.TransportWatch, n: int, mode: str) -> list[showctl.TransportEvent]:
    """The first ``n`` events, with ``for`` or ``async for``."""
    got: list[showctl.TransportEvent] = []
    if mode == "sync":
        for event in watch:
            got.append(event)
            if len(got) == n:
                break
        return got

    async def run() -> None:
        async for event in watch:
            got.append(event)
            if len(got) == n:
                break

    asyncio.run(run())
    return got


def brief(events: list[showctl.TransportEvent]) -> list[Event]:
    return [(e.kind, e.layer_name, e.threshold) for e in events]


@pytest.mark.parametrize("mode", MODES)
def test_each_kind_from_recorded_polls(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    polls(httpserver, ["watch_0", "watch_1", "watch_2", "watch_503", "watch_503", "watch_3"])
    player = showctl.MediaPlayer(base_url, retries=0)
    watch = (player.watch_transport if mode == "sync" else player.watch_transport_async)(
        interval=0.05, thresholds=(5.0, 10.0)
    )
    events = collect(watch, len(RECORDED), mode)
    assert brief(events) == RECORDED
    crossing, changed, stopped, started, failed, recovered, emptied = events[:7]
    assert crossing.layer_index == 0
    assert crossing.layer_uuid == "6F9619FF-8B86-D011-B42D-00C04FC90046"
    assert crossing.previous is not None and crossing.previous.time_remaining == 12
    assert crossing.current is not None and crossing.current.time_remaining == 9.5
    assert changed.previous is not None and changed.previous.playing_media is None
    assert changed.current is not None and changed.current.playing_media is not None
    assert changed.current.playing_media.name == "goal.mov"
    assert stopped.current is not None and stopped.current.is_playing is False
    assert started.layer_index == 1
    assert isinstance(failed.error, showctl.ServiceUnavailableError)
    assert failed.layer_index is None and failed.current is None
    assert recovered.error is None
    # Cleared: playingMedia is gone, the residual playingItem still names the cue.
    assert emptied.current is not None and emptied.current.playing_media is None
    assert emptied.current.playing_item is not None
    assert emptied.current.playing_item.name == "Intro"
    # The still image never produced an event, and nothing crossed a threshold twice.
    assert all(e.layer_name != "Logo Bug" for e in events)
    assert abs(time.time() - events[-1].timestamp) < 60
    assert "kind='emptied'" in repr(emptied) and "layer_name='Main'" in repr(emptied)
    assert "ServiceUnavailableError" in repr(failed)


def test_recorded_polls_give_every_event_once(httpserver: HTTPServer, base_url: str) -> None:
    polls(httpserver, ["watch_0", "watch_1", "watch_2", "watch_503", "watch_3", "watch_404"])
    player = showctl.MediaPlayer(base_url, retries=0)
    events: list[showctl.TransportEvent] = []
    with pytest.raises(showctl.NotFoundError):
        for event in player.watch_transport(0.05, thresholds=[10.0]):
            events.append(event)
    assert brief(events) == RECORDED


def test_bounded_poll_rate_and_thresholds_are_checked(base_url: str) -> None:
    player = showctl.MediaPlayer(base_url)
    for interval in (0.0, 0.049, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"interval: .*at least 0.05"):
            player.watch_transport(interval)
        with pytest.raises(ValueError, match=r"interval:"):
            player.watch_transport_async(interval)
    for thresholds in ([0.0], [-2.0], [float("nan")], [1.0] * 17):
        with pytest.raises(ValueError, match=r"thresholds:"):
            player.watch_transport(0.5, thresholds)
    with pytest.raises(TypeError):
        player.watch_transport(0.5, "10")  # type: ignore[arg-type]


def test_a_closed_client_ends_the_watch(httpserver: HTTPServer, base_url: str) -> None:
    polls(httpserver, ["watch_0"])
    player = showctl.MediaPlayer(base_url)
    watch = player.watch_transport(0.05)
    player.close()
    with pytest.raises(showctl.ClientClosedError):
        next(watch)


# ---------------------------------------------------------------------------------------------
# Against the simulator
# ---------------------------------------------------------------------------------------------


POLL = "/api/0/transportState/workspace"


def polls_seen(sim: showctl.Simulator) -> int:
    return sum(1 for r in sim.requests if r.method == "GET" and r.path == POLL)


def polls_done(sim: showctl.Simulator, more: int) -> Callable[[], bool]:
    """True once the watch has polled `more` more times than now. Polls never overlap, so
    when the second has arrived, the first was answered and compared: a change made before
    the first (the baseline included) has been seen."""
    target = polls_seen(sim) + more
    return lambda: polls_seen(sim) >= target


def wait(done: Callable[[], bool]) -> None:
    until(done, "the watch's next polls", 20)


async def wait_async(done: Callable[[], bool]) -> None:
    await until_async(done, "the watch's next polls", 20)


def test_simulated_show(sim: showctl.Simulator) -> None:
    """Real state changes, made from another thread while the watch polls every 50 ms."""
    player = showctl.MediaPlayer(sim.url, retries=0)
    main, logo = player.layer("Main"), player.layer("Logo Bug")
    steps = [
        lambda: main.trigger("Opening", "Countdown"),
        lambda: main.go_to(-1.4),  # 1.4 s left: crosses 5.0 at once, 1.0 while it plays
        # Untargeted media plays on the targeted layer (as in the field): target the logo.
        lambda: (logo.select(target=True), logo.trigger("Opening", "Welcome Still")),
        lambda: logo.clear(),
        lambda: sim.fail_next(503, 2),
    ]
    expected: list[Event] = [
        ("media_changed", "Main", None),
        ("started", "Main", None),
        ("time_remaining", "Main", 5.0),
        ("media_changed", "Logo Bug", None),
        ("started", "Logo Bug", None),
        ("emptied", "Logo Bug", None),
        ("poll_failed", None, None),
        ("poll_recovered", None, None),
    ]

    def script() -> None:
        wait(polls_done(sim, 2))  # the watch has its baseline
        for step in steps:
            step()
            wait(polls_done(sim, 2))  # and has seen this step before the next

    actor = threading.Thread(target=script)
    events: list[showctl.TransportEvent] = []
    watch = player.watch_transport(0.05, thresholds=(5.0, 1.0))
    actor.start()
    deadline = time.monotonic() + 20
    for event in watch:
        events.append(event)
        seen = brief(events)
        if all(e in seen for e in expected) and ("stopped", "Main", None) in seen:
            break
        assert time.monotonic() < deadline, seen
    actor.join()
    seen = brief(events)
    for e in expected:
        assert e in seen, seen
    # The countdown reaches its end: 1.0 s is crossed, then it stops (in either order of
    # polls); the still image crossed nothing.
    assert ("time_remaining", "Main", 1.0) in seen
    assert not [e for e in seen if e[0] == "time_remaining" and e[1] == "Logo Bug"]
    assert seen.index(("media_changed", "Main", None)) < seen.index(("started", "Main", None))


async def test_simulated_pause_and_play_async(sim: showctl.Simulator) -> None:
    player = showctl.MediaPlayer(sim.url)
    main = player.layer("Main")
    await main.trigger_async("Main Show", "Keynote Loop")
    watch = player.watch_transport_async(0.05)

    async def next_event() -> showctl.TransportEvent:
        return await asyncio.wait_for(watch.__anext__(), 10)

    async def later(action: Callable[[], Awaitable[None]]) -> None:
        await wait_async(polls_done(sim, 2))  # the watch has its baseline first
        await action()

    task = asyncio.ensure_future(later(main.pause_async))
    stopped = await next_event()
    await task
    assert (stopped.kind, stopped.layer_name) == ("stopped", "Main")
    task = asyncio.ensure_future(later(main.play_async))
    started = await next_event()
    await task
    assert (started.kind, started.layer_name) == ("started", "Main")
    assert started.current is not None and started.current.playing_media is not None
    assert started.current.playing_media.name == "keynote_loop.mov"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_baseline_then_a_change(sim: showctl.Simulator, mode: str) -> None:
    """`baseline()` takes the first poll now (once): a command sent after it returns is the
    first event, with no waiting for the watch to have polled."""
    player = showctl.MediaPlayer(sim.url)
    main = player.layer("Main")
    watch = player.watch_transport(0.05)
    before = polls_seen(sim)

    async def baseline_async() -> list[showctl.TransportState]:
        return await watch.baseline_async()

    base = watch.baseline() if mode == "sync" else asyncio.run(baseline_async())
    assert [type(t) for t in base] == [showctl.TransportState] * len(base)
    assert "Main" in [t.layer.name for t in base if t.layer is not None]
    assert polls_seen(sim) == before + 1
    again = watch.baseline() if mode == "sync" else asyncio.run(baseline_async())
    assert again == base and polls_seen(sim) == before + 1, "the baseline was taken twice"
    main.trigger("Opening", "Countdown")
    assert brief(collect(watch, 2, mode)) == [
        ("media_changed", "Main", None),
        ("started", "Main", None),
    ]


def test_baseline_raises_the_failed_poll(sim: showctl.Simulator) -> None:
    player = showctl.MediaPlayer(sim.url, retries=0)
    watch = player.watch_transport(0.05)
    sim.fail_next(503, 1)
    with pytest.raises(showctl.ServiceUnavailableError):
        watch.baseline()
    assert watch.baseline() is not None
    assert brief(collect(watch, 2, "sync")) == [
        ("poll_failed", None, None),
        ("poll_recovered", None, None),
    ]


def test_help_shows_every_default_as_it_is() -> None:
    """``help(player.watch_transport)`` shows ``thresholds=[10.0]``, not ``Ellipsis``: no
    signature of the extension hides a default behind ``...``."""
    from showctl import _core

    assert "thresholds=[10.0]" in str(inspect.signature(showctl.MediaPlayer.watch_transport))
    hidden = [
        f"{name}.{getattr(member, '__name__', '')}"
        for name in dir(_core)
        for member in [getattr(_core, name)]
        + [getattr(getattr(_core, name), a, None) for a in dir(getattr(_core, name))]
        if "..." in (getattr(member, "__text_signature__", None) or "")
    ]
    assert hidden == []
