"""Every sport of the scoreboard document decoded field by field, sync and async, from the
recordings under recordings/scoreboard/."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import showctl
from pytest_httpserver import HTTPServer

from tests.kit.netkit import MODES, scores
from tests.kit.recording import load, sent, serve

_ = " "  # a set not played (Tennis, Volleyball)

# recording name -> (class, every typed attribute of the class with its expected value)
EXPECTED: dict[str, tuple[type[showctl.ScoreRecord], dict[str, Any]]] = {
    "australian_football": (
        showctl.AustralianFootballScore,
        {
            "quarter": "3",
            "team1_behinds": "7",
            "team1_goals": "9",
            "team1_name": "Hawks",
            "team1_score": "61",
            "team2_behinds": "11",
            "team2_goals": "8",
            "team2_name": "Swans",
            "team2_score": "59",
        },
    ),
    "baseball": (
        showctl.BaseballScore,
        {
            "balls": "2",
            "errors": "0",
            "hits": "1",
            "inning": "6",
            "outs": "1",
            "period": "6",
            "runs": "0",
            "strikes": "1",
            "possession": 2,
            "top_bottom": "Bottom",
            "team_one_runs": "3",
            "team_one_errors": "1",
            "team_one_hits": "7",
            "team_one_line_score": ["0", "2", "0", "0", "1", "0", "", "", ""],
            "team_two_runs": "2",
            "team_two_errors": "0",
            "team_two_hits": "5",
            "team_two_line_score": ["1", "0", "0", "1", "0", "", "", "", ""],
        },
    ),
    "basketball": (
        showctl.BasketballScore,
        {
            "period": "2",
            "possession": 1,
            "team1_bonus1": True,
            "team1_bonus2": False,
            "team1_fouls": "4",
            "team1_score": "48",
            "team1_time_outs": "3",
            "team2_bonus1": False,
            "team2_bonus2": False,
            "team2_fouls": "6",
            "team2_score": "51",
            "team2_time_outs": "2",
        },
    ),
    "football": (
        showctl.FootballScore,
        {
            "ball_location": "35",
            "down": "3",
            "period": "2",
            "to_go": "7",
            "possession": 1,
            "team1_score": "14",
            "team1_time_outs": "2",
            "team2_score": "10",
            "team2_time_outs": "3",
        },
    ),
    "hockey": (
        showctl.HockeyScore,
        {
            "period": "2",
            "team1_saves": "18",
            "team1_score": "2",
            "team1_shots": "21",
            "team1_time_outs": "1",
            "team2_saves": "19",
            "team2_score": "1",
            "team2_shots": "20",
            "team2_time_outs": "0",
        },
    ),
    "lacrosse": (
        showctl.LacrosseScore,
        {
            "period": "4",
            "possession": 2,
            "team1_saves": "11",
            "team1_score": "9",
            "team1_shots": "30",
            "team1_time_outs": "1",
            "team2_saves": "14",
            "team2_score": "12",
            "team2_shots": "33",
            "team2_time_outs": "2",
        },
    ),
    "soccer": (
        showctl.SoccerScore,
        {
            "extra_time": "4",
            "period": "2",
            "team1_corner": "6",
            "team1_saves": "3",
            "team1_score": "1",
            "team1_shots": "12",
            "team1_time_outs": "0",
            "team2_corner": "2",
            "team2_saves": "5",
            "team2_score": "1",
            "team2_shots": "8",
            "team2_time_outs": "0",
        },
    ),
    "tennis": (
        showctl.TennisScore,
        {
            "current_set": 3,
            "period": "3",
            "possession": 1,
            "team1_games": "4",
            "team1_score": "30",
            "team1_sets": "1",
            "team1_time_outs": "0",
            "team1_set_scores": ["6", "4", "4", _, _, _, _, _, _],
            "team2_games": "2",
            "team2_score": "15",
            "team2_sets": "1",
            "team2_time_outs": "0",
            "team2_set_scores": ["3", "6", "2", _, _, _, _, _, _],
        },
    ),
    "volleyball": (
        showctl.VolleyballScore,
        {
            "current_set": 4,
            "period": "4",
            "possession": 2,
            "team1_games": "2",
            "team1_score": "18",
            "team1_time_outs": "1",
            "team1_set_scores": ["25", "22", "25", "18", _, _, _, _, _],
            "team2_games": "1",
            "team2_score": "21",
            "team2_time_outs": "2",
            "team2_set_scores": ["21", "25", "19", "21", _, _, _, _, _],
        },
    ),
    "custom": (
        showctl.CustomScore,
        {
            "games": [
                {
                    "possession": "1",
                    "quarter": "2",
                    "team1Goals": "3",
                    "team1Name": "Red",
                    "team1Saves": "7",
                    "team1TimeOuts": "1",
                    "team2Goals": "2",
                    "team2Name": "Blue",
                    "team2Saves": "9",
                    "team2TimeOuts": "2",
                },
                {
                    "possession": "2",
                    "quarter": "1",
                    "team1Goals": "0",
                    "team1Name": "Green",
                    "team1Saves": "4",
                    "team1TimeOuts": "3",
                    "team2Goals": "1",
                    "team2Name": "Gold",
                    "team2Saves": "2",
                    "team2TimeOuts": "3",
                },
            ]
        },
    ),
}

RECORD_ATTRS = set(dir(showctl.ScoreRecord))
ALL = [*EXPECTED, "unknown_sport", "duplicate_sport_mode", "conflicting_sport_mode"]


def record(name: str) -> showctl.ScoreRecord:
    """A record decoded from a recording's body (no server involved)."""
    return showctl.ScoreRecord.from_dict(load(f"scoreboard/{name}").body_json)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_sport_field_by_field(
    httpserver: HTTPServer, base_url: str, name: str, mode: str
) -> None:
    rec = load(f"scoreboard/{name}")
    serve(httpserver, rec)
    cls, fields = EXPECTED[name]
    with showctl.Scoreboard(base_url) as board:
        score = scores(board, mode)
    assert type(score) is cls
    assert score.sport_mode == rec.body_json["sportMode"]
    assert score.uuid == rec.body_json["uuid"]
    assert score.version == "1"
    # The class has exactly the attributes of its sport, each with its value and type.
    assert set(dir(cls)) - RECORD_ATTRS == set(fields)
    for attr, expected in fields.items():
        value = getattr(score, attr)
        assert value == expected, attr
        assert type(value) is type(expected), attr
    assert score.to_dict() == rec.body_json
    assert list(score.to_dict()) == list(rec.body_json)  # the order as sent
    # mode="python", as every media model takes it: the attributes by name, typed.
    expected = {"uuid": score.uuid, "version": "1", "sport_mode": score.sport_mode, **fields}
    if cls is showctl.CustomScore:
        expected["games"] = score.games
    assert score.to_dict(mode="python") == expected
    assert score.to_dict(mode="wire") == rec.body_json
    assert [(r.method, r.path) for r in sent(httpserver)] == [("GET", "/api/0/data/scores")]


