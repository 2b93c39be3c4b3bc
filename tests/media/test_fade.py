"""Layer.fade and Layer.adjust_opacity: the steps sent (count, values, the last exactly on the
target), cancellation (asyncio and Ctrl-C) leaving the opacity where the fade was, refusals
before sending, and the simulator's opacity after a fade."""

from __future__ import annotations

import _thread
import asyncio
import json
import threading
import time

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.mediakit import MODES, invoke
from tests.kit.recording import load, sent, serve
from tests.kit.wait import until, until_async


def fade_server(server: HTTPServer, start: str = "opacity_zero") -> None:
    serve(server, load(f"automation/{start}"))
    serve(server, load("automation/set_opacity_any"))


def posted(server: HTTPServer) -> list[float]:
    return [json.loads(r.data)["value"] for r in sent(server) if r.method == "POST"]


@pytest.mark.parametrize("mode", MODES)
def test_steps_are_even_and_end_on_the_target(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    fade_server(httpserver)
    layer = showctl.MediaPlayer(base_url).layer(2)
    assert invoke(mode, layer, "fade", 1.0, 0.2, 4) is None
    assert posted(httpserver) == [0.25, 0.5, 0.75, 1.0]
    first = sent(httpserver)[0]
    assert (first.method, first.path) == ("GET", "/api/0/opacity/layer/2")
    for req in sent(httpserver)[1:]:
        assert req.headers["Content-Type"] == "application/json"


def test_default_steps_and_a_cut(httpserver: HTTPServer, base_url: str) -> None:
    fade_server(httpserver)
    layer = showctl.MediaPlayer(base_url).layer(2)
    layer.fade(0.6, 0.25)  # 20 steps a second
    values = posted(httpserver)
    assert len(values) == 5 and values[-1] == 0.6
    assert values == sorted(values)
    httpserver.clear_log()
    layer.fade(0.0, 0)  # no time: one step, straight to the target
    assert posted(httpserver) == [0.0]


def test_refusals_name_the_argument(httpserver: HTTPServer, base_url: str) -> None:
    layer = showctl.MediaPlayer(base_url).layer(2)
    for args, arg in [
        ((1.5, 1.0), "to"),
        ((float("nan"), 1.0), "to"),
        ((0.5, -1.0), "seconds"),
        ((0.5, float("inf")), "seconds"),
        ((0.5, 1.0, 0), "steps"),
        ((0.5, 1.0, 51), "steps"),
        ((0.5, 0.0, 2), "steps"),
    ]:
        with pytest.raises(ValueError, match=rf"^{arg}:"):
            layer.fade(*args)
        with pytest.raises(ValueError, match=rf"^{arg}:"):
            layer.fade_async(*args)
    with pytest.raises(ValueError, match=r"^delta:"):
        layer.adjust_opacity(1.5)
    with pytest.raises(ValueError, match=r"bool"):
        layer.fade(True, 1.0)
    assert sent(httpserver) == []


# How long a stopped fade is watched for a step it should no longer send: several of its step
# intervals (0.1 s below). Nothing can be waited for here: the test is that nothing comes.
QUIET = 0.5


async def test_cancelling_the_task_stops_the_fade(httpserver: HTTPServer, base_url: str) -> None:
    fade_server(httpserver)
    layer = showctl.MediaPlayer(base_url).layer(2)
    task = asyncio.ensure_future(layer.fade_async(1.0, 2.0, 20))
    await until_async(lambda: len(posted(httpserver)) >= 3, "the fade's first three steps")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    sent_at_cancel = len(posted(httpserver))
    await asyncio.sleep(QUIET)
    values = posted(httpserver)
    # A step sent just before the cancel may still land; after that, nothing more.
    assert len(values) <= sent_at_cancel + 1, "nothing is sent after the cancel"
    assert 3 <= len(values) < 20
    assert values[-1] < 1.0


def test_ctrl_c_stops_a_blocking_fade(httpserver: HTTPServer, base_url: str) -> None:
    fade_server(httpserver)
    layer = showctl.MediaPlayer(base_url).layer(2)

    def interrupt_once_under_way() -> None:
        until(lambda: len(posted(httpserver)) >= 3, "the fade's first three steps")
        _thread.interrupt_main()

    interrupter = threading.Thread(target=interrupt_once_under_way)
    started = time.monotonic()
    interrupter.start()
    with pytest.raises(KeyboardInterrupt):
        layer.fade(1.0, 3.0, 30)
    assert time.monotonic() - started < 2.5
    interrupter.join()
    count = len(posted(httpserver))
    time.sleep(QUIET)
    # A step sent just before the interrupt may still land; after that, nothing more.
    landed = len(posted(httpserver))
    assert landed <= count + 1 and landed < 30


@pytest.mark.parametrize("mode", MODES)
def test_adjust_opacity_clamps(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    fade_server(httpserver, "opacity_high")
    layer = showctl.MediaPlayer(base_url).layer(2)
    assert invoke(mode, layer, "adjust_opacity", 0.3) == 1.0
    value = invoke(mode, layer, "adjust_opacity", -0.5)
    assert value == pytest.approx(0.4)
    assert posted(httpserver) == [1.0, value]


def test_on_the_simulator() -> None:
    with showctl.Simulator(strict=True) as sim, showctl.MediaPlayer(sim.url) as player:
        main = player.layer("Main")
        main.fade(0.0, 0.2, 5)
        assert main.opacity() == 0.0
        assert main.adjust_opacity(0.25, confirm=True) == 0.25
        assert main.adjust_opacity(-1.0) == 0.0
        posts = [r.json()["value"] for r in sim.requests if r.method == "POST"]
        assert posts[:5] == pytest.approx([0.8, 0.6, 0.4, 0.2, 0.0])
