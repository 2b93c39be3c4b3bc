"""The MediaPlayer and Layer tables of the API contract (docs/api.md): every method listed
exists, with its ``_async`` twin where it talks to the application."""

from __future__ import annotations

import re
from pathlib import Path

import showctl

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def api_text() -> str:
    assert API_MD.is_file(), (
        f"the API contract is missing: expected {API_MD}"
    )
    return API_MD.read_text(encoding="utf-8")


def table(section: str) -> list[tuple[list[str], str]]:
    """Rows of the first table after the heading ``## <section>``: (method names, request)."""
    text = api_text()
    match = re.search(rf"^## {re.escape(section)}.*?$(.*?)(?=^## )", text, re.M | re.S)
    assert match, f"no section '## {section}' in {API_MD}"
    rows = []
    for line in match.group(1).splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if not line.startswith("|") or cells[0] in ("Method", "") or set(cells[0]) <= set("-: "):
            continue
        names = re.findall(r"`(\w+)\(", cells[0])
        assert names, f"no method in row {line!r}"
        rows.append((names, cells[-1]))
    assert rows, f"no table rows under '## {section}'"
    return rows


def missing(cls: type, rows: list[tuple[list[str], str]]) -> list[str]:
    out = []
    for names, request in rows:
        for name in names:
            wanted = [name] if request in ("—", "-", "") else [name, f"{name}_async"]
            out += [f"{cls.__name__}.{n}" for n in wanted if not callable(getattr(cls, n, None))]
    return out


def test_media_player_table() -> None:
    rows = table("MediaPlayer")
    assert len(rows) >= 20
    assert missing(showctl.MediaPlayer, rows) == []


def test_layer_table() -> None:
    rows = table("Layer (from `player.layer(id)`)")
    assert len(rows) >= 14
    assert missing(showctl.Layer, rows) == []


def list_item(start: str) -> str:
    """The markdown list item that begins with ``- <start>``, continuation lines joined."""
    match = re.search(rf"^- {re.escape(start)}(.*?)(?=^- |^\s*$|^#)", api_text(), re.M | re.S)
    assert match, f"no list item '- {start}' in {API_MD}"
    return " ".join(match.group(1).split())


def test_field_observed_commands() -> None:
    line = list_item("Field-observed commands")
    found = []
    for part in line.split(":", 1)[1].split(";"):
        owner = re.search(r"`(\w+)\.", part)
        assert owner, part
        cls = getattr(showctl, owner.group(1))
        names = re.findall(r"`(?:\w+\.)?(\w+)\(", part)
        found += names
        assert missing(cls, [(names, "POST")]) == []
    assert {"play", "pause", "go_to", "skip"} <= set(found)


def test_model_classes() -> None:
    paragraph = re.search(r"Classes: (`Playlist`.*?)\n\n", api_text(), re.S)
    assert paragraph, f"no model class list in {API_MD}"
    names = re.findall(r"`([A-Z]\w+)`", paragraph.group(1))
    assert "TransportState" in names
    assert [n for n in names if not isinstance(getattr(showctl, n, None), type)] == []
