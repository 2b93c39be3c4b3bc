"""`showctl run FILE` (a TOML sequence: --dry-run checks every identifier and sends nothing,
--step waits for Enter before each command, --cooldown), `showctl look save FILE` and `showctl
look apply FILE`, against the simulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import showctl

from tests.kit.clikit import cli_in_process, lines_json

SEQUENCE = """
name = "opening"

[[step]]
command = "trigger_playlist_cue"
playlist_id = "Main Show"
cue_id = "Speaker Lower Third"
confirm = true

[[step]]
wait_until = "playing"
layer = "Lower Third/Left"
timeout = 5

[[step]]
wait = 0.1

[[step]]
command = "set_opacity"
layer = "Lower Third/Left"
value = 0.5
confirm = true
"""


def posts(sim: showctl.Simulator) -> list[str]:
    return [r.path.removeprefix("/api/0") for r in sim.requests if r.method == "POST"]


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "show.toml"
    path.write_text(text)
    return str(path)


def test_run_plays_the_steps_in_order(sim: showctl.Simulator, tmp_path: Path) -> None:
    code, out, err = cli_in_process("--url", sim.url, "run", write(tmp_path, SEQUENCE))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("step 0  ok, answered  ")
    assert lines[2].startswith("step 2  ok  0.1")
    assert lines[-1] == "4 of 4 steps ran, each ok"
    assert posts(sim) == [
        "/trigger/playlist/Main%20Show/cue/Speaker%20Lower%20Third",
        "/opacity/layer/Lower%20Third%2FLeft",
    ]


def test_run_json_says_each_step(sim: showctl.Simulator, tmp_path: Path) -> None:
    code, out, _ = cli_in_process("--url", sim.url, "run", write(tmp_path, SEQUENCE), "--json")
    assert code == 0
    steps = lines_json(out)
    assert [s["step"] for s in steps] == [0, 1, 2, 3]
    assert [s["delivery"] for s in steps] == ["answered", None, None, "answered"]
    assert steps[3]["value"] == 0.5


def test_dry_run_checks_identifiers_and_sends_nothing(
    sim: showctl.Simulator, tmp_path: Path
) -> None:
    code, out, _ = cli_in_process("--url", sim.url, "run", write(tmp_path, SEQUENCE), "--dry-run")
    assert code == 0
    assert out.splitlines()[-1].startswith("dry run: nothing was sent; every layer, playlist")
    assert "step 3  Command('POST /opacity/layer/Lower%20Third%2FLeft" in out
    bad = SEQUENCE.replace('cue_id = "Speaker Lower Third"', 'cue_id = "Speaker Lower Thrid"')
    code, out, err = cli_in_process("--url", sim.url, "run", write(tmp_path, bad), "--dry-run")
    assert code == 1 and out == ""
    assert 'steps[0]: cue "Speaker Lower Thrid" is not in the application' in err
    assert posts(sim) == []


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ('command = "fire"', "steps[0]: command 'fire' is not one of showctl.cmd's"),
        ('command = "set_opacity"\nlayer = "Main"\nvalue = 2.0', "steps[0]: value: "),
        ('wait_until = "playing"\nlayer = "Main"', "steps[0]: timeout: a wait on the transport"),
        ("wait = -1", "steps[0]: seconds: must be"),
        ('wait = 1\ncommand = "mute"', "steps[0]: a step has one of command"),
    ],
)
def test_a_bad_step_is_refused_naming_it_before_anything_is_sent(
    sim: showctl.Simulator, tmp_path: Path, step: str, message: str
) -> None:
    code, _, err = cli_in_process("--url", sim.url, "run", write(tmp_path, f"[[step]]\n{step}\n"))
    assert code == 2
    assert message in err
    assert sim.requests == []


def test_a_failed_step_halts_and_the_exit_code_says_so(
    sim: showctl.Simulator, tmp_path: Path
) -> None:
    text = '[[step]]\ncommand = "request"\npath = "no/such"\n[[step]]\ncommand = "mute"\n'
    code, out, _ = cli_in_process("--url", sim.url, "run", write(tmp_path, text))
    assert code == 1
    assert "step 0  FAILED, answered" in out
    assert out.splitlines()[-1] == "stopped at step 0: 1 of 2 steps ran"
    assert posts(sim) == ["/no/such"]


def test_step_waits_for_enter_before_each_command(
    sim: showctl.Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompts: list[str] = []

    def enter(prompt: str) -> str:
        prompts.append(prompt)
        # Nothing of this cue was sent before its GO.
        assert len(posts(sim)) == len(prompts) - 1
        return ""

    monkeypatch.setattr("builtins.input", enter)
    code, _, _ = cli_in_process("--url", sim.url, "run", write(tmp_path, SEQUENCE), "--step")
    assert code == 0
    assert [p.split(":")[0] for p in prompts] == ["GO step 0", "GO step 3"]


def test_cooldown_refuses_a_repeat_within_the_run(sim: showctl.Simulator, tmp_path: Path) -> None:
    text = '[[step]]\ncommand = "mute"\nlayer = "Main"\n' * 2
    path = write(tmp_path, "halt_on_failure = false\n" + text)
    code, out, _ = cli_in_process("--url", sim.url, "run", path, "--cooldown", "30")
    assert code == 1
    assert "step 1  FAILED, not_sent" in out and "refused by the cooldown of 30 s" in out
    assert posts(sim) == ["/mute/layer/Main"]
    code, _, err = cli_in_process("--url", sim.url, "run", path, "--cooldown", "0")
    assert code == 2 and "--cooldown" in err


def test_look_save_and_apply(sim: showctl.Simulator, tmp_path: Path) -> None:
    path = str(tmp_path / "look.json")
    code, out, _ = cli_in_process("--url", sim.url, "look", "save", path)
    assert code == 0 and "not read back, so not in it: preset, effects" in out
    assert json.loads(Path(path).read_text())["format"] == "showctl.look/1"
    player = showctl.MediaPlayer(sim.url)
    player.layer("Main").hide()
    player.layer("Main").mute()
    sim.clear_requests()
    code, out, _ = cli_in_process("--url", sim.url, "look", "apply", path, "--only", "hidden")
    assert code == 0
    assert out.splitlines() == [
        "sent and confirmed: POST /unhide/layer/857CE06B-F9A2-4BE1-B55C-CA5DB3C7B88E",
        f"ok: 1 command sent and confirmed; the rest of hidden in {path} already matched",
    ]
    assert posts(sim) == ["/unhide/layer/857CE06B-F9A2-4BE1-B55C-CA5DB3C7B88E"]


def test_the_example_file_is_the_one_in_the_docs_and_runs(sim: showctl.Simulator) -> None:
    root = Path(__file__).resolve().parents[2]
    example = root / "examples" / "opening.toml"
    docs = (root / "docs" / "automation.md").read_text()
    assert "```toml\n" + example.read_text() + "```" in docs
    code, out, err = cli_in_process("--url", sim.url, "run", str(example), "--dry-run")
    assert (code, err) == (0, "") and posts(sim) == []
    code, out, err = cli_in_process("--url", sim.url, "run", str(example))
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "3 of 3 steps ran, each ok"
