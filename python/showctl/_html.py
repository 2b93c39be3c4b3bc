"""HTML views of the media models for Jupyter (``_repr_html_``), and :class:`LayerList`."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from showctl._core import LayerState, Playlist, TransportState

__all__ = ["LayerList", "layer_state_html", "playlist_html", "transport_state_html"]


def _cell(value: Any) -> str:
    if value is None:
        return "<td>—</td>"
    if isinstance(value, float):
        return f"<td>{value:g}</td>"
    return f"<td>{escape(str(value))}</td>"


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


def transport_state_html(state: TransportState) -> str:
    """A transport state as a small table."""
    item = state.playing_item.name if state.playing_item is not None else None
    media = state.playing_media.name if state.playing_media is not None else None
    layer = state.layer.name if state.layer is not None else None
    return _table(
        ["layer", "playing", "elapsed", "remaining", "rate", "item", "media"],
        [
            [
                layer,
                state.is_playing,
                state.time_elapsed,
                state.time_remaining,
                state.playback_rate,
                item,
                media,
            ]
        ],
    )


def _playlist_li(playlist: Playlist) -> str:
    out = [f"<li><b>{escape(playlist.name or '(unnamed)')}</b>"]
    if playlist.items or playlist.children:
        out.append("<ul>")
        out += [f"<li>{escape(cue.name or '(unnamed)')}</li>" for cue in playlist.items]
        out += [_playlist_li(child) for child in playlist.children]
        out.append("</ul>")
    out.append("</li>")
    return "".join(out)


def playlist_html(playlist: Playlist) -> str:
    """A playlist tree as nested lists: playlists in bold, their cues under them."""
    return f"<ul>{_playlist_li(playlist)}</ul>"


class LayerList(list["LayerState"]):
    """The layers of the workspace (a plain ``list`` of :class:`LayerState`), shown as a
    table in Jupyter."""

    def _repr_html_(self) -> str:
        return _table(_LAYER_HEAD, [_layer_row(layer) for layer in self])
