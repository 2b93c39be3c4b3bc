"""watch() and watch_async(): the first record, then each differing one; identical ones are
skipped; a transient failure is retried at the next tick; failures that outlast the client's
timeout raise."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from tests.kit.recording import load


def hockey(score: str) -> dict[str, Any]:
    body = dict(load("scoreboard/hockey").body_json)
    body["team1Score"] = score
    return body


def sequence(server: HTTPServer, answers: list[dict[str, Any] | int]) -> list[int]:
    """Answer /data/scores with each item in turn (a record, or a bare status); the last one
    repeats. Returns a list that counts the requests."""
    count: list[int] = []
    lock = threading.Lock()

    def handler(_request: Request) -> Response:
        with lock:
            item = answers[min(len(count), len(answers) - 1)]
            count.append(1)
        if isinstance(item, int):
            return Response("unavailable", status=item)
        return Response(json.dumps(item), content_type="application/json")

    server.expect_request("/api/0/data/scores").respond_with_handler(handler)
    return count


A, B, C = hockey("0"), hockey("1"), hockey("2")


def first_changes(watch: showctl.ScoreWatch, n: int, mode: str) -> list[str | None]:
    """team1Score of the first ``n`` records of a watch, iterated with for or async for."""

    async def collect() -> list[showctl.ScoreRecord]:
        got = []
        async for record in watch:
            got.append(record)
            if len(got) == n:
                break
        return got

    if mode == "async":
        records = asyncio.run(collect())
    else:
        records = []
        for record in watch:
            records.append(record)
            if len(records) == n:
                break
    assert all(isinstance(r, showctl.HockeyScore) for r in records)
    return [r["team1Score"] for r in records]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_watch_yields_changes_only(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    count = sequence(httpserver, [A, A, A, B, B, C])
    board = showctl.Scoreboard(base_url, retries=0)
    watch = board.watch(0.05) if mode == "sync" else board.watch_async(0.05)
    assert first_changes(watch, 3, mode) == ["0", "1", "2"]
    assert len(count) == 6


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_transient_failure_is_not_fatal(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    count = sequence(httpserver, [A, 503, 500, B])
    watch = showctl.Scoreboard(base_url, retries=0, timeout=2).watch(0.05)
    assert first_changes(watch, 2, mode) == ["0", "1"]
    assert len(count) == 4


def test_a_transient_connection_failure_is_not_fatal() -> None:
    """The application restarts: its port refuses for a moment, then answers again."""
    from pytest_httpserver import HTTPServer as Server

    server = Server(host="127.0.0.1", port=0)
    server.start()
    port = server.port
    sequence(server, [A])
    watch = showctl.Scoreboard(f"127.0.0.1:{port}", retries=0, timeout=3).watch(0.05)
    assert next(watch).team1_score == "0"  # type: ignore[attr-defined]
    server.stop()
    restarted = Server(host="127.0.0.1", port=port)

    def restart() -> None:
        time.sleep(0.3)  # the port refuses meanwhile: the failures the watch must ride out
        restarted.start()
        sequence(restarted, [B])

    restarter = threading.Thread(target=restart)
    restarter.start()
    try:
        assert next(watch).team1_score == "1"  # type: ignore[attr-defined]
    finally:
        restarter.join(10)
        if restarted.is_running():
            restarted.stop()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_failures_past_the_timeout_raise(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    count = sequence(httpserver, [A, 503])
    watch = showctl.Scoreboard(base_url, retries=0, timeout=0.5).watch(0.05)

    def next_record() -> showctl.ScoreRecord:
        if mode == "sync":
            return next(watch)
        return asyncio.run(watch.__anext__())  # type: ignore[arg-type]

    next_record()
    started = time.monotonic()
    with pytest.raises(showctl.ServiceUnavailableError) as info:
        next_record()
    took = time.monotonic() - started
    assert 0.45 <= took < 1.5
    assert info.value.url == f"{base_url}/api/0/data/scores"
    assert len(count) >= 5  # retried at each tick meanwhile


def test_a_decode_failure_is_retried_too(httpserver: HTTPServer, base_url: str) -> None:
    answers = iter([json.dumps(A), "{garbage", json.dumps(B)])
    last: list[str] = []

    def handler(_request: Request) -> Response:
        body = next(answers, None)
        if body is not None:
            last[:] = [body]
        return Response(last[0], content_type="application/json")

    httpserver.expect_request("/api/0/data/scores").respond_with_handler(handler)
    watch = showctl.Scoreboard(base_url, retries=0).watch(0.05)
    assert next(watch).team1_score == "0"  # type: ignore[attr-defined]
    assert next(watch).team1_score == "1"  # type: ignore[attr-defined]


def test_the_first_poll_failing_past_the_timeout_raises() -> None:
    from tests.kit.netkit import free_port

    board = showctl.Scoreboard(f"127.0.0.1:{free_port()}", retries=0, timeout=0.3)
    started = time.monotonic()
    with pytest.raises(showctl.ConnectError):
        next(board.watch(0.05))
    assert time.monotonic() - started < 1.5


async def test_watch_of_a_closed_client(httpserver: HTTPServer, base_url: str) -> None:
    sequence(httpserver, [A])
    board = showctl.Scoreboard(base_url)
    watch = board.watch_async(0.05)
    await watch.__anext__()
    board.close()
    with pytest.raises(showctl.ClientClosedError):
        await watch.__anext__()
    with pytest.raises(showctl.ClientClosedError):
        next(board.watch(0.05))


async def test_cancelling_watch_async(httpserver: HTTPServer, base_url: str) -> None:
    sequence(httpserver, [A])  # never changes: the second __anext__ waits forever
    watch = showctl.Scoreboard(base_url).watch_async(0.05)
    await watch.__anext__()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(watch.__anext__(), 0.3)
    # The watch is still usable after a cancelled step.
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(watch.__anext__(), 0.2)


def test_watch_is_its_own_iterator(httpserver: HTTPServer, base_url: str) -> None:
    board = showctl.Scoreboard(base_url)
    watch = board.watch()
    assert iter(watch) is watch
    assert watch.__aiter__() is watch
    assert isinstance(board.watch_async(), showctl.ScoreWatch)
