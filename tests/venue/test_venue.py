"""Venues: many named sources in one file; probe_venue checks every one at once; a simulator
per source (simulate_venue, the showctl_venue fixture)."""

from __future__ import annotations

import asyncio
import io
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import showctl
from showctl import _core
from showctl._venue import SimulatedVenue, VenueReport, simulate_venue

from tests.kit.clikit import cli_in_process
from tests.kit.fakeserver import FakeServer, stall

EXAMPLE = Path(__file__).parents[2] / "examples" / "venue.toml"


@pytest.fixture
def venue() -> Iterator[SimulatedVenue]:
    with simulate_venue(EXAMPLE) as v:
        yield v


def test_the_example_venue_names_eight_courts_and_two_screens() -> None:
    sources = _core._load_venue(EXAMPLE)
    kinds = [s["kind"] for s in sources]
    assert kinds.count("scoreboard") == 8 and kinds.count("media") == 2
    assert [s["name"] for s in sources][:2] == ["court1", "court2"]
    assert all("api_key" not in s for s in sources)


def test_probe_venue_checks_every_simulated_source(venue: SimulatedVenue) -> None:
    report = showctl.probe_venue(sources=venue.sources)
    assert isinstance(report, VenueReport)
    assert report.ok, report.table()
    assert [s.name for s in report.sources] == [s.name for s in venue]
    assert report["main"].kind == "media" and report["court3"].kind == "scoreboard"
    table = report.table()
    assert table.splitlines()[0].split()[:3] == ["source", "kind", "reachable"]
    assert "all 10 sources usable" in table
    assert "court8" in report._repr_html_()
    assert VenueReport.from_dict(report.to_dict()) == report


def test_probe_venue_async_gives_the_same_verdict(venue: SimulatedVenue) -> None:
    report = asyncio.run(showctl.probe_venue_async(sources=venue.sources, concurrency=3))
    assert report.ok and len(report.sources) == 10


def test_the_venue_file_written_for_the_simulators_reads_back(
    venue: SimulatedVenue, tmp_path: Path
) -> None:
    path = venue.write(tmp_path / "venue.toml")
    report = showctl.probe_venue(path)
    assert report.ok and report.origin.endswith("venue.toml")
    # Written new: an existing file (or a planted link) is never overwritten.
    with pytest.raises(FileExistsError):
        venue.write(path)


def test_a_hanging_and_a_dead_source_fail_alone(venue: SimulatedVenue) -> None:
    hang = FakeServer(stall()).__enter__()  # stopped below
    port = hang.port
    dead = socket.create_server(("127.0.0.1", 0))
    dead_port = dead.getsockname()[1]
    dead.close()
    try:
        sources = dict(venue.sources)
        # Only the two bad sources get a short timeout: the simulated ones keep the default,
        # so a loaded machine cannot make one of them miss it.
        sources["hanging"] = {
            "kind": "scoreboard",
            "url": f"127.0.0.1:{port}",
            "retries": 0,
            "timeout": 0.5,
        }
        sources["dead"] = {"kind": "scoreboard", "url": f"127.0.0.1:{dead_port}", "timeout": 0.5}
        report = showctl.probe_venue(sources=sources)
    finally:
        hang.stop()
    assert not report.ok
    assert [s.name for s in report.sources if not s.ok] == ["hanging", "dead"], report.table()
    assert report["dead"].report is not None and not report["dead"].report.reachable
    assert "2 of 12 sources not usable" in report.table()
    assert report.seconds < sum(s.seconds for s in report.sources)


def test_a_media_sources_mirrors_are_probed_with_it(venue: SimulatedVenue) -> None:
    lobby = venue.sources["lobby"]
    mirror = {"url": lobby["url"], "api_key": lobby.get("api_key")}
    report = showctl.probe_venue(sources={"main": {**venue.sources["main"], "mirrors": [mirror]}})
    assert report.ok, report.table()
    assert report["main"].mirrors[0].ok and report.rows()[0]["mirrors"] == "1 of 1 ok"
    dead = socket.create_server(("127.0.0.1", 0))
    dead_url = f"127.0.0.1:{dead.getsockname()[1]}"
    dead.close()
    sources = {"main": {**venue.sources["main"], "mirrors": [mirror, dead_url]}}
    report = showctl.probe_venue(sources=sources)
    # The primary is fine; its backup is not: the source is not ready for the show.
    main = report["main"]
    assert main.report is not None and main.report.ok
    assert not main.ok and not report.ok
    assert main.mirrors[1].report is not None and not main.mirrors[1].report.reachable
    row = report.rows()[0]
    assert row["mirrors"] == "1 of 2 ok"
    assert row["verdict"].startswith(f"FAIL: mirror {dead_url}: "), row
    assert VenueReport.from_dict(report.to_dict()) == report


