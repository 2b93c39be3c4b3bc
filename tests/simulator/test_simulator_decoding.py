"""The client's decoding of every simulator answer, against expectations written here from the
API documents: neither taken from the client's models nor from the simulator's tables, so a
field name wrong on one side (or on both) fails this test."""

from __future__ import annotations

from typing import Any

import pytest
import showctl

U = "00000000-0000-4000-8000-{:012d}".format

WORKSPACE: dict[str, Any] = {
    "playlists": {
        "name": "Root",
        "uuid": U(1),
        "items": [],
        "children": [
            {
                "name": "Show",
                "uuid": U(2),
                "items": [
                    {
                        "name": "Clip",
                        "uuid": U(3),
                        "duration": 20,
                        "media": {"name": "clip.mov", "uuid": U(4)},
                    }
                ],
                "children": [{"name": "Inner", "uuid": U(12), "items": []}],
            },
            {
                "name": "Video Input",
                "uuid": U(5),
                "videoInput": True,
                "items": [{"name": "Cam", "uuid": U(6)}],
            },
        ],
    },
    "layers": [
        {
            "name": "Main",
            "uuid": U(7),
            "opacity": 0.5,
            "isMuted": True,
            "blendMode": "Screen",
            "targetSet": "Wall",
            "layerPreset": "Dim",
            "transition": "Fade",
            "transitionDuration": 2.0,
            "effects": ["Blur"],
            "effectPreset": "Soft",
        },
        {"name": "Empty", "uuid": U(13)},
    ],
    "blendModes": [{"name": "Normal", "id": 0}, {"name": "Screen", "id": 1}],
    "layerPresets": [{"id": "7", "name": "Dim", "opacity": 0.5}],
    "targetSets": [{"name": "Wall", "uuid": U(8)}],
    "effects": [
        {
            "name": "Blur",
            "uuid": U(9),
            "variables": [
                {
                    "type": "Float",
                    "base": {"name": "Radius", "value": 8.0, "min_value": 0.0, "max_value": 100.0},
                },
                {"type": "Color", "base": {"name": "Tint", "color": "#FF8800"}},
            ],
        }
    ],
    "effectPresets": [{"name": "Soft", "uuid": U(10), "effects": ["Blur"]}],
    "transitions": [{"name": "Fade", "uuid": U(11)}],
    "workspace": {
        "transition": "Fade",
        "transitionDuration": 1.5,
        "effects": ["Blur"],
        "effectPreset": "Soft",
    },
}


pytestmark = pytest.mark.showctl_simulator(workspace=WORKSPACE)


def check_blur(effect: showctl.Effect) -> None:
    assert (effect.uuid, effect.name, effect.enabled) == (U(9), "Blur", True)
    radius, tint = effect.variables
    assert radius.type == "Float" and isinstance(radius.base, showctl.FloatBase)
    assert (radius.base.name, radius.base.value, radius.base.min_value, radius.base.max_value) == (
        "Radius",
        8.0,
        0.0,
        100.0,
    )
    assert tint.type == "Color" and isinstance(tint.base, showctl.ColorBase)
    assert (tint.base.name, tint.base.color) == ("Tint", "#FF8800")


def test_playlists_and_cues(player: showctl.MediaPlayer) -> None:
    root = player.playlists()
    assert (root.uuid, root.name, root.items) == (U(1), "Root", [])
    show, video = root.children
    assert (show.uuid, show.name) == (U(2), "Show")
    assert [(c.uuid, c.name) for c in show.items] == [(U(3), "Clip")]
    assert [(p.uuid, p.name) for p in show.children] == [(U(12), "Inner")]
    assert (video.uuid, video.name, [c.name for c in video.items]) == (U(5), "Video Input", ["Cam"])
    assert player.playlist(0).uuid == U(2)
    assert player.playlist(-1).uuid == U(5)
    assert player.playlist("Inner").uuid == U(12)
    cue = player.cue("Show", 0)
    assert (cue.uuid, cue.name) == (U(3), "Clip")


