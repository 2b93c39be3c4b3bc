"""mirrors=: every command goes to the primary and to each mirror, in order; reads go to the
primary; a dead mirror and a slow one neither hide nor delay the primary's result; failures are
logged and kept in mirror_status(); close() lets the mirrors finish. Against simulators."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import threading
from collections.abc import Iterator

import pytest
import showctl

from tests.kit.nethosts import FaultProxy


@contextlib.contextmanager
def dead_url() -> Iterator[str]:
    """A loopback URL where connections are refused: its port is bound and never listened on
    (held for the whole test, so nothing else can take it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def sims() -> Iterator[tuple[showctl.Simulator, showctl.Simulator]]:
    with showctl.Simulator(strict=True) as primary, showctl.Simulator(strict=True) as slow:
        slow.delay(0.2)
        yield primary, slow


def posts(sim: showctl.Simulator) -> list[str]:
    return [f"{r.path} {r.body.decode()}".strip() for r in sim.requests if r.method == "POST"]


def test_a_dead_and_a_slow_mirror(
    sims: tuple[showctl.Simulator, showctl.Simulator], caplog: pytest.LogCaptureFixture
) -> None:
    primary, slow = sims
    caplog.set_level(logging.WARNING, logger="showctl")
    # The slow mirror answers nothing until `release` is set (a proxy holds its traffic).
    release = threading.Event()
    held = FaultProxy(("127.0.0.1", slow.port), hold=release)
    with dead_url() as dead:
        try:
            check_the_dead_and_the_slow(primary, slow, dead, held, release, caplog)
        finally:
            release.set()
            held.close()


def check_the_dead_and_the_slow(
    primary: showctl.Simulator,
    slow: showctl.Simulator,
    dead: str,
    held: FaultProxy,
    release: threading.Event,
    caplog: pytest.LogCaptureFixture,
) -> None:
    player = showctl.MediaPlayer(primary.url, mirrors=[dead, held.url])
    main = player.layer("Main")
    for value in (0.1, 0.2, 0.3, 0.4, 0.5):
        main.set_opacity(value)
    main.mute(confirm=True)  # reads go to the primary only
    assert main.opacity() == 0.5
    status = player.mirror_status()
    assert [s.url for s in status] == [f"{dead}/api/0", f"{held.url}/api/0"]
    assert status[1].pending == 6, "the primary's results did not wait for the slow mirror"
    release.set()
    player.close()
    dead_status, slow_status = player.mirror_status()
    assert (dead_status.sent, dead_status.failed, dead_status.healthy) == (0, 6, False)
    assert isinstance(dead_status.last_error, showctl.ConnectError)
    assert dead_status.last_error_at is not None and dead_status.last_ok_at is None
    assert (slow_status.sent, slow_status.failed, slow_status.pending) == (6, 0, 0)
    assert slow_status.healthy and slow_status.last_error is None
    assert slow_status.last_ok_at is not None
    # The slow mirror saw the commands in order, and no read.
    assert posts(slow) == [
        *[f'/api/0/opacity/layer/Main {{"value":{v}}}' for v in (0.1, 0.2, 0.3, 0.4, 0.5)],
        "/api/0/mute/layer/Main",
    ]
    assert all(r.method == "POST" for r in slow.requests)
    with showctl.MediaPlayer(slow.url) as check:
        state = check.layer("Main").state()
        assert (state.opacity, state.is_muted) == (0.5, True)
    # One warning when the dead mirror started failing, naming it.
    warnings = [r for r in caplog.records if r.name == "showctl.mirror"]
    assert len(warnings) == 1 and dead in warnings[0].getMessage()
    shown = repr(dead_status)
    fields = ["url", "healthy", "sent", "failed", "dropped", "pending", "last_error"]
    assert shown.startswith("MirrorStatus(url=") and "last_ok_at" not in shown
    assert [shown.index(f" {f}=") for f in fields[1:]] == sorted(
        shown.index(f" {f}=") for f in fields[1:]
    )


def test_keys_follow_the_primary_unless_given() -> None:
    sims = [
        showctl.Simulator(api_key=k, strict=True)
        for k in ("main-key", "main-key", "own-key", "own-key")
    ]
    with contextlib.ExitStack() as stack:
        primary, same, own, wrong = [stack.enter_context(s) for s in sims]
        with showctl.MediaPlayer(
            primary.url,
            api_key="main-key",
            mirrors=[same.url, (own.url, "own-key"), wrong.url],
        ) as player:
            player.layer(0).hide()
            assert "key" not in repr(player)
        a, b, c = player.mirror_status()
        assert (a.sent, b.sent, c.sent) == (1, 1, 0)
        assert isinstance(c.last_error, showctl.UnauthorizedError)
        assert "main-key" not in str(c.last_error) and "main-key" not in repr(c)


async def test_async_commands_and_aclose(sims: tuple[showctl.Simulator, showctl.Simulator]) -> None:
    primary, slow = sims
    async with showctl.MediaPlayer(primary.url, mirrors=[slow.url]) as player:
        await player.layer("Logo Bug").trigger_async("Opening", "Welcome Still")
        await player.layer("Logo Bug").fade_async(0.0, 0.1, 2)
    (status,) = player.mirror_status()
    assert (status.sent, status.pending) == (3, 0)
    assert posts(slow)[-1] == '/api/0/opacity/layer/Logo%20Bug {"value":0.0}'
    with pytest.raises(showctl.ClientClosedError):
        await player.layer(0).mute_async()
    assert len(posts(slow)) == 3


def test_a_batch_is_mirrored(sims: tuple[showctl.Simulator, showctl.Simulator]) -> None:
    primary, slow = sims
    slow.delay(0)
    with showctl.MediaPlayer(primary.url, mirrors=[slow.url]) as player:
        results = player.batch([showctl.cmd.mute(i) for i in range(4)] + [showctl.cmd.mute(9)])
        assert [r.ok for r in results] == [True] * 4 + [False]
    (status,) = player.mirror_status()
    assert (status.sent, status.failed) == (4, 1)
    assert isinstance(status.last_error, showctl.BadRequestError)


def test_refusals() -> None:
    with pytest.raises(TypeError, match=r"put it in a list"):
        showctl.MediaPlayer("h:1", mirrors="h:2")  # type: ignore[arg-type]
    expected = r"mirrors\[1\]: expected a URL, a \(url, api_key\[, tls_fingerprint\]\) tuple"
    with pytest.raises(TypeError, match=expected):
        showctl.MediaPlayer("h:1", mirrors=["h:2", ("h:3",)])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"^mirrors\[0\]: url: scheme must be http or https"):
        showctl.MediaPlayer("h:1", mirrors=["ftp://h:2"])
    with pytest.raises(ValueError, match=r"^mirrors\[0\]: api_key:") as info:
        showctl.MediaPlayer("h:1", mirrors=[("h:2", "bad\r\nkey")])
    assert "bad" not in str(info.value)
    with pytest.raises(ValueError, match=r"^mirrors\[0\]: http://h:1/api/0 is already the primary"):
        showctl.MediaPlayer("h:1", mirrors=["http://h:1/"])
    with pytest.raises(ValueError, match=r"^mirrors\[1\]: .* is already a mirror"):
        showctl.MediaPlayer("h:1", mirrors=["h:2", "http://h:2"])
    assert showctl.MediaPlayer("h:1").mirror_status() == []


