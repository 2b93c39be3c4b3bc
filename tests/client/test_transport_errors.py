"""The transport seen from Python: each error status and broken answer mapped to its exception
(sync and async, from the recordings under recordings/errors/), connection failures, bounded
timeouts, the API key, environment variables and refused arguments. Retries are in
test_retries.py, cancellation in test_concurrency.py; CR and LF in a URL or a key, and a key
that never shows, in tests/security/test_hostile.py."""

from __future__ import annotations

import asyncio
import contextlib
import pickle
import socket
import threading
import time

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.fakeserver import late, raw, serving
from tests.kit.netkit import MODES, free_port, scores
from tests.kit.recording import load, sent, serve

KEY = "k3y-SECRET-0123"

# status -> (class, words the message must hold)
STATUSES = {
    400: (showctl.BadRequestError, ["400 Bad Request", "rejected the request"]),
    401: (showctl.UnauthorizedError, ["401 Unauthorized", "no API key was sent"]),
    403: (showctl.ForbiddenError, ["403 Forbidden", "reserved for administrators"]),
    404: (
        showctl.NotFoundError,
        ["404 Not Found", "path may be wrong", "API may be disabled", "documentation port"],
    ),
    405: (showctl.MethodNotAllowedError, ["405 Method Not Allowed", "does not accept"]),
    500: (showctl.ServerError, ["500 Internal Server Error", "retry later"]),
    503: (showctl.ServiceUnavailableError, ["503 Service Unavailable", "temporarily"]),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", list(STATUSES))
def test_each_error_status(httpserver: HTTPServer, base_url: str, status: int, mode: str) -> None:
    rec = load(f"errors/{status}")
    serve(httpserver, rec)
    cls, words = STATUSES[status]
    board = showctl.Scoreboard(base_url, retries=2)
    with pytest.raises(cls) as info:
        scores(board, mode)
    err = info.value
    assert type(err) is cls
    assert isinstance(err, showctl.ApiError)
    assert isinstance(err, showctl.ShowctlError)
    assert err.status == status
    assert err.method == "GET"
    assert err.url == f"{base_url}/api/0/data/scores"
    assert err.body == rec.body.decode()
    message = str(err)
    for word in words:
        assert word in message
    assert f"GET {base_url}/api/0/data/scores" in message
    # Only 500 and 503 are retried (GET, twice).
    assert len(sent(httpserver)) == (3 if status in (500, 503) else 1)


def test_503_is_a_server_error() -> None:
    assert issubclass(showctl.ServiceUnavailableError, showctl.ServerError)
    assert issubclass(showctl.ConnectError, ConnectionError)
    assert issubclass(showctl.Timeout, TimeoutError)


@pytest.mark.parametrize("mode", MODES)
def test_html_error_page(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    rec = load("errors/html_404")
    serve(httpserver, rec)
    with pytest.raises(showctl.NotFoundError) as info:
        scores(showctl.Scoreboard(base_url), mode)
    err = info.value
    assert err.body == rec.body.decode()  # the page itself stays available
    message = str(err)
    assert message.endswith('; body: HTML page "404 Not Found"')
    assert "<" not in message


@pytest.mark.parametrize("mode", MODES)
def test_html_page_with_200_hints_at_the_documentation_port(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    serve(httpserver, load("errors/html_200"))
    with pytest.raises(showctl.DecodeError) as info:
        scores(showctl.Scoreboard(base_url), mode)
    message = str(info.value)
    assert 'HTML page "Scoreboard Control API"' in message
    assert "documentation port rather than the API port" in message


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["garbage", "truncated", "empty", "not_an_object"])
def test_bodies_that_are_not_a_record(
    httpserver: HTTPServer, base_url: str, name: str, mode: str
) -> None:
    rec = load(f"errors/{name}")
    serve(httpserver, rec)
    with pytest.raises(showctl.DecodeError) as info:
        scores(showctl.Scoreboard(base_url), mode)
    err = info.value
    assert err.method == "GET"
    assert err.url == f"{base_url}/api/0/data/scores"
    assert err.body == rec.body.decode()
    assert str(err).startswith(f"could not decode the answer to GET {base_url}/api/0/data/scores")
    assert len(sent(httpserver)) == 1  # a bad body is not retried


@pytest.mark.parametrize("mode", MODES)
def test_body_cut_short_by_the_server(mode: str) -> None:
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n" + b'{"sportMode": "Hock'
    with serving(raw(reply)) as url:
        with pytest.raises(showctl.ConnectError):
            scores(showctl.Scoreboard(url, retries=0), mode)


@pytest.mark.parametrize("mode", MODES)
def test_connection_refused(mode: str) -> None:
    port = free_port()
    board = showctl.Scoreboard(f"127.0.0.1:{port}", retries=1)
    started = time.monotonic()
    with pytest.raises(showctl.ConnectError) as info:
        scores(board, mode)
    assert time.monotonic() - started < 2.0
    err = info.value
    assert isinstance(err, ConnectionError)
    assert err.method == "GET"
    assert err.url == f"http://127.0.0.1:{port}/api/0/data/scores"
    assert "refused" in str(err)
    assert "is the application running" in str(err)


@pytest.mark.parametrize("mode", MODES)
def test_timeout_is_bounded(mode: str) -> None:
    with serving(late(5.0)) as url:
        board = showctl.Scoreboard(url, timeout=0.5, retries=0)
        started = time.monotonic()
        with pytest.raises(showctl.Timeout) as info:
            scores(board, mode)
        took = time.monotonic() - started
    assert took < 1.5
    err = info.value
    assert isinstance(err, TimeoutError)
    assert err.url == f"{url}/api/0/data/scores"
    assert "timed out" in str(err) and "0.500s" in str(err)


def test_a_slow_answer_within_the_timeout_is_fine() -> None:
    body = b'{"sportMode": "Hockey", "team1Score": "3"}'
    with serving(late(0.2, body)) as url:
        score = showctl.Scoreboard(url, timeout=2.0).scores()
    assert isinstance(score, showctl.HockeyScore)
    assert score.team1_score == "3"


@pytest.mark.parametrize("mode", MODES)
def test_api_key_is_sent_as_bearer(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    serve(httpserver, load("scoreboard/hockey"))
    scores(showctl.Scoreboard(base_url, KEY), mode)
    scores(showctl.Scoreboard(base_url), mode)
    with_key, without = sent(httpserver)
    assert with_key.headers["Authorization"] == f"Bearer {KEY}"
    assert "Authorization" not in without.headers
    assert with_key.headers["User-Agent"].startswith("showctl/")


def test_environment_variables(
    httpserver: HTTPServer, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve(httpserver, load("scoreboard/hockey"))
    monkeypatch.setenv("SHOWCTL_SCOREBOARD_URL", base_url)
    monkeypatch.setenv("SHOWCTL_API_KEY", KEY)
    board = showctl.Scoreboard()
    assert board.url == f"{base_url}/api/0"
    assert isinstance(board.scores(), showctl.HockeyScore)
    assert sent(httpserver)[0].headers["Authorization"] == f"Bearer {KEY}"
    # Explicit arguments win over the environment.
    other = f"http://127.0.0.1:{free_port()}"
    assert showctl.Scoreboard(other).url == f"{other}/api/0"
    showctl.Scoreboard(base_url, "other-key").scores()
    assert sent(httpserver)[1].headers["Authorization"] == "Bearer other-key"


def test_no_url_is_a_clear_value_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOWCTL_MEDIA_URL", "http://127.0.0.1:1")  # not the scoreboard's
    with pytest.raises(ValueError, match=r"url: no URL given and SHOWCTL_SCOREBOARD_URL"):
        showctl.Scoreboard()
    monkeypatch.setenv("SHOWCTL_SCOREBOARD_URL", "  ")
    with pytest.raises(ValueError, match="SHOWCTL_SCOREBOARD_URL is not set"):
        showctl.Scoreboard()


@pytest.mark.parametrize(
    ("given", "base"),
    [
        ("127.0.0.1:8080", "http://127.0.0.1:8080/api/0"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/api/0"),
        ("https://scoreboard.local:8443", "https://scoreboard.local:8443/api/0"),
        ("http://127.0.0.1:8080/api/0/", "http://127.0.0.1:8080/api/0"),
        ("http://[::1]:9000", "http://[::1]:9000/api/0"),
    ],
)
def test_url_forms(given: str, base: str) -> None:
    board = showctl.Scoreboard(given)
    assert board.url == base
    assert repr(board) == f"Scoreboard(url='{base}')"


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"url": "ftp://h:1"}, "url: scheme must be http or https"),
        ({"url": "http://user:pw@h:1"}, "url: must not carry credentials"),
        ({"url": "http://h:1/?x=1"}, "url: must not carry a query"),
        ({"url": "h:1", "timeout": 0}, "timeout: must be a number of seconds above 0"),
        ({"url": "h:1", "timeout": float("nan")}, "timeout:"),
        ({"url": "h:1", "retries": -1}, "retries: must be between 0 and 10"),
        ({"url": "h:1", "retries": 11}, "retries: must be between 0 and 10"),
        ({"url": "h:1", "max_body": 0}, "max_body: must be a positive number"),
        ({"url": "https://h:1", "ca_cert": "/nonexistent/ca.pem"}, "ca_cert: cannot read"),
    ],
)
def test_bad_arguments_are_value_errors(kwargs: dict[str, object], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        showctl.Scoreboard(**kwargs)  # type: ignore[arg-type]


def test_watch_interval_is_checked_before_any_request(
    httpserver: HTTPServer, base_url: str
) -> None:
    board = showctl.Scoreboard(base_url)
    for bad in (0, 0.01, -1, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="interval: "):
            board.watch(bad)
        with pytest.raises(ValueError, match="interval: "):
            board.watch_async(bad)
    assert sent(httpserver) == []


def test_exceptions_pickle_with_their_attributes(httpserver: HTTPServer, base_url: str) -> None:
    serve(httpserver, load("errors/404"))
    failures: list[showctl.ShowctlError] = []
    for board in (
        showctl.Scoreboard(base_url),
        showctl.Scoreboard(f"127.0.0.1:{free_port()}", retries=0),
    ):
        with pytest.raises(showctl.ShowctlError) as info:
            board.scores()
        failures.append(info.value)
    with serving(late(3.0)) as url, pytest.raises(showctl.Timeout) as slow:
        showctl.Scoreboard(url, timeout=0.2, retries=0).scores()
    failures.append(slow.value)
    for err in failures:
        copy = pickle.loads(pickle.dumps(err))
        assert type(copy) is type(err)
        assert str(copy) == str(err)
        assert vars(copy) == vars(err)
    assert [type(e) for e in failures] == [
        showctl.NotFoundError,
        showctl.ConnectError,
        showctl.Timeout,
    ]
    assert failures[0].status == 404  # type: ignore[attr-defined]
    assert failures[0].body == "Not Found"  # type: ignore[attr-defined]


def test_max_body(httpserver: HTTPServer, base_url: str) -> None:
    serve(httpserver, load("scoreboard/baseball"))
    with pytest.raises(showctl.DecodeError, match=r"larger than max_body \(100 bytes\)"):
        showctl.Scoreboard(base_url, max_body=100).scores()


@pytest.mark.parametrize("mode", MODES)
def test_closed_client_sends_nothing(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    serve(httpserver, load("scoreboard/hockey"))
    with showctl.Scoreboard(base_url) as board:
        assert not board.closed
    assert board.closed
    with pytest.raises(showctl.ClientClosedError):
        scores(board, mode)
    assert sent(httpserver) == []


async def test_async_context_manager_closes(httpserver: HTTPServer, base_url: str) -> None:
    serve(httpserver, load("scoreboard/hockey"))
    async with showctl.Scoreboard(base_url) as board:
        assert isinstance(await board.scores_async(), showctl.HockeyScore)
    assert board.closed
    with pytest.raises(showctl.ClientClosedError):
        await board.scores_async()


def test_one_client_serves_many_threads(httpserver: HTTPServer, base_url: str) -> None:
    serve(httpserver, load("scoreboard/hockey"))
    board = showctl.Scoreboard(base_url)
    results: list[object] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(5):
            r = board.scores()
            with lock:
                results.append(r)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(results) == 40
    assert all(r == results[0] for r in results)


async def test_one_client_serves_many_tasks(httpserver: HTTPServer, base_url: str) -> None:
    serve(httpserver, load("scoreboard/hockey"))
    board = showctl.Scoreboard(base_url)
    results = await asyncio.gather(*(board.scores_async() for _ in range(20)))
    assert len(results) == 20 and all(isinstance(r, showctl.HockeyScore) for r in results)


async def test_async_call_is_a_coroutine_started_on_await(
    httpserver: HTTPServer, base_url: str
) -> None:
    serve(httpserver, load("scoreboard/hockey"))
    board = showctl.Scoreboard(base_url)
    pending = board.scores_async()
    assert asyncio.iscoroutine(pending)
    # Time for a request started without an await to arrive: the test is that none does.
    await asyncio.sleep(0.1)
    assert sent(httpserver) == []  # nothing before the first await
    assert isinstance(await pending, showctl.HockeyScore)
    with pytest.raises(RuntimeError):
        await pending  # a coroutine is awaited once


def test_asyncio_run_accepts_an_async_call(httpserver: HTTPServer, base_url: str) -> None:
    serve(httpserver, load("scoreboard/hockey"))
    assert isinstance(asyncio.run(showctl.Scoreboard(base_url).scores_async()), showctl.HockeyScore)


@pytest.mark.parametrize(
    ("url", "fix"),
    [
        ("https//10.0.0.5:4000", "https://10.0.0.5:4000"),
        ("http:/127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http//127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("HTTPS:/h:1", "https://h:1"),
        ("http:h:1", "http://h:1"),
    ],
)
def test_a_mistyped_scheme_is_refused_with_the_likely_fix(url: str, fix: str) -> None:
    for make in (showctl.Scoreboard, showctl.MediaPlayer):
        with pytest.raises(ValueError, match=r"^url: .*mistyped scheme") as info:
            make(url)
        assert f"did you mean {fix!r}" in str(info.value).replace('"', "'")
    with pytest.raises(ValueError, match=r"^mirrors\[0\]: url: .*did you mean"):
        showctl.MediaPlayer("h:1", mirrors=[url])


def test_a_host_named_like_a_scheme_with_a_port_is_still_a_host() -> None:
    assert showctl.Scoreboard("http:8080").url == "http://http:8080/api/0"
    assert showctl.Scoreboard("httpbox:1").url == "http://httpbox:1/api/0"


def test_the_connect_error_names_the_url_once() -> None:
    with contextlib.closing(socket.socket()) as held:
        held.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        url = f"http://127.0.0.1:{held.getsockname()[1]}"
        with pytest.raises(showctl.ConnectError) as info:
            showctl.Scoreboard(url, retries=0).scores()
    message = str(info.value)
    assert message.count(url) == 1, message
    assert "refused" in message
