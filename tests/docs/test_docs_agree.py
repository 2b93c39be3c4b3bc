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


# A repository file as the trace names it: a path with a folder, ending in a source suffix.
TRACE_FILE = re.compile(r"^[\w.-]+(?:/[\w.-]+)+\.(?:rs|py|pyi|toml)$")
# A code name the trace cites: `name`, `module::name`, `Type::method`, `macro!`.
TRACE_NAME = re.compile(r"^[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*!?$")


def trace_steps(architecture: str) -> list[tuple[list[str], list[str]]]:
    """The numbered steps of architecture.md's trace of ``Layer.set_opacity``: for each, the
    repository files it names and the code names it cites (fenced blocks left out)."""
    trace = re.search(r"^## The trace: `Layer\.set_opacity.*?(?=^## )", architecture, re.M | re.S)
    assert trace, "docs/architecture.md: the trace of Layer.set_opacity is gone"
    text = re.sub(r"^\s*```.*?^\s*```", "", trace.group(0), flags=re.M | re.S)
    steps = re.split(r"^\d+\. ", text, flags=re.M)[1:]
    out = []
    for step in steps:
        spans = re.findall(r"`([^`\n]+)`", step)
        files = [s for s in spans if TRACE_FILE.match(s)]
        names = [s for s in spans if TRACE_NAME.match(s)]
        out.append((files, names))
    return out


def test_the_trace_of_set_opacity_names_at_most_twelve_files_that_hold_what_it_cites() -> None:
    """docs/architecture.md's trace of ``Layer.set_opacity``: every step names a file of the
    repository, at most twelve distinct files in all, and one step only opens the project's
    macro crate (one macro level of its own); each code name a step cites occurs, segment by
    segment, in that step's files, and each ``Type::method`` of a type those files define is a
    function of that type's ``impl`` or ``trait`` block."""
    steps = trace_steps((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert len(steps) >= 8, len(steps)
    named = {path for files, _ in steps for path in files}
    missing = sorted(path for path in named if not (ROOT / path).is_file())
    assert missing == [], f"docs/architecture.md's trace names files that are not there: {missing}"
    assert len(named) <= 12, sorted(named)
    # One macro level of the project's own: one step opens the macro crate (the generator).
    generator = [
        n for n, (files, _) in enumerate(steps, 1) if any(f.startswith("macros/") for f in files)
    ]
    assert len(generator) == 1, f"steps opening macros/: {generator}"
    cited = 0
    for number, (files, names) in enumerate(steps, start=1):
        assert files, f"step {number} of the trace names no file"
        source = "\n".join((ROOT / path).read_text(encoding="utf-8") for path in files)
        for name in names:
            segments = name.rstrip("!").split("::")
            absent = [s for s in segments if not re.search(rf"(?<!\w){re.escape(s)}(?!\w)", source)]
            assert absent == [], f"step {number}: `{name}` is not in {files} ({absent})"
            cited += 1
            if len(segments) == 2:
                owner, method = segments
                # A type the step's files define: the method is a fn of its `impl` or `trait`
                # block (rustfmt closes a top-level block with `}` in column 0).
                if re.search(rf"\b(?:struct|enum|trait)\s+{owner}\b", source):
                    blocks = [
                        source[m.end() : source.find("\n}", m.end())]
                        for m in re.finditer(
                            rf"^(?:pub(?:\([\w:]+\))? )?(?:impl(?:<[^>]*>)?|trait) {owner}\b",
                            source,
                            re.M,
                        )
                    ]
                    assert any(re.search(rf"\bfn {method}\b", b) for b in blocks), (
                        f"step {number}: {owner} has no fn {method} in {files}"
                    )
    assert cited >= 40, cited