@pytest.mark.parametrize("mode", MODES)
def test_unknown_sport_gives_a_plain_record(
    httpserver: HTTPServer, base_url: str, mode: str
) -> None:
    rec = load("scoreboard/unknown_sport")
    serve(httpserver, rec)
    score = scores(showctl.Scoreboard(base_url), mode)
    assert type(score) is showctl.ScoreRecord
    assert score.sport_mode == "Curling"
    assert score["end"] == "6"
    assert score["hammer"] == 2
    assert score.to_dict() == rec.body_json
    assert score.to_dict(mode="python") == {
        "uuid": score.uuid,
        "version": score.version,
        "sport_mode": "Curling",
    }
    refusal = (
        'mode: must be "wire" (the JSON as sent) or "python" (attribute names and values), '
        'got "json"'
    )
    with pytest.raises(ValueError, match=f"^{re.escape(refusal)}$"):
        score.to_dict(mode="json")  # type: ignore[arg-type]
    assert "ScoreRecord(uuid='7C8D9E0F-" in repr(score)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("name", "cls", "score_field"),
    [
        ("duplicate_sport_mode", showctl.HockeyScore, "3"),  # the same sportMode twice
        ("conflicting_sport_mode", showctl.BasketballScore, "20"),  # two sportModes: last wins
    ],
)
def test_duplicate_sport_mode(
    httpserver: HTTPServer,
    base_url: str,
    name: str,
    cls: type[showctl.ScoreRecord],
    score_field: str,
    mode: str,
) -> None:
    rec = load(f"scoreboard/{name}")
    assert rec.body.count(b'"sportMode"') == 2
    serve(httpserver, rec)
    score = scores(showctl.Scoreboard(base_url), mode)
    assert type(score) is cls
    assert score.sport_mode == cls.__name__.removesuffix("Score")
    assert score.team1_score == score_field  # type: ignore[attr-defined]
    # Same as Python's json: the last value, at the first key's position.
    expected = json.loads(rec.body)
    assert score.to_dict() == expected
    assert list(score.to_dict()) == list(expected)
    assert len(score) == len(expected)


