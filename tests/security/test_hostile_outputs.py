"""What showctl writes and serves stays clean and bounded against a hostile application: the key
never leaks in any encoding, writes cannot be redirected by symbolic links, record and probe
stop at their bounds, the simulator's log and the feed's reads are bounded, the feed's documents
are valid for any text, one odd character does not discard a record, an `_async` call outside
asyncio says so, a cancelled command may still be applied (as the docs say), and `probe`
prints what an impostor sent escaped."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
import os
import re
import time
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest
import showctl

from tests.kit.certkit import https_server, make_cert
from tests.kit.clikit import cli_in_process
from tests.kit.fakeserver import FakeServer, Seen, serve
from tests.kit.feedkit import Events
from tests.kit.wait import until, until_async

KEY = "AbC/dEf+GhI=="


def forms(key: str) -> list[str]:
    """The forms an application may echo the key in."""
    return [
        key,
        key.replace("/", "\\/"),
        "".join(f"\\u{ord(c):04X}" if c in "+=" else c for c in key.replace("/", "\\/")),
        "".join(f"\\u{ord(c):04x}" for c in key),
        quote(key, safe=""),
        quote(key, safe="").lower(),
    ]


def assert_clean(where: str, text: str) -> None:
    for form in forms(KEY):
        assert form not in text, f"the key ({form!r}) is in {where}: {text[:300]!r}"


def app(routes: Callable[[Seen], tuple[int, bytes] | None]) -> Callable[[Seen], tuple[int, bytes]]:
    """An application answering `routes(request)`, else `{}`."""

    def answer(seen: Seen) -> tuple[int, bytes]:
        return routes(seen) or (200, b"{}")

    return answer


# An echo of the key in the escapes of the application platform's JSON writer.
ESCAPED = KEY.replace("/", "\\/").replace("+", "\\u002B")


def test_record_never_writes_an_escaped_key(tmp_path: Path) -> None:
    layers = (
        b'{"data": [{"layer": {"name": "Main", "uuid": "u1", "note": "Bearer '
        + ESCAPED.encode()
        + b'", "url": "http://x/?key='
        + quote(KEY, safe="").encode()
        + b'"}}]}'
    )

    def routes(seen: Seen) -> tuple[int, bytes] | None:
        if seen.path == "/api/0/data/layers":
            return 200, layers
        return 200, b'{"echo": "' + ESCAPED.encode() + b'"}'

    with FakeServer(serve(app(routes))) as server:
        out = tmp_path / "venue"
        count = showctl.MediaPlayer(server.url, KEY).record(out)
        assert count > 10
        files = [p for p in out.rglob("*") if p.is_file()]
        assert len(files) == count + 1
        for f in files:
            assert_clean(str(f), f.read_text())


def scores(team1: str, score: int = 1) -> bytes:
    record = {"sportMode": "AustralianFootball", "team1Name": team1, "team2Name": "Away"}
    record["team1Score"] = str(score)
    return json.dumps(record).encode()


def base(feed: showctl.Feed) -> str:
    return feed.url.rstrip("/")


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as r:
        return bytes(r.read()).decode()


def test_feed_never_republishes_an_echoed_key(tmp_path: Path) -> None:
    polls = {"n": 0}
    echo = b'{"sportMode": "AustralianFootball", "team1Name": "Home ' + ESCAPED.encode()
    echo += b'", "team2Name": "' + quote(KEY, safe="").encode() + b'", "team1Score": "2"}'

    def routes(seen: Seen) -> tuple[int, bytes] | None:
        polls["n"] += 1
        # A clean record first, so the echo arrives as a change on /events.
        return (200, scores("Home")) if polls["n"] <= 2 else (200, echo)

    out = tmp_path / "files"
    out.mkdir()
    with FakeServer(serve(app(routes))) as server:
        with showctl.Feed(scoreboard=server.url, api_key=KEY, interval=0.05, write=out) as feed:
            events = Events(feed.url)
            seen: list[str] = []

            def echoed(event: str, data: object) -> bool:
                text = json.dumps(data)
                assert_clean(f"the {event} event", text)
                seen.append(event)
                return event == "scores" and '"team1Score": "2"' in text

            try:
                # Every event up to the document of the echoing record is clean.
                events.until(echoed)
            finally:
                events.close()
            assert "score" in seen, seen
            for path in ("/scores.json", "/scores.xml", "/scores.csv"):
                assert_clean(path, get(base(feed) + path))
            assert "Home ***" in get(base(feed) + "/scores.json")
        for f in out.iterdir():
            assert_clean(str(f), f.read_text())
        assert (out / "scores.json").exists()


def test_feed_write_is_not_redirected_by_a_planted_symlink(tmp_path: Path) -> None:
    out = tmp_path / "files"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("precious")
    for name in ("scores.json", "scores.xml", "scores.csv"):
        # The old predictable temporary name of each file.
        (out / f".{name}.{os.getpid()}.tmp").symlink_to(victim)
    with FakeServer(serve(app(lambda s: (200, scores("Home"))))) as server:
        with showctl.Feed(scoreboard=server.url, interval=0.05, write=out):
            until((out / "scores.csv").is_file, "the files to be written")
    assert victim.read_text() == "precious"
    assert not (out / "scores.json").is_symlink()
    assert json.loads((out / "scores.json").read_text())["record"]["team1Name"] == "Home"


def test_record_never_writes_through_a_symlink_planted_while_it_reads(tmp_path: Path) -> None:
    out = tmp_path / "venue"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("precious")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def routes(seen: Seen) -> tuple[int, bytes] | None:
        if seen.path == "/api/0/data/layers" and not (out / "workspace.json").is_symlink():
            # Planted after record checked that the directory is empty.
            (out / "workspace.json").symlink_to(victim)
            (out / "recordings").symlink_to(elsewhere, target_is_directory=True)
            return 200, b'{"data": [{"layer": {"name": "Main", "uuid": "u1"}}]}'
        return None

    with FakeServer(serve(app(routes))) as server:
        with pytest.raises(ValueError, match="dir: cannot move the recording into"):
            showctl.MediaPlayer(server.url).record(out)
    assert victim.read_text() == "precious"
    assert list(elsewhere.iterdir()) == []
    # Nothing of the attempt is left beside the directory.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "venue", "victim"]


def test_record_refuses_a_symlinked_dir(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    with pytest.raises(ValueError, match=r"dir: .* is a symbolic link"):
        showctl.MediaPlayer("http://127.0.0.1:9").record(tmp_path / "link")


def many_layers(n: int) -> bytes:
    items = ",".join(f'{{"layer": {{"name": "L{i}", "uuid": "u{i}"}}}}' for i in range(n))
    return ('{"data": [' + items + "]}").encode()


def test_probe_and_record_stop_at_5000_reads_when_a_server_claims_10000_layers(
    tmp_path: Path,
) -> None:
    claimed = many_layers(10_000)

    def routes(seen: Seen) -> tuple[int, bytes] | None:
        return (200, claimed) if seen.path == "/api/0/data/layers" else None

    with FakeServer(serve(app(routes))) as server:
        player = showctl.MediaPlayer(server.url, timeout=5.0)
        started = time.monotonic()
        report = player.probe()
        assert len(report.endpoints) == 5000
        assert any("(MAX_READS)" in line for line in report.limits), report.limits
        assert time.monotonic() - started < 60
        count = player.record(tmp_path / "venue")
        assert count == 5000 and f"{count}" == "5000"
        assert any("(MAX_READS)" in line for line in count.limits)
        assert len(list((tmp_path / "venue" / "recordings").iterdir())) == 5000
        assert len(server.requests) <= 2 * 5000 + 2


def test_probe_stops_at_the_answers_it_may_hold() -> None:
    # 70 layers whose every read answers ~1 MiB: more than the 64 MiB a probe holds.
    big = b'{"data": [], "pad": "' + b"x" * (1 << 20) + b'"}'

    def routes(seen: Seen) -> tuple[int, bytes] | None:
        return (200, many_layers(70)) if seen.path == "/api/0/data/layers" else (200, big)

    with FakeServer(serve(app(routes))) as server:
        report = showctl.MediaPlayer(server.url, timeout=10.0).probe()
    assert any("(MAX_HELD)" in line for line in report.limits), report.limits
    assert len(report.endpoints) < 1 + 12 + 70 * 11


def test_the_simulator_log_keeps_the_length_of_a_long_body_not_the_body() -> None:
    with showctl.Simulator() as sim:
        body = json.dumps({"value": 0.5, "pad": "x" * 1_000_000}).encode()
        req = urllib.request.Request(
            sim.url + "/api/0/opacity/layer/0",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        try:
            urllib.request.urlopen(req, timeout=10).close()
        except urllib.error.HTTPError:
            pass  # the answer does not matter here
        rec = sim.requests[-1]
        assert rec.body_length == len(body)
        assert len(rec.body) == 4096
        assert rec.body == body[:4096]
        with pytest.raises(ValueError, match="longer than the log keeps"):
            rec.json()


def test_the_feed_refuses_an_answer_over_its_cap_instead_of_holding_it() -> None:
    # A 3.7 MB transport state: within the client's endpoint cap, over the feed's.
    layer = {"isPlaying": False, "layer": {"name": "L", "uuid": "u"}, "pad": "x" * 3000}
    huge = json.dumps({"data": [{"transportState": layer}] * 1200}).encode()
    assert len(huge) > 3_600_000

    with FakeServer(serve(app(lambda s: (200, huge)))) as server:
        with showctl.Feed(server.url, interval=0.05) as feed:
            until(lambda: json.loads(get(base(feed) + "/transport.json"))["error"], "an error")
            doc = json.loads(get(base(feed) + "/transport.json"))
    assert "larger than 1048576 bytes" in doc["error"], doc["error"]
    assert doc["layers"] == []


ODD = (
    '{"sportMode": "AustralianFootball", "team1Name": "A\\ud83dB", "team2Name": "X\\uDE00", "t": 1}'
)


def test_feed_documents_are_valid_for_any_team_name(tmp_path: Path) -> None:
    name = "A\ufffe\uffffB\x01\x1b<&>\"',\r\n]]>\U0001f600"
    body = json.dumps({"sportMode": "AustralianFootball", "team1Name": name, "team2Name": "Away"})
    names = []
    for raw in (
        body.encode(),
        ODD.encode(),
        b'{"sportMode": "AustralianFootball", "team1Name": "Z\xff"}',
    ):
        with FakeServer(serve(app(lambda s, raw=raw: (200, raw)))) as server:
            with showctl.Feed(scoreboard=server.url, interval=0.05) as feed:
                until(
                    lambda: json.loads(get(base(feed) + "/scores.json"))["record"] is not None,
                    "a record",
                )
                xml = get(base(feed) + "/scores.xml")
                root = ET.fromstring(xml.encode())  # a real, validating XML 1.0 parser
                rows = list(csv.reader(io.StringIO(get(base(feed) + "/scores.csv"), newline="")))
                doc = json.loads(get(base(feed) + "/scores.json"))
        names.append(root.findtext("score/team1_name"))
        assert len(rows) == 2 and len(rows[0]) == len(rows[1]), rows
        assert rows[1][rows[0].index("team1_name")] == doc["record"]["team1Name"]
    # What XML 1.0 cannot hold is replaced (U+FFFE, U+FFFF) or dropped (controls); a lone
    # surrogate or invalid UTF-8 from the application reads as U+FFFD.
    assert names == ["A\ufffd\ufffdB<&>\"',\n]]>\U0001f600", "A\ufffdB", "Z\ufffd"]


def test_one_odd_character_does_not_discard_the_record(caplog: pytest.LogCaptureFixture) -> None:
    with FakeServer(serve(app(lambda s: (200, ODD.encode())))) as server:
        board = showctl.Scoreboard(server.url)
        caplog.set_level(logging.WARNING, logger="showctl")
        for _ in range(3):
            rec = board.scores()
            assert rec["team1Name"] == "A\ufffdB"
            assert rec["team2Name"] == "X\ufffd"
        odd = [r for r in caplog.records if "lone surrogate" in r.getMessage()]
        assert len(odd) == 1, [r.getMessage() for r in caplog.records]
    with FakeServer(serve(app(lambda s: (200, b'{"team1Name": "A\\ud83d"')))) as server:
        with pytest.raises(showctl.DecodeError):
            showctl.Scoreboard(server.url).scores()


def test_an_async_call_outside_asyncio_says_asyncio_is_required() -> None:
    with showctl.Simulator() as sim:
        player = showctl.MediaPlayer(sim.url)
        coro = player.layers_async()
        # What trio or another event loop does: drive the coroutine with no asyncio loop.
        with pytest.raises(RuntimeError, match="need asyncio \\(or uvloop\\)"):
            coro.send(None)
        coro.close()


def test_a_cancelled_command_may_already_be_applied() -> None:
    with showctl.Simulator() as sim:
        player = showctl.MediaPlayer(sim.url, timeout=10.0)
        before = player.layer(0).opacity()
        sim.delay(5.0)  # the simulator applies the command, then answers 5 s later

        async def main() -> None:
            task = asyncio.ensure_future(player.layer(0).set_opacity_async(0.25))
            await until_async(
                lambda: any(r.method == "POST" for r in sim.requests), "the command to leave"
            )
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(main())
        sim.delay(0.0)
        # Cancelled on the client, applied by the application all the same.
        assert before != 0.25
        assert player.layer(0).opacity() == 0.25


@pytest.mark.parametrize("key", ["1", "true", "name"])
def test_a_short_or_common_key_leaves_the_data_whole(tmp_path: Path, key: str) -> None:
    """The key `1`, `true` or `name` is also JSON's number, word or a field's name: masking it
    in the raw answer made `{"opacity":***}` (the feed stale all show, a recorded workspace
    the simulator refused, every name null). Only strings are searched now."""
    with showctl.Simulator(api_key=key) as source:
        with showctl.Feed(source.url, source.url, api_key=key, interval=0.05) as feed:
            transport, scores = feed.transport(), feed.scores()
            assert not transport["stale"] and not scores["stale"], (transport, scores)
            names = [layer["name"] for layer in transport["layers"]]
            assert "Main" in names, names
        player = showctl.MediaPlayer(source.url, key)
        assert player.record(tmp_path / "rec") > 10
        with showctl.Simulator(workspace=tmp_path / "rec") as replay:
            layers = showctl.MediaPlayer(replay.url).layers()
            assert [layer.name for layer in layers] == [layer.name for layer in player.layers()]
            assert all(layer.opacity is not None for layer in layers)


def test_probe_escapes_everything_an_impostor_sent(tmp_path: Path) -> None:
    """The certificate's subject, issuer and names and the error bodies in `problem:` lines
    are the server's text: printed escaped as `layers` prints names (ESC, BEL, U+202E, a
    newline), so no line of the report is the server's own (`ok: FORGED`)."""
    nasty = "\x1b]0;owned\x07\x1b[2J\u202eevil\nok: FORGED"
    cert = make_cert(tmp_path, name=nasty, hosts=("127.0.0.1", "a\x1b[31mred"))
    for server in https_server(cert):
        server.expect_request(re.compile(".*")).respond_with_data("boom " + nasty, status=500)
        url = f"https://127.0.0.1:{server.port}"
        text = cli_in_process("probe", url, "--insecure")
        as_json = cli_in_process("probe", url, "--insecure", "--json")
    code, out, err = text
    assert code == 1, err
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in out + err + as_json[1] + as_json[2], repr(raw)
    lines = out.splitlines()
    assert "ok: FORGED" not in [line.strip() for line in lines]
    [certificate] = [line for line in lines if line.startswith("  certificate  ")]
    assert (
        "CN=Show \\x1b]0;owned\\x07\\x1b[2J\\u202eevil\\x0aok: FORGED (self-signed)" in certificate
    )
    assert "               for 127.0.0.1, a\\x1b[31mred" in lines
    problems = [line for line in lines if line.startswith("problem: ")]
    assert problems and all("body: boom \\x1b]0;owned\\x07" in p for p in problems), problems
    report = json.loads(as_json[1])
    assert report["tls"]["subject"] == f"CN=Show {nasty}"
