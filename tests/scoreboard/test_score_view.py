"""ScoreRecord.view() on every sport of the recordings, and Scoreboard.watch_events() (sync and
async) against the simulator: every kind of event, with typed values."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import showctl

from tests.kit.recording import load

# Per recording: (team names, scores, period, possession, one extra to check).
VIEWS: dict[str, tuple[Any, ...]] = {
    "australian_football": (("Hawks", "Swans"), (61, 59), 3, None, ("stats", 0, "goals", 9)),
    "baseball": ((None, None), (3, 2), 6, 2, ("line_score", 0, 1, 2)),
    "basketball": ((None, None), (48, 51), 2, 1, ("stats", 0, "bonus1", True)),
    "football": ((None, None), (14, 10), 2, 1, ("fields", None, "to_go", 7)),
    "hockey": ((None, None), (2, 1), 2, None, ("stats", 1, "saves", 19)),
    "lacrosse": ((None, None), (9, 12), 4, 2, ("stats", 0, "shots", 30)),
    "soccer": ((None, None), (1, 1), 2, None, ("fields", None, "extra_time", 4)),
    "tennis": ((None, None), (30, 15), 3, 1, ("sets", 1, 1, 6)),
    "volleyball": ((None, None), (18, 21), 4, 2, ("sets", 0, 3, 18)),
    "custom": (("Red", "Blue"), (3, 2), 2, 1, ("stats", 1, "saves", 9)),
}


def view_of(name: str) -> showctl.ScoreView:
    record = showctl.ScoreRecord.from_dict(load(f"scoreboard/{name}").body_json)
    return record.view()


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_each_sport_has_a_typed_view(name: str) -> None:
    names, scores, period, possession, (where, team, key, value) = VIEWS[name]
    view = view_of(name)
    assert [t.name for t in view.teams] == list(names)
    assert [t.score for t in view.teams] == list(scores)
    assert all(type(t.score) is int for t in view.teams)
    assert view.period == period
    assert view.possession == possession
    if where == "fields":
        assert view.fields[key] == value
    elif where == "stats":
        assert view.teams[team].stats[key] == value
    else:
        assert getattr(view.teams[team], where)[key] == value
    # The wire record is untouched: its fields are still the application's text.
    record = showctl.ScoreRecord.from_dict(load(f"scoreboard/{name}").body_json)
    assert record.to_dict() == load(f"scoreboard/{name}").body_json


def test_unplayed_innings_and_sets_are_none() -> None:
    baseball = view_of("baseball")
    assert baseball.teams[0].line_score[-1] is None
    assert len(baseball.teams[0].line_score) == 9
    assert baseball.teams[0].sets == []
    tennis = view_of("tennis")
    assert tennis.teams[0].sets[3:] == [None] * 6
    assert tennis.fields["current_set"] == 3


def test_custom_games_and_unknown_sport() -> None:
    custom = view_of("custom")
    assert [g.teams[0].name for g in custom.games] == ["Red", "Green"]
    # The record's own teams are those of its first game.
    assert custom.teams == custom.games[0].teams
    assert custom.games[1].sport == "Custom"
    unknown = view_of("unknown_sport")
    assert unknown.sport == "Curling"
    assert unknown.teams == []
    assert unknown.period is None


def test_text_that_is_not_a_number_stays_text() -> None:
    view = showctl.ScoreRecord.from_dict(
        {"sportMode": "Hockey", "period": "OT", "team1Score": "07", "team2Score": "-"}
    ).view()
    assert view.period == "OT"
    assert [t.score for t in view.teams] == [7, "-"]
    d = view.to_dict()
    assert d["teams"][1]["score"] == "-"
    assert "ScoreView(sport='Hockey'" in repr(view)


def next_event(watch: showctl.ScoreEventWatch) -> showctl.ScoreEvent:
    return next(watch)


def first_event(
    watch: showctl.ScoreEventWatch, change: Callable[[int], None]
) -> showctl.ScoreEvent:
    """The watch takes its baseline at its first poll, so a change made before that is no
    event: make changes until one is reported (at most 10 s)."""
    box: queue.Queue[showctl.ScoreEvent] = queue.Queue()
    threading.Thread(target=lambda: box.put(next(watch)), daemon=True).start()
    deadline = time.monotonic() + 10
    n = 0
    while time.monotonic() < deadline:
        n += 1
        change(n)
        try:
            return box.get(timeout=0.5)
        except queue.Empty:
            continue
    raise AssertionError("the watch reported no change within 10 s")


def test_every_event_kind(sim: showctl.Simulator) -> None:
    board = showctl.Scoreboard(sim.url, retries=0)
    watch = board.watch_events(interval=0.05)
    sim.set_sport("Basketball")
    sim.set_score("period", "2")
    sim.set_score("possession", 1)

    ev = first_event(watch, lambda n: sim.set_score("team1Score", str(60 + n)))
    assert ev.kind == "score_changed"
    assert (ev.team, ev.field) == (1, "team1Score")
    assert type(ev.new) is int and type(ev.old) is int
    assert ev.delta == ev.new - ev.old
    assert ev.record is not None and ev.record.view().teams[0].score == ev.new
    assert repr(ev) == (
        f"ScoreEvent(kind='score_changed', field='team1Score', team=1, old={ev.old}, "
        f"new={ev.new}, delta={ev.delta})"
    )

    sim.set_score("period", "3")
    ev = next_event(watch)
    assert (ev.kind, ev.old, ev.new) == ("period_changed", 2, 3)
    assert repr(ev) == "ScoreEvent(kind='period_changed', field='period', old=2, new=3)"

    sim.set_score("possession", 2)
    ev = next_event(watch)
    assert (ev.kind, ev.old, ev.new) == ("possession_changed", 1, 2)

    sim.set_score("team2Fouls", "5")
    ev = next_event(watch)
    assert (ev.kind, ev.field, ev.new) == ("field_changed", "team2Fouls", 5)

    sim.set_sport("Hockey")
    ev = next_event(watch)
    assert (ev.kind, ev.old, ev.new) == ("sport_changed", "Basketball", "Hockey")

    sim.fail_next(503, times=1000)
    ev = next_event(watch)
    assert ev.kind == "poll_failed"
    assert isinstance(ev.error, showctl.ServiceUnavailableError)
    assert repr(ev) == f"ScoreEvent(kind='poll_failed', error={ev.error!r})"
    sim.fail_next(503, times=0)
    ev = next_event(watch)
    assert ev.kind == "poll_recovered"
    assert ev.timestamp > 0
    assert repr(ev) == "ScoreEvent(kind='poll_recovered')"


def test_watch_events_async_and_custom_games(sim: showctl.Simulator) -> None:
    sim.set_sport("Custom")

    async def main() -> showctl.ScoreEvent:
        board = showctl.Scoreboard(sim.url, retries=0)
        watch = board.watch_events_async(interval=0.05)
        value = 10
        sim.set_score("game1.team1Goals", str(value))
        # The first poll is the baseline: change until a change is reported (at most 10 s).
        first = asyncio.ensure_future(watch.__anext__())
        for _ in range(20):
            if first.done():
                break
            value += 1
            sim.set_score("game1.team1Goals", str(value))
            await asyncio.wait({first}, timeout=0.5)
        return await asyncio.wait_for(first, 0.5)

    ev = asyncio.run(main())
    assert (ev.kind, ev.field, ev.game, ev.team, ev.delta) == (
        "score_changed",
        "game1.team1Goals",
        1,
        1,
        1,
    )


def test_a_bad_interval_is_refused_before_polling(sim: showctl.Simulator) -> None:
    board = showctl.Scoreboard(sim.url)
    with pytest.raises(ValueError, match=r"^interval:"):
        board.watch_events(interval=0.0)
    assert sim.requests == []
