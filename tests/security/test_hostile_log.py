"""`--log FILE` against what can stand at FILE or happen to it: a full disk (a small tmpfs)
never changes what the command did or how it is reported, and never leaves a torn line; a named
pipe, another user's file or a second name of a file is refused before anything is sent, without
blocking."""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import showctl

from tests.kit.clikit import showctl_cli as cli

ROOT = Path(__file__).resolve().parents[2]
PAGE = 4096  # tmpfs gives a file its space a page at a time


def after_show_reader() -> Callable[[str, str], list[dict[str, Any]]]:
    """`sent(path, log=...)`, the after-show reader of docs/show-day.md, as the page writes it."""
    text = (ROOT / "docs" / "show-day.md").read_text(encoding="utf-8")
    found = re.search(r"^def sent\(.*?^\s+return .*?$", text, re.S | re.M)
    assert found, "docs/show-day.md has its after-show reader, def sent(...)"
    space: dict[str, Any] = {}
    exec("import json\nfrom typing import Any\n" + found.group(0), space)
    reader: Callable[[str, str], list[dict[str, Any]]] = space["sent"]
    return reader


def posts(sim: showctl.Simulator) -> list[str]:
    return [r.path for r in sim.requests if r.method == "POST"]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (mounting needs root; .ci/run runs the suite as root)."""
    if os.geteuid() != 0:
        pytest.skip("a full disk is made by mounting a small tmpfs, which needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], check=True)
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def fill(disk: Path, log: Path, room: int) -> Path:
    """Pad `log` with whole records until `room` bytes are left in its last page, then fill
    the rest of the disk; the filler's path."""
    size = log.stat().st_size
    want = (size // PAGE + 2) * PAGE - room
    gap = want - size
    lengths = [200] * ((gap - 400) // 200)
    rest = gap - sum(lengths)
    lengths += [rest // 2, rest - rest // 2]
    with log.open("a", encoding="utf-8") as f:
        for length in lengths:
            f.write('{"path": "/pad", "x": "' + "x" * (length - 26) + '"}\n')
    assert log.stat().st_size == want
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * PAGE)
        except OSError as e:
            assert e.errno == errno.ENOSPC
    return filler


@pytest.mark.parametrize("room", [0, 40], ids=["no room", "room for part of a record"])
def test_a_full_disk_changes_nothing_the_command_did_or_reports(
    sim: showctl.Simulator, small_disk: Path, room: int
) -> None:
    sent = after_show_reader()
    log = small_disk / "show.jsonl"
    first = cli("--log", str(log), "mute", "1", "--url", sim.url)
    assert first.returncode == 0 and first.stderr == "", first.stderr
    filler = fill(small_disk, log, room)
    before = log.read_bytes()
    for args, code in ((("mute", "2"), 0), (("mute", "Nobody"), 1)):
        # The same command with a log on a disk with room: what it prints, how many records.
        elsewhere = small_disk.parent / f"{args[1]}.jsonl"
        reference = cli("--log", str(elsewhere), "--json", *args, "--url", sim.url)
        count = len(elsewhere.read_text(encoding="utf-8").splitlines())
        records = "1 record" if count == 1 else f"{count} records"
        done = cli("--log", str(log), "--json", *args, "--url", sim.url)
        assert done.returncode == reference.returncode == code, done.stderr
        assert "Logging error" not in done.stderr and "Traceback" not in done.stderr
        # With --json, stderr is one JSON object and the warning is in it (``warnings``):
        # alone after a success, beside the error's own fields after a failure.
        [line] = done.stderr.splitlines()
        told = json.loads(line)
        assert told.pop("warnings") == [
            f"--log: {records} of this command could not be written to {log} "
            "(No space left on device); the command itself is unaffected (its result and exit "
            "code are as if the record had been written)"
        ]
        if code == 0:
            assert done.stdout == reference.stdout and told == {}
        else:
            assert told == json.loads(reference.stderr), line
            assert told["delivery"] == "answered", line
        # The record cut short was taken back: the file is as it was.
        assert log.read_bytes() == before
    # Each command was sent once each time, as with the log on a disk with room.
    assert posts(sim) == [f"/api/0/mute/layer/{n}" for n in ("1", "2", "2", "Nobody", "Nobody")]
    filler.unlink()
    again = cli("--log", str(log), "mute", "3", "--url", sim.url)
    assert again.returncode == 0 and again.stderr == "", again.stderr
    assert sent("/mute/layer/3", log=str(log))[-1]["outcome"] == "ok"
    assert sent("/mute/layer/1", log=str(log))[-1]["outcome"] == "ok"
    assert sent("/mute/layer/2", log=str(log)) == []


def test_a_record_never_starts_on_a_line_left_unfinished(
    sim: showctl.Simulator, tmp_path: Path
) -> None:
    """A line another writer left unfinished (a crash mid-write) stays as it is, and the next
    record is a line of its own."""
    log = tmp_path / "show.jsonl"
    log.write_text('{"when": "2026-11-27T20:15', encoding="utf-8")
    log.chmod(0o600)
    done = cli("--log", str(log), "mute", "1", "--url", sim.url)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    torn, *records = log.read_text(encoding="utf-8").splitlines()
    assert torn == '{"when": "2026-11-27T20:15'
    assert records and all(json.loads(r)["path"] == "/mute/layer/1" for r in records), records


def test_a_named_pipe_is_refused_without_blocking(sim: showctl.Simulator, tmp_path: Path) -> None:
    """With no reader, opening the pipe to write would block until one comes; with a reader,
    every record would go to it. Refused both ways, before anything is sent."""
    pipe = tmp_path / "show.jsonl"
    os.mkfifo(pipe)
    done = cli("--log", str(pipe), "mute", "1", "--url", sim.url)
    assert done.returncode == 2, done.stderr
    assert f"--log: {pipe} is a named pipe, not a file; give a file" in done.stderr
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        done = cli("--log", str(pipe), "mute", "1", "--url", sim.url)
        assert done.returncode == 2, done.stderr
        assert f"--log: {pipe} is a named pipe, not a file" in done.stderr
        assert os.read(reader, 4096) == b""
    finally:
        os.close(reader)
    assert posts(sim) == []


def test_a_file_of_another_user_or_with_a_second_name_is_refused(
    sim: showctl.Simulator, tmp_path: Path
) -> None:
    log = tmp_path / "show.jsonl"
    log.write_text("")
    other = tmp_path / "other-name"
    os.link(log, other)
    done = cli("--log", str(log), "mute", "1", "--url", sim.url)
    assert done.returncode == 2, done.stderr
    assert f"--log: {log} has 2 names (hard links); give a file of its own" in done.stderr
    other.unlink()
    if os.geteuid() != 0:
        pytest.skip("giving the log file to another user (chown) needs root")
    os.chown(log, 65534, 65534)
    done = cli("--log", str(log), "mute", "1", "--url", sim.url)
    assert done.returncode == 2, done.stderr
    assert f"--log: {log} belongs to another user (uid 65534); give a file of your own" in (
        done.stderr
    )
    assert log.read_text() == "" and posts(sim) == []
