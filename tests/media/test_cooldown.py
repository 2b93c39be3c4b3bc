"""The double-press guard: MediaPlayer(cooldown=) refuses, before sending, a command identical
to one answered less than the cooldown ago or still in flight (DoublePressError, not_sent);
other commands pass; without_cooldown() passes it on purpose; bad values are refused."""

from __future__ import annotations

import asyncio
import math

import pytest
import showctl
from showctl import cmd


def posts(sim: showctl.Simulator) -> list[str]:
    return [r.path.removeprefix("/api/0") for r in sim.requests if r.method == "POST"]


def test_an_identical_command_is_refused_before_it_is_sent(sim: showctl.Simulator) -> None:
    with showctl.MediaPlayer(sim.url, cooldown=30) as player:
        assert player.cooldown == 30
        cue = player.layer("Lower Third/Left")
        cue.trigger("Main Show", "Speaker Lower Third")
        with pytest.raises(showctl.DoublePressError) as refused:
            cue.trigger("Main Show", "Speaker Lower Third")
        e = refused.value
        assert isinstance(e, showctl.ShowctlError)
        assert e.delivery == "not_sent" and e.method == "POST"
        assert e.url.endswith(
            "/trigger/layer/Lower%20Third%2FLeft/playlist/Main%20Show/cue/Speaker%20Lower%20Third"
        )
        assert str(e).startswith(
            "refused by the cooldown of 30 s, nothing was sent: the same command (POST "
        )
        assert "was answered" in str(e)
        # Another command, or the same one with other arguments, passes.
        cue.set_opacity(0.5)
        cue.set_opacity(0.6)
        # A batch's command is guarded too, and only it fails.
        results = player.batch([cmd.set_opacity(cue, 0.6), cmd.mute(cue)])
        assert isinstance(results[0].error, showctl.DoublePressError)
        assert results[0].delivery == "not_sent" and results[1].ok
    assert posts(sim) == [
        "/trigger/layer/Lower%20Third%2FLeft/playlist/Main%20Show/cue/Speaker%20Lower%20Third",
        "/opacity/layer/Lower%20Third%2FLeft",
        "/opacity/layer/Lower%20Third%2FLeft",
        "/mute/layer/Lower%20Third%2FLeft",
    ]


def test_without_cooldown_passes_it_on_purpose_and_still_starts_it(
    sim: showctl.Simulator,
) -> None:
    with showctl.MediaPlayer(sim.url, cooldown=30) as player:
        player.layer("Main").mute()
        again = player.without_cooldown()
        assert isinstance(again, showctl.MediaPlayer) and again.cooldown == 30
        again.layer("Main").mute()
        again.layer("Main").mute()
        player.layer("Main").unmute()
        again.layer("Main").unmute()
        with pytest.raises(showctl.DoublePressError):
            player.layer("Main").unmute()
    assert posts(sim) == ["/mute/layer/Main"] * 3 + ["/unmute/layer/Main"] * 2


def test_off_by_default(sim: showctl.Simulator, player: showctl.MediaPlayer) -> None:
    assert player.cooldown is None
    player.layer("Main").mute()
    player.layer("Main").mute()
    assert posts(sim) == ["/mute/layer/Main"] * 2


async def test_a_press_while_the_first_is_in_flight_is_refused(sim: showctl.Simulator) -> None:
    sim.delay(0.3)
    async with showctl.MediaPlayer(sim.url, cooldown=5) as player:
        first, second = await asyncio.gather(
            player.layer("Main").mute_async(),
            player.layer("Main").mute_async(),
            return_exceptions=True,
        )
    outcomes = sorted([type(first).__name__, type(second).__name__])
    assert outcomes == ["DoublePressError", "NoneType"]
    refused = first if first is not None else second
    assert "is still waiting for its answer" in str(refused)
    assert posts(sim) == ["/mute/layer/Main"]


def test_a_failed_command_does_not_start_the_cooldown(sim: showctl.Simulator) -> None:
    with showctl.MediaPlayer(sim.url, cooldown=30) as player:
        for _ in range(2):
            (result,) = player.batch([cmd.request("no/such/command")])
            assert isinstance(result.error, showctl.NotFoundError), result.error
    assert posts(sim).count("/no/such/command") == 2


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, 3601])
def test_bad_cooldowns_are_refused(bad: float) -> None:
    with pytest.raises(ValueError, match=r"^cooldown: must be None"):
        showctl.MediaPlayer("http://127.0.0.1:9", cooldown=bad)


def test_a_cooldown_that_is_not_a_number_is_refused() -> None:
    with pytest.raises(TypeError, match=r"^cooldown: expected"):
        showctl.MediaPlayer("http://127.0.0.1:9", cooldown="1s")  # type: ignore[arg-type]
