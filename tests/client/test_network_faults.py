"""Faults of a real network, not only of a server: the primary and its mirror run on separate
test hosts (network namespaces joined by veth pairs, made by the test). The mirror's link is
cut (interface down; or a blackhole route: packets vanish, no reset), or slowed or made lossy
by a fault-injecting proxy (each packet 200 ms late; one connection in five stalled). In each
case the primary's calls keep their usual time, every call ends within its timeout, and what
the mirror missed is counted."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from functools import partial

import pytest
import showctl

from tests.kit.nethosts import FaultProxy, Host, hosts
from tests.kit.wait import until

TIMEOUT = 2.0


@pytest.fixture
def two_hosts() -> Iterator[tuple[Host, Host]]:
    with hosts(2) as (primary, mirror):
        yield primary, mirror


def timed(call: Callable[[], object]) -> float:
    started = time.monotonic()
    call()
    return time.monotonic() - started


def opacity_posts(sim: showctl.Simulator) -> list[str]:
    return [r.body.decode() for r in sim.requests if r.method == "POST"]


@pytest.mark.parametrize("cut", ["link down", "blackhole"])
def test_a_cut_mirror_link_neither_slows_nor_hides_the_primary(
    two_hosts: tuple[Host, Host], cut: str
) -> None:
    primary_host, mirror_host = two_hosts
    primary, mirror = primary_host.simulator(), mirror_host.simulator()
    player = showctl.MediaPlayer(primary.url, mirrors=[mirror.url], timeout=TIMEOUT, retries=0)
    layer = player.layer(0)
    before = [timed(partial(layer.set_opacity, v)) for v in (0.1, 0.2, 0.3, 0.4, 0.5)]
    if cut == "link down":
        mirror_host.link_down()
    else:
        mirror_host.blackhole_replies()
    after = [timed(partial(layer.set_opacity, v)) for v in (0.51, 0.52, 0.53, 0.54, 0.55)]
    after += [timed(layer.mute), timed(layer.unmute)]
    assert layer.opacity() == 0.550000011920929  # 0.55 in single precision, as the field keeps it
    # The primary's usual time: no call waited for the mirror (which takes TIMEOUT to fail).
    usual = max(0.25, 4 * max(before))
    assert max(after) < min(usual, TIMEOUT), (before, after)
    closing = timed(player.close)
    assert closing < TIMEOUT + 1.0, "close() gives the mirror at most its timeout"
    (st,) = player.mirror_status()
    total = 12
    assert st.sent + st.failed + st.unanswered + st.dropped == total, st
    assert st.pending == 0 and not st.healthy, st
    assert st.sent <= 5, "nothing sent after the cut is counted as sent"
    assert st.failed + st.unanswered + st.dropped >= 7, st
    assert isinstance(st.last_error, (showctl.Timeout, showctl.ConnectError)), st
    received = opacity_posts(mirror)
    assert len(received) >= st.sent, "every command counted as sent reached the mirror"
    # `dropped` is only what never went out: what the mirror received was sent, answered or
    # not (a blackhole lets commands in and answers nothing).
    assert len(received) <= st.sent + st.failed + st.unanswered, (received, st)
    # In order; after a blackhole, commands still arrive (only the answers vanish).
    values = (0.1, 0.2, 0.3, 0.4, 0.5, 0.51, 0.52, 0.53, 0.54, 0.55)
    assert received == [*(f'{{"value":{v}}}' for v in values), "", ""][: len(received)]
    assert len(primary.requests) == total + 1  # and the read


def test_a_mirror_200_ms_per_packet_away_gets_everything_in_order(
    two_hosts: tuple[Host, Host],
) -> None:
    primary_host, mirror_host = two_hosts
    primary, mirror = primary_host.simulator(), mirror_host.simulator()
    proxy = FaultProxy((mirror_host.address, mirror.port), delay=0.2)
    try:
        # A timeout long enough for the slow mirror, so closing lets it finish.
        player = showctl.MediaPlayer(primary.url, mirrors=[proxy.url], timeout=15, retries=0)
        layer = player.layer(0)
        values = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
        times = [timed(partial(layer.set_opacity, v)) for v in values]
        # Each mirrored command takes at least 0.4 s (request and answer each 0.2 s late);
        # the primary's six together take less than one of those.
        assert sum(times) < 0.4, times
        player.close()
        (st,) = player.mirror_status()
        assert (st.sent, st.failed, st.dropped, st.pending, st.healthy) == (6, 0, 0, 0, True)
        assert opacity_posts(mirror) == [f'{{"value":{v}}}' for v in values]
    finally:
        proxy.close()


def test_a_mirror_whose_connections_stall_counts_each_loss(two_hosts: tuple[Host, Host]) -> None:
    primary_host, mirror_host = two_hosts
    primary, mirror = primary_host.simulator(), mirror_host.simulator()
    proxy = FaultProxy((mirror_host.address, mirror.port), stall_every=5)
    try:
        player = showctl.MediaPlayer(
            primary.url, mirrors=[proxy.url], timeout=TIMEOUT, retries=0
        )
        layer = player.layer(0)
        values = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
        times = [timed(partial(layer.set_opacity, v)) for v in values]
        assert max(times) < TIMEOUT / 4, times
        # The first connection stalls: its command goes unanswered after the timeout (it went
        # out: the proxy has it), the next ones wait until the mirror answers again, and the
        # next connection carries them.
        until(lambda: player.mirror_status()[0].pending == 0, "the mirror to finish", 30)
        player.close()
        (st,) = player.mirror_status()
        assert proxy.stalled >= 1
        assert (st.unanswered, st.failed) == (proxy.stalled, 0), (st, proxy.stalled)
        assert st.sent + st.unanswered + st.dropped == len(values), st
        assert isinstance(st.last_error, showctl.Timeout), st
        posted = [f'{{"value":{v}}}' for v in values]
        received = opacity_posts(mirror)
        # In order, from the first command after the lost ones; a command in flight when
        # closing gave up may still land: it counts as unanswered, never as dropped.
        lost = st.unanswered - (len(received) - st.sent)
        assert received == posted[lost : lost + len(received)], (received, st)
        assert st.sent <= len(received) <= st.sent + st.unanswered, (received, st)
    finally:
        proxy.close()
