"""MediaPlayer.batch and showctl.cmd: commands built and checked in advance, sent in one call
with a concurrency limit, one BatchResult per command in order, no failure hiding another."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
import showctl
from pytest_httpserver import HTTPServer
from showctl import cmd

from tests.kit.fakeserver import serving, stall
from tests.kit.netkit import free_port
from tests.kit.recording import sent


def mixed(server: HTTPServer) -> list[showctl.Command]:
    """Five commands: two fine, a 400, a 404 and a 503 (a command is not retried)."""
    server.expect_request("/api/0/mute/layer/Main", method="POST").respond_with_data("")
    server.expect_request("/api/0/opacity/layer/2", method="POST").respond_with_data("")
    server.expect_request("/api/0/hide/layer/Nobody").respond_with_data("unknown", status=400)
    server.expect_request("/api/0/trigger/playlist/Show").respond_with_data("", status=404)
    server.expect_request("/api/0/clear/workspace").respond_with_data("busy", status=503)
    return [
        cmd.mute("Main"),
        cmd.hide("Nobody"),
        cmd.set_opacity(2, 0.5),
        cmd.trigger_playlist("Show"),
        cmd.clear(),
    ]


def check(results: list[showctl.BatchResult], commands: list[showctl.Command]) -> None:
    assert [r.index for r in results] == [0, 1, 2, 3, 4]
    assert [r.command for r in results] == commands
    assert all(r.command is c for r, c in zip(results, commands))
    assert [r.ok for r in results] == [True, False, True, False, False]
    assert [type(r.error) for r in results] == [
        type(None),
        showctl.BadRequestError,
        type(None),
        showctl.NotFoundError,
        showctl.ServiceUnavailableError,
    ]
    assert "ok=False" in repr(results[1]) and "BadRequestError" in repr(results[1])
    assert [r.delivery for r in results] == ["answered"] * 5
    assert "delivery='answered'" in repr(results[1])


def test_each_result_says_whether_its_command_went_out(base_url: str) -> None:
    """A command never sent (no connection), one sent without an answer (a hung
    application) and one answered, in one batch each: each result carries its delivery."""
    refused = showctl.MediaPlayer(f"http://127.0.0.1:{free_port()}", retries=0)
    (never,) = refused.batch([cmd.mute(1)])
    assert (never.ok, never.delivery) == (False, "not_sent")
    assert never.error is not None and never.error.delivery == "not_sent"
    with serving(stall()) as url:
        (hung,) = showctl.MediaPlayer(url, timeout=0.3).batch([cmd.mute(1)])
    assert (hung.ok, hung.delivery, type(hung.error)) == (False, "sent_no_answer", showctl.Timeout)
    closed = showctl.MediaPlayer(base_url)
    closed.close()
    (after_close,) = closed.batch([cmd.mute(1)])
    assert (after_close.delivery, type(after_close.error)) == (
        "not_sent",
        showctl.ClientClosedError,
    )


def test_mixed_failures(httpserver: HTTPServer, base_url: str) -> None:
    commands = mixed(httpserver)
    results = showctl.MediaPlayer(base_url).batch(commands, concurrency=2)
    check(results, commands)
    assert len(sent(httpserver)) == 5
    body = next(r for r in sent(httpserver) if r.path == "/api/0/opacity/layer/2")
    assert json.loads(body.data) == {"value": 0.5}


def test_mixed_failures_async(httpserver: HTTPServer, base_url: str) -> None:
    commands = mixed(httpserver)
    player = showctl.MediaPlayer(base_url)
    results = asyncio.run(player.batch_async(iter(commands)))
    check(results, commands)


def test_refusals_before_sending(httpserver: HTTPServer, base_url: str) -> None:
    player = showctl.MediaPlayer(base_url)
    with pytest.raises(TypeError, match=r"commands\[1\]: expected a showctl.Command"):
        player.batch([cmd.mute(), ("mute", 0)])  # type: ignore[list-item]
    for bad in (0, 257, -1):
        with pytest.raises(ValueError, match=r"^concurrency: must be from 1 to 256"):
            player.batch([cmd.mute()], concurrency=bad)
    with pytest.raises(ValueError, match=r"^value:"):
        cmd.set_opacity(0, 1.5)
    with pytest.raises(ValueError, match=r"layer index must be 0 or above"):
        cmd.mute(-1)
    with pytest.raises(ValueError, match=r"^seconds:"):
        cmd.set_workspace_transition_duration(9)
    with pytest.raises(ValueError, match=r"bool"):
        cmd.trigger(True, 0, 0)
    assert sent(httpserver) == []
    assert player.batch([]) == []


def test_commands_show_what_they_send() -> None:
    player = showctl.MediaPlayer("h:1")
    expected = """Command('POST /opacity/layer/Main {"value":0.5}')"""
    assert repr(cmd.set_opacity("Main", 0.5)) == expected
    assert cmd.mute().path == "/mute/workspace" and cmd.mute().body is None
    assert cmd.mute(player.layer("Lower Third/Left")).path == "/mute/layer/Lower%20Third%2FLeft"
    assert cmd.select(2, target=True).path == "/select/layer/2?target=true"
    assert cmd.skip(1, -2.5).path == "/skip/layer/1?forwards=false&offset=2.5"
    assert cmd.go_to(1, -3).path == "/goToEnd/layer/1?offset=3"
    assert cmd.set_target_set(0, None).body is None
    assert cmd.set_transition(0, None).body == {"value": None}
    assert cmd.set_blend(0, {"type": "White Matte"}).body == {"type": "White Matte", "base": {}}
    assert cmd.trigger_playlist_cue(-1, "Camera 1").path == "/trigger/playlist/-1/cue/Camera%201"
    assert cmd.request("/custom/thing", {"a": 1}, {"x": True}).path == "/custom/thing?x=true"
    assert cmd.mute(1) == cmd.mute(1) and cmd.mute(1) != cmd.mute(2)
    assert cmd.mute is showctl.Command.mute or cmd.mute == showctl.Command.mute
    assert cmd.set_opacity(0, 1).method == "POST"


def test_two_thousand_commands_in_one_call() -> None:
    with showctl.Simulator(strict=True) as sim, showctl.MediaPlayer(sim.url) as player:
        layers = [layer.name or "" for layer in player.layers()]
        commands = [cmd.set_opacity(layers[i % 4], (i % 101) / 100) for i in range(2000)]
        started = time.perf_counter()
        results = player.batch(commands, concurrency=32)
        elapsed = time.perf_counter() - started
        assert all(r.ok for r in results), [r.error for r in results if not r.ok][:3]
        assert sum(r.method == "POST" for r in sim.requests) == 2000
        print(f"2000 commands in one batch: {elapsed:.2f} s ({2000 / elapsed:.0f}/s)")
