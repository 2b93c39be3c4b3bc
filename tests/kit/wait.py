"""Waiting for something to happen instead of sleeping for a guess: a condition polled until it
holds or a deadline passes (then the test fails, saying what it waited for)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

# How often a condition is looked at: short against every wait of the suite, long enough that
# the polling thread leaves the core to the code it waits for.
POLL = 0.005


def until(condition: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    """Return once ``condition()`` is true; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout} s for {what}")
        time.sleep(POLL)


async def until_async(condition: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    """`until` for a coroutine: the loop keeps running what the test waits for."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout} s for {what}")
        await asyncio.sleep(POLL)