def test_a_source_whose_client_cannot_be_built_is_reported(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pem"
    report = showctl.probe_venue(
        sources={"main": {"kind": "media", "url": "https://127.0.0.1:1", "ca_cert": str(missing)}}
    )
    row = report.rows()[0]
    assert not report.ok and row["verdict"].startswith("FAIL")


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        ({"court1": {"kind": "scorebaord", "url": "http://h:1"}}, "sources.court1.kind"),
        ({"court1": {"kind": "media"}}, "sources.court1: has no url"),
        ({"court1": {"kind": "media", "url": "http://h:1", "timout": 1}}, 'did you mean "timeout"'),
        ({}, "sources: is empty"),
    ],
)
def test_bad_sources_are_refused_before_anything_is_sent(
    sources: dict[str, dict[str, object]], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        showctl.probe_venue(sources=sources)


def test_a_bad_venue_file_names_the_file_the_source_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "venue.toml"
    path.write_text('[sources.court1]\nkind = "scoreboard"\nurl = "http://h:1"\ninterval = 0\n')
    with pytest.raises(ValueError, match=r"venue\.toml: sources\.court1\.interval: must be"):
        showctl.probe_venue(path)
    with pytest.raises(ValueError, match="give one of them"):
        showctl.probe_venue(path, sources={})
    with pytest.raises(ValueError, match="concurrency"):
        showctl.probe_venue(path, concurrency=0)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("timeout", 0),
        ("timeout", 3601),
        ("retries", 11),
        ("retries", -1),
        ("max_connections", 0),
        ("max_connections", 1025),
    ],
)
def test_the_venue_and_the_constructors_refuse_a_value_with_one_message(
    tmp_path: Path, option: str, value: int
) -> None:
    """One range check per option: the constructors, the venue file and the feed refuse the
    same value with the same words (the option's setter on the core's Config)."""
    with pytest.raises(ValueError, match=f"^{option}: must be .*, got {value}$") as given:
        showctl.Scoreboard("http://h:1", **{option: value})  # type: ignore[arg-type]
    message = str(given.value)
    with pytest.raises(ValueError) as media:
        showctl.MediaPlayer("http://h:1", **{option: value})  # type: ignore[arg-type]
    assert str(media.value) == message
    path = tmp_path / "venue.toml"
    path.write_text(f'[sources.court1]\nkind = "media"\nurl = "http://h:1"\n{option} = {value}\n')
    with pytest.raises(ValueError) as from_file:
        _core._load_venue(path)
    assert str(from_file.value) == f"{path}: sources.court1.{message}"
    if option == "timeout":
        with pytest.raises(ValueError) as feed:
            showctl.Feed(media="http://h:1", timeout=value)
        assert str(feed.value) == f"media: {message}"