def test_a_mirror_never_hides_the_primary_error(
    sims: tuple[showctl.Simulator, showctl.Simulator],
) -> None:
    primary, slow = sims
    primary.fail_next(503)
    player = showctl.MediaPlayer(primary.url, mirrors=[slow.url])
    with pytest.raises(showctl.ServiceUnavailableError):
        player.layer(0).mute()
    player.close()
    assert player.mirror_status()[0].sent == 1
    asyncio.run(player.aclose())  # closing twice is harmless


def opacity_values(sim: showctl.Simulator) -> list[float]:
    return [
        float(json.loads(r.body)["value"])
        for r in sim.requests
        if r.method == "POST" and r.path == "/api/0/opacity/layer/0"
    ]


def test_a_burst_reaches_a_mirror_that_keeps_up(caplog: pytest.LogCaptureFixture) -> None:
    """2,000 commands in one batch (16 at a time on the primary) all reach the mirror, in the
    order given; it stays healthy and nothing is logged as dropped."""
    caplog.set_level(logging.INFO, logger="showctl")
    values = [i / 2048 for i in range(2000)]
    with showctl.Simulator() as primary, showctl.Simulator() as mirror:
        with showctl.MediaPlayer(primary.url, mirrors=[mirror.url], timeout=120) as player:
            results = player.batch([showctl.cmd.set_opacity(0, v) for v in values])
            assert all(r.ok for r in results)
        (status,) = player.mirror_status()
        assert (status.sent, status.failed, status.dropped, status.pending) == (2000, 0, 0, 0)
        assert status.healthy
        assert opacity_values(mirror) == values
    assert not [r for r in caplog.records if r.name == "showctl.mirror"]


async def test_a_gathered_burst_reaches_a_mirror_that_keeps_up() -> None:
    """2,000 gathered set_opacity_async() calls all reach the mirror, each once."""
    values = [i / 2048 for i in range(2000)]
    with showctl.Simulator() as primary, showctl.Simulator() as mirror:
        async with showctl.MediaPlayer(primary.url, mirrors=[mirror.url], timeout=120) as player:
            layer = player.layer(0)
            await asyncio.gather(*(layer.set_opacity_async(v) for v in values))
        (status,) = player.mirror_status()
        assert (status.sent, status.failed, status.dropped, status.pending) == (2000, 0, 0, 0)
        assert status.healthy
        assert sorted(opacity_values(mirror)) == values
