"""Arguments of every kind of number a user may hold: integers with ``__index__`` (numpy's)
are taken as ints, numbers.Real (numpy's floats) as floats, bools (numpy's too) are refused
where a number or an id is expected, ints are refused where a flag is expected, and every
message names the argument."""

from __future__ import annotations

import fractions
import json
import math
import numbers
from typing import Any

import numpy as np
import pytest
import showctl
from pytest_httpserver import HTTPServer
from showctl import cmd

from tests.kit.mediakit import MODES, invoke


class Index:
    """An integer by ``__index__`` only (like numpy's integers)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


class FloatAndBool:
    """Converts to float and bool but is no number (like numpy's bool)."""

    def __float__(self) -> float:
        return 1.0

    def __bool__(self) -> bool:
        return True


class Real(FloatAndBool):
    """The same, registered as a ``numbers.Real``."""

    def __float__(self) -> float:
        return 0.25


numbers.Real.register(Real)


# ---------------------------------------------------------------------------------------------
# Accepted
# ---------------------------------------------------------------------------------------------

INTEGERS = [np.int64(1), np.int32(1), np.uint8(1), Index(1)]


@pytest.mark.parametrize("one", INTEGERS, ids=lambda v: type(v).__name__)
def test_integers_with_index_are_ids(one: Any) -> None:
    player = showctl.MediaPlayer("http://127.0.0.1:9")
    assert player.layer(one) == player.layer(1)
    assert player.layer(one).id == 1 and type(player.layer(one).id) is int
    assert cmd.mute(one).path == "/mute/layer/1"
    assert cmd.trigger(one, one, one).path == "/trigger/layer/1/playlist/1/cue/1"
    assert cmd.select_playlist(one).path == "/select/playlist/1"
    assert cmd.set_opacity(one, one).body == {"value": 1.0}


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        (np.float32(0.5), 0.5),
        (np.float64(0.25), 0.25),
        (np.int64(1), 1.0),
        (Index(0), 0.0),
        (fractions.Fraction(3, 4), 0.75),
        (Real(), 0.25),
    ],
    ids=lambda v: type(v).__name__,
)
def test_numbers_real_and_index_are_numbers(value: Any, sent: float) -> None:
    assert cmd.set_opacity(0, value).body == {"value": sent}
    assert cmd.set_transition_duration(0, value).body == {"value": sent}


def test_numpy_values_in_json_and_params(sim: showctl.Simulator) -> None:
    body = {
        "i": np.int64(-3),
        "u": np.uint64(2**64 - 1),
        "f": np.float32(0.5),
        "d": np.float64(0.1),
        "x": Index(7),
        "nested": [np.int8(1), (np.int16(2),), {"k": np.float16(1.5)}],
    }
    expected = {
        "i": -3,
        "u": 2**64 - 1,
        "f": 0.5,
        "d": 0.1,
        "x": 7,
        "nested": [1, [2], {"k": 1.5}],
    }
    assert cmd.request("/x", json=body).body == expected
    player = showctl.MediaPlayer(sim.url)
    with pytest.raises(showctl.ApiError):
        player.request("POST", "/x", json=body, params={"n": np.int64(5), "f": np.float64(2.5)})
    (rec,) = sim.requests
    assert rec.json() == expected
    assert rec.query == {"n": "5", "f": "2.5"}


def test_a_numpy_bool_in_json_and_params_is_sent_as_a_bool(sim: showctl.Simulator) -> None:
    """What the user means: JSON's true, as for a bool. numpy 1.x and 2.0 give numpy's bool an
    `__index__` (it went out as 1); later numpys refuse that (the body was refused, saying to
    send a bool). Run on each numpy the supported Pythons install (.ci/run)."""
    body = {"on": np.True_, "off": [np.False_], "plain": True}
    expected = '{"on": true, "off": [false], "plain": true}'  # 1 == True: compare the JSON
    assert json.dumps(cmd.request("/x", json=body).body) == expected
    player = showctl.MediaPlayer(sim.url)
    with pytest.raises(showctl.ApiError):
        player.request("POST", "/x", json=body, params={"p": np.True_, "q": True})
    (rec,) = sim.requests
    assert json.dumps(rec.json()) == expected
    assert rec.query == {"p": "true", "q": "true"}


def test_numpy_numbers_reach_the_application(sim: showctl.Simulator) -> None:
    player = showctl.MediaPlayer(sim.url)
    layer = player.layer(np.int64(0))
    layer.set_opacity(np.float32(0.5))
    assert layer.opacity() == 0.5
    assert player.layer(0).opacity() == 0.5
    assert player.layer(np.int64(0)).state() == player.layer(0).state()


