"""probe(): the read-only pre-show check, against the simulator (healthy; a key missing, wrong,
right), a server answering 404 everywhere, a closed port and HTTPS ports; the request logs
prove that no command was ever sent. Also `showctl probe` (exit codes, --json)."""

from __future__ import annotations

import asyncio
import datetime
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.certkit import Cert
from tests.kit.clikit import showctl_cli
from tests.kit.netkit import MODES
from tests.kit.recording import load, sent

KEY = "probe-K3Y-secret"


def probe(client: showctl.MediaPlayer | showctl.Scoreboard, mode: str) -> showctl.ProbeReport:
    if mode == "sync":
        return client.probe()
    return asyncio.run(client.probe_async())


def methods(sim: showctl.Simulator) -> set[str]:
    return {r.method for r in sim.requests}


@pytest.mark.parametrize("mode", MODES)
def test_a_healthy_simulator(
    mode: str, showctl_simulator: showctl.Simulator, showctl_player: showctl.MediaPlayer
) -> None:
    sim, player = showctl_simulator, showctl_player
    report = probe(player, mode)
    assert isinstance(report, showctl.ProbeReport)
    assert report.ok and report.problems == ()
    assert (report.reachable, report.scheme, report.auth) == (True, "http", "not_needed")
    assert report.tls is None and not report.doc_port
    assert report.rtt is not None and report.rtt > 0
    assert report.url == f"{sim.url}/api/0"
    root = player.playlists()

    def walk(p: showctl.Playlist) -> Iterator[showctl.Playlist]:
        for c in p.children:
            yield c
            yield from walk(c)

    below = list(walk(root))
    assert report.layers == len(player.layers())
    assert report.playlists == len(below)
    assert report.cues == len(root.items) + sum(len(p.items) for p in below)
    sim_gets = [r for r in sim.requests if r.path.startswith("/api/0/")]
    assert methods(sim) == {"GET"}, "probe sent something other than a GET"
    # Every documented read, each layer's, playlist's and cue's included, once each.
    paths = [e.path for e in report.endpoints]
    assert len(paths) == len(set(paths))
    per_layer = [p for p in paths if re.match(r"/\w+/layer/", p)]
    assert len(per_layer) == 11 * report.layers
    playlist_reads = [p for p in paths if p.startswith("/data/playlist/") and "/cue/" not in p]
    # Each playlist's, and the video input playlist as documented (index -1).
    assert len(playlist_reads) == len(below) + 1 and "/data/playlist/-1" in playlist_reads
    assert sum("/cue/" in p for p in paths) == sum(len(p.items) for p in below)
    assert all(e.status == 200 and e.error is None for e in report.endpoints)
    assert report.slowest == max(report.endpoints, key=lambda e: e.seconds)
    variants = {e.path.split("/")[1]: e.variant for e in report.endpoints if e.variant}
    assert variants["opacity"] == 'opacity wrapped {"opacity": {"value"}}'
    assert variants["transition"] == "transitions under data"
    # As the 3.8/3.9 application, the simulator has no /blend/layer route.
    assert variants["layerBlend"] == "only /layerBlend (/blend answers 404)"
    assert len(sim_gets) >= len(paths)


@pytest.mark.parametrize(
    ("key", "auth", "problem"),
    [
        (None, "required_missing", "requires an API key (401): pass api_key="),
        ("not-the-key", "wrong", "the API key is refused (401)"),
        (KEY, "accepted", None),
    ],
)
def test_the_key(key: str | None, auth: str, problem: str | None) -> None:
    with showctl.Simulator(api_key=KEY) as sim:
        report = showctl.MediaPlayer(sim.url, key).probe()
        assert report.auth == auth
        assert report.ok is (problem is None)
        if problem:
            [line] = report.problems
            assert problem in line
            assert len(report.endpoints) == 1, "reads stop at a refused key"
        assert methods(sim) == {"GET"}
        assert KEY not in json.dumps(report.to_dict())


def test_a_scoreboard_with_its_key() -> None:
    with showctl.Simulator(api_key=KEY) as sim:
        report = showctl.Scoreboard(sim.url, KEY).probe()
        assert report.ok and report.auth == "accepted" and report.app == "scoreboard"
        [read] = report.endpoints
        assert read.path == "/data/scores" and read.variant is not None
        assert read.variant.startswith("sportMode ")
        assert methods(sim) == {"GET"}


def test_a_server_answering_404_everywhere(httpserver: HTTPServer) -> None:
    httpserver.expect_request(re.compile(".*")).respond_with_data("Not Found", status=404)
    url = f"http://127.0.0.1:{httpserver.port}"
    report = showctl.MediaPlayer(url).probe()
    assert report.doc_port and not report.ok
    [problem] = report.problems
    assert "every /api/0 path answers 404" in problem and "documentation port" in problem
    assert {r.method for r in sent(httpserver)} == {"GET"}


def test_a_closed_port() -> None:
    # A bound socket that does not listen: connections are refused, and the port cannot be
    # taken by anyone else while the test runs.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        report = showctl.MediaPlayer(f"http://127.0.0.1:{port}").probe()
    assert not report.reachable and not report.ok and report.scheme == "neither"
    [problem] = report.problems
    assert f"cannot connect to 127.0.0.1:{port}" in problem
    assert report.endpoints == ()


