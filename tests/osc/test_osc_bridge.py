"""The OSC bridge driven by OSC clients the project did not write (python-osc over UDP and over
TCP with SLIP framing, liblo's oscsend) against the simulator: what the simulator executed is
counted from its request log, what the bridge said from its replies and records."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
import showctl
from pythonosc.osc_bundle import OscBundle
from pythonosc.osc_bundle_builder import IMMEDIATELY, OscBundleBuilder
from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder

from tests.kit import osckit
from tests.kit.netkit import needs_fork
from tests.kit.wait import until


@pytest.fixture
def bridge(player: showctl.MediaPlayer) -> Iterator[showctl.OscBridge]:
    with showctl.OscBridge(player, port=0) as b:
        yield b


def posts(sim: showctl.Simulator) -> list[str]:
    return [f"{r.path} {r.body.decode()}".strip() for r in sim.requests if r.method == "POST"]


def test_udp_messages_run_their_commands_and_the_replies_say_so(
    sim: showctl.Simulator, bridge: showctl.OscBridge
) -> None:
    desk = osckit.udp(bridge.port)
    desk.send_message("/showctl/layer/0/mute", [])
    address, body = osckit.udp_reply(desk)
    assert address == "/reply/showctl/layer/0/mute"
    assert body == {"address": "/showctl/layer/0/mute", "status": "ok", "delivery": "answered"}
    desk.send_message("/showctl/layer/opacity", ["Main", 0.25])
    assert osckit.udp_reply(desk)[1]["status"] == "ok"
    desk.send_message("/showctl/trigger", [0, 1])
    assert osckit.udp_reply(desk)[1]["status"] == "ok"
    assert posts(sim) == [
        "/api/0/mute/layer/0",
        '/api/0/opacity/layer/Main {"value":0.25}',
        "/api/0/trigger/playlist/0/cue/1",
    ]
    record = osckit.records(bridge, 3)[1]
    assert record["transport"] == "udp" and record["sender"].startswith("127.0.0.1:")
    assert record["args"] == ["Main", 0.25] and record["status"] == "ok"


def test_tcp_with_slip_framing_is_answered_on_the_connection(
    sim: showctl.Simulator, bridge: showctl.OscBridge
) -> None:
    desk = osckit.tcp(bridge.port)
    try:
        desk.send_message("/showctl/layer/1/hide", [])
        desk.send_message("/showctl/layer/1/transition_duration", [1.5])
        replies = osckit.tcp_replies(desk, 2)
    finally:
        desk.close()
    assert [a for a, _ in replies] == [
        "/reply/showctl/layer/1/hide",
        "/reply/showctl/layer/1/transition_duration",
    ]
    assert all(b["status"] == "ok" and b["delivery"] == "answered" for _, b in replies)
    assert posts(sim) == [
        "/api/0/hide/layer/1",
        '/api/0/transitionDuration/layer/1 {"value":1.5}',
    ]
    assert [r["transport"] for r in osckit.records(bridge, 2)] == ["tcp", "tcp"]


def test_reads_reply_with_the_value(sim: showctl.Simulator, player: showctl.MediaPlayer) -> None:
    board = showctl.Scoreboard(sim.url)
    player.layer(0).set_opacity(0.5)
    with showctl.OscBridge(player, board, port=0) as bridge:
        desk = osckit.udp(bridge.port)
        desk.send_message("/showctl/layer/0/opacity", [])
        assert osckit.udp_reply(desk)[1]["data"] == 0.5
        desk.send_message("/showctl/layer/0/remaining", [])
        remaining = osckit.udp_reply(desk)[1]
        assert remaining["status"] == "ok"
        assert remaining["data"] == player.layer(0).transport_state().time_remaining
        desk.send_message("/showctl/scores", [])
        scores = osckit.udp_reply(desk)[1]
        assert scores["data"] == board.scores().to_dict()
    board.close()
    # Without a scoreboard the read is refused, and nothing is sent.
    with showctl.OscBridge(player, port=0) as bridge:
        desk = osckit.udp(bridge.port)
        sim.clear_requests()
        desk.send_message("/showctl/scores", [])
        body = osckit.udp_reply(desk)[1]
        assert body["status"] == "refused" and body["delivery"] == "not_sent"
        assert "no scoreboard" in body["error"]
        assert sim.requests == []


def test_liblo_oscsend_drives_the_bridge(sim: showctl.Simulator, bridge: showctl.OscBridge) -> None:
    oscsend = osckit.oscsend()
    subprocess.run(
        [oscsend, "127.0.0.1", str(bridge.port), "/showctl/layer/opacity", "sf", "Main", "0.75"],
        check=True,
        timeout=30,
    )
    subprocess.run(
        [oscsend, "127.0.0.1", str(bridge.port), "/showctl/layer/Main/unmute"],
        check=True,
        timeout=30,
    )
    got = osckit.records(bridge, 2)
    assert [r["status"] for r in got] == ["ok", "ok"], got
    assert posts(sim) == [
        '/api/0/opacity/layer/Main {"value":0.75}',
        "/api/0/unmute/layer/Main",
    ]


def test_senders_not_allowed_are_dropped_unread(
    sim: showctl.Simulator, player: showctl.MediaPlayer, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="showctl.osc"):
        with showctl.OscBridge(player, port=0, allow=["10.9.9.0/24"]) as bridge:
            assert bridge.allow == ["10.9.9.0/24"]
            desk = osckit.udp(bridge.port)
            for _ in range(3):
                desk.send_message("/showctl/clear", [])
            with socket.create_connection(("127.0.0.1", bridge.port), timeout=osckit.WAIT) as s:
                # Closed by the bridge before anything is read.
                assert s.recv(1) == b""
            until(lambda: bridge.stats()["not_allowed"] == 4, "4 packets and connections dropped")
            assert bridge.next_message(timeout=0) is None
            assert sim.requests == []
    lines = [r.getMessage() for r in caplog.records if "not an allowed sender" in r.getMessage()]
    assert len(lines) == 1, lines
    # An allowed address is taken.
    with showctl.OscBridge(player, port=0, allow=["127.0.0.1"]) as bridge:
        osckit.udp(bridge.port).send_message("/showctl/clear", [])
        assert osckit.records(bridge, 1)[0]["status"] == "ok"
    assert posts(sim) == ["/api/0/clear/workspace"]


def test_the_passcode_is_required_and_never_shown(
    sim: showctl.Simulator, player: showctl.MediaPlayer, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="showctl"):
        with showctl.OscBridge(player, port=0, passcode="s3cret") as bridge:
            desk = osckit.udp(bridge.port)
            desk.send_message("/showctl/layer/0/mute", [])
            missing = osckit.udp_reply(desk)[1]
            desk.send_message("/showctl/layer/0/mute", ["s3creT"])
            wrong = osckit.udp_reply(desk)[1]
            assert sim.requests == []
            desk.send_message("/showctl/layer/0/mute", ["s3cret"])
            right = osckit.udp_reply(desk)[1]
            got = osckit.records(bridge, 3)
            shown = repr(bridge) + repr(got) + repr(bridge.stats())
    for body in (missing, wrong):
        assert body["status"] == "refused" and body["delivery"] == "not_sent"
        assert "passcode" in body["error"]
    assert right["status"] == "ok"
    assert posts(sim) == ["/api/0/mute/layer/0"]
    assert [r["args"] for r in got] == [[], [], []]
    logged = " ".join(r.getMessage() for r in caplog.records)
    for secret in ("s3cret", "s3creT"):
        assert secret not in shown + logged + json.dumps([missing, wrong, right])


def test_hostile_packets_are_dropped_and_never_send_a_command(
    sim: showctl.Simulator, bridge: showctl.OscBridge
) -> None:
    port = bridge.port
    nested: OscMessage | OscBundle = OscMessageBuilder("/showctl/clear").build()
    for _ in range(12):
        b = OscBundleBuilder(IMMEDIATELY)
        b.add_content(nested)
        nested = b.build()
    deep = nested.dgram
    hostile = [
        b"",
        b"\x00\x01\x02garbage",
        b"/showctl/clear\x00\x00",  # no type tags, not padded as OSC wants
        b"#bundle\x00" + b"\xff" * 30,
        b"/showctl/layer/0/mute\x00\x00\x00,s\x00\x00\xff\xfe\x00\x00",  # not UTF-8
        b"x" * 9000,  # over the 8192 bytes read
        deep,
        OscMessageBuilder("/showctl/nothing").build().dgram,
        OscMessageBuilder("/showctl/layer/0/opacity").build().dgram + b"junk",
    ]
    for data in hostile:
        osckit.send_raw(port, data).close()
    got = osckit.records(bridge, len(hostile))
    assert {r["status"] for r in got} <= {"dropped", "refused"}, got
    assert sim.requests == []
    # Over TCP: a bad SLIP escape, an oversized frame, then a good frame on the same stream.
    good = OscMessageBuilder("/showctl/layer/2/mute").build().dgram
    with socket.create_connection(("127.0.0.1", port), timeout=osckit.WAIT) as s:
        s.sendall(b"\xc0\x01\xdb\x05\xc0" + b"\xc0" + b"y" * 9000 + b"\xc0")
        s.sendall(b"\xc0" + good + b"\xc0")
        after = osckit.records(bridge, 3)
    assert [r["status"] for r in after] == ["dropped", "dropped", "ok"], after
    assert posts(sim) == ["/api/0/mute/layer/2"]
    stats = bridge.stats()
    assert stats["malformed"] == 8 and stats["oversized"] == 2, stats


def test_one_senders_commands_run_in_the_order_received(
    sim: showctl.Simulator, bridge: showctl.OscBridge
) -> None:
    desk = osckit.tcp(bridge.port)
    values = [round(i / 40, 3) for i in range(40)]
    try:
        for v in values:
            desk.send_message("/showctl/layer/0/opacity", v)
        osckit.tcp_replies(desk, len(values))
    finally:
        desk.close()
    assert posts(sim) == [f'/api/0/opacity/layer/0 {{"value":{v}}}' for v in values]


def bundle(at: float, address: str, *args: Any) -> bytes:
    b = OscBundleBuilder(at)
    m = OscMessageBuilder(address)
    for a in args:
        m.add_arg(a)
    b.add_content(m.build())
    return b.build().dgram


def test_a_timed_bundle_runs_at_its_time_or_is_refused_with_why(
    sim: showctl.Simulator, bridge: showctl.OscBridge
) -> None:
    port = bridge.port
    at = time.time() + 0.4
    s = osckit.send_raw(port, bundle(at, "/showctl/layer/0/hide"))
    body = osckit.reply(s.recv(65536))[1]
    answered = time.time()
    s.close()
    assert body["status"] == "ok"
    # The command went out at its time, not before (the reply comes after the application's
    # answer); the bridge's clock is this machine's.
    assert answered >= at, answered - at
    record = osckit.records(bridge, 1)[0]
    assert "time_tag" in record
    assert posts(sim) == ["/api/0/hide/layer/0"]
    sim.clear_requests()
    for when, why in ((time.time() + 7200, "ahead"), (time.time() - 10, "passed")):
        s = osckit.send_raw(port, bundle(when, "/showctl/layer/0/unhide"))
        body = osckit.reply(s.recv(65536))[1]
        s.close()
        assert body["status"] == "refused" and why in body["error"], body
    osckit.records(bridge, 2)
    assert sim.requests == []


def test_a_sender_over_its_rate_is_dropped(
    sim: showctl.Simulator, player: showctl.MediaPlayer
) -> None:
    with showctl.OscBridge(player, port=0, rate=5, reply=False) as bridge:
        with socket.create_connection(("127.0.0.1", bridge.port), timeout=osckit.WAIT) as s:
            frame = b"\xc0" + OscMessageBuilder("/showctl/layer/0/mute").build().dgram + b"\xc0"
            # Twenty frames in one write: read at once, within far less than a second.
            s.sendall(frame * 20)
            until(
                lambda: bridge.stats()["received"] + bridge.stats()["over_rate"] == 20,
                "the 20 frames counted",
            )
        stats = bridge.stats()
        ran = osckit.records(bridge, stats["received"])
        assert bridge.next_message(timeout=0) is None
    assert 5 <= stats["received"] <= 6 and stats["over_rate"] == 20 - stats["received"], stats
    assert [r["status"] for r in ran] == ["ok"] * stats["received"]
    assert len(posts(sim)) == stats["received"]


def test_every_command_goes_to_the_command_log_with_its_sender(
    sim: showctl.Simulator, bridge: showctl.OscBridge, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="showctl.commands"):
        desk = osckit.udp(bridge.port)
        desk.send_message("/showctl/layer/3/mute", [])
        osckit.udp_reply(desk)
        record = osckit.records(bridge, 1)[0]
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "showctl.commands"]
    assert len(lines) == 1, lines
    assert lines[0]["operation"] == "mute" and lines[0]["path"] == "/mute/layer/3"
    assert lines[0]["origin"] == f"osc udp {record['sender']}"


def test_the_bridge_is_a_context_manager_and_refuses_bad_options(
    player: showctl.MediaPlayer,
) -> None:
    bridge = showctl.OscBridge(player, port=0)
    assert not bridge.running and bridge.port == 0
    with bridge as b:
        assert b is bridge and b.running and b.port > 0
        assert repr(b) == f"OscBridge(udp+tcp 127.0.0.1:{b.port}, running)"
        # The same port over TCP.
        socket.create_connection(("127.0.0.1", b.port), timeout=osckit.WAIT).close()
    assert not bridge.running
    bridge.start()
    bridge.close()
    assert not bridge.running
    with pytest.raises(ValueError, match=r"port: 0 to 65535, got 70000"):
        showctl.OscBridge(player, port=70000)
    with pytest.raises(ValueError, match=r"allow\[1\]: \"nope\" is not an IP address"):
        showctl.OscBridge(player, allow=["10.0.0.0/8", "nope"])
    with pytest.raises(ValueError, match=r"rate: .* got 0"):
        showctl.OscBridge(player, rate=0)
    with pytest.raises(ValueError, match=r"passcode: must not be empty"):
        showctl.OscBridge(player, passcode="")
    with pytest.raises(TypeError):
        showctl.OscBridge("http://127.0.0.1:1")  # type: ignore[arg-type]


def test_no_reply_to_a_reply_nor_outside_the_bridges_addresses(
    sim: showctl.Simulator, bridge: showctl.OscBridge
) -> None:
    desk = osckit.udp(bridge.port)
    desk.send_message("/reply/showctl/layer/0/mute", '{"status":"ok"}')
    desk.send_message("/other/device/go", 1)
    desk.send_message("/showctl/layer/0/mute", [])
    # One sender's messages are answered in order: the first reply is the third message's.
    assert osckit.udp_reply(desk)[0] == "/reply/showctl/layer/0/mute"
    got = osckit.records(bridge, 3)
    assert [r["status"] for r in got] == ["refused", "refused", "ok"], got
    assert posts(sim) == ["/api/0/mute/layer/0"]


@needs_fork
def test_a_forked_child_leaves_the_parents_bridge_alone(
    sim: showctl.Simulator, bridge: showctl.OscBridge
) -> None:
    pid = os.fork()
    if pid == 0:  # the child: stop() returns at once, the parent's bridge is not touched
        code = 1
        try:
            started = time.monotonic()
            bridge.stop()
            # Waiting for the parent's tasks (which never run here) would take the grace of
            # stop(): the client's timeout and a second.
            code = 0 if not bridge.running and time.monotonic() - started < 1 else 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert bridge.running
    desk = osckit.udp(bridge.port)
    desk.send_message("/showctl/layer/0/mute", [])
    assert osckit.udp_reply(desk)[1]["status"] == "ok"
    assert posts(sim) == ["/api/0/mute/layer/0"]


def test_text_from_the_network_is_escaped_in_the_log(
    bridge: showctl.OscBridge, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="showctl.osc"):
        osckit.udp(bridge.port).send_message("/showctl/\x1b]0;owned\x07", [])
        assert osckit.records(bridge, 1)[0]["status"] == "refused"
    logged = [r.getMessage() for r in caplog.records if r.name == "showctl.osc"]
    assert len(logged) == 1 and "refused" in logged[0], logged
    assert "\x1b" not in logged[0] and "\x07" not in logged[0], logged