def test_numpy_bool_is_a_flag() -> None:
    assert cmd.select(0, target=np.True_).path == "/select/layer/0?target=true"
    player = showctl.MediaPlayer("http://127.0.0.1:9", verify=np.False_, retry_commands=np.True_)
    assert player.timeout == 5.0


def test_client_options_take_numpy_numbers() -> None:
    player = showctl.MediaPlayer(
        "http://127.0.0.1:9", timeout=np.float32(1.5), retries=np.int64(3), max_body=Index(1000)
    )
    assert player.timeout == 1.5
    board = showctl.Scoreboard("http://127.0.0.1:9", timeout=np.int64(2))
    assert board.timeout == 2.0


# ---------------------------------------------------------------------------------------------
# Refused, naming the argument
# ---------------------------------------------------------------------------------------------

BOOLS = [True, False, np.True_, np.False_]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("flag", BOOLS, ids=repr)
def test_bools_are_no_numbers_nor_ids(
    httpserver: HTTPServer, base_url: str, mode: str, flag: Any
) -> None:
    player = showctl.MediaPlayer(base_url)
    layer = player.layer(0)
    for target, method, args, arg in [
        (layer, "set_opacity", (flag,), "value"),
        (layer, "set_transition_duration", (flag,), "seconds"),
        (layer, "go_to", (flag,), "seconds"),
        (layer, "skip", (flag,), "seconds"),
        (layer, "adjust_opacity", (flag,), "delta"),
        (layer, "trigger", (0, flag), "cue_id"),
        (player, "playlist", (flag,), "id"),
        (player, "set_workspace_transition_duration", (flag,), "seconds"),
    ]:
        with pytest.raises(ValueError, match=rf"^{arg}: a bool is not"):
            invoke(mode, target, method, *args)
    with pytest.raises(ValueError, match=r"^id: a bool"):
        player.layer(flag)
    with pytest.raises(ValueError, match=r"^value: a bool"):
        cmd.set_opacity(0, flag)
    assert httpserver.log == []


@pytest.mark.parametrize("flag", BOOLS, ids=repr)
def test_bools_are_no_option_numbers(flag: Any) -> None:
    url = "http://127.0.0.1:9"
    for cls in (showctl.MediaPlayer, showctl.Scoreboard):
        for option in ("timeout", "retries", "max_body"):
            with pytest.raises(ValueError, match=rf"^{option}: a bool"):
                cls(url, **{option: flag})
    player = showctl.MediaPlayer(url)
    with pytest.raises(ValueError, match=r"^interval: a bool"):
        player.watch_transport(interval=flag)
    with pytest.raises(ValueError, match=r"^thresholds\[1\]: a bool"):
        player.watch_transport(thresholds=[5.0, flag])
    with pytest.raises(ValueError, match=r"^steps: a bool"):
        player.layer(0).fade(0.5, 1.0, steps=flag)
    with pytest.raises(ValueError, match=r"^concurrency: a bool"):
        player.batch([], concurrency=flag)
    with pytest.raises(ValueError, match=r"^interval: a bool"):
        showctl.Scoreboard(url).watch(interval=flag)
    with pytest.raises(ValueError, match=r"^port: a bool"):
        showctl.Simulator(port=flag)


@pytest.mark.parametrize("mode", MODES)
def test_flags_take_only_bools(httpserver: HTTPServer, base_url: str, mode: str) -> None:
    player = showctl.MediaPlayer(base_url)
    layer = player.layer(0)
    for bad in (1, 0, "yes", None):
        with pytest.raises(TypeError, match=r"^target: expected True or False"):
            invoke(mode, layer, "select", target=bad)
        with pytest.raises(TypeError, match=r"^confirm: expected True or False"):
            invoke(mode, layer, "mute", confirm=bad)
        with pytest.raises(TypeError, match=r"^confirm: expected True or False"):
            invoke(mode, player, "trigger_playlist", 0, confirm=bad)
    with pytest.raises(TypeError, match=r"^target: expected True or False, got int"):
        cmd.select(0, target=1)
    with pytest.raises(TypeError, match=r"^verify: expected True or False"):
        showctl.MediaPlayer(base_url, verify=1)
    with pytest.raises(TypeError, match=r"^retry_commands: expected True or False"):
        showctl.Scoreboard(base_url, retry_commands="no")
    assert httpserver.log == []


