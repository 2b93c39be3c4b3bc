"""showctl: remote control for a media playback application and a scoreboard application.

Examples:
    >>> import showctl
    >>> board = showctl.Scoreboard("http://127.0.0.1:8080")
    >>> board.scores().sport_mode  # doctest: +SKIP
    'Basketball'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from showctl._core import (
    BlendMode,
    ColorBase,
    Cue,
    Effect,
    EffectPreset,
    FloatBase,
    Layer,
    LayerBlend,
    LayerPreset,
    LayerState,
    Media,
    MediaPlayer,
    Playlist,
    TargetSet,
    Transition,
    TransportState,
    Variable,
)
from showctl._lists import LayerList, TransportList

# automation (watch_transport, mirrors, batch)
# isort: split
from showctl import cmd
from showctl._core import (
    BatchResult,
    Command,
    LayerLook,
    Look,
    MirrorStatus,
    SequenceResult,
    StepResult,
    TransportEvent,
    TransportWatch,
    Wait,
    WaitUntil,
)

# isort: split
# simulator
from showctl._core import RecordedRequest, Simulator

# isort: split
# score views and events, and the feed
from showctl._core import Feed, ScoreEvent, ScoreEventWatch, ScoreView, TeamScore

# isort: split
# the OSC bridge
from showctl._core import OscBridge

# isort: split
# Each command record also carries its fields as attributes (showctl.commands).
from showctl import _commands  # noqa: F401

# isort: split
# show-day tools: the report of probe(), imported when first named (dataclasses and its
# imports would add about 10 ms to every `import showctl`)
if TYPE_CHECKING:
    from showctl._connections import FeedSource, MirrorSpec
    from showctl._reports import EndpointResult, ProbeReport, Recorded, TlsInfo
    from showctl._venue import (
        MirrorReport,
        SimulatedVenue,
        SourceReport,
        VenueReport,
        probe_venue,
        probe_venue_async,
        simulate_venue,
    )

# isort: split
from showctl.exceptions import (
    ApiError,
    BadRequestError,
    ClientClosedError,
    ConnectError,
    DecodeError,
    Delivery,
    DoublePressError,
    ForbiddenError,
    MethodNotAllowedError,
    NameLookupError,
    NotConfirmedError,
    NotFoundError,
    ServerError,
    ServiceUnavailableError,
    ShowctlError,
    SportMismatchError,
    Timeout,
    UnauthorizedError,
)

__all__ = [
    "ApiError",
    "AustralianFootballScore",
    "BadRequestError",
    "BaseballScore",
    "BasketballScore",
    "BatchResult",
    "BlendMode",
    "ClientClosedError",
    "ColorBase",
    "Command",
    "ConnectError",
    "Cue",
    "CustomScore",
    "DecodeError",
    "Delivery",
    "DoublePressError",
    "Effect",
    "EffectPreset",
    "EndpointResult",
    "Feed",
    "FeedSource",
    "FloatBase",
    "FootballScore",
    "ForbiddenError",
    "HockeyScore",
    "LacrosseScore",
    "Layer",
    "LayerBlend",
    "LayerList",
    "LayerLook",
    "LayerPreset",
    "LayerState",
    "Look",
    "Media",
    "MediaPlayer",
    "MethodNotAllowedError",
    "MirrorReport",
    "MirrorSpec",
    "MirrorStatus",
    "NameLookupError",
    "NotConfirmedError",
    "NotFoundError",
    "OscBridge",
    "Playlist",
    "ProbeReport",
    "Recorded",
    "RecordedRequest",
    "ScoreEvent",
    "ScoreEventWatch",
    "ScoreRecord",
    "ScoreView",
    "ScoreWatch",
    "Scoreboard",
    "SequenceResult",
    "ServerError",
    "ServiceUnavailableError",
    "ShowctlError",
    "SimulatedVenue",
    "Simulator",
    "SoccerScore",
    "SourceReport",
    "SportMismatchError",
    "StepResult",
    "TargetSet",
    "TeamScore",
    "TennisScore",
    "Timeout",
    "TlsInfo",
    "Transition",
    "TransportEvent",
    "TransportList",
    "TransportState",
    "TransportWatch",
    "UnauthorizedError",
    "Variable",
    "VenueReport",
    "VolleyballScore",
    "Wait",
    "WaitUntil",
    "__version__",
    "cmd",
    "probe_venue",
    "probe_venue_async",
    "simulate_venue",
]

# The module each lazily imported name comes from.
_LAZY = {
    "EndpointResult": "_reports",
    "ProbeReport": "_reports",
    "Recorded": "_reports",
    "TlsInfo": "_reports",
    "FeedSource": "_connections",
    "MirrorSpec": "_connections",
}
_LAZY_VENUE = frozenset(
    {
        "MirrorReport",
        "SimulatedVenue",
        "SourceReport",
        "VenueReport",
        "probe_venue",
        "probe_venue_async",
        "simulate_venue",
    }
)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f"showctl.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    if name in _LAZY_VENUE:
        from showctl import _venue

        value = getattr(_venue, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'showctl' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | _LAZY_VENUE)
