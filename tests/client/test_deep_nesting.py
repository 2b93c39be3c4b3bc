"""JSON nested too deep, given or received, is an error at any depth on any thread, never a
crash: input is refused with ValueError, a reply with DecodeError. Nesting up to the limit (127
levels of arrays and objects, what a JSON parser reads back) works, even on a thread with a
512 KiB stack (macOS's default for threads).

Each case runs in a child process, so a stack overflow (exit -11) fails the test instead of
killing pytest."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

LIMIT = 127

# The child: a loopback server (tests/kit/fakeserver.py) answering every GET with the body
# registered for its path (and echoing every POST's body), and helpers to build deep values
# without recursion.
PRELUDE = f"import sys\nsys.path.insert(0, {str(Path(__file__).parents[2])!r})\n" + textwrap.dedent(
    """
    import asyncio, threading
    import showctl
    from tests.kit.fakeserver import FakeServer, serve

    BODIES = {}

    def answer(seen):
        if seen.method == "POST":
            return 200, seen.body
        return 200, BODIES.get(seen.path, b"{}")

    server = FakeServer(serve(answer)).__enter__()
    URL = server.url

    def nested_list(levels):
        v = 0
        for _ in range(levels):
            v = [v]
        return v

    def nested_dict(levels):
        v = 0
        for _ in range(levels):
            v = {"k": v}
        return v

    def depth(v):
        d = 0
        while isinstance(v, (list, dict)):
            d += 1
            if not v:
                break
            v = v[0] if isinstance(v, list) else next(iter(v.values()))
        return d

    def refused(exc, f, *args, **kwargs):
        try:
            f(*args, **kwargs)
        except exc as e:
            return str(e)
        raise AssertionError(f"{f.__qualname__} did not raise {exc.__name__}")

    def in_small_thread(f):
        threading.stack_size(512 * 1024)
        errors = []
        def run():
            try:
                f()
            except BaseException as e:
                errors.append(e)
        t = threading.Thread(target=run)
        t.start()
        t.join()
        threading.stack_size(0)
        if errors:
            raise errors[0]
    """
)

# Every entry point that takes JSON-like input, refusing a value nested `N` deep.
REFUSE_INPUT = textwrap.dedent(
    """
    def refuse_input(n, made=None):
        deep, deep_dict = made or (nested_list(n), nested_dict(n))
        player = showctl.MediaPlayer(URL, timeout=5)
        layer = player.layer(0)
        sim = showctl.Simulator()
        cases = [
            ("json", player.request, "POST", "/x", deep),
            ("json", player.request, "POST", "/x", deep_dict),
            ("json", player.request_async, "POST", "/x", deep),
            ("params", lambda: player.request("GET", "/x", params={"a": deep})),
            ("json", showctl.cmd.request, "/x", deep),
            ("effect", layer.set_effect, {"uuid": "U", "x": deep}),
            ("effect", player.set_workspace_effect_async, {"uuid": "U", "x": deep_dict}),
            ("effect", showctl.cmd.set_effect, 0, {"uuid": "U", "x": deep}),
            ("blend", layer.set_blend, {"type": "Standard", "base": deep_dict}),
            ("data", showctl.Playlist.from_dict, {"children": deep}),
            ("data", showctl.Cue.from_dict, {"x": deep_dict}),
            ("data", showctl.Effect.from_dict, {"variables": deep}),
            ("data", showctl.LayerState.from_dict, {"effects": deep}),
            ("data", showctl.ScoreRecord.from_dict, {"sportMode": "Hockey", "x": deep}),
            ("data", showctl.BasketballScore.from_dict, {"sportMode": "Basketball", "x": deep}),
            ("workspace", showctl.Simulator, 0, None, {"layers": deep}),
            ("value", sim.set_score, "team1Score", deep_dict),
        ]
        for arg, f, *args in cases:
            message = refused(ValueError, f, *args)
            assert message.startswith(arg) and "nested deeper than 127" in message, message
        # A list that holds itself is infinitely deep.
        loop = []
        loop.append(loop)
        message = refused(ValueError, player.request, "POST", "/x", loop)
        assert "nested deeper than 127" in message, message
    """
)

# Deep replies: refused with DecodeError; the deepest accepted ones are read.
REPLIES = textwrap.dedent(
    """
    def tree(levels):
        body = '{"name": "leaf", "items": [{"name": "c", "uuid": "u"}]}'
        for i in range(levels):
            body = '{"name": "p%d", "children": [%s]}' % (i, body)
        return ('{"playlist": %s}' % body).encode()

    def replies(n):
        BODIES["/api/0/data/deep"] = ("[" * n + "]" * n).encode()
        BODIES["/api/0/data/playlists"] = tree(n // 2)
        BODIES["/api/0/data/scores"] = ('{"sportMode": "Hockey", "x": %s}' % (
            "[" * n + "]" * n)).encode()
        player = showctl.MediaPlayer(URL, timeout=5)
        board = showctl.Scoreboard(URL, timeout=5)
        for f, *args in [
            (player.request, "GET", "/data/deep"),
            (player.playlists,),
            (board.scores,),
            (board.scores_as, showctl.HockeyScore),
        ]:
            message = refused(showctl.DecodeError, f, *args)
            assert "recursion limit" in message, message
        async def deep_async():
            return await player.request_async("GET", "/data/deep")
        refused(showctl.DecodeError, asyncio.run, deep_async())

    def deepest_replies():
        BODIES["/api/0/data/deep"] = ("[" * 127 + "]" * 127).encode()
        # 1 + 2 per nested playlist + 1 + the items array and its cue: 127 levels.
        BODIES["/api/0/data/playlists"] = tree(61)
        BODIES["/api/0/data/scores"] = ('{"sportMode": "Hockey", "x": %s}' % (
            "[" * 126 + "]" * 126)).encode()
        player = showctl.MediaPlayer(URL, timeout=5)
        assert depth(player.request("GET", "/data/deep")) == 127
        root = player.playlists()
        walked = list(root.walk())
        assert len(walked) == 62 and walked[-1].name == "leaf", len(walked)
        assert walked[-1].items[0].name == "c"
        assert showctl.Playlist.from_dict(root.to_dict()) == root
        assert hash(showctl.Playlist.from_dict(root.to_dict())) == hash(root)
        record = showctl.Scoreboard(URL, timeout=5).scores()
        assert depth(record["x"]) == 126 and hash(record) == hash(record)
        # The deepest input is sent, and the echo read back.
        echoed = player.request("POST", "/echo", json=nested_dict(127))
        assert depth(echoed) == 127
        command = showctl.cmd.request("/x", json=nested_list(127))
        assert depth(command.body) == 127
        assert depth(showctl.Effect.from_dict({"x": nested_list(126)}).to_dict()) == 127
        records = {"Hockey": {"x": nested_list(123)}}
        sim = showctl.Simulator(workspace={"blendModes": [{"name": "Normal", "id": 0}],
                                           "scoreboard": {"records": records}})
        # The deepest value is converted; the simulator then refuses it for the field's type
        # (a score is text), not for its depth.
        message = refused(ValueError, sim.set_score, "team1Score", nested_dict(127))
        assert "holds text" in message and "nested deeper" not in message, message
    """
)


def run_child(body: str) -> str:
    script = PRELUDE + REFUSE_INPUT + REPLIES + textwrap.dedent(body) + '\nprint("ok")\n'
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip().endswith("ok"), done.stdout
    return done.stdout


@pytest.mark.parametrize("levels", [LIMIT + 1, 500, 20_000, 100_000])
def test_deep_input_is_refused_on_the_main_thread(levels: int) -> None:
    run_child(f"refuse_input({levels})")


@pytest.mark.parametrize("levels", [LIMIT + 1, 500, 20_000, 100_000])
def test_deep_input_is_refused_on_a_512k_thread(levels: int) -> None:
    # The deep values are made, and freed, on the main thread: CPython 3.13.0 itself crashes
    # freeing a 100,000-deep list on a 512 KiB thread, with no showctl involved.
    made = f"made = (nested_list({levels}), nested_dict({levels}))"
    run_child(f"{made}; in_small_thread(lambda: refuse_input({levels}, made)); del made")


# Replies stop at 20,000 levels: the helper that writes the deep playlist body takes quadratic
# time, and the parser refuses past 127 levels whatever follows.
@pytest.mark.parametrize("levels", [LIMIT + 1, 500, 20_000])
def test_deep_replies_are_decode_errors(levels: int) -> None:
    run_child(f"replies({levels}); in_small_thread(lambda: replies({levels}))")


def test_the_deepest_accepted_values_work_on_a_512k_thread() -> None:
    run_child("deepest_replies(); in_small_thread(deepest_replies)")
