"""showctl: remote control for a media playback application and a scoreboard application.

>>> import showctl
>>> board = showctl.Scoreboard("http://127.0.0.1:8080")
>>> board.scores().sport_mode  # doctest: +SKIP
'Basketball'
"""

from __future__ import annotations

from showctl._core import (
    AustralianFootballScore,
    BaseballScore,
    BasketballScore,
    CustomScore,
    FootballScore,
    HockeyScore,
    LacrosseScore,
    Scoreboard,
    ScoreRecord,
    ScoreWatch,
    SoccerScore,
    TennisScore,
    VolleyballScore,
    __version__,
)

# isort: split
# media playback (MediaPlayer, Layer, models)
# simulator
from showctl._core import RecordedRequest, Simulator

# isort: split
from showctl.exceptions import (
    ApiError,
    BadRequestError,
    ClientClosedError,
    ConnectError,
    DecodeError,
    ForbiddenError,
    MethodNotAllowedError,
    NotConfirmedError,
    NotFoundError,
    ServerError,
    ServiceUnavailableError,
    ShowctlError,
    Timeout,
    UnauthorizedError,
)

__all__ = [
    "ApiError",
    "AustralianFootballScore",
    "BadRequestError",
    "BaseballScore",
    "BasketballScore",
    "ClientClosedError",
    "ConnectError",
    "CustomScore",
    "DecodeError",
    "FootballScore",
    "ForbiddenError",
    "HockeyScore",
    "LacrosseScore",
    "MethodNotAllowedError",
    "NotConfirmedError",
    "NotFoundError",
    "RecordedRequest",
    "ScoreRecord",
    "ScoreWatch",
    "Scoreboard",
    "ServerError",
    "ServiceUnavailableError",
    "ShowctlError",
    "Simulator",
    "SoccerScore",
    "TennisScore",
    "Timeout",
    "UnauthorizedError",
    "VolleyballScore",
    "__version__",
]
