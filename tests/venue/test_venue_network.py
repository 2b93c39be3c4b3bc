"""The venue network: machines on test hosts (network namespaces, tests/kit/nethosts.py), their
cables pulled and restored, an application frozen with SIGSTOP and thawed, a link that goes
silent. Each case is counted against what the application itself received and ran (the
simulator's own log), not against what the client believes:

- a command given up (a cancelled task, Ctrl-C on the command line) on a frozen application
  runs when it thaws, and has its record in the command log;
- a command given up in a pulled cable never runs after a later one, on the primary and on a
  backup, once the cable is back;
- a frozen backup runs the commands in the order given, and ``mirror_status()`` counts what
  went out unanswered apart from what was dropped (never sent);
- a confirmed call ends within its bound when the link goes silent after the command's answer,
  or never answers at all."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import showctl

from tests.kit.clikit import env
from tests.kit.commandlog import CommandLog, commands_logged
from tests.kit.nethosts import FaultProxy, Host, ProcessSimulator, hosts
from tests.kit.netkit import sigint_default
from tests.kit.wait import until

TIMEOUT = 1.0
CUE_GIVEN_UP = "/trigger/layer/0/playlist/0/cue/Abandoned"
CLI = [sys.executable, "-m", "showctl"]


@pytest.fixture
def two_hosts() -> Iterator[tuple[Host, Host]]:
    with hosts(2) as (primary, backup):
        yield primary, backup


@pytest.fixture
def one_host() -> Iterator[Host]:
    with hosts(1) as (host,):
        yield host


@pytest.fixture
def journal() -> Iterator[CommandLog]:
    with commands_logged() as kept:
        yield kept


def serving(sim: ProcessSimulator) -> None:
    """Return once the application answers again (it has run what it had in its buffers)."""
    reader = showctl.MediaPlayer(sim.url, timeout=TIMEOUT, retries=0)
    until(lambda: _answers(reader), "the application to answer again", 30)
    reader.close()


def _answers(reader: showctl.MediaPlayer) -> bool:
    try:
        reader.request("GET", "/transitionDuration/workspace")
        return True
    except showctl.ShowctlError:
        return False


def value(body: str) -> float:
    return float(json.loads(body)["value"])


def in_given_order(ran: list[float], given: list[float]) -> bool:
    """Whether `ran` is `given` with some left out, never one run after a later one."""
    positions = [given.index(v) for v in ran]
    return positions == sorted(positions) and len(set(ran)) == len(ran)


# -- a command given up: its record -----------------------------------------------------------


def test_commands_given_up_on_a_frozen_application_run_and_are_recorded(
    one_host: Host, journal: CommandLog, tmp_path: Path
) -> None:
    app = one_host.process_simulator(plain=True)
    player = showctl.MediaPlayer(app.url, timeout=30, retries=0)
    player.layer(0).trigger(0, 0)  # the kept connection is up before the freeze
    app.freeze()

    async def give_up() -> None:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(player.layer(0).trigger_async(0, "Abandoned"), 1.0)

    asyncio.run(give_up())
    waiting = len(one_host.unread())
    # The command line, interrupted by Ctrl-C once its command is on its way.
    log = tmp_path / "show.jsonl"
    cli = subprocess.Popen(
        [*CLI, "opacity", "0", "0.34", "--url", app.url, "--timeout", "30", "--log", str(log)],
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        preexec_fn=sigint_default,
    )
    # Its command waits, unread, in the frozen application's buffers.
    until(lambda: len(one_host.unread()) > waiting, "the command line's command to arrive")
    cli.send_signal(signal.SIGINT)
    _, err = cli.communicate(timeout=30)
    assert cli.returncode == 130, err
    app.thaw()
    serving(app)
    player.close()
    ran = Counter(path for method, path, _ in app.requests() if method == "POST")
    records = journal.lines() + [json.loads(x) for x in log.read_text().splitlines()]
    # One record per command, given up or not, and 0 commands ran without one.
    recorded = Counter("/api/0" + r["path"] for r in records)
    assert recorded == Counter(
        "/api/0" + p
        for p in ("/trigger/layer/0/playlist/0/cue/0", CUE_GIVEN_UP, "/opacity/layer/0")
    ), records
    # Each command ran at most as often as it was recorded (Counter's <= is 3.10's).
    assert all(n <= recorded[path] for path, n in ran.items()), (ran, recorded)
    given_up = [(r["path"], r["outcome"], r["delivery"]) for r in records[1:]]
    assert given_up == [
        (CUE_GIVEN_UP, "abandoned", "sent_no_answer"),
        ("/opacity/layer/0", "abandoned", "sent_no_answer"),
    ], records


# -- a command given up in a pulled cable -------------------------------------------------------


def out_long(host: Host) -> None:
    """Keep the cable out until what was given up in it waits seconds for its next try: this
    machine still holds it and has sent it again 4 times unanswered (its retransmission timer
    doubles each time: 3 s or more to go). Returns at once when nothing is held."""
    until(
        lambda: not host.unsent() or host.retransmitting() >= 4,
        "the given-up command to be discarded, or retransmitted 4 times",
        60,
    )


def gone_from_this_machine(host: Host) -> None:
    """Wait until no socket toward `host` holds anything more to send: from then on nothing
    given up earlier can still arrive (delivered by now, or discarded)."""
    until(lambda: host.unsent() == [], "this machine's send queues toward the host to empty", 120)


def test_a_command_given_up_in_a_pulled_cable_never_runs_after_a_later_one(
    one_host: Host,
) -> None:
    app = one_host.process_simulator(plain=True)
    player = showctl.MediaPlayer(app.url, timeout=TIMEOUT, retries=0)
    layer = player.layer(0)
    layer.set_opacity(0.1)  # the kept connection
    one_host.unplug()
    with pytest.raises(showctl.Timeout) as given_up:
        layer.set_opacity(0.2)
    assert given_up.value.delivery == "sent_no_answer"
    out_long(one_host)
    one_host.plug()
    reader = showctl.MediaPlayer(app.url, timeout=TIMEOUT, retries=0)
    until(lambda: _answers(reader), "the application to answer through the cable again", 30)
    reader.close()
    layer.set_opacity(0.4)
    gone_from_this_machine(one_host)
    ran = [value(b) for b in app.posts()]
    # The picture on air is the last command's.
    assert ran[-1] == 0.4 and in_given_order(ran, [0.1, 0.2, 0.4]), ran
    player.close()


def with_backup(
    two_hosts: tuple[Host, Host],
) -> tuple[showctl.MediaPlayer, ProcessSimulator, Callable[[float], None]]:
    """A player whose backup (an application that runs what it reads) has taken 0.1."""
    primary_host, backup_host = two_hosts
    primary, backup = primary_host.simulator(), backup_host.process_simulator(plain=True)
    player = showctl.MediaPlayer(primary.url, mirrors=[backup.url], timeout=TIMEOUT, retries=0)
    layer = player.layer(0)
    layer.set_opacity(0.1)
    until(lambda: player.mirror_status()[0].sent == 1, "the backup to take 0.1")
    return player, backup, layer.set_opacity


def test_a_backup_never_runs_a_command_after_a_later_one(two_hosts: tuple[Host, Host]) -> None:
    player, backup, set_opacity = with_backup(two_hosts)
    backup_host = two_hosts[1]
    backup_host.unplug()
    set_opacity(0.2)  # goes out on the backup's kept connection, and times out
    until(lambda: player.mirror_status()[0].unanswered == 1, "0.2 to go unanswered", 30)
    set_opacity(0.3)
    out_long(backup_host)
    backup_host.plug()
    set_opacity(0.4)
    until(lambda: player.mirror_status()[0].pending == 0, "the backup to catch up", 60)
    gone_from_this_machine(backup_host)
    ran = [value(b) for b in backup.posts()]
    given = [0.1, 0.2, 0.3, 0.4]
    assert ran[-1] == 0.4 and in_given_order(ran, given), ran
    st = player.mirror_status()[0]
    player.close()
    assert st.sent + st.failed + st.unanswered + st.dropped == len(given), st
    assert st.dropped == 0 and st.unanswered == 1, st


# -- a frozen backup ------------------------------------------------------------------------------


def frozen_backup(
    two_hosts: tuple[Host, Host],
) -> tuple[showctl.MediaPlayer, ProcessSimulator, Callable[[float], None]]:
    player, backup, set_opacity = with_backup(two_hosts)
    backup.freeze()
    return player, backup, set_opacity


def test_a_frozen_backup_runs_every_command_in_the_order_given(
    two_hosts: tuple[Host, Host],
) -> None:
    player, backup, set_opacity = frozen_backup(two_hosts)
    given = [0.1, 0.2, 0.3, 0.4, 0.5]
    for v in given[1:]:
        set_opacity(v)
    until(lambda: player.mirror_status()[0].unanswered == 1, "0.2 to go unanswered", 30)
    backup.thaw()
    until(lambda: player.mirror_status()[0].pending == 0, "the backup to catch up", 30)
    player.close()
    serving(backup)
    # 0.2, given up while the backup was frozen, was in its buffers: it ran on thaw, before
    # the rest.
    ran = [value(b) for b in backup.posts()]
    assert ran == given, ran
    st = player.mirror_status()[0]
    assert (st.sent, st.unanswered, st.failed, st.dropped) == (4, 1, 0, 0), st


def test_closing_on_a_frozen_backup_drops_only_what_never_went_out(
    two_hosts: tuple[Host, Host],
) -> None:
    player, backup, set_opacity = frozen_backup(two_hosts)
    given = [0.1, 0.2, 0.3, 0.4]
    for v in given[1:]:
        set_opacity(v)
    until(lambda: player.mirror_status()[0].unanswered == 1, "0.2 to go unanswered", 30)
    player.close()  # gives up on the frozen backup after its timeout
    st = player.mirror_status()[0]
    backup.thaw()
    serving(backup)
    ran = [value(b) for b in backup.posts()]
    assert in_given_order(ran, given), ran
    # What went out is counted as sent or unanswered; dropped is only what never did.
    assert st.sent + st.unanswered + st.failed + st.dropped == len(given), st
    assert len(ran) <= st.sent + st.unanswered, (ran, st)
    assert st.dropped == len(given) - st.sent - st.unanswered - st.failed, st
    assert not set(ran) & set(given[len(given) - st.dropped :]), (ran, st)


# -- a confirmed call keeps its bound -------------------------------------------------------------


def timed_failure(call: Callable[[], object]) -> tuple[float, BaseException]:
    started = time.monotonic()
    with pytest.raises(showctl.ShowctlError) as raised:
        call()
    return time.monotonic() - started, raised.value


@pytest.mark.parametrize("retries", [0, 2])
def test_a_confirmed_call_on_a_link_gone_silent_keeps_its_bound(
    one_host: Host, retries: int
) -> None:
    app = one_host.simulator()
    proxy = FaultProxy((one_host.address, app.port), answers=1)  # the command's answer only
    try:
        player = showctl.MediaPlayer(proxy.url, timeout=TIMEOUT, retries=retries)
        took, error = timed_failure(lambda: player.layer(0).set_opacity(0.5, confirm=True))
        player.close()
    finally:
        proxy.close()
    bound = TIMEOUT * (retries + 1) + sum(min(0.1 * 2.0**a, 2.0) * 1.25 for a in range(retries))
    assert took < bound + 0.6, (took, bound)
    assert isinstance(error, showctl.NotConfirmedError), error
    assert [r.method for r in app.requests][:1] == ["POST"]


def test_a_confirmed_trigger_on_an_application_that_never_answers_keeps_its_bound(
    one_host: Host,
) -> None:
    app = one_host.simulator()
    proxy = FaultProxy((one_host.address, app.port), answers=0)  # accepts, never answers
    try:
        player = showctl.MediaPlayer(proxy.url, timeout=TIMEOUT)  # retries=2: the cue lookup
        took, error = timed_failure(lambda: player.trigger_playlist_cue(0, 1, confirm=True))
        player.close()
    finally:
        proxy.close()
    # The trigger's own failure, at once: the call does not wait for the lookup's retries.
    assert took < TIMEOUT + 0.6, took
    assert isinstance(error, showctl.Timeout) and error.delivery == "sent_no_answer", error
    assert "POST" in str(error), error