@pytest.mark.parametrize("name", ALL)
def test_pickle_and_equality(name: str) -> None:
    import copy
    import pickle

    a = showctl.ScoreRecord.from_dict(json.loads(load(f"scoreboard/{name}").body))
    b = showctl.ScoreRecord.from_dict(json.loads(load(f"scoreboard/{name}").body))
    assert a == b
    assert not (a != b)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        c = pickle.loads(pickle.dumps(a, protocol))
        assert type(c) is type(a)
        assert c == a
        assert c.to_dict() == a.to_dict()
        assert repr(c) == repr(a)
    assert copy.deepcopy(a) == a
    changed = a.to_dict()
    changed["uuid"] = "other"
    assert showctl.ScoreRecord.from_dict(changed) != a
    assert a != a.to_dict()  # a record is not a dict, even with the same content


def test_equality_ignores_key_order_but_not_values() -> None:
    a = showctl.ScoreRecord.from_dict({"sportMode": "Hockey", "team1Score": "1", "period": "2"})
    b = showctl.ScoreRecord.from_dict({"period": "2", "sportMode": "Hockey", "team1Score": "1"})
    c = showctl.ScoreRecord.from_dict({"period": "2", "sportMode": "Hockey", "team1Score": 1})
    assert a == b
    assert a != c


def test_mapping_access() -> None:
    score = record("basketball")
    assert score["team1Score"] == "48"
    assert score["possession"] == 1
    assert score["team1Bonus1"] is True
    assert score.get("team2Fouls") == "6"
    assert score.get("nope") is None
    assert score.get("nope", "-") == "-"
    assert "team1Score" in score
    assert "team1_score" not in score
    assert 1 not in score
    with pytest.raises(KeyError, match="nope"):
        score["nope"]
    with pytest.raises(KeyError):
        score[0]  # type: ignore[index]
    assert score.keys() == list(score) == list(score.to_dict())
    assert dict(zip(score.keys(), (score[k] for k in score))) == score.to_dict()
    assert len(score) == len(score.to_dict())


def test_to_dict_is_a_fresh_copy() -> None:
    score = record("custom")
    d = score.to_dict()
    d["game1"]["team1Goals"] = "99"
    assert score.to_dict()["game1"]["team1Goals"] == "3"
    assert score.games[0]["team1Goals"] == "3"


def test_lenient_reading_of_typed_fields() -> None:
    score = showctl.ScoreRecord.from_dict(
        {
            "sportMode": "Basketball",
            "uuid": "null",
            "possession": "2",
            "team1Bonus1": "true",
            "team2Bonus1": 0,
            "team1Score": 48,
            "team2Score": None,
        }
    )
    assert isinstance(score, showctl.BasketballScore)
    assert score.uuid is None
    assert score.possession == 2
    assert score.team1_bonus1 is True
    assert score.team2_bonus1 is False
    assert score.team1_score == "48"  # numbers are read as the text the document types
    assert score.team2_score is None
    assert score.period is None  # absent
    assert score.to_dict()["team1Score"] == 48  # to_dict keeps what was sent


def test_missing_series_entries_are_none() -> None:
    score = showctl.ScoreRecord.from_dict(
        {"sportMode": "Tennis", "team1Set1": "6", "team1Set2": " "}
    )
    assert isinstance(score, showctl.TennisScore)
    assert score.team1_set_scores == ["6", " ", None, None, None, None, None, None, None]
    assert score.team2_set_scores == [None] * 9


def test_custom_games_in_numeric_order() -> None:
    score = showctl.ScoreRecord.from_dict(
        {"sportMode": "Custom", "game10": {"a": "10"}, "game2": {"a": 2}, "game1": {"a": "1"}}
    )
    assert isinstance(score, showctl.CustomScore)
    assert score.games == [{"a": "1"}, {"a": "2"}, {"a": "10"}]


def test_from_dict_refuses_a_non_object() -> None:
    with pytest.raises(ValueError):
        showctl.ScoreRecord.from_dict([1, 2])  # type: ignore[arg-type]


