"""``showctl status --venue FILE``: a live view of every source of a venue (what each media
player plays and its time remaining, each court's score, stale or not), refreshed in place
like ``top``. Plain ANSI control codes; no terminal library is needed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from showctl import _core

__all__ = ["SourceStatus", "VenueStatus", "render", "watch_venue"]

#: A source is stale when its newest data is older than this many of its intervals (or its
#: last poll failed).
STALE_INTERVALS = 3.0


class Output(Protocol):
    """Where the view is printed (a text stream)."""

    def write(self, text: str, /) -> int: ...
    def flush(self) -> None: ...
    def isatty(self) -> bool: ...


@dataclass
class SourceStatus:
    """What the status view knows of one source."""

    name: str
    kind: str
    interval: float
    #: Lines describing the latest data (layers playing, or the score).
    lines: list[str] = field(default_factory=list)
    #: ``time.monotonic()`` of the newest answer; ``None`` before the first.
    updated: float | None = None
    #: Why the last poll failed; ``None`` when it succeeded.
    error: str | None = None
    #: The latest answer as the application sent it (the layers' transport states, or the
    #: score record), for ``--json``; ``None`` before the first.
    data: Any = None

    def age(self, now: float) -> float | None:
        """Seconds since the newest answer."""
        return None if self.updated is None else now - self.updated

    def stale(self, now: float) -> bool:
        """No answer yet, the last poll failed, or the newest answer is too old."""
        age = self.age(now)
        return self.error is not None or age is None or age > STALE_INTERVALS * self.interval


@dataclass
class VenueStatus:
    """The status view's state: one ``SourceStatus`` per source, in the venue's order."""

    origin: str
    sources: list[SourceStatus]

    def to_dict(self, now: float) -> dict[str, Any]:
        """The view as JSON-ready data (one ``status --json`` line): per source its name, kind,
        ``stale``, ``age`` in seconds (``None`` before the first answer), ``error``, the lines
        the table shows and ``data``, the latest answer as the application sent it."""
        return {
            "origin": self.origin,
            "ok": not any(s.stale(now) for s in self.sources),
            "sources": [
                {
                    "name": s.name,
                    "kind": s.kind,
                    "stale": s.stale(now),
                    "age": s.age(now),
                    "error": s.error,
                    "lines": s.lines,
                    "data": s.data,
                }
                for s in self.sources
            ],
        }


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = max(0.0, seconds)
    m, s = divmod(int(seconds + 0.5), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def media_lines(states: list[Any]) -> list[str]:
    """One line per layer that plays something: layer, cue or media, time remaining."""
    out = []
    for t in states:
        item = t.playing_item
        media = t.playing_media
        what = (item.name if item is not None else None) or (
            media.name if media is not None else None
        )
        if what is None:
            continue
        layer = t.layer.name if t.layer is not None else "?"
        state = "playing" if t.is_playing else "paused"
        out.append(f"{layer}: {what} ({state}, {_clock(t.time_remaining)} left)")
    return out or ["nothing playing"]


def score_lines(record: Any) -> list[str]:
    """The score as one line: teams and scores, the period when the sport has one. A team
    without a name is called by its number in the record ("Team 1 48 - Team 2 51")."""
    view = record.view()
    teams = " - ".join(
        f"{(t.name or '').strip() or f'Team {n}'} {t.score if t.score is not None else '-'}"
        for n, t in enumerate(view.teams, start=1)
    )
    line = f"{view.sport or record.sport_mode or '?'}: {teams}"
    if view.period is not None:
        line += f" (period {view.period})"
    return [line]


def render(status: VenueStatus, now: float, width: int = 100) -> str:
    """The view as text.

    A header, then each source with its mark (``ok`` or ``STALE``), its data's age and its
    lines."""
    stale = sum(1 for s in status.sources if s.stale(now))
    head = f"showctl status - {status.origin} - {len(status.sources)} sources"
    head += f", {stale} stale" if stale else ", all fresh"
    lines = [head, ""]
    name_w = max(len(s.name) for s in status.sources)
    for s in status.sources:
        age = s.age(now)
        mark = "STALE" if s.stale(now) else "ok"
        when = "never" if age is None else f"{age:.1f}s ago"
        lines.append(f"{s.name.ljust(name_w)}  {s.kind:<10}  {mark:<5}  {when}")
        detail = [f"error: {s.error}"] if s.error else []
        for line in detail + s.lines:
            lines.append(f"{'':<{name_w}}    {line}"[:width])
    return "\n".join(lines)


async def _poll(
    client: Any, source: SourceStatus, read: Callable[[Any], Any], stop: asyncio.Event
) -> None:
    while not stop.is_set():
        try:
            data = await read(client)
        except Exception as e:  # a failing source is shown, never ends the view
            source.error = str(e).splitlines()[0] if str(e) else type(e).__name__
        else:
            source.error = None
            source.updated = time.monotonic()
            if source.kind == "media":
                source.lines = media_lines(data)
                source.data = [t.to_dict() for t in data]
            else:
                source.lines = score_lines(data)
                source.data = data.to_dict()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), source.interval)


def _read_media(client: Any) -> Any:
    return client.transport_state_async()


def _read_scores(client: Any) -> Any:
    return client.scores_async()


def _client(s: dict[str, Any]) -> Any:
    cls = _core.MediaPlayer if s["kind"] == "media" else _core.Scoreboard
    return cls(
        s["url"],
        s.get("api_key"),
        timeout=s["timeout"],
        retries=0,
        verify=s["verify"],
        ca_cert=s["ca_cert"],
        tls_fingerprint=s["tls_fingerprint"],
    )


async def watch_venue(
    venue: str | os.PathLike[str] | None = None,
    *,
    sources: dict[str, dict[str, Any]] | None = None,
    on_update: Callable[[VenueStatus], None],
    refresh: float = 0.5,
    until: Callable[[VenueStatus], bool] = lambda _: False,
) -> VenueStatus:
    """Poll every source on its own schedule, calling ``on_update`` as it goes.

    ``on_update`` is called every ``refresh`` seconds until ``until(status)`` is true (or the task
    is cancelled). A dead or hanging source never delays the others: each polls in its own task,
    bounded by its own timeout."""
    specs = _core._load_venue(venue, sources=sources, reveal_keys=True)
    origin = os.fspath(venue) if venue is not None else "sources"
    return await _watch(specs, origin, on_update, refresh, until)


async def _watch(
    specs: list[dict[str, Any]],
    origin: str,
    on_update: Callable[[VenueStatus], None],
    refresh: float,
    until: Callable[[VenueStatus], bool],
) -> VenueStatus:
    """``watch_venue`` of a venue already read."""
    status = VenueStatus(origin, [SourceStatus(s["name"], s["kind"], s["interval"]) for s in specs])
    clients = [_client(s) for s in specs]
    stop = asyncio.Event()
    tasks = []
    for client, source in zip(clients, status.sources):
        read = _read_media if source.kind == "media" else _read_scores
        tasks.append(asyncio.ensure_future(_poll(client, source, read, stop)))
    try:
        while True:
            on_update(status)
            if until(status):
                return status
            await asyncio.sleep(refresh)
    finally:
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for c in clients:
            c.close()


def run(
    venue: str | os.PathLike[str],
    *,
    once: bool = False,
    refresh: float = 0.5,
    out: Output = sys.stdout,
    json: bool = False,
) -> int:
    """The ``showctl status`` command; returns its exit code.

    It refreshes in place on a terminal (plain snapshots one after another otherwise); with
    ``once``, it prints one snapshot after every source answered once or its timeout passed.
    With ``json``, each snapshot is one JSON line (``VenueStatus.to_dict``). The exit code:
    0 all fresh, 1 any source stale."""
    import json as _json

    tty = out.isatty() and not json
    specs = _core._load_venue(venue, reveal_keys=True)
    # From the first look, once the clients are built and polling (building ten can take
    # longer than a timeout): every source then has its whole timeout to answer.
    wait = max(s["timeout"] for s in specs) + 0.5
    deadline: list[float] = []

    def snapshot(status: VenueStatus, now: float) -> str:
        if json:
            return _json.dumps(status.to_dict(now), separators=(",", ":"))
        return render(status, now)

    def show(status: VenueStatus) -> None:
        if once:
            return
        text = snapshot(status, time.monotonic())
        if json:
            out.write(text + "\n")
        elif tty:
            out.write("\x1b[H\x1b[2J" + text + "\n")
        else:
            out.write(text + "\n\n")
        out.flush()

    def settled(status: VenueStatus) -> bool:
        if not once:
            return False
        if not deadline:
            deadline.append(time.monotonic() + wait)
        answered = all(s.updated is not None or s.error is not None for s in status.sources)
        return answered or time.monotonic() > deadline[0]

    status = asyncio.run(_watch(specs, os.fspath(venue), show, 0.1 if once else refresh, settled))
    now = time.monotonic()
    if once:
        out.write(snapshot(status, now) + "\n")
    return 1 if any(s.stale(now) for s in status.sources) else 0
