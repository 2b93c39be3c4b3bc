"""API keys on the command line: no command prints a key the application echoes in its data,
every key option has an environment and a file form, and a key given on the command line
(readable in /proc/PID/cmdline by every user) is warned about once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import showctl
from showctl.cli import keys
from showctl.cli.parser import build_parser

from tests.kit.clikit import env, lines_json, showctl_cli
from tests.kit.netkit import sigint_default

KEY = "cli-K3Y-echoed-4242"
ROOT = Path(__file__).resolve().parents[2]
DEFAULT_WORKSPACE = ROOT / "core" / "src" / "simulator" / "default_workspace.json"


def echoing_simulator(tmp_path: Path) -> showctl.Simulator:
    """A simulator requiring KEY whose layer "Main" is named after it and whose home team too."""
    text = DEFAULT_WORKSPACE.read_text(encoding="utf-8").replace('"Main"', f'"Main {KEY}"')
    workspace = tmp_path / "echo.json"
    workspace.write_text(text, encoding="utf-8")
    sim = showctl.Simulator(api_key=KEY, workspace=workspace).start()
    sim.set_sport("AustralianFootball")
    sim.set_score("team1Name", f"Home {KEY}")
    return sim


def feed_transport(environ: dict[str, str], *args: str) -> tuple[dict[str, Any], str]:
    """Run `showctl feed ARGS --json` until its first transport document; that document and
    the feed's stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "showctl", "feed", *args, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ,
        preexec_fn=sigint_default,
    )
    try:
        assert proc.stdout is not None
        url = json.loads(proc.stdout.readline())["url"]
        # `feed` prints its URL once each source answered or went stale.
        with urllib.request.urlopen(url + "transport.json", timeout=10) as r:
            doc: dict[str, Any] = json.load(r)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    return doc, err


def test_no_command_prints_a_key_the_application_echoes(tmp_path: Path) -> None:
    sim = echoing_simulator(tmp_path)
    try:
        venue = tmp_path / "venue.toml"
        venue.write_text(
            f'[sources.board]\nkind = "scoreboard"\nurl = "{sim.url}"\napi_key_env = "BOARD_KEY"\n'
            f'[sources.main]\nkind = "media"\nurl = "{sim.url}"\napi_key_env = "BOARD_KEY"\n',
            encoding="utf-8",
        )
        keyed = env(SHOWCTL_API_KEY=KEY, SHOWCTL_MEDIA_URL=sim.url, SHOWCTL_SCOREBOARD_URL=sim.url)
        runs = {
            "scores": showctl_cli("scores", environ=keyed),
            "scores --json": showctl_cli("scores", "--json", environ=keyed),
            "layers": showctl_cli("layers", environ=keyed),
            "layers --json": showctl_cli("layers", "--json", environ=keyed),
            "transport --json": showctl_cli("transport", "--json", environ=keyed),
            "status --once": showctl_cli(
                "status", "--venue", str(venue), "--once", environ=env(BOARD_KEY=KEY)
            ),
        }
        for name, done in runs.items():
            assert done.returncode == 0, (name, done.stderr)
            assert KEY not in done.stdout + done.stderr, (name, done.stdout)
            assert "***" in done.stdout, (name, done.stdout)
        # The data around the key, and the JSON, are intact.
        assert "Home ***" in runs["scores"].stdout
        names = [
            layer["name"]
            for layer in map(json.loads, runs["layers --json"].stdout.split("\n")[:-1])
        ]
        assert "Main ***" in names, names
    finally:
        sim.stop()


def test_every_key_option_has_a_file_and_an_environment_form(tmp_path: Path) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n", encoding="utf-8")
    key_file.chmod(0o600)
    with showctl.Simulator(api_key=KEY) as sim:
        from_file = showctl_cli("layers", "--url", sim.url, "--api-key-file", str(key_file))
        assert from_file.returncode == 0 and from_file.stderr == "", from_file.stderr
        wrong = tmp_path / "wrong"
        wrong.write_text("not-the-key-at-all\n", encoding="utf-8")
        wrong.chmod(0o600)
        refused = showctl_cli("layers", "--url", sim.url, "--api-key-file", str(wrong))
        assert "the API key from --api-key-file was refused" in refused.stderr, refused.stderr
        both = showctl_cli(
            "layers", "--url", sim.url, "--api-key", KEY, "--api-key-file", str(key_file)
        )
        assert both.returncode == 2 and "give the key one way, not both" in both.stderr
        missing = showctl_cli("layers", "--url", sim.url, "--api-key-file", str(tmp_path / "none"))
        assert missing.returncode == 2 and "--api-key-file: cannot read" in missing.stderr
        # The feed's sources: --media-api-key-file and SHOWCTL_MEDIA_API_KEY (no --api-key).
        for how, extra, environ in (
            ("file", ("--media-api-key-file", str(key_file)), env()),
            ("environment", (), env(SHOWCTL_MEDIA_API_KEY=KEY)),
        ):
            transport, err = feed_transport(environ, "--media", sim.url, *extra)
            assert transport["polled_at"] and not transport["stale"], (how, transport, err)
            assert "warning" not in err and KEY not in err, (how, err)
        # simulate's own key, from a file: it prints that requests need a key.
        assert "--api-key-file" in showctl_cli("simulate", "--help").stdout


