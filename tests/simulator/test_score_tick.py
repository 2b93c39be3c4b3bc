"""``Simulator(score_tick=...)``: the simulator plays the score by itself, so a loop that follows
the game (a period to wait for, as the README's tour does) ends with nothing else running, in
every sport, whatever it calls its period."""

from __future__ import annotations

import pytest
import showctl

SPORTS = [
    "AustralianFootball",  # the quarter
    "Baseball",  # the inning (a period ends at each half-inning)
    "Basketball",
    "Football",
    "Hockey",
    "Lacrosse",
    "Soccer",
    "Tennis",  # the set
    "Volleyball",
    "Custom",  # game1's quarter
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("sport", SPORTS)
def test_every_sport_scores_and_moves_to_the_next_period(sport: str) -> None:
    with showctl.Simulator(score_tick=0.05) as sim, showctl.Scoreboard(sim.url) as board:
        sim.set_sport(sport)
        seen: set[str] = set()
        periods = []
        for ev in board.watch_events(interval=0.05):
            seen.add(ev.kind)
            if ev.kind == "period_changed":
                periods.append((ev.old, ev.new))
                if len(periods) == 2:
                    break
        view = board.scores().view()
        assert view.sport == sport
    assert "score_changed" in seen or sport in ("Tennis", "Volleyball")
    # Two periods ended in order: the second started where the first one's change ended.
    assert periods[0][1] == periods[1][0]


@pytest.mark.timeout(60)
def test_the_readme_loop_ends_and_a_game_starts_again() -> None:
    """The tour's loop: Basketball from the default workspace's second period to the fourth;
    after the fourth, a new game from period 1 with the team names kept."""
    with showctl.Simulator(score_tick=0.05) as sim, showctl.Scoreboard(sim.url) as board:
        assert sim.score_tick == 0.05
        for record in board.watch(interval=0.05):
            if isinstance(record, showctl.BasketballScore) and record.period == "4":
                break
        for record in board.watch(interval=0.05):
            if record.get("period") == "1":
                break
        assert record["team1Score"] in ("0", "1", "2", "3")


@pytest.mark.timeout(60)
def test_a_restarted_simulator_plays_again() -> None:
    with showctl.Simulator(score_tick=0.05) as sim, showctl.Scoreboard(sim.url) as board:
        sim.stop()
        sim.start()
        kinds = (ev.kind for ev in board.watch_events(interval=0.05))
        assert "score_changed" in kinds


@pytest.mark.parametrize(
    "bad,error,words",
    [
        (0.01, ValueError, "score_tick: must be a number of seconds from 0.05 to 3600"),
        (float("nan"), ValueError, "score_tick"),
        (True, ValueError, "score_tick: a bool is not a number"),
        ("1", TypeError, "score_tick"),
    ],
)
def test_a_bad_tick_is_refused(bad: object, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        showctl.Simulator(score_tick=bad)  # type: ignore[arg-type]


@pytest.mark.timeout(60)
@pytest.mark.showctl_simulator(score_tick=0.05)
def test_the_plugins_simulator_plays_when_the_marker_says_so(
    showctl_simulator: showctl.Simulator, showctl_scoreboard: showctl.Scoreboard
) -> None:
    assert showctl_simulator.score_tick == 0.05
    kinds = (ev.kind for ev in showctl_scoreboard.watch_events(interval=0.05))
    assert "period_changed" in kinds