def test_keys_come_from_the_environment_and_reach_the_simulators(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "venue.toml"
    path.write_text(
        '[sources.main]\nkind = "media"\nurl = "http://127.0.0.1:1"\napi_key_env = "MAIN_KEY"\n'
    )
    with pytest.raises(ValueError, match="names the variable MAIN_KEY, which is not set"):
        _core._load_venue(path)
    monkeypatch.setenv("MAIN_KEY", "s3cret")
    assert _core._load_venue(path)[0]["has_api_key"] is True
    assert "api_key" not in _core._load_venue(path)[0]
    with simulate_venue(path) as v:
        assert v["main"].simulator.api_key == "s3cret"
        assert showctl.probe_venue(sources=v.sources).ok
        # Without the key the simulator refuses: the probe says so.
        anonymous = {"main": {"kind": "media", "url": v["main"].url}}
        report = showctl.probe_venue(sources=anonymous)
        assert not report.ok and report["main"].report is not None
        assert report["main"].report.auth == "required_missing"


def test_simulate_venue_on_the_files_ports_refuses_a_remote_host(tmp_path: Path) -> None:
    path = tmp_path / "venue.toml"
    path.write_text('[sources.main]\nkind = "media"\nurl = "http://192.0.2.1:1025"\n')
    with pytest.raises(ValueError, match="listens on this machine only"):
        simulate_venue(path, same_ports=True)


@pytest.mark.showctl_venue("../../examples/venue.toml")
def test_the_fixture_starts_a_simulator_per_source(showctl_venue: SimulatedVenue) -> None:
    assert len(showctl_venue) == 10
    with showctl.Scoreboard(showctl_venue["court5"].url) as board:
        assert board.scores() is not None
    lobby = showctl_venue["lobby"].simulator
    assert lobby.api_key == "rehearsal-lobby"  # from $LOBBY_KEY, as the file says
    with showctl.MediaPlayer(lobby.url, api_key=lobby.api_key) as player:
        assert len(player.layers()) > 0


def test_status_once_shows_every_source_fresh(venue: SimulatedVenue, tmp_path: Path) -> None:
    from showctl.cli import status

    out = io.StringIO()
    code = status.run(venue.write(tmp_path / "venue.toml"), once=True, out=out)
    text = out.getvalue()
    assert code == 0, text
    assert "10 sources, all fresh" in text
    court = next(line for line in text.splitlines() if line.startswith("court1 "))
    assert court.split()[1:3] == ["scoreboard", "ok"]
    assert "left)" in text or "nothing playing" in text


def test_status_a_hanging_source_is_stale_and_the_others_stay_fresh(
    venue: SimulatedVenue, tmp_path: Path
) -> None:
    from showctl.cli import status

    hang = FakeServer(stall()).__enter__()  # stopped below
    port = hang.port
    path = venue.write(tmp_path / "venue.toml")
    with open(path, "a", encoding="utf-8") as f:
        f.write(
            f'[sources.hanging]\nkind = "scoreboard"\nurl = "127.0.0.1:{port}"\ntimeout = 3.0\n'
        )
    try:
        out = io.StringIO()
        code = status.run(path, once=True, out=out)
    finally:
        hang.stop()
    text = out.getvalue()
    assert code == 1
    assert "11 sources, 1 stale" in text
    hung = next(line for line in text.splitlines() if line.startswith("hanging "))
    assert "STALE" in hung
    for name in ("court1", "main", "lobby"):
        line = next(x for x in text.splitlines() if x.startswith(name + " "))
        assert " ok " in line, line


def test_status_render_marks_old_data_stale() -> None:
    from showctl.cli.status import SourceStatus, VenueStatus, render

    fresh = SourceStatus("court1", "scoreboard", 0.5, ["Basketball: A 1 - B 2"], updated=100.0)
    old = SourceStatus("court2", "scoreboard", 0.5, ["Basketball: C 0 - D 0"], updated=98.0)
    never = SourceStatus("main", "media", 0.5)
    text = render(VenueStatus("venue.toml", [fresh, old, never]), now=100.4)
    lines = text.splitlines()
    assert "3 sources, 2 stale" in lines[0]
    assert "ok" in lines[2] and "0.4s ago" in lines[2]
    assert "STALE" in lines[4] and "2.4s ago" in lines[4]
    assert "STALE" in lines[6] and "never" in lines[6]


def test_cli_probe_venue_prints_one_summary_and_exits_0(
    venue: SimulatedVenue, tmp_path: Path
) -> None:
    path = venue.write(tmp_path / "venue.toml")
    code, out, err = cli_in_process("probe", "--venue", path)
    assert code == 0, err
    assert out.splitlines()[0].split()[:3] == ["source", "kind", "reachable"]
    assert "all 10 sources usable" in out
    code, out, _ = cli_in_process("probe", "--venue", path, "--json")
    assert code == 0 and json.loads(out)["ok"] is True


def test_cli_probe_venue_exit_codes(venue: SimulatedVenue, tmp_path: Path) -> None:
    hang = FakeServer(stall()).__enter__()  # stopped below
    port = hang.port
    path = venue.write(tmp_path / "venue.toml")
    with open(path, "a", encoding="utf-8") as f:
        f.write(f'[sources.hanging]\nkind = "scoreboard"\nurl = "127.0.0.1:{port}"\n')
        f.write("timeout = 0.3\nretries = 0\n")
    try:
        code, out, _ = cli_in_process("probe", "--venue", path)
    finally:
        hang.stop()
    assert code == 1 and "1 of 11 sources not usable" in out
    bad = tmp_path / "bad.toml"
    bad.write_text('[sources.court1]\nkind = "scorebaord"\nurl = "http://h:1"\n')
    code, _, err = cli_in_process("probe", "--venue", str(bad))
    assert code == 2 and "sources.court1.kind" in err
    code, _, err = cli_in_process("probe", "http://127.0.0.1:1", "--venue", str(bad))
    assert code == 2 and "not with --venue" in err


def test_cli_status_once(venue: SimulatedVenue, tmp_path: Path) -> None:
    path = venue.write(tmp_path / "venue.toml")
    code, out, err = cli_in_process("status", "--venue", path, "--once")
    assert code == 0, err
    assert "10 sources, all fresh" in out
    assert "\x1b" not in out


def test_cli_simulate_venue_refuses_a_busy_port(tmp_path: Path) -> None:
    busy = socket.create_server(("127.0.0.1", 0))
    try:
        path = tmp_path / "venue.toml"
        path.write_text(
            f'[sources.a]\nkind = "media"\nurl = "http://127.0.0.1:{busy.getsockname()[1]}"\n'
        )
        code, _, err = cli_in_process("simulate", "--venue", str(path))
    finally:
        busy.close()
    assert code == 1 and err.startswith("showctl: ")


def _free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as s:
        return int(s.getsockname()[1])


def test_cli_simulate_venue_serves_the_files_ports_until_interrupted(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    ports = [_free_port(), _free_port()]
    path = tmp_path / "venue.toml"
    path.write_text(
        f'[sources.court1]\nkind = "scoreboard"\nurl = "http://127.0.0.1:{ports[0]}"\n'
        f'[sources.main]\nkind = "media"\nurl = "127.0.0.1:{ports[1]}"\n'
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "showctl", "simulate", "--venue", str(path), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        started = json.loads(proc.stdout.readline())
        assert started["court1"]["url"] == f"http://127.0.0.1:{ports[0]}"
        # The venue file itself now works as written.
        assert showctl.probe_venue(path).ok
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
