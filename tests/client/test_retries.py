"""Retries, in one place: a read (GET) is sent again after a 503 (and, the fault matrix of
tests/client/test_faults.py shows, after a timeout or a broken connection), each attempt with
its own timeout, never after another status, and not at all with ``retries=0``. A command is
sent once, since the application may have applied it, unless ``retry_commands=True``: then it
is sent again after a timeout, a connection reset and a 500 as after a 503, on the primary and
on a mirror."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.fakeserver import (
    FakeServer,
    Script,
    Seen,
    late,
    reset_mid_body,
    serve,
    serving,
    stall,
)
from tests.kit.mediakit import MODES, invoke
from tests.kit.netkit import scores
from tests.kit.recording import load, sent
from tests.kit.recording import serve as serve_recorded

TIMEOUT = 0.5


def timeout_for(fault: str) -> float:
    """The client's timeout: short where the fault is a stall (the test waits it out), long
    otherwise, so that a loaded machine cannot turn the answer after the fault into a timeout
    (which a client retrying commands retries: a third request)."""
    return TIMEOUT if fault == "timeout" else 10.0


def fault_then_ok(fault: Script | int, again: threading.Event) -> tuple[Script, ...]:
    """Scripts of a server whose first request meets `fault` (a script, or a status), and
    whose later requests are answered 200; `again` is set when a second request arrives."""
    count = itertools.count()

    def answer(seen: Seen) -> tuple[int, bytes]:
        first = next(count) == 0
        if not first:
            again.set()
        return (fault if first and isinstance(fault, int) else 200), b""

    if isinstance(fault, int):
        return (serve(answer),)
    next(count)
    return (fault, serve(answer))


# fault -> (what the first request meets, the error without retries)
FAULTS: dict[str, tuple[Callable[[], Script | int], type[Exception]]] = {
    "timeout": (stall, showctl.Timeout),
    "reset": (reset_mid_body, showctl.ConnectError),
    "500": (lambda: 500, showctl.ServerError),
    "503": (lambda: 503, showctl.ServiceUnavailableError),
}


def mutes(server: FakeServer) -> list[str]:
    return [line for line in server.lines() if line.startswith("POST /api/0/mute/layer/0")]


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_command_is_retried_only_with_retry_commands(fault: str) -> None:
    first, error = FAULTS[fault]
    again = threading.Event()
    with FakeServer(*fault_then_ok(first(), again)) as server:
        player = showctl.MediaPlayer(
            server.url, timeout=timeout_for(fault), retries=2, retry_commands=True
        )
        player.layer(0).mute()
        assert len(mutes(server)) == 2, server.lines()
    with FakeServer(*fault_then_ok(first(), again)) as server:
        player = showctl.MediaPlayer(server.url, timeout=timeout_for(fault), retries=2)
        with pytest.raises(error):
            player.layer(0).mute()
        assert len(mutes(server)) == 1, server.lines()


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_mirror_retries_a_command_with_retry_commands(fault: str) -> None:
    first, error = FAULTS[fault]
    for retry in (True, False):
        again = threading.Event()
        with showctl.Simulator() as primary, FakeServer(*fault_then_ok(first(), again)) as mirror:
            player = showctl.MediaPlayer(
                primary.url,
                mirrors=[mirror.url],
                timeout=timeout_for(fault),
                retries=2,
                retry_commands=retry,
            )
            player.layer(0).mute()
            if retry:
                # close() gives a mirror its timeout to finish: wait for the retry to arrive.
                assert again.wait(30), mirror.lines()
            player.close()
            (st,) = player.mirror_status()
            if retry:
                assert (st.sent, st.failed, st.healthy) == (1, 0, True), st
                assert len(mutes(mirror)) == 2, mirror.lines()
            else:
                # Sent once and missed: it failed or went unanswered (also when closing gave
                # up on it), never dropped: it went out.
                assert (st.sent, st.failed + st.unanswered, st.dropped) == (0, 1, 0), st
                assert not st.healthy, st
                if st.last_error is not None:
                    assert isinstance(st.last_error, error), st
                assert len(mutes(mirror)) == 1, mirror.lines()


def test_timeout_applies_to_each_attempt() -> None:
    with serving(late(5.0)) as url:
        board = showctl.Scoreboard(url, timeout=0.3, retries=2)
        started = time.monotonic()
        with pytest.raises(showctl.Timeout):
            board.scores()
        took = time.monotonic() - started
    # three attempts of 0.3 s and two backoff delays (at most 0.125 + 0.25 s)
    assert 0.9 <= took < 2.5


@pytest.mark.parametrize("mode", MODES)
def test_get_is_retried_after_503(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    serve_recorded(httpserver, load("errors/503"), times=2)
    serve_recorded(httpserver, load("scoreboard/hockey"))
    score = scores(showctl.Scoreboard(base_url), mode)
    assert isinstance(score, showctl.HockeyScore)
    assert [r.path for r in sent(httpserver)] == ["/api/0/data/scores"] * 3


def test_no_retry_with_retries_zero(httpserver: HTTPServer, base_url: str) -> None:
    serve_recorded(httpserver, load("errors/503"), times=1)
    serve_recorded(httpserver, load("scoreboard/hockey"))
    with pytest.raises(showctl.ServiceUnavailableError):
        showctl.Scoreboard(base_url, retries=0).scores()
    assert len(sent(httpserver)) == 1


@pytest.mark.parametrize("mode", MODES)
def test_post_503_is_sent_once(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    """A command is not retried (the application may have applied it)."""
    rec = load("errors/503")
    httpserver.expect_request("/api/0/clear/workspace", method="POST").respond_with_data(
        rec.body, status=503, headers=rec.headers
    )
    player = showctl.MediaPlayer(base_url, retries=2)
    with pytest.raises(showctl.ServiceUnavailableError) as info:
        if mode == "sync":
            player.request("POST", "/clear/workspace")
        else:
            asyncio.run(player.request_async("POST", "/clear/workspace"))
    assert info.value.method == "POST"
    assert info.value.url == f"{base_url}/api/0/clear/workspace"
    assert [(r.method, r.path) for r in sent(httpserver)] == [("POST", "/api/0/clear/workspace")]


def test_post_is_retried_with_retry_commands(httpserver: HTTPServer, base_url: str) -> None:
    rec = load("errors/503")
    httpserver.expect_oneshot_request("/api/0/clear/workspace", method="POST").respond_with_data(
        rec.body, status=503, headers=rec.headers
    )
    httpserver.expect_request("/api/0/clear/workspace", method="POST").respond_with_data("")
    showctl.MediaPlayer(base_url, retry_commands=True).request("POST", "/clear/workspace")
    assert len(sent(httpserver)) == 2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", [400, 404, 502])
def test_other_statuses_are_not_retried(status: int, mode: str) -> None:
    with FakeServer(serve(lambda _: (status, b""))) as server:
        player = showctl.MediaPlayer(server.url, timeout=TIMEOUT, retries=2)
        with pytest.raises(showctl.ApiError) as info:
            invoke(mode, player.layer(1), "opacity")
    assert info.value.status == status
    assert len(server.requests) == 1


@pytest.mark.parametrize("mode", MODES)
def test_retry_commands_retries_a_command(mode: str) -> None:
    with FakeServer(*fault_then_ok(503, threading.Event())) as server:
        player = showctl.MediaPlayer(
            server.url, timeout=timeout_for("503"), retries=2, retry_commands=True
        )
        assert invoke(mode, player.layer(1), "set_opacity", 0.5) is None
    assert server.lines() == ['POST /api/0/opacity/layer/1 {"value":0.5}'] * 2