def test_layers(player: showctl.MediaPlayer) -> None:
    main, empty = player.layers()
    assert (main.uuid, main.name, main.is_hidden, main.is_muted, main.opacity) == (
        U(7),
        "Main",
        False,
        True,
        0.5,
    )
    assert (main.effect_preset_uuid, main.target_set_uuid, main.transition_duration) == (
        U(10),
        U(8),
        2.0,
    )
    [blur] = main.effects
    check_blur(blur)
    # The text "null" in the UUID fields is no preset, no target set.
    assert (empty.effect_preset_uuid, empty.target_set_uuid, empty.effects) == (None, None, [])
    assert player.layer(0).state() == main


def test_layer_reads(player: showctl.MediaPlayer) -> None:
    layer = player.layer("Main")
    assert layer.opacity() == 0.5
    mode = layer.blend_mode()
    assert (mode.name, mode.id) == ("Screen", 1)
    blend = layer.blend()
    assert (blend.type, blend.name, blend.mode_index, blend.opacity, blend.is_inverted) == (
        "Standard",
        "Screen",
        1,
        0.5,
        None,
    )
    assert [(p.id, p.name) for p in layer.presets()] == [("7", "Dim")]
    target = layer.target_set()
    assert target is not None and (target.name, target.uuid) == ("Wall", U(8))
    [blur] = layer.effects()
    check_blur(blur)
    preset = layer.effect_preset()
    assert preset is not None and (preset.uuid, preset.name) == (U(10), "Soft")
    check_blur(preset.effects[0])
    transition = layer.transition()
    assert transition is not None and (transition.uuid, transition.name) == (U(11), "Fade")
    assert layer.transition_duration() == 2.0
    empty = player.layer("Empty")
    assert (empty.target_set(), empty.effect_preset(), empty.transition(), empty.presets()) == (
        None,
        None,
        None,
        [],
    )


def test_catalogues_and_workspace(player: showctl.MediaPlayer) -> None:
    assert [(m.name, m.id) for m in player.blend_modes()] == [("Normal", 0), ("Screen", 1)]
    assert [(p.id, p.name) for p in player.layer_presets()] == [("7", "Dim")]
    assert [(t.name, t.uuid) for t in player.target_sets()] == [("Wall", U(8))]
    [blur] = player.effects()
    check_blur(blur)
    [active] = player.workspace_effects()
    check_blur(active)
    [preset] = player.effect_presets()
    assert (preset.uuid, preset.name, len(preset.effects)) == (U(10), "Soft", 1)
    current = player.workspace_effect_preset()
    assert current is not None and current.uuid == U(10)
    assert [(t.uuid, t.name, t.enabled, t.variables) for t in player.transitions()] == [
        (U(11), "Fade", True, [])
    ]
    transition = player.workspace_transition()
    assert transition is not None and transition.name == "Fade"
    assert player.workspace_transition_duration() == 1.5


def test_transport_states(player: showctl.MediaPlayer) -> None:
    main = player.layer("Main")
    main.select(target=True)
    main.trigger("Show", "Clip")
    state = main.transport_state()
    assert (state.is_playing, state.is_scrubbing, state.playback_rate) == (True, False, 1.0)
    assert state.time_elapsed is not None and 0.0 <= state.time_elapsed < 20.0
    assert state.time_remaining is not None and 0.0 < state.time_remaining <= 20.0
    assert state.playing_item is not None
    assert (state.playing_item.uuid, state.playing_item.name) == (U(3), "Clip")
    assert state.playing_media is not None
    assert (state.playing_media.uuid, state.playing_media.name) == (U(4), "clip.mov")
    assert state.layer is not None and (state.layer.uuid, state.layer.name) == (U(7), "Main")
    assert state.layer.transition is not None and state.layer.transition.name == "Fade"
    main_state, empty_state = player.transport_state()
    assert main_state.playing_media is not None and main_state.playing_media.name == "clip.mov"
    assert (empty_state.playing_item, empty_state.playing_media, empty_state.is_playing) == (
        None,
        None,
        False,
    )
    # The empty layer reports the workspace transition (it has none of its own).
    assert empty_state.layer is not None and empty_state.layer.transition is not None
    assert empty_state.layer.transition.name == "Fade"


# Each sport's fields, per the scoreboard document: wire name -> (attribute, value set,
# value decoded). Text fields take text; possession and currentSet integers; the basketball
# bonus flags booleans; the line and set scores are read as lists.

