"""What a type checker and an async framework see of showctl: every exported name has a known
type for pyright (``--verifytypes``), docs/testing.md's cue sheet passes pyright's strict mode,
the exceptions' attributes are precisely typed, the ``_async`` twins are coroutine functions
to asyncio (and to ``inspect`` from 3.10), their tracebacks name files that exist, and the
constructors have signatures on every Python.

pyright's checker runs from basedpyright (the test extra), which ships it in its wheel."""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import os
import pydoc
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
import showctl
from pytest_examples import find_examples

from tests.kit.netkit import free_port

ROOT = Path(__file__).resolve().parents[2]
PYRIGHT = shutil.which("basedpyright", path=str(Path(sys.executable).parent))


def pyright(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert PYRIGHT is not None, "basedpyright (the test extra) is not installed next to Python"
    # `--verifytypes` looks for the package with the `python` on PATH (it ignores
    # `--pythonpath`): this one first, however pytest was started.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    environ = {**os.environ, "PATH": path}
    return subprocess.run(
        [PYRIGHT, "--pythonpath", sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env=environ,
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
    """To asyncio on every Python (`_is_coroutine`, asyncio's mark for a coroutine function that
    is not a Python function: APScheduler asks asyncio). To `inspect` on CPython 3.10 and later:
    CPython 3.9's `inspect.iscoroutinefunction` accepts real Python functions only, and a twin
    is a native callable (`AsyncTwin`, binding/src/jobs.rs), so that its arguments are checked
    at the call."""
    assert len(TWINS) >= 70, TWINS
    twins = {
        twin: getattr(getattr(showctl, twin.split(".")[0]), twin.split(".")[1]) for twin in TWINS
    }
    assert [twin for twin, f in twins.items() if not asyncio.iscoroutinefunction(f)] == []
    expected = sys.version_info >= (3, 10)
    assert [t for t, f in twins.items() if inspect.iscoroutinefunction(f) != expected] == []


def test_a_scheduler_that_asks_asyncio_awaits_a_twin_and_the_cue_is_sent() -> None:
    """What APScheduler's AsyncIOScheduler does with a job: await it when asyncio says it is a
    coroutine function, else call it (and a twin called so sends nothing: "coroutine ... was
    never awaited")."""

    async def run_job(job: object, *args: object) -> None:
        assert callable(job)
        if asyncio.iscoroutinefunction(job):
            await job(*args)
        else:
            job(*args)

    async def show(url: str) -> None:
        async with showctl.MediaPlayer(url) as player:
            await run_job(player.trigger_playlist_cue_async, "Opening", "Countdown")
            await run_job(player.layer("Main").set_opacity_async, 0.5)

    with showctl.Simulator() as sim:
        asyncio.run(show(sim.url))
        assert [r.path for r in sim.requests if r.method == "POST"] == [
            "/api/0/trigger/playlist/Opening/cue/Countdown",
            "/api/0/opacity/layer/Main",
        ]


def test_an_async_calls_traceback_names_files_that_exist() -> None:
    async def fail() -> None:
        async with showctl.MediaPlayer(f"127.0.0.1:{free_port()}", retries=0) as player:
            await player.layers_async()

    with pytest.raises(showctl.ConnectError) as failed:
        asyncio.run(fail())
    files = [frame.filename for frame in traceback.extract_tb(failed.value.__traceback__)]
    assert any(Path(f).name == "_awaitable.py" for f in files), files
    assert [f for f in files if not Path(f).is_file()] == []


def test_the_constructors_have_signatures_on_every_python() -> None:
    """`inspect.signature`, `help()` and Jupyter's `?` show the constructors' parameters, on
    CPython 3.9 too (binding/src/signatures.rs)."""
    expected = {
        showctl.MediaPlayer: ("url", "mirrors", "confirm_timeout", "max_connections"),
        showctl.Scoreboard: ("url", "retries", "max_body", "max_connections"),
        showctl.Simulator: ("port", "workspace", "strict", "apply_delay"),
        showctl.Feed: ("media", "scoreboard", "venue", "defaults"),
    }
    for cls, names in expected.items():
        parameters = inspect.signature(cls).parameters
        assert [n for n in names if n not in parameters] == [], cls
        shown = pydoc.render_doc(cls, renderer=pydoc.plaintext)
        assert f"{names[0]}={parameters[names[0]].default!r}" in shown, cls
    assert str(inspect.signature(showctl.Scoreboard)) == (
        "(url=None, api_key=None, *, timeout=5.0, verify=True, ca_cert=None, "
        "tls_fingerprint=None, retries=2, retry_commands=False, max_body=None, "
        "max_connections=8)"
    )


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
            assert asyncio.iscoroutinefunction(bound)
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