def test_a_key_on_the_command_line_is_warned_about_once() -> None:
    with showctl.Simulator(api_key=KEY) as sim:
        done = showctl_cli("layers", "--url", sim.url, "--api-key", KEY)
        assert done.returncode == 0, done.stderr
        warnings = [line for line in done.stderr.splitlines() if "warning" in line]
        assert len(warnings) == 1, done.stderr
        assert "--api-key on the command line can be read by every user" in warnings[0]
        assert "--api-key-file FILE or set SHOWCTL_API_KEY instead" in warnings[0]
        assert KEY not in done.stderr
        # From the environment: no warning.
        quiet = showctl_cli("layers", "--url", sim.url, environ=env(SHOWCTL_API_KEY=KEY))
        assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr


@pytest.mark.parametrize(
    ("flag", "variable"),
    [
        ("--media-api-key", "SHOWCTL_MEDIA_API_KEY"),
        ("--scoreboard-api-key", "SHOWCTL_SCOREBOARD_API_KEY"),
    ],
)
def test_the_warning_names_the_sources_own_variable(
    flag: str, variable: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The feed's source keys: the warning names that source's variable, not the client's."""
    args = build_parser().parse_args(
        ["feed", "--media", "http://127.0.0.1:1", "--scoreboard", "http://127.0.0.1:2", flag, KEY]
    )
    keys.resolve(args)
    [warning] = capsys.readouterr().err.splitlines()
    assert f"pass {flag}-file FILE or set {variable} instead" in warning, warning
    assert KEY not in warning


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620], ids=lambda m: f"{m:04o}")
def test_a_key_file_others_may_read_is_refused_before_anything_is_sent(
    tmp_path: Path, mode: int
) -> None:
    """As ssh refuses a private key with permissions for the group or others: exit 2, the
    mode and the fix named, no request."""
    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n", encoding="utf-8")
    key_file.chmod(mode)
    with showctl.Simulator(api_key=KEY) as sim:
        done = showctl_cli("layers", "--url", sim.url, "--api-key-file", str(key_file))
        assert done.returncode == 2, done.stderr
        assert f"--api-key-file: {key_file} has mode {mode:04o} (" in done.stderr, done.stderr
        assert f"make it private with `chmod 600 {key_file}`" in done.stderr
        assert KEY not in done.stderr and sim.requests == []
        key_file.chmod(0o600)
        done = showctl_cli("layers", "--url", sim.url, "--api-key-file", str(key_file))
        assert done.returncode == 0 and done.stderr == "", done.stderr


def test_with_json_the_key_warning_is_inside_the_one_json_object_on_stderr() -> None:
    warning = "--api-key on the command line can be read by every user of this machine"
    with showctl.Simulator(api_key=KEY) as sim:
        done = showctl_cli("--json", "layers", "--url", sim.url, "--api-key", KEY)
        assert done.returncode == 0, done.stderr
        assert len(lines_json(done.stdout)) == 4  # the layers, as without the key warning
        [after] = lines_json(done.stderr)
        assert list(after) == ["warnings"] and after["warnings"][0].startswith(warning)
        # A failure: its error object carries the warning; nothing else is on stderr.
        failed = showctl_cli("--json", "layers", "--url", sim.url, "--api-key", "wrong-key")
        assert failed.returncode == 1
        [error] = lines_json(failed.stderr)
        assert error["type"] == "UnauthorizedError" and error["delivery"] == "answered"
        assert [w[: len(warning)] for w in error["warnings"]] == [warning]
        assert KEY not in failed.stderr and "wrong-key" not in failed.stderr


def test_with_json_a_logged_warning_is_inside_the_one_json_object_too() -> None:
    # A key shorter than 8 characters: the core logs a warning on the `showctl` logger, which
    # Python would print as a plain line before the JSON object.
    with showctl.Simulator(api_key="k3y") as sim:
        done = showctl_cli("--json", "layers", "--url", sim.url, environ=env(SHOWCTL_API_KEY="k3y"))
        assert done.returncode == 0, done.stderr
        [after] = lines_json(done.stderr)
        [warning] = after["warnings"]
        assert warning.startswith("the API key is 3 characters long")
        text = showctl_cli("layers", "--url", sim.url, environ=env(SHOWCTL_API_KEY="k3y"))
        assert text.stderr.startswith("the API key is 3 characters long"), text.stderr
