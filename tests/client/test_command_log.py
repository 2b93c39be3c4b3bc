"""The record of what was sent: one record per command on the ``showctl.commands`` logger (sync
and async, mirrors included), every field, never the key, nothing when the logger does not
want INFO, and the command line's ``--log FILE``."""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import showctl

from tests.kit.commandlog import CommandLog, commands_logged
from tests.kit.fakeserver import serve, serving, stall
from tests.kit.netkit import free_port

FIELDS = [
    "when",
    "operation",
    "method",
    "path",
    "application",
    "target",
    "layer",
    "outcome",
    "delivery",
    "status",
    "attempts",
    "latency_ms",
    "confirm",
    "read",
    "error",
]


@pytest.fixture
def kept() -> Iterator[CommandLog]:
    """The records of ``showctl.commands`` at INFO."""
    with commands_logged() as log:
        yield log


def check_common(line: dict[str, Any], url: str) -> None:
    assert list(line) == FIELDS
    assert line["method"] == "POST"
    assert line["application"] == url + "/api/0"
    # Always six digits of microseconds: one width, text order is time order, and
    # fromisoformat reads it on 3.9 and 3.10 too (they take only 3 or 6 digits).
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", line["when"]), line
    when = datetime.datetime.fromisoformat(line["when"].replace("Z", "+00:00"))
    assert when.utcoffset() == datetime.timedelta(0)
    now = datetime.datetime.now(datetime.timezone.utc)
    assert datetime.timedelta(0) <= now - when < datetime.timedelta(seconds=30)
    assert isinstance(line["latency_ms"], float) and line["latency_ms"] > 0


def test_one_record_per_command_with_every_field(kept: CommandLog, sim: showctl.Simulator) -> None:
    with showctl.MediaPlayer(sim.url) as player:
        player.layer(1).set_opacity(0.25, confirm=True)
        player.layers()  # a read: no record
        player.layer("Main").mute()
        player.request("POST", "/clear/layer/0")
    lines = kept.lines()
    assert [(x["operation"], x["path"], x["layer"]) for x in lines] == [
        ("set_opacity", "/opacity/layer/1", 1),
        ("mute", "/mute/layer/Main", "Main"),
        ("request", "/clear/layer/0", 0),
    ]
    for line in lines:
        check_common(line, sim.url)
        assert (line["outcome"], line["delivery"], line["status"]) == ("ok", "answered", None)
        assert line["attempts"] == 1 and line["error"] is None
    assert (lines[0]["confirm"], lines[0]["read"]) == ("confirmed", 0.25)
    assert (lines[1]["confirm"], lines[1]["read"]) == (None, None)
    # The fields are attributes of the record too, with their JSON types.
    record = kept.records[0]
    assert (record.operation, record.attempts, record.layer) == ("set_opacity", 1, 1)  # type: ignore[attr-defined]
    assert record.delivery == "answered" and record.confirm == "confirmed"  # type: ignore[attr-defined]


def test_async_commands_are_recorded_alike(kept: CommandLog, sim: showctl.Simulator) -> None:
    async def run() -> None:
        async with showctl.MediaPlayer(sim.url) as player:
            await asyncio.gather(
                player.layer(1).hide_async(),
                player.layer(2).set_opacity_async(0.5, confirm=True),
                player.clear_async(),
            )

    asyncio.run(run())
    lines = sorted(kept.lines(), key=lambda x: x["operation"])
    assert [(x["operation"], x["layer"], x["confirm"]) for x in lines] == [
        ("clear", None, None),
        ("hide", 1, None),
        ("set_opacity", 2, "confirmed"),
    ]
    for line in lines:
        check_common(line, sim.url)
        assert (line["outcome"], line["delivery"], line["attempts"]) == ("ok", "answered", 1)


def test_a_batch_and_the_mirrors_record_each_command(
    kept: CommandLog, sim: showctl.Simulator
) -> None:
    with showctl.Simulator() as backup:
        backup_url = backup.url
        with showctl.MediaPlayer(sim.url, mirrors=[backup_url]) as player:  # close() drains
            results = player.batch([showctl.cmd.mute(1), showctl.cmd.mute("Nobody")])
            assert [r.ok for r in results] == [True, False]
    by_app: dict[str, list[tuple[Any, ...]]] = {}
    for x in kept.lines():
        by_app.setdefault(x["application"], []).append((x["operation"], x["path"], x["status"]))
        assert x["target"] == ("mirror" if x["application"] == backup_url + "/api/0" else "primary")
    for app in (sim.url, backup_url):
        assert sorted(by_app[app + "/api/0"]) == [
            ("mute", "/mute/layer/1", None),
            ("mute", "/mute/layer/Nobody", 400),
        ]


