"""Limits that keep a show-day mistake small: a huge name is refused before anything is sent,
error messages never carry a huge name or body whole, each endpoint refuses a reply far
larger than its shape allows, and decoding a large reply costs a small multiple of its size,
given back afterwards (measured in a child process, by its resident memory)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import textwrap

import pytest
import showctl

from tests.kit.fakeserver import respond, serving

HUGE = "N" * 70_000


def test_a_huge_name_is_refused_before_anything_is_sent() -> None:
    with showctl.Simulator() as sim, showctl.MediaPlayer(sim.url) as player:
        calls = [
            ("id", lambda: player.layer(HUGE).opacity()),
            ("id", lambda: player.layer(HUGE).mute()),
            ("playlist_id", lambda: player.cue(HUGE, 0)),
            ("cue_id", lambda: player.cue(0, HUGE)),
            ("id", lambda: asyncio.run(player.layer(HUGE).set_opacity_async(0.5))),
            ("id", lambda: showctl.cmd.mute(HUGE)),
        ]
        for arg, call in calls:
            with pytest.raises(ValueError) as info:
                call()
            message = str(info.value)
            assert message.startswith(f"{arg}: "), message
            assert "at most 1024 characters, got 70000" in message, message
            assert len(message) < 300, "the name is not echoed whole"
        with pytest.raises(ValueError, match=r"^path: at most 8192 bytes once encoded"):
            player.request("GET", "/data/" + HUGE)
        with pytest.raises(ValueError, match=r'^params\["q"\]: at most 8192 bytes'):
            player.request("GET", "/data/layers", params={"q": HUGE})
        assert sim.requests == []
        # The longest name allowed is sent (and answered: no such layer).
        with pytest.raises(showctl.BadRequestError) as refused:
            player.layer("é" * 1024).opacity()
        assert len(str(refused.value)) < 1200
        assert "more bytes)" in str(refused.value), "the URL shown says how much was cut"


def test_a_huge_error_body_is_cut_and_says_how_much() -> None:
    body = b"x" * 100_000
    with serving(respond(500, body)) as url:
        with pytest.raises(showctl.ServerError) as info:
            showctl.MediaPlayer(url, retries=0).layers()
    message = str(info.value)
    assert len(message) < 1000, len(message)
    assert message.endswith(f"… ({100_000 - 512} more bytes)"), message[-80:]
    assert info.value.body.endswith(f"… ({100_000 - 512} more bytes)")


# A child process: call `CALL` against `URL` and print its resident memory (peak growth and
# what stays) in bytes, with the outcome.
CHILD = textwrap.dedent(
    """
    import gc, json, sys
    import showctl

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096

    def peak():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))

    def reset_peak():
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")

    url, call = sys.argv[1], sys.argv[2]
    player = showctl.MediaPlayer(url, retries=0, timeout=60)
    player.layer(0)  # the extension loaded, the runtime started
    gc.collect()
    reset_peak()
    base_rss, base_peak = rss(), peak()
    try:
        result = eval(call)
        size = len(result) if hasattr(result, "__len__") else ""
        outcome = type(result).__name__ + " " + str(size)
    except showctl.ShowctlError as e:
        outcome = type(e).__name__ + ": " + str(e)
    result = None
    gc.collect()
    # The next request (here to a port that refuses) gives back what the result held.
    try:
        showctl.MediaPlayer(sys.argv[3], retries=0).layers()
    except showctl.ConnectError:
        pass
    print(json.dumps({"peak": peak() - base_peak, "kept": rss() - base_rss, "outcome": outcome}))
    """
)


def measure(body: bytes, call: str) -> dict[str, object]:
    with serving(respond(200, body)) as url, socket.socket() as refusing:
        refusing.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        dead = f"http://127.0.0.1:{refusing.getsockname()[1]}"
        out = subprocess.run(
            [sys.executable, "-c", CHILD, url, call, dead],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
    result: dict[str, object] = json.loads(out.stdout)
    return result


MB = 1024 * 1024


@pytest.mark.parametrize(
    ("call", "cap"),
    [
        ("player.layer(0).opacity()", 64 * 1024),
        ("player.layer(0).transport_state()", MB),
        ("player.layer(0).state()", MB),
    ],
)
def test_a_reply_far_larger_than_its_endpoint_allows_is_refused(call: str, cap: int) -> None:
    """35 MB (under max_body): refused at the endpoint's cap, never read or decoded whole."""
    body = b'{"data": [' + b",".join([b"{}"] * (12 * MB)) + b"]}"  # ~36 MB, 12M entries
    got = measure(body, call)
    outcome = str(got["outcome"])
    assert outcome.startswith("DecodeError: "), outcome
    assert f"larger than {cap} bytes, the reply cap of this endpoint" in outcome
    assert int(str(got["peak"])) < 16 * MB, got


def test_decoding_a_large_reply_costs_a_small_multiple_and_is_given_back() -> None:
    """layers() of a 24 MB list (40,000 layers with their fields): the peak stays within a
    small constant times the body, and after the result is dropped the memory goes back."""
    layer = {
        "name": "Layer",
        "uuid": "0b5f2c1e-0000-4000-8000-000000000000",
        "opacity": {"value": 0.5},
        "isMuted": False,
        "notes": "n" * 400,
    }
    body = json.dumps({"data": [dict(layer, name=f"Layer {i}") for i in range(40_000)]}).encode()
    got = measure(body, "player.layers()")
    assert str(got["outcome"]) == "LayerList 40000", got
    peak, kept = int(str(got["peak"])), int(str(got["kept"]))
    assert peak < 8 * len(body), (peak / len(body), got)
    assert kept < len(body) // 2, (kept / len(body), got)


def test_many_small_items_cost_a_bounded_multiple() -> None:
    """100,000 small layers (13 MB): the worst shape for memory per body byte."""
    layer = {"name": "L", "uuid": "0b5f2c1e-0000-4000-8000-000000000000", "isMuted": False}
    body = json.dumps({"data": [dict(layer, name=f"L{i}") for i in range(100_000)]}).encode()
    got = measure(body, "player.layers()")
    assert str(got["outcome"]) == "LayerList 100000", got
    peak, kept = int(str(got["peak"])), int(str(got["kept"]))
    assert peak < 24 * len(body), (peak / len(body), got)
    assert kept < len(body), (kept / len(body), got)
