"""The fault matrix: each way a server or the network can fail, against a read (GET) and a
command (POST) of the media client, blocking and asyncio. Every cell ends in its documented
outcome within the timeout plus a small margin: never a hang, never a PanicException.

Single-attempt cells use ``retries=0``; the lasting faults show the attempts a read gets (what
is retried and what is not: test_retries.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import showctl

from tests.kit.fakeserver import (
    FakeServer,
    Reply,
    Script,
    Seen,
    close_at_once,
    drip,
    garbage,
    huge,
    reset_mid_body,
    respond,
    serve,
    stall,
    truncated,
)
from tests.kit.mediakit import MODES, invoke
from tests.kit.netkit import free_port

TIMEOUT = 0.5
#: Scheduling slack on a loaded two-core machine (the bound is what matters, not the speed).
MARGIN = 1.0
#: The largest sum of the two first backoff delays (0.1 s and 0.2 s, each with +25 % jitter).
BACKOFF = 0.375
PATH = "/api/0/opacity/layer/1"

#: The two paths of a client: a read and a command (method name, arguments, HTTP method).
OPS = {
    "read": ("opacity", (), "GET"),
    "command": ("set_opacity", (0.5,), "POST"),
}


@dataclass
class Outcome:
    value: Any
    error: BaseException | None
    took: float


def attempt(mode: str, player: showctl.MediaPlayer, op: str) -> Outcome:
    """Run ``op`` on layer 1, catching whatever comes out (a PanicException included: it is a
    BaseException, and the cells check that none appears)."""
    name, args, _ = OPS[op]
    started = time.monotonic()
    try:
        value = invoke(mode, player.layer(1), name, *args)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        return Outcome(None, e, time.monotonic() - started)
    return Outcome(value, None, time.monotonic() - started)


def player(url: str, **kwargs: Any) -> showctl.MediaPlayer:
    options: dict[str, Any] = {"timeout": TIMEOUT, "retries": 0}
    options.update(kwargs)
    return showctl.MediaPlayer(url, **options)


#: For a fault that ends the call by itself (refused, closed, reset...): a timeout that cannot
#: win the race on a loaded machine, where the fault server may wait its turn for a core.
LONG = 10.0


def player_for(cell: Cell, url: str) -> showctl.MediaPlayer:
    """The client of a cell: TIMEOUT where the timeout is what is tested, else LONG."""
    timed = showctl.Timeout in (cell.read, cell.command)
    kwargs: dict[str, Any] = {"timeout": TIMEOUT if timed else LONG}
    kwargs.update(cell.options)
    return player(url, **kwargs)


def html(status: int) -> Script:
    page = b"<!DOCTYPE html><html><head><title>Oops</title></head><body>nope</body></html>"
    return respond(status, page, content_type="text/html; charset=utf-8")


@dataclass
class Cell:
    """One fault: the script of the server's first connection (``None``: nothing listens) and
    the outcome for a read and for a command (an exception class, or the value returned)."""

    script: Script | None
    read: type[BaseException] | float | None
    command: type[BaseException] | None
    requests: int = 1  # requests the server reads
    words: tuple[str, ...] = ()  # what the message must say
    options: tuple[tuple[str, Any], ...] = ()


HUGE = 2_000_000
CAP = 1_000_000

MATRIX: dict[str, Cell] = {
    "refused": Cell(None, showctl.ConnectError, showctl.ConnectError, 0, ("refused",)),
    "closed_without_answer": Cell(close_at_once(), showctl.ConnectError, showctl.ConnectError, 0),
    "reset_mid_body": Cell(
        reset_mid_body(), showctl.ConnectError, showctl.ConnectError, words=("reset",)
    ),
    "accepts_and_stalls": Cell(stall(), showctl.Timeout, showctl.Timeout, words=("0.500s",)),
    "drips_slowly": Cell(drip(), showctl.Timeout, showctl.Timeout, words=("0.500s",)),
    "truncated_body": Cell(truncated(), showctl.ConnectError, showctl.ConnectError),
    "answer_not_http": Cell(
        garbage(), showctl.ConnectError, showctl.ConnectError, words=("invalid HTTP",)
    ),
    # A command's 200 is never read (the application answers commands with an empty 200).
    "garbage_json": Cell(
        respond(200, b'{"value": 0.5,,}'), showctl.DecodeError, None, words=("JSON",)
    ),
    "html_error_page": Cell(html(404), showctl.NotFoundError, showctl.NotFoundError),
    "html_page_with_200": Cell(html(200), showctl.DecodeError, None),
    # Reading is lenient: the JSON is read whatever the Content-Type says.
    "wrong_content_type": Cell(
        respond(200, b'{"value": 0.25}', content_type="text/html"), 0.25, None
    ),
    # The field's answers are probably not typed at all (the simulator's default).
    "no_content_type": Cell(respond(200, b'{"value": 0.25}', content_type=None), 0.25, None),
    "empty_body": Cell(respond(200, b""), showctl.DecodeError, None, words=("empty",)),
    "status_500": Cell(respond(500, b"boom"), showctl.ServerError, showctl.ServerError),
    "status_503": Cell(
        respond(503), showctl.ServiceUnavailableError, showctl.ServiceUnavailableError
    ),
    "huge_body_announced": Cell(
        huge(HUGE, announce=True),
        showctl.DecodeError,
        showctl.DecodeError,
        # A read's reply is refused at its endpoint's cap (64 KiB for an opacity), a command's
        # at max_body (see test_limits.py).
        words=("larger than", "bytes"),
        options=(("max_body", CAP),),
    ),
    "huge_body_streamed": Cell(
        huge(HUGE, announce=False),
        showctl.DecodeError,
        showctl.DecodeError,
        # A read's reply is refused at its endpoint's cap (64 KiB for an opacity), a command's
        # at max_body (see test_limits.py).
        words=("larger than", "bytes"),
        options=(("max_body", CAP),),
    ),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("fault", list(MATRIX))
def test_fault_matrix(fault: str, op: str, mode: str) -> None:
    cell = MATRIX[fault]
    expected = cell.read if op == "read" else cell.command
    if cell.script is None:
        url, server = f"http://127.0.0.1:{free_port()}", None
    else:
        server = FakeServer(cell.script).__enter__()
        url = server.url
    try:
        client = player_for(cell, url)
        out = attempt(mode, client, op)
    finally:
        if server is not None:
            server.stop()
    assert out.took < client.timeout + MARGIN, f"{fault}: took {out.took:.2f}s"
    if isinstance(expected, type):
        assert type(out.error) is expected, f"{fault}: {out.error!r}"
        err = out.error
        assert isinstance(err, showctl.ShowctlError)
        assert err.method == OPS[op][2]
        assert err.url == url + "/api/0/opacity/layer/1"
        for word in cell.words:
            assert word in str(err), str(err)
    else:
        assert out.error is None, f"{fault}: {out.error!r}"
        assert out.value == expected
    if server is not None:
        assert [(s.method, s.path) for s in server.requests] == [(OPS[op][2], PATH)] * cell.requests


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", list(OPS))
def test_redirect_is_not_followed(op: str, mode: str) -> None:
    """A redirect is an error naming the Location; the target never hears from the client (it
    would otherwise receive the key)."""
    with FakeServer() as elsewhere:
        location = f"{elsewhere.url}/api/0/opacity/layer/1"
        with FakeServer(respond(302, headers={"Location": location})) as server:
            out = attempt(mode, player(server.url, api_key="k3y"), op)
        assert type(out.error) is showctl.ApiError
        assert out.error.status == 302
        assert f"Location: {location}" in str(out.error)
        assert out.took < TIMEOUT + MARGIN
        assert len(server.requests) == 1
        assert elsewhere.connections == 0


@pytest.mark.parametrize("mode", MODES)
def test_max_body_is_inclusive(mode: str) -> None:
    body = b'{"x": "' + b"y" * 100 + b'"}'
    with FakeServer(respond(200, body)) as server:
        p = player(server.url, max_body=len(body))
        assert invoke(mode, p, "request", "GET", "/x") == {"x": "y" * 100}
        p = player(server.url, max_body=len(body) - 1)
        with pytest.raises(showctl.DecodeError, match="larger than max_body"):
            invoke(mode, p, "request", "GET", "/x")


def test_the_default_cap_is_64_mib() -> None:
    size = 64 * 1024 * 1024
    with FakeServer(huge(size + 1, announce=True)) as server:
        with pytest.raises(showctl.DecodeError, match=f"max_body \\({size} bytes\\)"):
            player(server.url).request("GET", "/x")
    with pytest.raises(ValueError, match="max_body"):
        player("127.0.0.1:1", max_body=0)


# ---------------------------------------------------------------------------------------------
# Retries: reads retry connection failures, timeouts, 500 and 503; commands do not, unless
# retry_commands=True.
# ---------------------------------------------------------------------------------------------


def in_turn(*replies: Reply) -> Callable[[Seen], Reply]:
    """Answer the n-th request with ``replies[n]`` (the last repeats)."""
    count = iter(range(1_000_000))

    def answer(_: Seen) -> Reply:
        return replies[min(next(count), len(replies) - 1)]

    return answer


OK: Reply = (200, b'{"value": 0.25}')
FAULTS: dict[str, Callable[[], Script]] = {
    "stall": stall,
    "reset": reset_mid_body,
    "closed": close_at_once,
    "truncated": truncated,
}
STATUSES = {500: showctl.ServerError, 503: showctl.ServiceUnavailableError}


def bound(attempts: int) -> float:
    return TIMEOUT * attempts + BACKOFF + MARGIN


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_read_recovers_after_connection_faults(fault: str, mode: str) -> None:
    make = FAULTS[fault]
    with FakeServer(make(), make(), serve(in_turn(OK))) as server:
        out = attempt(mode, player(server.url, retries=2), "read")
    assert out.error is None, repr(out.error)
    assert out.value == 0.25
    assert server.connections == 3
    assert out.took < bound(3)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("status", list(STATUSES))
def test_a_read_recovers_after_server_errors(status: int, mode: str) -> None:
    with FakeServer(serve(in_turn((status, b""), (status, b""), OK))) as server:
        out = attempt(mode, player(server.url, retries=2), "read")
    assert out.value == 0.25 and out.error is None
    assert len(server.requests) == 3
    assert out.took < bound(1)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize(
    "fault, error",
    [("stall", showctl.Timeout), ("reset", showctl.ConnectError), *STATUSES.items()],
)
def test_a_lasting_fault_ends_in_its_error(
    fault: str | int, error: type, op: str, mode: str
) -> None:
    """A read gives up after its retries. A command, which may have reached the application,
    is sent once (the server would answer a second one)."""
    script = serve(in_turn((fault, b""))) if isinstance(fault, int) else FAULTS[fault]()
    with FakeServer(script, script, script, serve(in_turn(OK))) as server:
        out = attempt(mode, player(server.url, retries=2), op)
    assert type(out.error) is error
    attempts = 3 if op == "read" else 1
    assert [s.method for s in server.requests] == [OPS[op][2]] * attempts
    assert out.took < bound(attempts)