def test_each_step_of_a_fade_is_a_command_of_its_own(
    kept: CommandLog, sim: showctl.Simulator
) -> None:
    with showctl.MediaPlayer(sim.url) as player:
        player.layer(1).set_opacity(0.0)
        player.layer(1).fade(1.0, 0.2, steps=4)
    sent = [r for r in sim.requests if r.method == "POST" and r.path == "/api/0/opacity/layer/1"]
    lines = kept.lines()
    assert [x["operation"] for x in lines] == ["set_opacity"] + ["fade"] * (len(sent) - 1)
    assert len(sent) >= 2 and lines[-1]["path"] == "/opacity/layer/1"


def test_a_read_back_that_never_shows_is_recorded(kept: CommandLog) -> None:
    with showctl.Simulator(apply_delay=2.0) as slow:
        with showctl.MediaPlayer(slow.url, confirm_timeout=0.1) as player:
            with pytest.raises(showctl.NotConfirmedError):
                player.layer(1).set_opacity(0.5, confirm=True)
    (line,) = kept.lines()
    assert (line["outcome"], line["delivery"], line["confirm"]) == (
        "error",
        "answered",
        "not_confirmed",
    )
    assert line["read"] == 1.0 and "read back" in line["error"]


def test_failures_say_whether_the_command_went_out(kept: CommandLog) -> None:
    refused = f"http://127.0.0.1:{free_port()}"
    with showctl.MediaPlayer(refused, retries=0) as player:
        with pytest.raises(showctl.ConnectError):
            player.layer(1).mute()
    with serving(stall()) as url:
        with showctl.MediaPlayer(url, timeout=0.3) as player:
            with pytest.raises(showctl.Timeout):
                player.layer(1).mute()
    never, hung = kept.lines()
    assert (never["outcome"], never["delivery"], never["attempts"]) == ("error", "not_sent", 1)
    assert (hung["outcome"], hung["delivery"], hung["attempts"]) == ("error", "sent_no_answer", 1)
    assert "timed out" in hung["error"]


def test_retried_commands_count_their_attempts(kept: CommandLog) -> None:
    answers = iter([(503, b"{}"), (503, b"{}"), (200, b"")])
    with serving(serve(lambda seen: next(answers))) as url:
        with showctl.MediaPlayer(url, retry_commands=True, retries=2) as player:
            player.layer(1).mute()
    (line,) = kept.lines()
    assert (line["outcome"], line["attempts"]) == ("ok", 3)


def test_the_key_is_never_in_a_record(kept: CommandLog) -> None:
    key = "s3cret-show-key"

    def echo(seen: Any) -> tuple[int, bytes]:
        return 400, json.dumps({"error": f"bad request, headers: {seen.headers}"}).encode()

    with serving(serve(echo)) as url:
        with showctl.MediaPlayer(url, api_key=key) as player:
            with pytest.raises(showctl.BadRequestError):
                player.layer(1).mute()
    with serving(serve(lambda seen: (200, b""))) as url:
        with showctl.MediaPlayer(url, api_key=key) as player:
            player.request("POST", f"/clear/layer/{key}")  # the key where none belongs
    echoed, in_path = kept.records
    for record in (echoed, in_path):
        text = record.getMessage()
        assert key not in text and key not in repr(record.__dict__)
    assert "Bearer ***" in json.loads(echoed.getMessage())["error"]  # the echo, scrubbed
    assert json.loads(in_path.getMessage())["path"] == "/clear/layer/***"


def test_nothing_is_recorded_when_the_logger_does_not_want_info(sim: showctl.Simulator) -> None:
    with commands_logged(logging.WARNING) as handler:
        with showctl.MediaPlayer(sim.url) as player:
            player.layer(1).set_opacity(0.5, confirm=True)
            player.layer(1).mute()
    assert handler.records == []


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SHOWCTL_")}
    return subprocess.run(
        [sys.executable, "-m", "showctl", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=environ,
    )


def test_cli_log_appends_one_json_line_per_command(sim: showctl.Simulator, tmp_path: Path) -> None:
    log = tmp_path / "show.jsonl"
    old = os.umask(0o022)
    try:
        assert cli("--log", str(log), "mute", "1", "--url", sim.url).returncode == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    done = cli("opacity", "2", "0.5", "--url", sim.url, "--log", str(log))
    assert done.returncode == 0, done.stderr
    failed = cli("--log", str(log), "mute", "Nobody", "--url", sim.url)
    assert failed.returncode == 1
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [(x["operation"], x["layer"], x["outcome"], x["delivery"]) for x in lines] == [
        ("mute", 1, "ok", "answered"),
        ("set_opacity", 2, "ok", "answered"),
        ("mute", "Nobody", "error", "answered"),
    ]
    for x in lines:
        check_common(x, sim.url)


def test_cli_log_refuses_a_symbolic_link(sim: showctl.Simulator, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("")
    link = tmp_path / "show.jsonl"
    link.symlink_to(target)
    done = cli("--log", str(link), "mute", "1", "--url", sim.url)
    assert done.returncode == 2
    assert "symbolic link" in done.stderr
    assert target.read_text() == ""
    assert [r for r in sim.requests if r.method == "POST"] == []
