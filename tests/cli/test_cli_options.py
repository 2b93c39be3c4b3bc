"""The command line's conventions: one set of connection options for every command that
connects, made from the clients' own declaration of their options; messages in command-line
syntax; the help without a command; a suggestion for a mistyped command; watches that print
the current state first; the exit codes of docs/cli.md; one-line 401, timeout and refused
messages."""

from __future__ import annotations

import inspect
import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import showctl
from pytest_httpserver import HTTPServer
from showctl import _core

from tests.kit.certkit import Cert
from tests.kit.clikit import COMMANDS, env, one_error_line, showctl_cli
from tests.kit.fakeserver import late, serving
from tests.kit.netkit import free_port
from tests.kit.scripts import script

ROOT = Path(__file__).resolve().parents[2]
# Every command but the two that start a server of their own (feed has its own options).
CONNECTING = [c for c in COMMANDS if c not in ("simulate", "demo")] + ["probe", "record"]
CONNECTION_FLAGS = [
    "--url",
    "--api-key",
    "--timeout",
    "--retries",
    "--tls-fingerprint",
    "--ca-cert",
    "--insecure",
]


# --- one declaration -------------------------------------------------------------------------


def test_the_constructors_take_exactly_the_declared_options() -> None:
    declared = _core._client_options()
    for cls in (showctl.MediaPlayer, showctl.Scoreboard):
        params = inspect.signature(cls).parameters
        mine = [o for o in declared if cls.__name__ in o["classes"]]
        assert list(params) == [o["name"] for o in mine], cls
        for o in mine:
            p = params[o["name"]]
            kind = p.POSITIONAL_OR_KEYWORD if o["positional"] else p.KEYWORD_ONLY
            assert p.kind == kind, o["name"]
            assert repr(p.default) == o["default"], o["name"]
            assert o["doc"] and o["type"], o


def test_every_declared_option_has_its_flag_on_every_connecting_command() -> None:
    flags = [o["cli"] for o in _core._client_options() if o["cli"]]
    assert set(CONNECTION_FLAGS) <= set(flags)
    for command in CONNECTING:
        result = showctl_cli(command, "--help")
        assert result.returncode == 0, result.stderr
        for flag in flags:
            assert flag in result.stdout, (command, flag)


def test_a_range_declared_once_refuses_on_the_command_line_and_in_python(
    sim: showctl.Simulator,
) -> None:
    result = showctl_cli("layers", "--url", sim.url, "--retries", "11")
    assert result.returncode == 2
    assert "--retries: must be between 0 and 10, got 11" in one_error_line(result)
    with pytest.raises(ValueError, match="retries: must be between 0 and 10, got 11"):
        showctl.MediaPlayer(sim.url, retries=11)
    with pytest.raises(ValueError, match="max_body: must be a positive number of bytes"):
        showctl.Scoreboard(sim.url, max_body=0)


def test_every_environment_variable_and_option_is_in_docs_cli_md() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for o in _core._client_options():
        if o["cli"]:
            assert f"`{o['cli']}" in text, o["cli"]
        for variable in o["env"]:
            assert variable in text, variable


def test_docs_cli_md_has_the_generated_row_of_each_option() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = [row for row in script("gen_stubs").options_rows() if row not in text]
    assert missing == [], "run python scripts/gen_stubs.py:\n" + "\n".join(missing)


def test_the_stub_documents_each_constructor_parameter() -> None:
    stub = (ROOT / "python" / "showctl" / "_core.pyi").read_text(encoding="utf-8")
    assert "Create a client. Client for" not in stub
    for cls in ("MediaPlayer", "Scoreboard"):
        section = stub.split(f"class {cls}(", 1)[1].split("\nclass ", 1)[0]
        new = section.split("def __new__(", 1)[1].split('"""', 2)[1]
        for o in _core._client_options():
            if cls in o["classes"]:
                assert f"\n            {o['name']}: " in new, (cls, o["name"])


# --- the same options everywhere, in command-line syntax -------------------------------------


def test_a_pin_on_the_command_line_works_for_scores_and_the_tls_error_says_the_flag(
    expired: Cert, expired_server: HTTPServer
) -> None:
    url = f"https://127.0.0.1:{expired_server.port}"
    refused = showctl_cli("scores", "--url", url, "--timeout", "5")
    assert refused.returncode == 1
    line = one_error_line(refused)
    assert f"--tls-fingerprint {expired.fingerprint}" in line, line
    assert "--insecure" in line and "tls_fingerprint=" not in line and "verify=" not in line
    pinned = showctl_cli("scores", "--url", url, "--tls-fingerprint", expired.fingerprint)
    assert pinned.returncode == 0, pinned.stderr
    assert pinned.stdout.startswith("Hockey")


