"""What a Jupyter user sees and gets: the example notebook, stored with its outputs and
re-executed here (nbclient), shows the models as tables; the transport of the workspace, the
score view and the probe report have an HTML display; a False flag is shown, not left blank;
``to_dict(mode="python")`` gives attribute names and Python values, ready for pandas."""

from __future__ import annotations

import json
import pickle
import re
import struct
from pathlib import Path
from typing import Any

import nbformat
import pytest
import showctl
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "simulator.ipynb"

#: The cells that display a model, by the start of their source: each must show HTML.
RICH_CELLS = (
    "player.layers()",
    "import pandas as pd",
    "player.transport_state()",
    "board.scores()",
    "board.scores().view()",
    "player.probe()",
)


def rich_outputs(nb: Any) -> dict[str, str]:
    """The HTML each display cell shows, by the start of its source."""
    found = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for start in RICH_CELLS:
            if cell.source.startswith(start) and not (
                start == "board.scores()" and cell.source.startswith("board.scores().view()")
            ):
                html = [
                    o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})
                ]
                found[start] = "".join(html)
    return found


def test_the_notebook_is_stored_with_rich_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "stored without running it"
    shown = rich_outputs(nb)
    assert set(shown) == set(RICH_CELLS)
    assert all("<table" in html for html in shown.values()), shown


@pytest.mark.timeout(120)
def test_the_notebook_runs_and_shows_tables() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    ).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = json.dumps([o.get("text") or o.get("data", {}).get("text/plain") for o in outputs])
    assert "intro_2024.mp4" in text
    assert "as expected: 503" in text
    assert "timed out, as expected" in text
    assert "('TennisScore', 1)" in text
    shown = rich_outputs(nb)
    assert "Lower Third/Left" in shown["player.layers()"]
    assert "target_set_uuid" in shown["import pandas as pd"]
    assert "intro_2024.mp4" in shown["player.transport_state()"]  # the Main layer's clip
    assert "○" in shown["board.scores()"]  # the false bonus flags
    assert "48" in shown["board.scores().view()"]
    probe = shown["player.probe()"]  # the verdict first (a loaded machine may find a slow read)
    assert re.match(r"<div[^>]*><b[^>]*>media at \S+: (usable|NOT usable)</b>", probe), probe


def test_to_dict_keeps_the_wire_form_and_gives_the_python_form(
    player: showctl.MediaPlayer,
) -> None:
    logo = next(layer for layer in player.layers() if layer.name == "Logo Bug")
    wire = logo.to_dict()
    assert wire == logo.to_dict(mode="wire")
    assert wire["effectPresetUUID"] == "null" and "effect_preset_uuid" not in wire
    data = logo.to_dict(mode="python")
    assert data["effect_preset_uuid"] is None and data["target_set_uuid"] is None
    # The application keeps opacity in single precision (0.8 reads back as 0.800000011920929).
    assert (
        data["is_muted"] is False
        and data["opacity"] == struct.unpack("f", struct.pack("f", 0.8))[0]
    )
    assert data["effects"][0]["name"] == "Brightness"  # a nested model, as its own dict
    assert data["effects"][0]["variables"][0]["base"]["min_value"] == -1.0
    # Every attribute, by its name, with the attribute's value where it is a plain one.
    assert set(data) == {
        name for name in dir(logo) if name.islower() and not name.startswith("_")
    } - {
        "to_dict",
        "from_dict",
    }
    # Pickling still goes through the wire form.
    assert pickle.loads(pickle.dumps(logo)) == logo


def test_to_dict_python_of_the_tree_and_a_transport_state(player: showctl.MediaPlayer) -> None:
    player.layer("Main").trigger("Opening", "Intro Video")
    state = player.layer("Main").transport_state()
    data = state.to_dict(mode="python")
    assert data["is_playing"] is True and data["playing_media"]["name"] == "intro_2024.mp4"
    assert data["playing_item"] == {"uuid": state.playing_item.uuid, "name": "Intro Video"}  # type: ignore[union-attr]
    opening = player.playlists().find("Opening")
    assert opening is not None
    tree = opening.to_dict(mode="python")
    assert [cue["name"] for cue in tree["items"]] == ["Countdown", "Intro Video", "Welcome Still"]


def test_to_dict_refuses_an_unknown_mode(player: showctl.MediaPlayer) -> None:
    with pytest.raises(ValueError, match='mode: must be "wire"'):
        player.layers()[0].to_dict(mode="pandas")  # type: ignore[arg-type]


def test_a_data_frame_of_layers_sees_the_missing_uuids(player: showctl.MediaPlayer) -> None:
    import pandas as pd

    layers = player.layers()
    wire = pd.DataFrame([layer.to_dict() for layer in layers])
    assert wire["targetSetUUID"].isna().sum() == 0  # the text "null" is not missing to pandas
    frame = pd.DataFrame([layer.to_dict(mode="python") for layer in layers])
    assert frame.loc[frame["target_set_uuid"].isna(), "name"].tolist() == ["Logo Bug"]


def test_the_workspace_transport_is_a_table(player: showctl.MediaPlayer) -> None:
    states = player.transport_state()
    assert isinstance(states, list) and isinstance(states, showctl.TransportList)
    html = states._repr_html_()
    assert html.count("<tr>") == 1 + len(states) == 5
    assert "Lower Third/Left" in html


def test_the_score_view_and_the_record_show_false_flags() -> None:
    record = showctl.ScoreRecord.from_dict(
        {
            "sportMode": "Basketball",
            "team1Score": "48",
            "team2Score": "51",
            "period": "2",
            "team1Bonus1": True,
            "team2Bonus1": False,
        }
    )
    html = record._repr_html_()
    assert "●" in html and "○" in html
    view_html = record.view()._repr_html_()
    assert "<table>" in view_html and "yes" in view_html and "no" in view_html
    assert ">48<" in view_html and ">51<" in view_html


def test_the_probe_report_shows_the_verdict_first(player: showctl.MediaPlayer) -> None:
    report = player.probe()
    html = report._repr_html_()
    assert html.index("usable") < html.index("<table>")
    assert html.count("<tr>") < 15  # compact: not a row per endpoint
    failed = showctl.ProbeReport.from_dict(
        {**report.to_dict(), "ok": False, "problems": ["the key <was> refused"]}
    )._repr_html_()
    assert "NOT usable" in failed and "the key &lt;was&gt; refused" in failed
