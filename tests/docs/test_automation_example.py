"""examples/automation.py: on its own simulators, and against a URL with a backup mirror."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import showctl

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "automation.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWCTL_")}
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--interval", "0.05", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_on_its_own_simulators() -> None:
    result = run()
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for line in [
        "batch: 5 ok, 0 failed",
        "event: started Main countdown_10s.mov",
        "confirmed: 'Countdown' plays on 'Main'",
        "overlay at 0.75",
        "fade done: 'Lower Third/Left' at 0",
        "event: time_remaining Main <= 1 s",
        "event: stopped Main countdown_10s.mov",
        "failed 0, unanswered 0, dropped 0",
    ]:
        assert line in out, out


def test_against_a_url_with_a_backup_and_a_dead_mirror() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    with showctl.Simulator(strict=True) as main, showctl.Simulator(strict=True) as backup:
        result = run("--url", main.url, "--mirror", backup.url, "--mirror", dead)
        assert result.returncode == 1, result.stdout + result.stderr
        assert "confirmed: 'Countdown' plays on 'Main'" in result.stdout
        assert f"mirror {dead}/api/0: sent 0" in result.stdout
        # The backup was kept in step with the main machine.
        with showctl.MediaPlayer(main.url) as a, showctl.MediaPlayer(backup.url) as b:
            assert [(x.name, x.opacity, x.is_hidden) for x in a.layers()] == [
                (x.name, x.opacity, x.is_hidden) for x in b.layers()
            ]
            item_a = a.layer("Main").transport_state().playing_item
            item_b = b.layer("Main").transport_state().playing_item
            assert item_a is not None and item_b is not None and item_a.name == item_b.name
