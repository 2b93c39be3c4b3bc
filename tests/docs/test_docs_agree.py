"""What the guides say about the package matches the package: the README's error tree, the
testing guide's fixture, the example venue's keys, and where the ``_async`` twins are
introduced, the warning about blocking calls inside a coroutine."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
import showctl
import showctl.exceptions
from showctl.testing import SimulatorFactory

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_error_tree_names_every_exception() -> None:
    tree = re.search(r"```\nshowctl\.ShowctlError\n(.*?)```", README, re.DOTALL)
    assert tree, "README.md: the error tree is gone"
    named = set(re.findall(r"\b([A-Z]\w+(?:Error|Timeout)|Timeout)\b", tree.group(1)))
    classes = {
        name
        for name in showctl.exceptions.__all__
        if isinstance(getattr(showctl.exceptions, name), type)
        and issubclass(getattr(showctl.exceptions, name), showctl.ShowctlError)
        and name != "ShowctlError"
    }
    assert classes - named == set()


def test_the_testing_guide_calls_the_factory_as_it_is(
    showctl_simulator_factory: SimulatorFactory,
) -> None:
    """docs/testing.md shows the call; the fixture is that function, with those parameters."""
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    calls = re.findall(r"`showctl_simulator_factory\((.*?)\)`", text)
    assert calls, "docs/testing.md no longer shows how to call the factory"
    parts: list[str] = []
    for p in inspect.signature(showctl_simulator_factory).parameters.values():
        if p.kind is p.KEYWORD_ONLY and "*" not in parts:
            parts.append("*")
        parts.append(f"{p.name}={p.default!r}")
    for call in calls:
        assert call == ", ".join(parts)
    assert ".start(" not in text.split("## A cue sheet")[0]
    sim = showctl_simulator_factory(score_tick=0.05, strict=False)
    assert sim.running and sim.score_tick == 0.05 and not sim.strict


def test_the_example_venue_reads_its_keys_from_the_environment_as_the_readme_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    example = ROOT / "examples" / "venue.toml"
    text = example.read_text(encoding="utf-8")
    variables = set(re.findall(r'^api_key_env = "(\w+)"', text, flags=re.MULTILINE))
    assert variables, "examples/venue.toml reads no key from the environment"
    # The README's commands export each variable the file names, before they run.
    venue_block = re.search(r"```sh\n(export [^\n]*)\nshowctl simulate --venue", README)
    assert venue_block, "README.md: the venue commands do not export the keys first"
    exported = set(re.findall(r"(\w+)=", venue_block.group(1)))
    assert variables <= exported
    for name in variables:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="which is not set"):
        showctl.probe_venue(example)


@pytest.mark.parametrize("page", ["README.md", "docs/media.md", "docs/scoreboard.md"])
def test_where_the_twins_are_introduced_a_blocking_call_in_a_coroutine_is_warned_of(
    page: str,
) -> None:
    text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
    assert re.search(r"blocking (method|call).{0,120}?(stalls|holds) the event loop", text), page


def test_the_trace_of_set_opacity_opens_at_most_six_files_that_hold_what_it_names() -> None:
    """docs/architecture.md's trace of ``Layer.set_opacity``: at most six files, each there,
    and each ``Type::method`` it names of a type its file defines is a function of that file."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    trace = re.search(r"## Tracing `Layer\.set_opacity`.*?\n(?=## )", text, re.DOTALL)
    assert trace, "docs/architecture.md: the trace of Layer.set_opacity is gone"
    items = re.findall(r"^\d+\. `([^`]+)`:(.*?)(?=^\d+\. |^\n)", trace.group(0), re.M | re.S)
    assert 2 <= len(items) <= 6, [path for path, _ in items]
    checked = 0
    for path, words in items:
        source = (ROOT / path).read_text(encoding="utf-8")
        for owner, method in re.findall(r"`(\w+)::(\w+)`", words):
            if re.search(rf"\b(?:struct|enum|trait|impl(?:<[^>]*>)?)\s+{owner}\b", source):
                assert re.search(rf"\bfn {method}\b", source), f"{path}: no fn {owner}::{method}"
                checked += 1
    assert checked >= 4, checked
