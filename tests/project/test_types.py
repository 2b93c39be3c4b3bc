"""What a type checker and an async framework see of showctl: every exported name has a known
type for pyright (``--verifytypes``), docs/testing.md's cue sheet passes pyright's strict mode,
the exceptions' attributes are precisely typed, and the ``_async`` twins are coroutine
functions to ``inspect``.

pyright's checker runs from basedpyright (the test extra), which ships it in its wheel."""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import showctl
from pytest_examples import find_examples

ROOT = Path(__file__).resolve().parents[2]
PYRIGHT = shutil.which("basedpyright", path=str(Path(sys.executable).parent))


def pyright(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert PYRIGHT is not None, "basedpyright (the test extra) is not installed next to Python"
    return subprocess.run(
        [PYRIGHT, "--pythonpath", sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_every_exported_name_has_a_known_type(tmp_path: Path) -> None:
    done = pyright("--verifytypes", "showctl", "--ignoreexternal", "--outputjson", cwd=tmp_path)
    report = json.loads(done.stdout)["typeCompleteness"]
    unknown = [
        f"{s['name']}: {s['diagnostics'][0]['message'] if s['diagnostics'] else ''}"
        for s in report["symbols"]
        if not s["isTypeKnown"]
    ]
    assert unknown == []
    assert report["completenessScore"] == 1.0


def strict_check(tmp_path: Path, files: dict[str, str]) -> subprocess.CompletedProcess[str]:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "pyrightconfig.json").write_text(
        json.dumps({"typeCheckingMode": "strict", "pythonVersion": "3.9"}), encoding="utf-8"
    )
    return pyright(*files, cwd=tmp_path)


def test_the_cue_sheet_of_the_testing_guide_passes_pyright_strict(tmp_path: Path) -> None:
    blocks = {
        ex.prefix_settings().get("title"): ex.source
        for ex in find_examples(ROOT / "docs" / "testing.md")
    }
    assert "cue_sheet.py" in blocks and "test_cue_sheet.py" in blocks
    done = strict_check(
        tmp_path,
        {"cue_sheet.py": blocks["cue_sheet.py"], "test_cue_sheet.py": blocks["test_cue_sheet.py"]},
    )
    assert done.returncode == 0, done.stdout + done.stderr


EXCEPTION_USE = """
import showctl

def values(e: showctl.NotConfirmedError) -> float:
    if isinstance(e.expected, float) and isinstance(e.actual, float):
        return e.expected - e.actual
    if isinstance(e.actual, dict):
        return float(len(e.actual))
    return 0.0

def sport(e: showctl.SportMismatchError) -> str | None:
    return e.record.sport_mode or e.expected.__name__
"""


def test_the_exceptions_attributes_are_typed(tmp_path: Path) -> None:
    """With ``object`` attributes, ``e.record.sport_mode`` and the arithmetic fail to check."""
    source = "from __future__ import annotations\n" + EXCEPTION_USE
    done = strict_check(tmp_path, {"use.py": source})
    assert done.returncode == 0, done.stdout + done.stderr
    done = strict_check(
        tmp_path,
        {
            "wrong.py": "import showctl\ndef f(e: showctl.NotConfirmedError) -> float:\n"
            "    return e.expected + 1\n"
        },
    )
    assert done.returncode != 0, "a JSON value used as a float unchecked should not pass"


TWIN_CLASSES = (showctl.MediaPlayer, showctl.Layer, showctl.Scoreboard, showctl.TransportWatch)
TWINS = sorted(
    {
        f"{cls.__name__}.{name}"
        for cls in TWIN_CLASSES
        for name in dir(cls)
        if name.endswith("_async") and not name.startswith("watch")
    }
)


def test_the_async_twins_are_coroutine_functions() -> None:
    """CPython 3.9's inspect accepts only real functions (`AsyncTwin`, binding/src/jobs.rs): there
    the twins are not reported, and everything else about them holds."""
    assert len(TWINS) >= 70, TWINS
    reported = {
        twin: inspect.iscoroutinefunction(
            getattr(getattr(showctl, twin.split(".")[0]), twin.split(".")[1])
        )
        for twin in TWINS
    }
    expected = sys.version_info >= (3, 10)
    assert [twin for twin, is_coroutine in reported.items() if is_coroutine != expected] == []


def test_a_twin_checks_its_arguments_at_the_call() -> None:
    """As the native methods always did: nothing to await for a refusal."""
    with showctl.Simulator() as sim:
        layer = showctl.MediaPlayer(sim.url).layer("Main")
        with pytest.raises(ValueError, match="value: must be a finite number"):
            layer.set_opacity_async(1.5)
        assert sim.requests == []


def test_a_twin_keeps_its_signature_and_docstring() -> None:
    twin = showctl.MediaPlayer.trigger_playlist_cue_async
    assert twin.__name__ == "trigger_playlist_cue_async"
    assert twin.__doc__ and "POST /trigger/playlist" in twin.__doc__
    assert list(inspect.signature(twin).parameters) == ["self", "playlist_id", "cue_id", "confirm"]


def test_the_watches_stay_async_iterators() -> None:
    for watch in (
        showctl.MediaPlayer.watch_transport_async,
        showctl.Scoreboard.watch_async,
        showctl.Scoreboard.watch_events_async,
    ):
        assert not inspect.iscoroutinefunction(watch)


def test_a_twin_sends_and_returns_as_the_native_method() -> None:
    async def use(url: str) -> tuple[int, float]:
        async with showctl.MediaPlayer(url) as player:
            bound = player.layer("Main").set_opacity_async
            assert inspect.iscoroutinefunction(bound)
            await bound(0.25, confirm=True)
            with pytest.raises(ValueError, match="value: must be a finite number"):
                await player.layer("Main").set_opacity_async(1.5)
            return len(await player.layers_async()), await player.layer("Main").opacity_async()

    with showctl.Simulator() as sim:
        assert asyncio.run(use(sim.url)) == (4, 0.25)


def test_a_forgotten_await_names_the_method() -> None:
    """Each twin's coroutine carries its class and method (not the helper's name, ``run``), so
    the warning of a forgotten ``await`` says which call it was."""
    with showctl.Simulator() as sim, showctl.MediaPlayer(sim.url) as player:
        forgotten = player.layer("Main").set_opacity_async(0.5)
        assert forgotten.__qualname__ == "Layer.set_opacity_async"
        with pytest.warns(RuntimeWarning, match="'Layer.set_opacity_async' was never awaited"):
            del forgotten
            gc.collect()
        # Every twin, and the inherited ones under the class they are called on.
        named = {
            f"{cls.__name__}.{name}": getattr(cls, name).__qualname__
            for cls in (showctl.MediaPlayer, showctl.Scoreboard, showctl.Layer)
            for name in dir(cls)
            if (name.endswith("_async") and not name.startswith("watch")) or name == "aclose"
        }
        assert [k for k, v in named.items() if k != v] == []
        coroutine = player.probe_async()
        assert coroutine.__qualname__ == "MediaPlayer.probe_async"
        coroutine.close()


def test_a_twins_argument_errors_name_the_method() -> None:
    """A twin refuses a missing or unknown argument at the call, naming its class and method
    as the blocking method does."""
    with showctl.Simulator() as sim, showctl.MediaPlayer(sim.url) as player:
        layer = player.layer("Main")
        for name in ("set_opacity", "set_opacity_async"):
            missing = rf"^Layer\.{name}\(\) missing 1 required positional argument: 'value'$"
            with pytest.raises(TypeError, match=missing):
                getattr(layer, name)()
            unknown = rf"^Layer\.{name}\(\) got an unexpected keyword argument 'opacity'$"
            with pytest.raises(TypeError, match=unknown):
                getattr(layer, name)(opacity=0.5)
        # A twin of the base class, under the class it is called on.
        inherited = r"^MediaPlayer\.record_async\(\) missing 1 required positional argument: 'dir'$"
        with pytest.raises(TypeError, match=inherited):
            player.record_async()  # type: ignore[call-arg, unused-coroutine]
        assert sim.requests == []
