"""One time rule for ``confirm=True``: the read-back window and every read in it share the
call's deadline, ``timeout × (retries + 1)`` plus the backoff from the start, or
``confirm_timeout`` after the command's answer when that is later (docs/reliability.md). Here
the application answers the command and then never answers again (the link dropped right after
the answer), and a trigger's cue lookup never answers: each call ends by its deadline, not
after five reads that each wait their whole timeout."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
import showctl

from tests.kit.fakeserver import Conn, FakeServer, Script, head, stall

# Room for a loaded machine past the deadline; far less than one more read's timeout.
SLACK = 0.6


def answers_then_goes_silent() -> Script:
    """Answer the first request (the command) with an empty 200, then read and never answer."""

    def script(conn: Conn) -> None:
        if conn.read_request() is None or not conn.send(head(200, 0)):
            return
        while conn.read_request() is not None:
            conn.wait()

    return script


def timed(call: Callable[[], object]) -> tuple[float, BaseException]:
    started = time.monotonic()
    with pytest.raises(showctl.ShowctlError) as raised:
        call()
    return time.monotonic() - started, raised.value


def backoff(retries: int) -> float:
    """The longest backoff delays before retries 1..retries (0.1 s doubling, +25 %)."""
    return sum(min(0.1 * 2.0**a, 2.0) * 1.25 for a in range(retries))


@pytest.mark.parametrize("retries", [0, 2])
def test_a_read_back_on_a_link_gone_silent_keeps_the_call_bound(retries: int) -> None:
    with FakeServer(answers_then_goes_silent(), stall()) as server:
        player = showctl.MediaPlayer(server.url, timeout=1, retries=retries)
        took, error = timed(lambda: player.layer(0).set_opacity(0.5, confirm=True))
        player.close()
        assert server.requests[0].method == "POST"
    bound = 1 * (retries + 1) + backoff(retries)
    # Reached the deadline (not an early give-up), and kept it.
    assert bound - 0.05 <= took < bound + SLACK, (took, bound)
    assert isinstance(error, showctl.NotConfirmedError), error
    assert "could not be read back" in str(error) and "deadline" in str(error), error


def test_confirm_timeout_longer_than_the_call_bound_is_the_read_back_s_own() -> None:
    with FakeServer(answers_then_goes_silent(), stall()) as server:
        player = showctl.MediaPlayer(server.url, timeout=1, retries=0, confirm_timeout=2)
        took, error = timed(lambda: player.layer(0).mute(confirm=True))
        player.close()
    assert isinstance(error, showctl.NotConfirmedError), error
    # confirm_timeout after the command's answer (which came at once).
    assert 2 - 0.05 <= took < 2 + SLACK, took


def test_a_confirmed_trigger_on_a_silent_server_fails_with_its_command() -> None:
    with FakeServer(stall()) as server:
        player = showctl.MediaPlayer(server.url, timeout=1)  # retries=2 for the cue lookup
        took, error = timed(lambda: player.trigger_playlist_cue(0, 1, confirm=True))
        player.close()
        assert "POST" in [r.method for r in server.requests]
    # The command's own timeout: its failure is the call's at once, the lookup is dropped.
    assert isinstance(error, showctl.Timeout) and error.delivery == "sent_no_answer", error
    assert "POST" in str(error), error
    assert took < 1 + SLACK, took
