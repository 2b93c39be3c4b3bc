"""``showctl osc`` as a subprocess: what it prints (escaped: text from the network never reaches
the terminal raw), its passcode from the environment, its usage errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import showctl

from tests.kit import clikit, osckit
from tests.kit.netkit import sigint_default


@contextmanager
def osc_cli(*args: str, **environ: str) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "showctl", "osc", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clikit.env(**environ),
        preexec_fn=sigint_default,
    )
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    text = proc.stdout.readline()
    assert text, f"the command ended: {proc.stderr.read() if proc.stderr else ''}"
    return text


HOSTILE = "Lo\x1b[31mwer\u202e"


def test_json_prints_one_escaped_line_per_message(sim: showctl.Simulator) -> None:
    with osc_cli("--media", sim.url, "--json") as proc:
        first = json.loads(line(proc))
        assert first["host"] == "127.0.0.1" and first["allow"] == ["127.0.0.0/8", "::1/128"]
        desk = osckit.udp(first["port"])
        desk.send_message("/showctl/layer/0/mute", [])
        desk.send_message("/showctl/layer/mute", [HOSTILE])
        ok, failed = line(proc), line(proc)
        proc.terminate()
        assert proc.wait(timeout=10) == 0
    for text in (ok, failed):
        assert "\x1b" not in text and "\u202e" not in text, repr(text)
    assert json.loads(ok)["status"] == "ok"
    record = json.loads(failed)
    # The strict simulator knows no such layer: the application answered 400.
    assert record["args"] == [HOSTILE] and record["status"] == "error", record
    assert record["delivery"] == "answered"
    paths = [r.path for r in sim.requests if r.method == "POST"]
    assert paths == ["/api/0/mute/layer/0", "/api/0/mute/layer/Lo%1B%5B31mwer%E2%80%AE"], paths


def test_text_lines_say_what_happened_and_the_passcode_comes_from_the_environment(
    sim: showctl.Simulator,
) -> None:
    with osc_cli("--media", sim.url, SHOWCTL_OSC_PASSCODE="s3cret") as proc:
        header = [line(proc) for _ in range(5)]
        port = int(header[0].split(":")[1].split()[0])
        assert header[0] == f"OSC bridge on 127.0.0.1:{port} (UDP and TCP)\n"
        assert "passcode: required (from $SHOWCTL_OSC_PASSCODE)" in header[3]
        desk = osckit.udp(port)
        desk.send_message("/showctl/layer/0/hide", ["s3cret"])
        desk.send_message("/showctl/layer/0/hide", [HOSTILE])
        ok, refused = line(proc), line(proc)
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert ok.startswith("udp 127.0.0.1:") and ok.endswith(
        "/showctl/layer/0/hide -> ok (answered)\n"
    ), ok
    assert "-> refused (not_sent): wrong or missing passcode" in refused, refused
    assert "s3cret" not in ok + refused + out + err
    assert [r.path for r in sim.requests] == ["/api/0/hide/layer/0"]


def test_usage_errors() -> None:
    result = clikit.showctl_cli("osc")
    assert result.returncode == 2
    assert "no media application: pass --media URL" in clikit.one_error_line(result)
    result = clikit.showctl_cli(
        "osc", "--url", "http://127.0.0.1:1", "--media", "http://127.0.0.1:2"
    )
    assert result.returncode == 2
    assert "--url and --media name two media applications" in clikit.one_error_line(result)
    result = clikit.showctl_cli("osc", "--media", "http://127.0.0.1:1", "--allow", "nope")
    assert result.returncode == 2
    assert 'allow[0]: "nope" is not an IP address' in clikit.one_error_line(result)


def test_allow_takes_several_senders(sim: showctl.Simulator) -> None:
    with osc_cli(
        "--media", sim.url, "--json", "--allow", "10.0.0.0/8", "127.0.0.1", "--allow", "::1"
    ) as proc:
        first = json.loads(line(proc))
    assert first["allow"] == ["10.0.0.0/8", "127.0.0.1/32", "::1/128"]