def test_repr_is_dataclass_like_and_quotes_like_python() -> None:
    score = record("hockey")
    r = repr(score)
    assert r.startswith("HockeyScore(uuid='1C2D3E4F-5A6B-4C7D-8E9F-0A1B2C3D4E5F', version='1', ")
    assert "sport_mode='Hockey'" in r
    assert "team1_shots='21'" in r
    odd = showctl.ScoreRecord.from_dict({"sportMode": "Hockey", "uuid": "a'b\"c\\d"})
    assert repr(odd).startswith("HockeyScore(uuid=" + repr("a'b\"c\\d") + ", version=None")
    assert "games=[{'possession': '1'" in repr(record("custom"))
    assert "team_one_line_score=['0', '2', '0', '0', '1', '0', '', '', '']" in repr(
        record("baseball")
    )


def test_records_are_immutable() -> None:
    score = record("hockey")
    with pytest.raises(AttributeError):
        score.team1_score = "9"  # type: ignore[misc]
    with pytest.raises(TypeError):
        score["team1Score"] = "9"  # type: ignore[index]


def tables(html: str) -> list[list[list[str]]]:
    """The cell texts (unescaped) of each table of an HTML fragment, row by row."""
    from html.parser import HTMLParser

    out: list[list[list[str]]] = []

    class Parser(HTMLParser):
        cell: list[str] | None = None

        def handle_starttag(self, tag: str, attrs: object) -> None:
            if tag == "table":
                out.append([])
            elif tag == "tr":
                out[-1].append([])
            elif tag in ("th", "td"):
                self.cell = []

        def handle_endtag(self, tag: str) -> None:
            if tag in ("th", "td") and self.cell is not None:
                out[-1][-1].append("".join(self.cell))
                self.cell = None

        def handle_data(self, data: str) -> None:
            if self.cell is not None:
                self.cell.append(data)

    Parser().feed(html)
    return out


def test_repr_html_is_a_scoreboard() -> None:
    html = record("baseball")._repr_html_()
    assert html.startswith('<div class="showctl-score"><table')
    assert "<caption" in html
    assert "Baseball · balls 2 · errors 0 · hits 1 · inning 6 · outs 1" in html
    assert "possession 2 · topBottom Bottom</caption>" in html
    [table] = tables(html)
    innings = [str(i) for i in range(1, 10)]
    assert table == [
        ["", *innings, "Runs", "Errors", "Hits"],
        ["Team 1", "0", "2", "0", "0", "1", "0", "", "", "", "3", "1", "7"],
        ["Team 2", "1", "0", "0", "1", "0", "", "", "", "", "2", "0", "5"],
    ]


def test_repr_html_of_each_sport_has_two_team_rows() -> None:
    for name in EXPECTED:
        for table in tables(record(name)._repr_html_()):
            assert len(table) == 3, name
            assert len({len(row) for row in table}) == 1, name


def test_repr_html_names_teams_and_escapes() -> None:
    score = showctl.ScoreRecord.from_dict(
        {
            "sportMode": "AustralianFootball",
            "quarter": "<b>4</b>",
            "team1Name": "Tigers & <Lions>",
            "team1Score": "7\"'",
            "team2Name": "Swans",
            "team2Score": "3",
        }
    )
    html = score._repr_html_()
    assert "Tigers &amp; &lt;Lions&gt;" in html
    assert "7&quot;&#x27;" in html  # html.escape's form (the view is drawn by showctl._html)
    assert "quarter &lt;b&gt;4&lt;/b&gt;" in html
    assert "<Lions>" not in html and "<b>" not in html
    assert tables(html) == [[["", "Score"], ["Tigers & <Lions>", "7\"'"], ["Swans", "3"]]]


def test_repr_html_of_custom_and_unknown() -> None:
    html = record("custom")._repr_html_()
    assert "Custom game 1 · possession 1 · quarter 2" in html
    first, second = tables(html)
    assert first == [
        ["", "Goals", "Saves", "Time Outs"],
        ["Red", "3", "7", "1"],
        ["Blue", "2", "9", "2"],
    ]
    assert second[1][0] == "Green"
    [unknown] = tables(record("unknown_sport")._repr_html_())
    assert ["hammer", "2"] in unknown
    assert ["team1Score", "4"] in unknown
    assert "<script" not in showctl.ScoreRecord.from_dict({"x": "<script>"})._repr_html_()