def test_options_of_the_wrong_type_name_the_argument() -> None:
    url = "http://127.0.0.1:9"
    for cls in (showctl.MediaPlayer, showctl.Scoreboard):
        with pytest.raises(TypeError, match=r"^timeout: expected an int or a float, got NoneType"):
            cls(url, timeout=None)
        with pytest.raises(TypeError, match=r"^timeout: expected an int or a float, got str"):
            cls(url, timeout="5")
        with pytest.raises(TypeError, match=r"^retries: expected an int, got float"):
            cls(url, retries=2.0)
        with pytest.raises(ValueError, match=r"^max_body: the int is out of range"):
            cls(url, max_body=2**64)
        with pytest.raises(ValueError, match=r"^max_body: must be a positive number"):
            cls(url, max_body=np.int64(0))
        with pytest.raises(TypeError, match=r"^max_body: expected an int, got float"):
            cls(url, max_body=1e6)
        with pytest.raises(TypeError, match=r"^timeout: expected an int or a float, got"):
            cls(url, timeout=FloatAndBool())


def test_no_number_converts_by_float_alone() -> None:
    with pytest.raises(TypeError, match=r"^value: expected an int or a float, got FloatAndBool"):
        cmd.set_opacity(0, FloatAndBool())
    with pytest.raises(TypeError, match=r"^id: expected an int index, a name or a UUID"):
        showctl.MediaPlayer("http://127.0.0.1:9").layer(np.float64(1.0))


def test_offsets_are_bounded_and_short(httpserver: HTTPServer, base_url: str) -> None:
    layer = showctl.MediaPlayer(base_url).layer(0)
    for bad in (1e300, -1e300, 7 * 24 * 3600 + 1, 10**400):
        for method in (layer.go_to, layer.skip):
            with pytest.raises(ValueError, match=r"^seconds: ") as info:
                method(bad)
            assert len(str(info.value)) < 120, str(info.value)
    assert httpserver.log == []
    assert cmd.go_to(0, 1e-300).path == "/goToStart/layer/0?offset=0"
    assert cmd.go_to(0, np.float64(2.5)).path == "/goToStart/layer/0?offset=2.5"
    assert cmd.skip(0, -7 * 24 * 3600).path == "/skip/layer/0?forwards=false&offset=604800"


def test_json_refusals_name_the_place() -> None:
    with pytest.raises(TypeError, match=r"""^json\["a"\]\[1\]: a set cannot be sent as JSON"""):
        cmd.request("/x", json={"a": [1, {2}]})
    with pytest.raises(TypeError, match=r"^json: JSON object keys are str, got a int key"):
        cmd.request("/x", json={1: 2})
    with pytest.raises(TypeError, match=r"""^json\["a"\]\[0\]: JSON object keys are str"""):
        cmd.request("/x", json={"a": [{"b": 1, None: 2}]})
    with pytest.raises(ValueError, match=r"""^json\[0\]\["v"\]: NaN cannot be sent as JSON"""):
        cmd.request("/x", json=[{"v": math.nan}])
    with pytest.raises(ValueError, match=r"^json\[0\]: the int cannot be sent as JSON"):
        cmd.request("/x", json=[2**64])
    with pytest.raises(TypeError, match=r"^json: a bytes cannot be sent as JSON"):
        cmd.request("/x", json=b"{}")
    with pytest.raises(TypeError, match=r"""^params\["a"\]: expected str, int, float or bool"""):
        cmd.request("/x", params={"a": [1]})


def test_text_and_path_arguments_name_the_argument() -> None:
    url = "http://127.0.0.1:9"
    for cls in (showctl.MediaPlayer, showctl.Scoreboard):
        with pytest.raises(TypeError, match=r"^url: expected a str, got int"):
            cls(5)
        with pytest.raises(TypeError, match=r"^api_key: expected a str, got bytes"):
            cls(url, b"key")
        with pytest.raises(TypeError, match=r"^ca_cert: expected a path"):
            cls(url, ca_cert=5)
    player = showctl.MediaPlayer(url)
    with pytest.raises(TypeError, match=r"^name: expected a str, got int"):
        player.resolve_layer(3)
    with pytest.raises(TypeError, match=r"^name: expected a str, got int"):
        player.resolve_playlist_async(3)
    with pytest.raises(TypeError, match=r"^kind: expected a str, got int"):
        player.by_name("x", kind=1)
    with pytest.raises(TypeError, match=r"^method: expected a str, got NoneType"):
        player.request(None, "/x")
    with pytest.raises(TypeError, match=r"^path: expected a str, got int"):
        player.request("GET", 1)
    with pytest.raises(TypeError, match=r"^params: expected a dict, got list"):
        player.request("GET", "/x", params=[("a", 1)])
    with pytest.raises(TypeError, match=r"^path: expected a str, got int"):
        cmd.request(1)
    with showctl.Simulator() as sim:
        with pytest.raises(TypeError, match=r"^field: expected a str, got int"):
            sim.set_score(1, "2")
        with pytest.raises(TypeError, match=r"^mode: expected a str, got NoneType"):
            sim.set_sport(None)
    with pytest.raises(TypeError, match=r"^api_key: expected a str, got int"):
        showctl.Simulator(api_key=1)
