"""The exceptions of showctl, raised from the Rust core.

Every exception derives from ``ShowctlError``. Refusals of bad input before anything is
sent are plain ``ValueError`` (or ``TypeError`` for a wrong type).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Union

if TYPE_CHECKING:
    from showctl._core import ScoreRecord

__all__ = [
    "ApiError",
    "BadRequestError",
    "ClientClosedError",
    "ConnectError",
    "DecodeError",
    "Delivery",
    "DoublePressError",
    "ForbiddenError",
    "MethodNotAllowedError",
    "NameLookupError",
    "NotConfirmedError",
    "NotFoundError",
    "ServerError",
    "ServiceUnavailableError",
    "ShowctlError",
    "SportMismatchError",
    "Timeout",
    "UnauthorizedError",
]

#: Whether a failed call's request reached the application: ``"not_sent"`` (nothing left this
#: process: firing it again cannot run it twice), ``"sent_no_answer"`` (it went out and no
#: answer came: the application may or may not have acted) or ``"answered"`` (the application
#: answered: an error status, an unreadable answer, a read-back that did not confirm).
Delivery = Literal["not_sent", "sent_no_answer", "answered"]

#: A value as read from JSON: what ``NotConfirmedError.expected`` and ``.actual`` hold.
JsonValue = Union[None, bool, int, float, str, list["JsonValue"], dict[str, "JsonValue"]]


class ShowctlError(Exception):
    """Base class of every error showctl raises (besides ValueError/TypeError for bad input).

    ``delivery`` says whether the request went out (see ``Delivery``); each class has its
    default, and the core passes what it knows.
    """

    #: What ``delivery`` is when the core does not say: a failure of the library itself
    #: cannot tell, so it reads as possibly sent.
    default_delivery: Delivery = "sent_no_answer"

    def __init__(
        self,
        message: str,
        *,
        method: str | None = None,
        url: str | None = None,
        delivery: Delivery | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.method = method
        self.url = url
        self.delivery: Delivery = delivery if delivery is not None else self.default_delivery

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (type(self), self.message, dict(self.__dict__)))


def _rebuild(cls: type[ShowctlError], message: str, state: dict[str, object]) -> ShowctlError:
    exc = cls.__new__(cls)
    Exception.__init__(exc, message)
    exc.__dict__.update(state)
    return exc


class ApiError(ShowctlError):
    """The application answered with a non-2xx status.

    Attributes: ``status`` (int), ``method``, ``url`` (never with the key) and ``body`` (an
    excerpt of the response body, at most 512 bytes).
    """

    default_delivery: Delivery = "answered"

    def __init__(
        self,
        message: str,
        *,
        status: int,
        method: str | None = None,
        url: str | None = None,
        body: str = "",
        delivery: Delivery | None = None,
    ) -> None:
        super().__init__(message, method=method, url=url, delivery=delivery)
        self.status = status
        self.body = body


class BadRequestError(ApiError):
    """400: an unknown layer, cue or playlist, or a malformed body."""


class UnauthorizedError(ApiError):
    """401: the API key is missing or wrong."""


class ForbiddenError(ApiError):
    """403: the endpoint is reserved for administrators."""


class NotFoundError(ApiError):
    """404: a wrong path, a disabled API, or the documentation port instead of the API port."""


class MethodNotAllowedError(ApiError):
    """405: the endpoint does not accept this method."""


class ServerError(ApiError):
    """5xx: a server-side problem."""


class ServiceUnavailableError(ServerError):
    """503: the application is temporarily unavailable."""


class ConnectError(ShowctlError, ConnectionError):
    """No connection could be made, or it broke before a complete answer."""


class Timeout(ShowctlError, TimeoutError):
    """No complete answer within the timeout."""


class DecodeError(ShowctlError):
    """The answer was not the JSON the endpoint returns (or was larger than ``max_body``)."""

    default_delivery: Delivery = "answered"

    def __init__(
        self,
        message: str,
        *,
        method: str | None = None,
        url: str | None = None,
        body: str = "",
        delivery: Delivery | None = None,
    ) -> None:
        super().__init__(message, method=method, url=url, delivery=delivery)
        self.body = body


class NotConfirmedError(ShowctlError):
    """A command sent with ``confirm=True`` was answered 200, but reading back never showed
    the expected state.

    Attributes: ``expected`` and ``actual`` (the values as read from JSON: a float, a bool, a
    name, a dict per layer for the workspace, keyed by layer name, ``"name [index]"`` where
    layers share a name, the index for a nameless layer; ``actual`` is ``None`` when the read
    itself failed), ``method`` and ``url`` of the command.
    """

    default_delivery: Delivery = "answered"

    def __init__(
        self,
        message: str,
        *,
        expected: JsonValue = None,
        actual: JsonValue = None,
        method: str | None = None,
        url: str | None = None,
        delivery: Delivery | None = None,
    ) -> None:
        super().__init__(message, method=method, url=url, delivery=delivery)
        self.expected: JsonValue = expected
        self.actual: JsonValue = actual


class NameLookupError(ShowctlError, LookupError):
    """A name looked up by ``resolve_layer``, ``resolve_playlist`` or ``by_name`` matched
    nothing, or more than one thing (the message lists them)."""

    default_delivery: Delivery = "not_sent"


class ClientClosedError(ShowctlError):
    """The client was closed; nothing was sent."""

    default_delivery: Delivery = "not_sent"


class DoublePressError(ShowctlError):
    """Refused by the client's ``cooldown``: the same command (same method, path, query and
    body) was answered less than the cooldown ago, or is still waiting for its answer. Nothing
    was sent; ``method`` and ``url`` name the command. ``player.without_cooldown()`` passes the
    guard on purpose."""

    default_delivery: Delivery = "not_sent"


class SportMismatchError(ShowctlError):
    """``Scoreboard.scores_as(cls)`` read a record of another sport than ``cls``'s.

    Attributes: ``expected`` (the class asked for), ``record`` (the record read, of its own
    sport's class, so nothing is lost), ``method`` and ``url``.
    """

    default_delivery: Delivery = "answered"

    def __init__(
        self,
        message: str,
        *,
        expected: type[ScoreRecord],
        record: ScoreRecord,
        method: str | None = None,
        url: str | None = None,
        delivery: Delivery | None = None,
    ) -> None:
        super().__init__(message, method=method, url=url, delivery=delivery)
        self.expected: type[ScoreRecord] = expected
        self.record: ScoreRecord = record
