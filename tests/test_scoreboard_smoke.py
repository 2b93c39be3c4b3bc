from __future__ import annotations

import showctl
from pytest_httpserver import HTTPServer
from recording import load, sent, serve


def test_basketball_sync(httpserver: HTTPServer, base_url: str) -> None:
    rec = load("scoreboard/basketball")
    serve(httpserver, rec)
    with showctl.Scoreboard(base_url) as board:
        score = board.scores()
    assert isinstance(score, showctl.BasketballScore)
    assert score.team1_score == "48"
    assert score.team1_bonus1 is True
    assert score.possession == 1
    assert score.to_dict() == rec.body_json
    assert [r.path for r in sent(httpserver)] == ["/api/0/data/scores"]


async def test_basketball_async(httpserver: HTTPServer, base_url: str) -> None:
    rec = load("scoreboard/basketball")
    serve(httpserver, rec)
    async with showctl.Scoreboard(base_url) as board:
        score = await board.scores_async()
    assert isinstance(score, showctl.BasketballScore)
    assert score.team2_score == "51"
    assert score.to_dict() == rec.body_json
