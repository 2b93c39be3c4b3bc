"""Immutable objects are hashable consistently with ``==``; Layer handles compare by client and
identifier; a sport's record class reads only its own sport; ``scores_as`` gives a typed
record or says which sport is live."""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

import pytest
import showctl
from showctl import cmd


def test_layer_handles_compare_by_client_and_id() -> None:
    player = showctl.MediaPlayer("http://127.0.0.1:9")
    same_url = showctl.MediaPlayer("http://127.0.0.1:9")
    assert player.layer(0) == player.layer(0)
    assert hash(player.layer("Main")) == hash(player.layer("Main"))
    assert player.layer(0) != player.layer(1)
    assert player.layer(0) != player.layer("0")  # an index and a name are different addresses
    assert player.layer(0) != same_url.layer(0)  # another client (its own options, mirrors)
    assert player.layer(0) != 0
    assert len({player.layer(0), player.layer(0), player.layer(1), same_url.layer(0)}) == 3


def test_score_records_are_hashable(sim: showctl.Simulator) -> None:
    board = showctl.Scoreboard(sim.url)
    first, again = board.scores(), board.scores()
    assert first == again and hash(first) == hash(again)
    data = first.to_dict()
    shuffled = showctl.ScoreRecord.from_dict(dict(reversed(list(data.items()))))
    assert shuffled == first and hash(shuffled) == hash(first)
    assert hash(pickle.loads(pickle.dumps(first))) == hash(first)
    changed = showctl.ScoreRecord.from_dict({**data, "team1Score": "999"})
    assert changed != first and hash(changed) != hash(first)
    assert {first, again, shuffled, changed} == {first, changed}
    unknown = showctl.ScoreRecord.from_dict({"sportMode": "Curling"})
    assert type(unknown) is showctl.ScoreRecord and hash(unknown) == hash(
        showctl.ScoreRecord.from_dict({"sportMode": "Curling"})
    )


def test_commands_and_recorded_requests_are_hashable(sim: showctl.Simulator) -> None:
    assert hash(cmd.set_opacity(0, 0.5)) == hash(cmd.set_opacity(0, 0.5))
    assert {cmd.mute(0), cmd.mute(0), cmd.mute(1)} == {cmd.mute(0), cmd.mute(1)}
    player = showctl.MediaPlayer(sim.url)
    player.layer(0).mute()
    player.layer(0).mute()
    a, b = sim.requests
    assert a == b and hash(a) == hash(b)


def test_a_tree_read_in_one_pass_hashes_like_its_dict(sim: showctl.Simulator) -> None:
    root = showctl.MediaPlayer(sim.url).playlists()
    rebuilt = showctl.Playlist.from_dict(root.to_dict())
    assert rebuilt == root and hash(rebuilt) == hash(root)
    for playlist in root.walk():
        for cue in playlist.items:
            assert hash(cue) == hash(showctl.Cue.from_dict(cue.to_dict()))


SPORTS = [
    ("Basketball", showctl.BasketballScore),
    ("Tennis", showctl.TennisScore),
    ("Hockey", showctl.HockeyScore),
    ("Custom", showctl.CustomScore),
]


@pytest.mark.parametrize(("mode", "cls"), SPORTS, ids=[s[0] for s in SPORTS])
def test_a_sport_class_reads_only_its_sport(mode: str, cls: type[Any]) -> None:
    record = cls.from_dict({"sportMode": mode, "team1Score": "3"})
    assert type(record) is cls
    assert type(showctl.ScoreRecord.from_dict({"sportMode": mode})) is cls
    for other, other_cls in SPORTS:
        if other_cls is cls:
            continue
        with pytest.raises(ValueError, match=rf"^data: the record's sportMode is '{other}'"):
            cls.from_dict({"sportMode": other})
    with pytest.raises(ValueError, match=r"^data: the record has no sportMode"):
        cls.from_dict({"team1Score": "3"})
    with pytest.raises(ValueError, match=r"^data: "):
        cls.from_dict({"sportMode": "Curling"})


def test_scores_as_gives_the_typed_record(sim: showctl.Simulator) -> None:
    board = showctl.Scoreboard(sim.url)
    sim.set_sport("Basketball")
    score = board.scores_as(showctl.BasketballScore)
    assert type(score) is showctl.BasketballScore and score == board.scores()
    assert board.scores_as(showctl.ScoreRecord) == score
    sim.set_sport("Tennis")
    with pytest.raises(showctl.SportMismatchError) as info:
        board.scores_as(showctl.BasketballScore)
    err = info.value
    assert isinstance(err, showctl.ShowctlError)
    assert err.expected is showctl.BasketballScore
    assert type(err.record) is showctl.TennisScore and err.record == board.scores()
    assert err.method == "GET" and err.url == f"{sim.url}/api/0/data/scores"
    assert str(err) == (
        f"GET {sim.url}/api/0/data/scores: the record's sportMode is 'Tennis', not Basketball"
    )
    assert pickle.loads(pickle.dumps(err)).record == err.record


def test_scores_as_async(sim: showctl.Simulator) -> None:
    board = showctl.Scoreboard(sim.url)
    sim.set_sport("Hockey")

    async def run() -> showctl.HockeyScore:
        with pytest.raises(showctl.SportMismatchError, match=r"'Hockey', not Soccer$"):
            await board.scores_as_async(showctl.SoccerScore)
        return await board.scores_as_async(showctl.HockeyScore)

    score = asyncio.run(run())
    assert type(score) is showctl.HockeyScore and score.period is not None


@pytest.mark.parametrize("bad", [int, showctl.Scoreboard, "BasketballScore", None])
def test_scores_as_refuses_other_classes(sim: showctl.Simulator, bad: Any) -> None:
    board = showctl.Scoreboard(sim.url)
    with pytest.raises(TypeError, match=r"^cls: expected ScoreRecord or a sport's record class"):
        board.scores_as(bad)
    with pytest.raises(TypeError, match=r"^cls: "):
        board.scores_as_async(bad)
    assert sim.requests == []