def test_a_pin_for_an_http_url_is_refused_in_cli_syntax_without_a_run_of_spaces(
    sim: showctl.Simulator,
) -> None:
    pin = "sha256:" + "ab" * 32
    with pytest.raises(ValueError) as error:
        showctl.MediaPlayer(sim.url, tls_fingerprint=pin)
    assert "  " not in str(error.value)
    result = showctl_cli("layers", "--url", sim.url, "--tls-fingerprint", pin)
    assert result.returncode == 2
    line = one_error_line(result)
    assert line.startswith("showctl: error: --tls-fingerprint: "), line


def test_feed_refuses_url_and_names_its_own_options() -> None:
    for args in (("feed", "--url", "http://127.0.0.1:1"), ("--url", "http://127.0.0.1:1", "feed")):
        result = showctl_cli(*args, "--media", "http://127.0.0.1:1")
        assert result.returncode == 2, args
        assert "--media" in one_error_line(result)


# --- conventions -----------------------------------------------------------------------------


def test_bare_showctl_prints_the_help_and_exits_0() -> None:
    result = showctl_cli()
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: showctl")
    assert "layers" in result.stdout and result.stderr == ""


def test_a_mistyped_command_gets_a_suggestion() -> None:
    result = showctl_cli("layrs")
    assert result.returncode == 2
    assert "did you mean layers?" in one_error_line(result)
    far = showctl_cli("zzzzzz")
    assert far.returncode == 2 and "did you mean" not in far.stderr


def _first_line(proc: subprocess.Popen[str], timeout: float) -> str:
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stdout is not None
    stdout = proc.stdout
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    return lines.get(timeout=timeout)


@pytest.mark.parametrize("json_output", [False, True])
def test_transport_watch_prints_the_current_state_first(
    sim: showctl.Simulator, json_output: bool
) -> None:
    args = ["transport", "--watch", "--url", sim.url, *(["--json"] if json_output else [])]
    proc = subprocess.Popen(
        [sys.executable, "-m", "showctl", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    try:
        # Nothing changes: only the current state can be printed.
        first = _first_line(proc, timeout=30)
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    if json_output:
        event = json.loads(first)
        assert event["kind"] == "current" and event["layer_index"] == 0
        assert event["current"] is not None
    else:
        assert first.split()[:3] == ["LAYER", "NAME", "STATE"]


def test_a_missing_and_a_malformed_workspace_exit_with_the_same_code(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    missing = showctl_cli("simulate", "--workspace", str(tmp_path / "missing.json"))
    malformed = showctl_cli("simulate", "--workspace", str(bad))
    assert missing.returncode == malformed.returncode == 2
    assert "missing.json" in one_error_line(missing)
    assert "bad.json" in one_error_line(malformed)


def test_a_401_says_whether_a_key_was_sent_and_how_to_pass_one() -> None:
    with showctl.Simulator(api_key="k3y", strict=True) as sim:
        none = one_error_line(showctl_cli("layers", "--url", sim.url))
        assert "no API key was sent" in none
        assert "--api-key" in none and "SHOWCTL_API_KEY" in none
        wrong = showctl_cli("layers", "--url", sim.url, "--api-key", "nope")
        assert "the API key from --api-key was refused" in one_error_line(wrong)
        from_env = showctl_cli("layers", "--url", sim.url, environ=env(SHOWCTL_API_KEY="nope"))
        assert "the API key from SHOWCTL_API_KEY was refused" in one_error_line(from_env)
        assert "nope" not in wrong.stderr + from_env.stderr


def test_a_timeout_after_retries_names_the_attempts() -> None:
    with serving(late(10.0)) as url:
        result = showctl_cli("layers", "--url", url, "--timeout", "0.2", "--retries", "2")
    assert result.returncode == 1
    assert "(3 attempts of 0.2 s)" in one_error_line(result)
    with serving(late(10.0)) as url:
        player = showctl.MediaPlayer(url, timeout=0.2, retries=1)
        with pytest.raises(showctl.Timeout, match=r"\(2 attempts of 0\.2 s\)"):
            player.layers()


def test_a_refused_connection_is_one_plain_line() -> None:
    port = free_port()
    result = showctl_cli("layers", "--url", f"http://127.0.0.1:{port}", "--retries", "0")
    assert result.returncode == 1
    line = one_error_line(result)
    assert line.startswith(
        f"showctl: cannot connect to http://127.0.0.1:{port}: connection refused"
    )
    assert "os error" not in line and "tcp connect" not in line and "client error" not in line