@pytest.mark.parametrize("mode", MODES)
def test_an_https_port(expired: Cert, expired_server: HTTPServer, mode: str) -> None:
    url = f"https://127.0.0.1:{expired_server.port}"
    report = probe(showctl.Scoreboard(url), mode)
    assert report.scheme == "https" and not report.ok
    tls = report.tls
    assert tls is not None
    assert (tls.self_signed, tls.ca, tls.expired) == (True, True, True)
    assert tls.fingerprint == expired.fingerprint
    assert tls.pin == f'tls_fingerprint="{expired.fingerprint}"'
    assert tls.subject == tls.issuer == "CN=Show expired"
    assert tls.names == ("127.0.0.1",)
    now = datetime.datetime.now(datetime.timezone.utc).isoformat()
    assert tls.not_before < tls.not_after < now
    [problem] = report.problems
    assert "expired" in problem and tls.pin in problem
    assert sent(expired_server) == [], "the certificate was refused, so nothing was sent"
    # Pinned as the report says: usable.
    pinned = probe(showctl.Scoreboard(url, tls_fingerprint=expired.fingerprint), mode)
    assert pinned.ok and pinned.problems == () and pinned.tls == tls
    assert {r.method for r in sent(expired_server)} == {"GET"}


def test_the_wrong_scheme_is_named(expired_server: HTTPServer) -> None:
    report = showctl.Scoreboard(f"http://127.0.0.1:{expired_server.port}", timeout=2).probe()
    assert report.scheme == "https" and not report.ok
    # One problem each way, the fix (the read that failed for that reason is not another).
    assert report.problems == (f"the port speaks HTTPS: use https://127.0.0.1:{expired_server.port}",)
    with showctl.Simulator() as sim:
        port = sim.url.rsplit(":", 1)[1]
        report = showctl.MediaPlayer(f"https://127.0.0.1:{port}", timeout=2).probe()
        assert not report.ok and report.scheme == "http"
        assert report.problems == (f"the application speaks plain HTTP: use http://127.0.0.1:{port}",)
        assert methods(sim) <= {"GET"}


def test_the_command_line() -> None:
    with showctl.Simulator(api_key=KEY) as sim:
        done = showctl_cli("probe", sim.url, "--api-key", KEY)
        assert done.returncode == 0, done.stderr
        assert "ok: the installation is usable" in done.stdout
        done = showctl_cli("probe", sim.url, "--json")
        assert done.returncode == 1
        report = json.loads(done.stdout)
        assert report["ok"] is False and report["auth"] == "required_missing"
        assert report["problems"] == [p for p in report["problems"] if "\n" not in p]
        done = showctl_cli("probe", sim.url, "--scoreboard", "--api-key", "wrong")
        assert done.returncode == 1
        assert [line for line in done.stdout.splitlines() if line.startswith("problem: ")] == [
            "problem: the API key is refused (401): check the key in the application's preferences"
        ]
        assert methods(sim) == {"GET"}
    done = showctl_cli("probe", "https://127.0.0.1:1", "--tls-fingerprint", "sha256:zz")
    assert done.returncode == 2 and "--tls-fingerprint: " in done.stderr


def test_the_documented_variants_are_named(showctl_simulator_factory: Any) -> None:
    sim = showctl_simulator_factory(
        {
            "layers": [{"name": "Main"}],
            "transitions": [{"name": "Cut"}],
            "answers": {"opacity": "document", "transitionList": "transitions"},
        }
    )
    report = showctl.MediaPlayer(sim.url).probe()
    assert report.ok, report.problems
    variants = {e.path.split("/")[1]: e.variant for e in report.endpoints if e.variant}
    assert variants["opacity"] == 'opacity bare {"value"}'
    # This workspace has no video input playlist: said, not a problem.
    [video_input] = [e for e in report.endpoints if e.path == "/data/playlist/-1"]
    assert (video_input.status, video_input.variant) == (400, "no video input playlist")
    assert variants["transition"] == "transitions under transitions"


def test_only_layer_blend_answers(httpserver: HTTPServer) -> None:
    """The field's 3.3.1: /blend answers 404 and /layerBlend answers; the probe says so, and
    showctl reads it (the client falls back the same way)."""
    layer = {"uuid": "6F9619FF-8B86-D011-B42D-00C04FC90046", "name": "Main"}
    httpserver.expect_request("/api/0/data/layers").respond_with_json({"data": [{"layer": layer}]})
    blend = load("media/layer_blend_field")
    httpserver.expect_request(f"/api/0/layerBlend/layer/{layer['uuid']}").respond_with_data(
        blend.body, content_type="application/json"
    )
    httpserver.expect_request(re.compile(".*")).respond_with_data("", status=404)
    report = showctl.MediaPlayer(f"http://127.0.0.1:{httpserver.port}").probe()
    [read] = [e for e in report.endpoints if "layerBlend" in e.path]
    assert (read.status, read.error) == (200, None)
    assert read.variant == "only /layerBlend (/blend answers 404)"
    assert not report.doc_port
    assert {r.method for r in sent(httpserver)} == {"GET"}


def test_a_closed_client_sends_nothing(
    showctl_simulator: showctl.Simulator, tmp_path: Path
) -> None:
    player = showctl.MediaPlayer(showctl_simulator.url)
    player.close()
    with pytest.raises(showctl.ClientClosedError):
        player.probe()
    with pytest.raises(showctl.ClientClosedError):
        player.record(tmp_path / "rec")
    assert showctl_simulator.requests == []
