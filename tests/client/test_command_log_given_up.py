"""A command the caller gives up before its outcome still has its one record on
``showctl.commands``: an ``asyncio`` task cancelled by ``wait_for``, a blocking call and the
command line interrupted by Ctrl-C. The record says ``abandoned`` with ``delivery`` as it stood
(``sent_no_answer`` once the command went out, ``not_sent`` when nothing of it did), and its
timestamp has the fixed width every record has. Counted against what the server received."""

from __future__ import annotations

import asyncio
import datetime
import json
import re
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import showctl

from tests.kit.clikit import env
from tests.kit.commandlog import CommandLog, commands_logged
from tests.kit.fakeserver import FakeServer, stall
from tests.kit.netkit import posix_signals, sigint_default
from tests.kit.wait import until, until_async

WHEN = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


@pytest.fixture
def kept() -> Iterator[CommandLog]:
    with commands_logged() as log:
        yield log


def check_abandoned(line: dict[str, Any], path: str, delivery: str, attempts: int) -> None:
    assert (line["outcome"], line["delivery"], line["path"]) == ("abandoned", delivery, path), line
    assert (line["attempts"], line["status"], line["target"]) == (attempts, None, "primary"), line
    assert "given up" in line["error"], line
    assert WHEN.match(line["when"]), line
    # Read on every supported Python (3.9 and 3.10 take only 3 or 6 digits).
    datetime.datetime.fromisoformat(line["when"].replace("Z", "+00:00"))


def test_a_command_cancelled_after_it_went_out_is_recorded(kept: CommandLog) -> None:
    with FakeServer(stall()) as server:
        player = showctl.MediaPlayer(server.url, timeout=30, retries=0)

        async def give_up() -> None:
            call = player.layer(0).trigger_async(0, "Abandoned")
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(call, 0.5)

        asyncio.run(give_up())
        # The application has it: it may run it.
        assert len(server.requests) == 1 and server.requests[0].method == "POST"
        player.close()
    (line,) = kept.lines()
    check_abandoned(line, "/trigger/layer/0/playlist/0/cue/Abandoned", "sent_no_answer", 1)
    assert line["operation"] == "trigger"


def test_a_command_cancelled_before_it_went_out_is_recorded_not_sent(kept: CommandLog) -> None:
    # One connection: the second command waits for it, and is given up while waiting.
    with FakeServer(stall()) as server:
        player = showctl.MediaPlayer(server.url, timeout=30, retries=0, max_connections=1)

        async def give_up() -> None:
            first = asyncio.ensure_future(player.layer(0).mute_async())
            await until_async(lambda: server.requests, "the first to take the connection")
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(player.layer(1).mute_async(), 0.5)
            first.cancel()
            with pytest.raises(asyncio.CancelledError):
                await first

        asyncio.run(give_up())
        assert [r.path for r in server.requests] == ["/api/0/mute/layer/0"]
        player.close()
    lines = kept.lines()
    by_path = {line["path"]: line for line in lines}
    assert len(lines) == 2, lines
    check_abandoned(by_path["/mute/layer/0"], "/mute/layer/0", "sent_no_answer", 1)
    check_abandoned(by_path["/mute/layer/1"], "/mute/layer/1", "not_sent", 0)


BLOCKING = """
import logging, sys
import showctl
journal = logging.FileHandler(sys.argv[2], encoding="utf-8")
journal.setFormatter(logging.Formatter("%(message)s"))
logging.getLogger("showctl.commands").addHandler(journal)
logging.getLogger("showctl.commands").setLevel(logging.INFO)
player = showctl.MediaPlayer(sys.argv[1], timeout=60, retries=0)
print("sending", flush=True)
player.layer(0).set_opacity(0.34)
"""


def interrupted(argv: list[str], server: FakeServer) -> subprocess.CompletedProcess[str]:
    """Run `argv`, and send it SIGINT (Ctrl-C) once the server has its command."""
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        preexec_fn=sigint_default,
    )
    try:
        until(lambda: server.requests or proc.poll() is not None, "the command to arrive")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@posix_signals
def test_a_blocking_call_interrupted_by_ctrl_c_leaves_its_record(tmp_path: Path) -> None:
    log = tmp_path / "show.jsonl"
    with FakeServer(stall()) as server:
        done = interrupted(
            [sys.executable, "-c", textwrap.dedent(BLOCKING), server.url, str(log)], server
        )
        assert len(server.requests) == 1
    assert "KeyboardInterrupt" in done.stderr, done.stderr
    (line,) = records(log)
    check_abandoned(line, "/opacity/layer/0", "sent_no_answer", 1)


@posix_signals
def test_the_command_line_interrupted_by_ctrl_c_leaves_its_record(tmp_path: Path) -> None:
    log = tmp_path / "show.jsonl"
    with FakeServer(stall()) as server:
        argv = [sys.executable, "-m", "showctl", "opacity", "0", "0.34"]
        done = interrupted(
            [*argv, "--url", server.url, "--timeout", "60", "--log", str(log)], server
        )
        assert [r.body for r in server.requests] == [b'{"value":0.34}']
    assert done.returncode == 130, done.stderr
    (line,) = records(log)
    check_abandoned(line, "/opacity/layer/0", "sent_no_answer", 1)
    assert line["operation"] == "set_opacity"


@pytest.mark.parametrize("mirror_answers", [True, False])
def test_close_returns_once_every_mirror_record_is_written(mirror_answers: bool) -> None:
    """The show ends with ``close()`` and then the handler is removed: nothing of the mirrors'
    is lost, whether the backup answers late or closing gives up on it."""
    with showctl.Simulator() as primary, showctl.Simulator() as slow, FakeServer(stall()) as stuck:
        slow.delay(0.3)
        backup = slow.url if mirror_answers else stuck.url
        for _ in range(3):
            with commands_logged() as kept:  # removed as soon as close() returns
                player = showctl.MediaPlayer(primary.url, mirrors=[backup], timeout=0.5)
                player.layer(0).mute()
                player.close()
            lines = kept.lines()
            by_target = {line["target"]: line for line in lines}
            assert len(lines) == 2 and set(by_target) == {"primary", "mirror"}, lines
            mirror = by_target["mirror"]
            assert mirror["application"] == backup + "/api/0" and mirror["path"] == "/mute/layer/0"
            if mirror_answers:
                assert (mirror["outcome"], mirror["delivery"]) == ("ok", "answered"), mirror
            else:
                # Timed out, or given up by close() (whichever came first), once sent: it may
                # run, and the record says so.
                assert mirror["outcome"] in ("error", "abandoned"), mirror
                assert mirror["delivery"] == "sent_no_answer", mirror