SPORTS: dict[str, tuple[type[showctl.ScoreRecord], dict[str, tuple[str, Any]]]] = {
    "AustralianFootball": (
        showctl.AustralianFootballScore,
        {
            "quarter": ("quarter", "4"),
            "team1Behinds": ("team1_behinds", "5"),
            "team1Goals": ("team1_goals", "6"),
            "team1Name": ("team1_name", "Swans"),
            "team1Score": ("team1_score", "41"),
            "team2Behinds": ("team2_behinds", "7"),
            "team2Goals": ("team2_goals", "8"),
            "team2Name": ("team2_name", "Magpies"),
            "team2Score": ("team2_score", "55"),
        },
    ),
    "Baseball": (
        showctl.BaseballScore,
        {
            "balls": ("balls", "3"),
            "errors": ("errors", "1"),
            "hits": ("hits", "9"),
            "inning": ("inning", "7"),
            "outs": ("outs", "2"),
            "period": ("period", "7"),
            "runs": ("runs", "6"),
            "strikes": ("strikes", "1"),
            "possession": ("possession", 2),
            "topBottom": ("top_bottom", "Bottom"),
            "teamOneRuns": ("team_one_runs", "4"),
            "teamOneErrors": ("team_one_errors", "0"),
            "teamOneHits": ("team_one_hits", "8"),
            "teamTwoRuns": ("team_two_runs", "2"),
            "teamTwoErrors": ("team_two_errors", "1"),
            "teamTwoHits": ("team_two_hits", "5"),
        },
    ),
    "Basketball": (
        showctl.BasketballScore,
        {
            "period": ("period", "3"),
            "possession": ("possession", 2),
            "team1Bonus1": ("team1_bonus1", True),
            "team1Bonus2": ("team1_bonus2", False),
            "team1Fouls": ("team1_fouls", "4"),
            "team1Score": ("team1_score", "61"),
            "team1TimeOuts": ("team1_time_outs", "2"),
            "team2Bonus1": ("team2_bonus1", False),
            "team2Bonus2": ("team2_bonus2", True),
            "team2Fouls": ("team2_fouls", "6"),
            "team2Score": ("team2_score", "58"),
            "team2TimeOuts": ("team2_time_outs", "1"),
        },
    ),
    "Football": (
        showctl.FootballScore,
        {
            "ballLocation": ("ball_location", "35"),
            "down": ("down", "3"),
            "period": ("period", "2"),
            "toGo": ("to_go", "7"),
            "possession": ("possession", 1),
            "team1Score": ("team1_score", "14"),
            "team1TimeOuts": ("team1_time_outs", "3"),
            "team2Score": ("team2_score", "10"),
            "team2TimeOuts": ("team2_time_outs", "2"),
        },
    ),
    "Hockey": (
        showctl.HockeyScore,
        {
            "period": ("period", "2"),
            "team1Saves": ("team1_saves", "20"),
            "team1Score": ("team1_score", "3"),
            "team1Shots": ("team1_shots", "25"),
            "team1TimeOuts": ("team1_time_outs", "1"),
            "team2Saves": ("team2_saves", "22"),
            "team2Score": ("team2_score", "2"),
            "team2Shots": ("team2_shots", "23"),
            "team2TimeOuts": ("team2_time_outs", "0"),
        },
    ),
    "Lacrosse": (
        showctl.LacrosseScore,
        {
            "period": ("period", "4"),
            "possession": ("possession", 2),
            "team1Saves": ("team1_saves", "11"),
            "team1Score": ("team1_score", "9"),
            "team1Shots": ("team1_shots", "30"),
            "team1TimeOuts": ("team1_time_outs", "1"),
            "team2Saves": ("team2_saves", "12"),
            "team2Score": ("team2_score", "8"),
            "team2Shots": ("team2_shots", "28"),
            "team2TimeOuts": ("team2_time_outs", "2"),
        },
    ),
    "Soccer": (
        showctl.SoccerScore,
        {
            "extraTime": ("extra_time", "3"),
            "period": ("period", "2"),
            "team1Corner": ("team1_corner", "5"),
            "team1Saves": ("team1_saves", "4"),
            "team1Score": ("team1_score", "1"),
            "team1Shots": ("team1_shots", "9"),
            "team1TimeOuts": ("team1_time_outs", "0"),
            "team2Corner": ("team2_corner", "6"),
            "team2Saves": ("team2_saves", "3"),
            "team2Score": ("team2_score", "2"),
            "team2Shots": ("team2_shots", "10"),
            "team2TimeOuts": ("team2_time_outs", "1"),
        },
    ),
    "Tennis": (
        showctl.TennisScore,
        {
            "currentSet": ("current_set", 3),
            "period": ("period", "3"),
            "possession": ("possession", 1),
            "team1Games": ("team1_games", "4"),
            "team1Score": ("team1_score", "30"),
            "team1Sets": ("team1_sets", "1"),
            "team1TimeOuts": ("team1_time_outs", "0"),
            "team2Games": ("team2_games", "5"),
            "team2Score": ("team2_score", "40"),
            "team2Sets": ("team2_sets", "1"),
            "team2TimeOuts": ("team2_time_outs", "0"),
        },
    ),
    "Volleyball": (
        showctl.VolleyballScore,
        {
            "currentSet": ("current_set", 2),
            "period": ("period", "2"),
            "possession": ("possession", 2),
            "team1Games": ("team1_games", "1"),
            "team1Score": ("team1_score", "18"),
            "team1TimeOuts": ("team1_time_outs", "1"),
            "team2Games": ("team2_games", "0"),
            "team2Score": ("team2_score", "21"),
            "team2TimeOuts": ("team2_time_outs", "2"),
        },
    ),
}

