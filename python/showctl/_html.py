"""HTML views for Jupyter (``_repr_html_``) of the media models, the score records and views,
and the lists calls return (``showctl._lists``): every HTML view of the package is drawn here
(the core lays out a score record's boards; this module draws them).

``import showctl`` imports this module (through the two list classes), so the standard
library's ``html`` (which imports ``html.entities``, a table of over 2,000 named characters)
is imported only when a view is first drawn."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from showctl._core import LayerState, Playlist, ScoreRecord, ScoreView, TransportState

__all__ = [
    "layer_list_html",
    "layer_state_html",
    "playlist_html",
    "score_record_html",
    "score_view_html",
    "transport_list_html",
    "transport_state_html",
]


def escape(text: str) -> str:
    """``html.escape``, imported at the first view drawn."""
    from html import escape as html_escape

    return html_escape(text)


def _text(value: Any) -> str:
    """A value as a table shows it: "—" for None, "yes"/"no" for flags (a False is shown, not
    left blank), floats short, lists joined; escaped."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return " ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{_text(k)} {_text(v)}" for k, v in value.items())
    return escape(str(value))


def _cell(value: Any) -> str:
    return f"<td>{_text(value)}</td>"


def _table(head: list[str], rows: list[list[Any]]) -> str:
    out = ["<table><thead><tr>"]
    out += [f"<th>{escape(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(_cell(v) for v in row) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


_LAYER_HEAD = ["name", "muted", "hidden", "opacity", "transition", "duration", "uuid"]


def _layer_row(layer: LayerState) -> list[Any]:
    transition = layer.transition.name if layer.transition is not None else None
    return [
        layer.name,
        layer.is_muted,
        layer.is_hidden,
        layer.opacity,
        transition,
        layer.transition_duration,
        layer.uuid,
    ]


def layer_state_html(layer: LayerState) -> str:
    """One layer as a one-row table."""
    return _table(_LAYER_HEAD, [_layer_row(layer)])


_TRANSPORT_HEAD = ["layer", "playing", "elapsed", "remaining", "rate", "item", "media"]


def _transport_row(state: TransportState) -> list[Any]:
    item = state.playing_item.name if state.playing_item is not None else None
    media = state.playing_media.name if state.playing_media is not None else None
    layer = state.layer.name if state.layer is not None else None
    return [
        layer,
        state.is_playing,
        state.time_elapsed,
        state.time_remaining,
        state.playback_rate,
        item,
        media,
    ]


def transport_state_html(state: TransportState) -> str:
    """A transport state as a small table."""
    return _table(_TRANSPORT_HEAD, [_transport_row(state)])


_TABLE_STYLE = "border-collapse:collapse;font-family:monospace;margin:0 0 .5em 0"
_CELL_STYLE = "border:1px solid #888;padding:2px 8px;text-align:center"


def score_record_html(record: ScoreRecord) -> str:
    """A compact scoreboard: per board a caption (the sport, then game fields such as the
    period), a heading row of score fields and one row per team; a record of an unknown sport
    as a two-column field table. All text is escaped."""
    boards, title, fields = record._display()
    cell = _CELL_STYLE
    out = ['<div class="showctl-score">']
    for board_title, notes, columns, rows in boards:
        caption = escape(board_title) + "".join(f" · {escape(k)} {escape(v)}" for k, v in notes)
        out.append(
            f'<table style="{_TABLE_STYLE}"><caption style="text-align:left">{caption}</caption>'
            f'<tr><th style="{cell}"></th>'
        )
        out += [f'<th style="{cell}">{escape(c)}</th>' for c in columns]
        out.append("</tr>")
        for team, cells in rows:
            out.append(f'<tr><th style="{cell};text-align:left">{escape(team)}</th>')
            out += [f'<td style="{cell}">{escape(v)}</td>' for v in cells]
            out.append("</tr>")
        out.append("</table>")
    if not boards:
        out.append(
            f'<table style="{_TABLE_STYLE}"><caption style="text-align:left">'
            f"{escape(title)}</caption>"
        )
        out += [
            f'<tr><th style="{cell};text-align:left">{escape(k)}</th>'
            f'<td style="{cell}">{escape(v)}</td></tr>'
            for k, v in fields
        ]
        out.append("</table>")
    out.append("</div>")
    return "".join(out)


def score_view_html(view: ScoreView) -> str:
    """A score view as a table: a row per team, then the game's own fields; a Custom record's
    games one after the other."""
    if view.games:
        return "".join(score_view_html(game) for game in view.games)
    stats = sorted({k for team in view.teams for k in team.stats})
    sets = any(team.sets for team in view.teams)
    line = any(team.line_score for team in view.teams)
    head = ["team", "score", *stats, *(["sets"] if sets else []), *(["innings"] if line else [])]
    rows = [
        [
            team.name or f"Team {i}",
            team.score,
            *(team.stats.get(k) for k in stats),
            *([team.sets] if sets else []),
            *([team.line_score] if line else []),
        ]
        for i, team in enumerate(view.teams, 1)
    ]
    game = {"period": view.period, "possession": view.possession, **view.fields}
    caption = escape(view.sport or "score")
    extra = "".join(f"<tr><th>{escape(k)}</th><td>{_text(v)}</td></tr>" for k, v in game.items())
    return (
        f'<div class="showctl-score-view"><b>{caption}</b>{_table(head, rows)}'
        f"<table><tbody>{extra}</tbody></table></div>"
    )


#: At most this many cues of one playlist are drawn (the rest are counted on a "more" line).
PLAYLIST_CUES_DRAWN = 20
#: At most this many playlists, and this many cues, are drawn in all; what is left is counted.
PLAYLISTS_DRAWN = 200
CUES_DRAWN = 200

_STYLE = "<style>.showctl-playlists code{color:#888;font-size:85%}</style>"


def _uuid(uuid: str | None) -> str:
    return f" <code>{escape(uuid or 'no UUID')}</code>"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _more(n: int, what: str) -> str:
    return f"<li><i>… {n} more {what}</i></li>"


class _Budget:
    """Playlists and cues left to draw."""

    def __init__(self) -> None:
        self.playlists = PLAYLISTS_DRAWN
        self.cues = CUES_DRAWN


def _playlist_li(playlist: Playlist, budget: _Budget, top: bool) -> str:
    """One playlist: a ``<details>``, closed but for the top one, whose summary says its name,
    what it holds and its UUID; inside, its cues (index, name, UUID) then its playlists."""
    budget.playlists -= 1
    name = escape(playlist.name or "(unnamed)")
    held = [
        _count(len(playlist.items), "cue"),
        *([_count(len(playlist.children), "playlist")] if playlist.children else []),
    ]
    summary = f"<b>{name}</b> · {', '.join(held)}{_uuid(playlist.uuid)}"
    out = [f"<li><details{' open' if top else ''}><summary>{summary}</summary><ul>"]
    cues = playlist.items
    drawn = min(len(cues), PLAYLIST_CUES_DRAWN, max(budget.cues, 0))
    for index, cue in enumerate(cues[:drawn]):
        out.append(f"<li>{index} · {escape(cue.name or '(unnamed)')}{_uuid(cue.uuid)}</li>")
    budget.cues -= drawn
    if drawn < len(cues):
        out.append(_more(len(cues) - drawn, "cues: walk() or find() reaches every one"))
    children = playlist.children
    for done, child in enumerate(children):
        if budget.playlists <= 0:
            out.append(_more(len(children) - done, "playlists: walk() or find() reaches them"))
            break
        out.append(_playlist_li(child, budget, top=False))
    out.append("</ul></details></li>")
    return "".join(out)


def playlist_html(playlist: Playlist) -> str:
    """A playlist tree as nested lists that open and close: the top playlist open, the others
    closed; each says how many cues and playlists it holds and its UUID, each cue its index
    (what ``trigger_cue`` and the ``showctl`` command take) and UUID. A large show is drawn in
    part, playlists first: at most ``PLAYLISTS_DRAWN`` playlists, ``CUES_DRAWN`` cues and
    ``PLAYLIST_CUES_DRAWN`` cues a playlist, the rest counted on a "… N more" line."""
    budget = _Budget()
    tree = _playlist_li(playlist, budget, top=True)
    return f'{_STYLE}<ul class="showctl-playlists">{tree}</ul>'


def layer_list_html(layers: Iterable[LayerState]) -> str:
    """A ``LayerList``: one table, a row per layer."""
    return _table(_LAYER_HEAD, [_layer_row(layer) for layer in layers])


def transport_list_html(states: Iterable[TransportState]) -> str:
    """A ``TransportList``: one table, a row per layer."""
    return _table(_TRANSPORT_HEAD, [_transport_row(state) for state in states])
