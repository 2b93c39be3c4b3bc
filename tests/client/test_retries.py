"""retry_commands=True: a command is sent again after a timeout, a connection reset and a 500
as after a 503, on the primary and on a mirror; without it, a command is sent once."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable

import pytest
import showctl

from tests.kit.fakeserver import FakeServer, Script, Seen, reset_mid_body, serve, stall

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
                # Sent once and missed: it failed, or (a stall on a busy machine, where the
                # mirror started it after closing began) closing gave up on it first.
                assert (st.sent, st.failed + st.dropped, st.healthy) == (0, 1, False), st
                if st.failed:
                    assert isinstance(st.last_error, error), st
                assert len(mutes(mirror)) == 1, mirror.lines()
