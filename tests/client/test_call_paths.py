"""The two ways a call runs: blocking on the caller's thread, and asyncio futures settled by the
loop's completion queue. Both must give the same results and errors from any thread or loop,
and keep their connections apart."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.recording import load, serve


def _serve_scores(httpserver: HTTPServer) -> None:
    serve(httpserver, load("scoreboard/basketball"))


async def _many(board: showctl.Scoreboard, n: int) -> list[showctl.ScoreRecord]:
    return await asyncio.gather(*(board.scores_async() for _ in range(n)))


def test_many_async_calls_settle_with_their_results(httpserver: HTTPServer, base_url: str) -> None:
    _serve_scores(httpserver)
    board = showctl.Scoreboard(base_url)
    records = asyncio.run(_many(board, 100))
    assert len(records) == 100
    assert all(isinstance(r, showctl.BasketballScore) for r in records)
    assert {r.team1_score for r in records} == {"48"}


def test_async_errors_are_the_same_exceptions(httpserver: HTTPServer, base_url: str) -> None:
    httpserver.expect_request("/api/0/data/scores").respond_with_data("no", status=404)
    board = showctl.Scoreboard(base_url, retries=0)

    async def main() -> None:
        with pytest.raises(showctl.NotFoundError) as info:
            await board.scores_async()
        assert info.value.status == 404

    asyncio.run(main())


def test_async_connect_error() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    board = showctl.Scoreboard(f"http://127.0.0.1:{port}", retries=0)

    async def main() -> None:
        with pytest.raises(showctl.ConnectError):
            await board.scores_async()

    asyncio.run(main())


def test_new_loops_and_loops_in_threads(httpserver: HTTPServer, base_url: str) -> None:
    _serve_scores(httpserver)
    board = showctl.Scoreboard(base_url)
    for _ in range(3):  # asyncio.run makes a new loop each time
        assert len(asyncio.run(_many(board, 5))) == 5
    results: list[int] = []

    def in_thread() -> None:
        results.append(len(asyncio.run(_many(board, 20))))

    threads = [threading.Thread(target=in_thread) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == [20, 20, 20, 20]


class _NoAttributeLoop(asyncio.SelectorEventLoop):
    """Like uvloop's loop: takes no new attributes."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_showctl"):
            raise AttributeError(name)
        super().__setattr__(name, value)


class _NoReaderLoop(asyncio.SelectorEventLoop):
    """Like the Windows proactor loop: cannot watch a socket."""

    def add_reader(self, *args: Any) -> None:
        raise NotImplementedError


@pytest.mark.parametrize("loop_class", [_NoAttributeLoop, _NoReaderLoop])
def test_other_kinds_of_loop(
    httpserver: HTTPServer, base_url: str, loop_class: type[asyncio.AbstractEventLoop]
) -> None:
    _serve_scores(httpserver)
    board = showctl.Scoreboard(base_url)
    loop = loop_class()
    try:
        for _ in range(2):
            records = loop.run_until_complete(_many(board, 10))
            assert [r.team1_score for r in records] == ["48"] * 10
    finally:
        loop.close()


def test_blocking_calls_from_threads_and_loops_share_a_client(
    httpserver: HTTPServer, base_url: str
) -> None:
    _serve_scores(httpserver)
    board = showctl.Scoreboard(base_url, timeout=5.0)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(20):
                assert board.scores().team1_score == "48"
        except BaseException as e:  # reported below
            errors.append(e)

    for _ in range(2):
        # each thread drives its own connections; the loop's calls use the runtime's
        threads = [threading.Thread(target=worker) for _ in range(3)]
        for t in threads:
            t.start()
        assert board.scores().team1_score == "48"
        assert len(asyncio.run(_many(board, 10))) == 10
        for t in threads:
            t.join(30)
    assert errors == []
