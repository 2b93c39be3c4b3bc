"""The ``_async`` twins as coroutine functions.

The native twins (``MediaPlayer.layers_async``, ...) return an awaitable, but a method of a
compiled class is not a coroutine function to ``inspect.iscoroutinefunction``, so
frameworks that look for async callables (FastAPI, pytest-asyncio, Django, click helpers) would
treat them as blocking. Each is replaced here, once at import, by an ``async def`` that awaits
the native method: the same signature and docstring (``inspect.signature`` follows
``__wrapped__``), one more coroutine frame per call.

The watches (``watch_async``, ``watch_events_async``, ``watch_transport_async``) return async
iterators, not awaitables, and stay as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from typing import Any, Callable

from showctl._core import Layer, MediaPlayer, Scoreboard, TransportWatch, _Client

__all__: list[str] = []


def _coroutine_twin(native: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    async def twin(self: object, /, *args: Any, **kwargs: Any) -> Any:
        return await native(self, *args, **kwargs)

    return functools.update_wrapper(twin, native)


def _install() -> None:
    for cls in (_Client, MediaPlayer, Scoreboard, Layer, TransportWatch):
        for name, native in list(vars(cls).items()):
            if name.endswith("_async") and not name.startswith("watch"):
                setattr(cls, name, _coroutine_twin(native))


_install()
