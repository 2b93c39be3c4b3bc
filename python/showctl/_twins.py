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
(``__wrapped__``). Each coroutine a twin returns is named after its class and method
(``Layer.set_opacity_async``, ``MediaPlayer.aclose``), so a forgotten ``await`` warns
"coroutine 'Layer.set_opacity_async' was never awaited" rather than naming the helper that
makes them all. The watches (``watch_async``, ``watch_events_async``,
``watch_transport_async``) return async iterators, not awaitables, and stay as they are.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable
from typing import Any, Callable

from showctl._core import Layer, MediaPlayer, Scoreboard, TransportWatch

__all__: list[str] = []


async def _coroutine_code() -> None:
    """Only its code object is used: it carries the ``CO_COROUTINE`` flag."""


class _Twin:
    """An ``_async`` method: the native one, called at once, seen as a coroutine function."""

    # What inspect reads of a function-like object (CPython 3.10, 3.11).
    __code__ = _coroutine_code.__code__
    __defaults__ = None
    __kwdefaults__ = None

    def __init__(self, native: Callable[..., Awaitable[Any]], owner: str) -> None:
        self.__wrapped__ = native
        self.__name__: str = native.__name__
        self.__qualname__: str = f"{owner}.{native.__name__}"
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
        coroutine: Any = self.__wrapped__(obj, *args, **kwargs)
        coroutine.__name__ = self.__name__
        coroutine.__qualname__ = self.__qualname__
        return coroutine  # type: ignore[no-any-return]

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<async method {self.__qualname__}>"


def _install() -> None:
    """A twin on each class for each of its awaitable methods, its own and those it inherits
    from ``_Client`` (each named after the class it is called on)."""
    for cls in (MediaPlayer, Scoreboard, Layer, TransportWatch):
        for name in dir(cls):
            awaitable = name.endswith("_async") and not name.startswith("watch")
            if awaitable or name == "aclose":
                native = getattr(cls, name)
                setattr(cls, name, _Twin(getattr(native, "__wrapped__", native), cls.__name__))


_install()
