"""The lists calls return: ``LayerList`` (``MediaPlayer.layers()``) and ``TransportList``
(``MediaPlayer.transport_state()``), plain lists shown in Jupyter as one table (drawn by
``showctl._html``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from showctl._html import layer_list_html, transport_list_html

if TYPE_CHECKING:
    from showctl._core import LayerState, TransportState

__all__ = ["LayerList", "TransportList"]


class LayerList(list["LayerState"]):
    """The layers of the workspace (a plain ``list`` of ``LayerState``), shown as a table in
    Jupyter."""

    def _repr_html_(self) -> str:
        return layer_list_html(self)


class TransportList(list["TransportState"]):
    """The transport state of every layer (``MediaPlayer.transport_state()``): a plain
    ``list`` of ``TransportState``, shown in Jupyter as one table, a row per layer."""

    def _repr_html_(self) -> str:
        return transport_list_html(self)
