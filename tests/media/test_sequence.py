"""MediaPlayer.sequence() and sequence_async() against the simulator: steps run in order, a
wait waits, a wait on the transport ends when the state shows (and fails at its bound), halt
and no halt, a not_sent step reported and never retried, identifiers looked up before anything
is sent, cancelling stops between steps, mirrors get each command and the command log names
the sequence."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import pytest
import showctl
from showctl import cmd

from tests.kit.wait import until, until_async

LOWER = "Lower Third/Left"
CLIP = ("Main Show", "Speaker Lower Third")  # an 8 s clip that plays on LOWER


def posts(sim: showctl.Simulator) -> list[str]:
    return [r.path.removeprefix("/api/0") for r in sim.requests if r.method == "POST"]


def run_both(mode: str) -> Callable[..., showctl.SequenceResult]:
    """``player.sequence`` or ``player.sequence_async`` run to its end, by name of the mode."""

    def call(player: showctl.MediaPlayer, *args: Any, **kwargs: Any) -> showctl.SequenceResult:
        if mode == "sync":
            return player.sequence(*args, **kwargs)
        return asyncio.run(player.sequence_async(*args, **kwargs))

    return call


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_steps_run_in_order_and_each_says_what_it_met(
    sim: showctl.Simulator, player: showctl.MediaPlayer, mode: str
) -> None:
    steps = [
        cmd.mute("Main"),
        cmd.hide("Main"),
        cmd.wait(0.15),
        cmd.set_opacity("Main", 0.25, confirm=True),
        cmd.unhide("Main"),
        cmd.unmute("Main"),
    ]
    result = run_both(mode)(player, steps)
    assert result.ok and result.stopped_at is None
    assert [s.index for s in result.steps] == [0, 1, 2, 3, 4, 5]
    assert [s.step for s in result.steps] == steps
    assert posts(sim) == [
        "/mute/layer/Main",
        "/hide/layer/Main",
        "/opacity/layer/Main",
        "/unhide/layer/Main",
        "/unmute/layer/Main",
    ]
    assert [s.delivery for s in result.steps] == [
        "answered",
        "answered",
        None,
        "answered",
        "answered",
        "answered",
    ]
    assert result.steps[2].elapsed >= 0.15
    assert result.steps[3].value == pytest.approx(0.25)  # read back (confirm=True)
    assert result.steps[0].value is None


def test_a_wait_on_the_transport_ends_when_the_clip_ends(
    sim: showctl.Simulator, player: showctl.MediaPlayer
) -> None:
    result = player.sequence(
        [
            cmd.trigger_playlist_cue(*CLIP, confirm=True),
            cmd.wait_until(LOWER, remaining=7.6, timeout=5),
            cmd.go_to(LOWER, -0.3),
            cmd.wait_until(LOWER, "stopped", timeout=5),
            cmd.clear(LOWER),
            cmd.wait_until(LOWER, "empty", timeout=5),
        ]
    )
    assert result.ok, result
    # The clip starts with 8 s remaining: at most 7.6 s comes 0.4 s later, not at once.
    assert 0.35 <= result.steps[1].elapsed < 5
    assert 0.2 <= result.steps[3].elapsed < 5  # 0.3 s were left
    assert posts(sim)[-1] == "/clear/layer/Lower%20Third%2FLeft"


def test_a_wait_on_the_transport_fails_at_its_bound_and_halts(
    sim: showctl.Simulator, player: showctl.MediaPlayer
) -> None:
    result = player.sequence(
        [cmd.wait_until(LOWER, "playing", timeout=0.3, interval=0.05), cmd.mute(LOWER)]
    )
    assert not result.ok and result.stopped_at == 0
    (step,) = result.steps
    assert isinstance(step.error, showctl.Timeout) and step.delivery is None
    assert "was not playing within 0.3 s (last read: empty" in str(step.error)
    assert step.elapsed >= 0.25
    assert posts(sim) == []


def test_halt_on_failure_stops_and_without_it_the_rest_runs_once(
    sim: showctl.Simulator, player: showctl.MediaPlayer
) -> None:
    steps = [cmd.mute("Main"), cmd.request("no/such/command"), cmd.unmute("Main")]
    halted = player.sequence(steps)
    assert not halted.ok and halted.stopped_at == 1 and len(halted.steps) == 2
    assert isinstance(halted.steps[1].error, showctl.NotFoundError)
    assert halted.steps[1].delivery == "answered"
    assert posts(sim) == ["/mute/layer/Main", "/no/such/command"]

    sim.clear_requests()
    went_on = player.sequence(steps, halt_on_failure=False)
    assert not went_on.ok and went_on.stopped_at is None
    assert [s.ok for s in went_on.steps] == [True, False, True]
    assert posts(sim) == ["/mute/layer/Main", "/no/such/command", "/unmute/layer/Main"]


def test_a_not_sent_step_is_reported_never_retried(sim: showctl.Simulator) -> None:
    with showctl.MediaPlayer(sim.url, cooldown=60) as player:
        result = player.sequence(
            [cmd.mute("Main"), cmd.mute("Main"), cmd.unmute("Main")], halt_on_failure=False
        )
    second = result.steps[1]
    assert isinstance(second.error, showctl.DoublePressError)
    assert second.delivery == "not_sent" and not second.ok
    assert result.steps[2].ok
    assert posts(sim) == ["/mute/layer/Main", "/unmute/layer/Main"]


def test_unknown_identifiers_are_refused_before_anything_is_sent(
    sim: showctl.Simulator, player: showctl.MediaPlayer
) -> None:
    steps = [
        cmd.mute("Main"),
        cmd.wait(0.1),
        cmd.trigger_playlist_cue("Opening", "No Such Cue"),
        cmd.mute("Nope"),
    ]
    with pytest.raises(showctl.NameLookupError, match=r'^steps\[2\]: cue "No Such Cue" is not in'):
        player.sequence(steps)
    with pytest.raises(showctl.NameLookupError, match=r'^steps\[1\]: layer "Nope"'):
        player.check_sequence([cmd.wait(1), cmd.wait_until("Nope", "empty", timeout=1)])
    assert posts(sim) == []
    player.check_sequence([cmd.trigger(LOWER, *CLIP), cmd.trigger_playlist("Opening")])
    assert posts(sim) == []


def test_bad_steps_are_refused_when_built_or_given() -> None:
    player = showctl.MediaPlayer("http://127.0.0.1:9")
    with pytest.raises(TypeError, match=r"^steps\[1\]: expected a showctl.Command"):
        player.sequence([cmd.mute("Main"), "mute Main"])
    with pytest.raises(ValueError, match=r"^timeout: a wait on the transport needs a bound"):
        cmd.wait_until("Main", "playing")
    with pytest.raises(ValueError, match=r"^state: must be"):
        cmd.wait_until("Main", "running", timeout=1)
    with pytest.raises(ValueError, match=r"^seconds: must be"):
        cmd.wait(-1)
    with pytest.raises(ValueError, match=r"^interval: must be"):
        cmd.wait_until("Main", "empty", timeout=1, interval=0.001)
    with pytest.raises(ValueError, match=r"^steps: a sequence has 1 to"):
        player.sequence([])


async def test_cancelling_the_task_stops_between_steps(
    sim: showctl.Simulator, player: showctl.MediaPlayer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="showctl.sequence")
    task = asyncio.ensure_future(
        player.sequence_async([cmd.mute("Main"), cmd.wait(30), cmd.unmute("Main")], name="walk-in")
    )
    await until_async(lambda: posts(sim) == ["/mute/layer/Main"], "the first step")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until_async(lambda: "cancelled" in caplog.text, "the sequence's cancel record")
    assert "sequence walk-in cancelled: step 0 ran; steps 1 to 2 were not run" in caplog.text
    assert posts(sim) == ["/mute/layer/Main"]


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT to a process")
def test_ctrl_c_stops_between_steps(sim: showctl.Simulator) -> None:
    child = textwrap.dedent(
        f"""
        import logging, sys, threading
        import showctl
        from showctl import cmd

        said = threading.Event()
        class Said(logging.Handler):
            def emit(self, record):
                # One write: the main thread prints too (print writes each argument apart).
                sys.stdout.write(f"LOG {{record.getMessage()}}\\n")
                sys.stdout.flush()
                said.set()
        logging.getLogger("showctl.sequence").addHandler(Said())
        player = showctl.MediaPlayer({sim.url!r})
        try:
            player.sequence([cmd.mute("Main"), cmd.wait(30), cmd.unmute("Main")], name="walk-in")
        except KeyboardInterrupt:
            print("INTERRUPTED", flush=True)
            said.wait(10)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", child],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        until(lambda: posts(sim) == ["/mute/layer/Main"], "the first step")
        os.kill(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert "INTERRUPTED" in out
    assert "LOG sequence walk-in cancelled: step 0 ran; steps 1 to 2 were not run" in out
    assert posts(sim) == ["/mute/layer/Main"]


def test_the_command_log_names_the_sequence_and_mirrors_get_each_command(
    showctl_simulator_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    primary, backup = showctl_simulator_factory(), showctl_simulator_factory()
    caplog.set_level(logging.INFO, logger="showctl.commands")
    steps = [cmd.mute("Main"), cmd.wait(0.05), cmd.set_opacity("Main", 0.5), cmd.unmute("Main")]
    with showctl.MediaPlayer(primary.url, mirrors=[backup.url]) as player:
        assert player.sequence(steps, name="reset").ok
    records = [r for r in caplog.records if r.name == "showctl.commands"]
    primary_url = primary.url + "/api/0"
    mine = [r for r in records if getattr(r, "application", None) == primary_url]
    assert [(r.sequence, r.step, r.operation) for r in mine] == [  # type: ignore[attr-defined]
        ("reset", 0, "mute"),
        ("reset", 2, "set_opacity"),
        ("reset", 3, "unmute"),
    ]
    expected = ["/mute/layer/Main", "/opacity/layer/Main", "/unmute/layer/Main"]
    assert posts(primary) == expected
    assert posts(backup) == expected
