"""What the command line prints: tables for people, JSON lines for tools, and every name or
server text escaped so that it cannot move the cursor, recolour or retitle the terminal."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import showctl


# Control characters (C0, DEL, C1), line and paragraph separators and bidirectional overrides:
# from a name or a server's body, they could move the cursor, recolour or retitle the terminal,
# or make a line read other than it is. Printed escaped (`\x1b`, `\u202e`).
_CONTROLS = (range(0x20), range(0x7F, 0xA0), (0x2028, 0x2029), range(0x202A, 0x202F))
_UNSAFE = {
    c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"
    for group in (*_CONTROLS, range(0x2066, 0x206A))
    for c in group
}
_UNSAFE_IN_JSON = {c: f"\\u{c:04x}" for c in _UNSAFE if c >= 0x7F}


def safe(text: object) -> str:
    """``text`` as printed on a terminal: control and bidirectional characters escaped."""
    return str(text).translate(_UNSAFE)


def dumps(obj: Any, **kw: Any) -> str:
    """JSON text whose strings carry no raw control or bidirectional character (json escapes
    those below U+0020 itself; the rest become ``\\uXXXX``, which reads back the same)."""
    return json.dumps(obj, ensure_ascii=False, **kw).translate(_UNSAFE_IN_JSON)


def emit_json(obj: Any) -> None:
    """One JSON document on one line."""
    print(dumps(obj, separators=(",", ":")), flush=True)


def warn(args: argparse.Namespace, text: str) -> None:
    """A warning about the command line: a line on stderr at once; with ``--json``, kept for
    the one JSON object stderr gets at the end (``warnings``, a list of texts: in the error
    object of a command that failed, alone in an object after one that succeeded)."""
    if getattr(args, "json", False):
        kept: list[str] = args.__dict__.setdefault("warnings", [])
        kept.append(text)
        return
    print(f"showctl: warning: {text}", file=sys.stderr, flush=True)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], indent: str = "") -> None:
    """Aligned columns under a header row."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]
    for row in [list(headers), *cells]:
        print(indent + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1 else f"{v:.1f}"
    return safe(v)


def flatten(record: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in record.items():
        if isinstance(value, dict):
            yield from flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def score_line(record: showctl.ScoreRecord) -> str:
    """A one-line summary of a score record: sport and the two teams' scores if present."""
    d = record.to_dict()
    for one, two in (("team1Score", "team2Score"), ("teamOneRuns", "teamTwoRuns")):
        if one in d:
            return f"{record.sport_mode}: {d[one]} - {d.get(two)}"
    return f"{record.sport_mode}"


def transport_row(label: object, ts: showctl.TransportState) -> list[Any]:
    layer = ts.layer.name if ts.layer is not None else None
    media = ts.playing_media.name if ts.playing_media is not None else None
    return [label, layer, transport_word(ts), ts.time_elapsed, ts.time_remaining, media]


def transport_word(ts: showctl.TransportState) -> str:
    if ts.playing_media is None:
        return "empty"
    if ts.is_playing:
        return "still" if not ts.playback_rate else "playing"
    return "paused"


TRANSPORT_HEADERS = ("LAYER", "NAME", "STATE", "ELAPSED", "REMAINING", "MEDIA")


def event_line(event: showctl.TransportEvent) -> str:
    """One line for a person: time, layer, what happened and the media concerned."""
    stamp = time.strftime("%H:%M:%S", time.localtime(event.timestamp))
    if event.kind == "poll_failed":
        return f"{stamp}  poll failed, still watching: {event.error}"
    if event.kind == "poll_recovered":
        return f"{stamp}  the application answers again"
    state = event.previous if event.kind == "emptied" else event.current
    media = state.playing_media.name if state and state.playing_media else None
    if event.kind == "time_remaining":
        what = f"{event.threshold:g} s left of"
    else:
        what = event.kind.replace("_", " ")
    index = event.layer_index if event.layer_index is not None else "gone"
    return f"{stamp}  layer {index} ({event.layer_name}): {what} {media or ''}".rstrip()


def event_json(event: showctl.TransportEvent) -> dict[str, Any]:
    """A transport event as JSON; `previous` and `current` are the application's own objects."""
    return {
        "kind": event.kind,
        "layer_index": event.layer_index,
        "layer_name": event.layer_name,
        "layer_uuid": event.layer_uuid,
        "timestamp": event.timestamp,
        "threshold": event.threshold,
        "error": str(event.error) if event.error is not None else None,
        "previous": event.previous.to_dict() if event.previous is not None else None,
        "current": event.current.to_dict() if event.current is not None else None,
    }


def current_json(label: object, ts: showctl.TransportState) -> dict[str, Any]:
    """A layer's transport state now, as the first lines of ``transport --watch --json``: the
    fields of an event, of kind ``current``."""
    layer = ts.layer
    return {
        "kind": "current",
        "layer_index": label if isinstance(label, int) else None,
        "layer_name": layer.name if layer is not None else None,
        "layer_uuid": layer.uuid if layer is not None else None,
        "timestamp": time.time(),
        "threshold": None,
        "error": None,
        "previous": None,
        "current": ts.to_dict(),
    }
