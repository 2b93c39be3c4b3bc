"""The ``_async`` twins as coroutine functions.

The native twins (``MediaPlayer.layers_async``, ...) return an awaitable, but a method of a
compiled class is not a coroutine function to ``inspect.iscoroutinefunction``, so frameworks
that look for async callables would treat them as blocking. Each is replaced here, once at
import, by a ``_Twin`` that calls the native method at once and returns its awaitable: bad
arguments still raise at the call, before anything is awaited or sent, as they always did. The
twin is marked as a coroutine function the way ``inspect`` reads it: the ``CO_COROUTINE`` flag
of its ``__code__`` (CPython 3.10 and 3.11, which accept a function-like object) and the mark
of ``inspect.markcoroutinefunction`` (3.12 and later). On CPython 3.9 ``inspect`` accepts only
real functions, and the twins are not reported as coroutine functions there.

``inspect.signature`` and ``help()`` show the native method's signature and docstring
(``__wrapped__``). The watches (``watch_async``, ``watch_events_async``,
``watch_transport_async``) return async iterators, not awaitables, and stay as they are.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable
from typing import Any, Callable

from showctl._core import Layer, MediaPlayer, Scoreboard, TransportWatch, _Client

__all__: list[str] = []


async def _coroutine_code() -> None:
    """Only its code object is used: it carries the ``CO_COROUTINE`` flag."""


class _Twin:
    """An ``_async`` method: the native one, called at once, seen as a coroutine function."""

    # What inspect reads of a function-like object (CPython 3.10, 3.11).
    __code__ = _coroutine_code.__code__
    __defaults__ = None
    __kwdefaults__ = None

    def __init__(self, native: Callable[..., Awaitable[Any]]) -> None:
        self.__wrapped__ = native
        self.__name__: str = native.__name__
        self.__qualname__: str = getattr(native, "__qualname__", native.__name__)
        self.__doc__ = native.__doc__
        self.__annotations__: dict[str, Any] = {}

    @property
    def _is_coroutine_marker(self) -> object:
        """What ``inspect.markcoroutinefunction`` (CPython 3.12+) would set, read only when
        ``inspect`` asks: importing ``inspect`` here would add about 6 ms to
        ``import showctl``."""
        import inspect

        if not hasattr(inspect, "markcoroutinefunction"):
            return None
        marked = inspect.markcoroutinefunction(lambda: None)
        return vars(marked)["_is_coroutine_marker"]

    def __call__(self, obj: Any, /, *args: Any, **kwargs: Any) -> Awaitable[Any]:
        return self.__wrapped__(obj, *args, **kwargs)

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<async method {self.__qualname__}>"


def _install() -> None:
    for cls in (_Client, MediaPlayer, Scoreboard, Layer, TransportWatch):
        for name, native in list(vars(cls).items()):
            if name.endswith("_async") and not name.startswith("watch"):
                setattr(cls, name, _Twin(native))


_install()
