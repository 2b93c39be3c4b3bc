"""The coroutine of every ``_async`` call (the extension imports ``run``): it awaits the
asyncio future that the call's ``start`` makes, so that an ``_async`` method returns a real
coroutine (``asyncio.run(board.scores_async())`` works, and nothing starts before the first
``await``), and a traceback through it names this file."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def run(start: Callable[[], Awaitable[T]]) -> T:
    return await start()