# The series fields: wire prefix -> attribute, and what a not-yet-played entry reads.
SERIES: dict[str, list[tuple[str, str, str]]] = {
    "Baseball": [
        ("teamOneLineScore", "team_one_line_score", ""),
        ("teamTwoLineScore", "team_two_line_score", ""),
    ],
    "Tennis": [("team1Set", "team1_set_scores", " "), ("team2Set", "team2_set_scores", " ")],
    "Volleyball": [("team1Set", "team1_set_scores", " "), ("team2Set", "team2_set_scores", " ")],
}


@pytest.mark.parametrize("sport", sorted(SPORTS))
def test_every_sport_field(sim: showctl.Simulator, sport: str) -> None:
    cls, fields = SPORTS[sport]
    sim.set_sport(sport)
    with showctl.Scoreboard(sim.url) as board:
        fresh = board.scores()
        assert type(fresh) is cls and fresh.sport_mode == sport and fresh.version == "1"
        # The record holds exactly the document's fields (series entries 1 to 9).
        series = SERIES.get(sport, [])
        wire = {"uuid", "version", "sportMode", *fields}
        wire |= {f"{prefix}{i}" for prefix, _, _ in series for i in range(1, 10)}
        assert set(fresh.keys()) == wire
        for _, attr, blank in series:
            assert getattr(fresh, attr) == [blank] * 9
        for name, (_, value) in fields.items():
            sim.set_score(name, value)
        for prefix, _, _ in series:
            for i in range(1, 10):
                sim.set_score(f"{prefix}{i}", str(i))
        record = board.scores()
    for name, (attr, value) in fields.items():
        assert getattr(record, attr) == value, name
    for _, attr, _ in series:
        assert getattr(record, attr) == [str(i) for i in range(1, 10)]


def test_custom_games(sim: showctl.Simulator) -> None:
    sim.set_sport("Custom")
    with showctl.Scoreboard(sim.url) as board:
        fresh = board.scores()
        assert isinstance(fresh, showctl.CustomScore)
        assert fresh.games == [
            {
                "possession": "0",
                "quarter": "1",
                "team1Goals": "0",
                "team1Name": "Home",
                "team1Saves": "0",
                "team1TimeOuts": "0",
                "team2Goals": "0",
                "team2Name": "Away",
                "team2Saves": "0",
                "team2TimeOuts": "0",
            }
        ]
        sim.set_score("game2.team1Goals", 3)
        games = board.scores()
    assert isinstance(games, showctl.CustomScore)
    assert games.games[1] == {"team1Goals": "3"}
