"""Cue sheet runner: play a show from a CSV file.

Each row is one step at a time offset (seconds from the start): trigger a cue, set a layer's
opacity or fade it to `value` over `seconds`, mute/unmute/hide/unhide/clear a layer (or the
workspace when `layer` is empty), play/pause. A trigger targets its layer first (the
application plays a cue on the targeted layer, whatever layer the trigger names, unless the cue
has a layer of its own) and reports the layer the cue really plays on; a cue that plays
elsewhere fails its step. The whole sheet is checked before anything is sent. A failing step
is reported and the show goes on; the exit code is 1 if any step failed. A fade holds the
sheet until it ends (the steps after it catch up).

    at,action,layer,playlist,cue,value,seconds
    0,trigger,Main,Opening,Countdown,,
    1.5,opacity,Main,,,0.5,
    2,hide,Lower Third/Left,,,,
    3,fade,Main,,,0,1.5

    python examples/cue_sheet.py examples/cue_sheet.csv --url http://127.0.0.1:PORT
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import showctl

LAYER_OPS = ("mute", "unmute", "hide", "unhide", "clear", "play", "pause")
ACTIONS = ("trigger", "opacity", "fade", *LAYER_OPS)


@dataclass(frozen=True)
class Step:
    line: int
    at: float
    action: str
    layer: str | None
    playlist: str | None
    cue: str | None
    value: float | None
    seconds: float | None

    def describe(self) -> str:
        parts = [self.action]
        if self.playlist is not None:
            parts.append(f"{self.playlist!r}/{self.cue!r}")
        parts.append(f"on {self.layer!r}" if self.layer is not None else "on the workspace")
        if self.value is not None:
            parts.append(f"to {self.value}")
        if self.seconds is not None:
            parts.append(f"over {self.seconds} s")
        return " ".join(parts)


def load(path: Path) -> list[Step]:
    """Read and check the whole sheet; raise ValueError naming the line of the first problem."""
    steps: list[Step] = []
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            line = len(steps) + 2
            cell: dict[str, str | None] = {
                k: (v or "").strip() or None for k, v in row.items() if k
            }
            try:
                at = float(cell.get("at") or "")
                action = cell.get("action") or ""
                if action not in ACTIONS:
                    raise ValueError(f"action must be one of {', '.join(ACTIONS)}, got {action!r}")
                text = cell.get("value")
                value = float(text) if text is not None else None
                text = cell.get("seconds")
                seconds = float(text) if text is not None else None
                if action in ("opacity", "fade") and (value is None or not 0 <= value <= 1):
                    raise ValueError("value must be an opacity from 0.0 to 1.0")
                if action in ("opacity", "fade") and cell.get("layer") is None:
                    raise ValueError(f"{action} needs a layer")
                if action == "fade" and (seconds is None or not 0 <= seconds <= 3600):
                    raise ValueError("fade needs seconds, from 0 to 3600")
                if action == "trigger" and not (cell.get("playlist") and cell.get("cue")):
                    raise ValueError("trigger needs a playlist and a cue")
            except ValueError as e:
                raise ValueError(f"{path}:{line}: {e}") from None
            steps.append(
                Step(
                    line,
                    at,
                    action,
                    cell.get("layer"),
                    cell.get("playlist"),
                    cell.get("cue"),
                    value,
                    seconds if action == "fade" else None,
                )
            )
    return sorted(steps, key=lambda s: s.at)


class Misplaced(Exception):
    """A cue played, but not on the layer the sheet names (it has a layer of its own)."""


def playing_on(player: showctl.MediaPlayer, cue: showctl.Cue) -> list[str]:
    """The layers that play `cue` ("1 (Main)"): their `playingItem` is the cue and they have
    media (`playingItem` alone is the last cue that touched a layer, never cleared)."""
    return [
        f"{i} ({ts.layer.name})"
        for i, ts in enumerate(player.transport_state())
        if ts.layer is not None
        and ts.playing_media is not None
        and ts.playing_item is not None
        and ts.playing_item.uuid == cue.uuid
    ]


def trigger(player: showctl.MediaPlayer, step: Step) -> str:
    """Trigger the step's cue and return where it plays. The application ignores the layer a
    trigger names: a cue plays on its own configured layer, else on the layer last selected
    with target=True; so the sheet's layer is targeted first, and where the cue plays is read
    back. Raises `Misplaced` when it plays elsewhere than the sheet says."""
    assert step.playlist is not None and step.cue is not None
    cue = player.cue(step.playlist, step.cue)
    if step.layer is None:
        player.trigger_playlist_cue(step.playlist, step.cue, confirm=True)
        return "plays on layer " + ", ".join(playing_on(player, cue))
    layer = player.layer(step.layer)
    layer.select(target=True)
    try:
        layer.trigger(step.playlist, step.cue, confirm=True)
    except showctl.NotConfirmedError:
        where = playing_on(player, cue)
        if not where:
            raise
        raise Misplaced(
            f"plays on layer {', '.join(where)}, not on {step.layer!r} (the cue has its own "
            "layer in the application)"
        ) from None
    return "plays on layer " + ", ".join(playing_on(player, cue))


def run_step(player: showctl.MediaPlayer, step: Step, speed: float = 1.0) -> str:
    """Run one step; returns what it found (where a cue plays), or ""."""
    if step.action == "trigger":
        return trigger(player, step)
    layer = player.layer(step.layer) if step.layer is not None else None
    if step.action == "opacity":
        assert layer is not None and step.value is not None
        layer.set_opacity(step.value)
    elif step.action == "fade":
        assert layer is not None and step.value is not None and step.seconds is not None
        layer.fade(step.value, step.seconds / speed)
    else:
        getattr(layer if layer is not None else player, step.action)()
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play a show from a CSV cue sheet.")
    parser.add_argument("sheet", type=Path, help="the CSV cue sheet")
    parser.add_argument("--url", help="media application URL (default: $SHOWCTL_MEDIA_URL)")
    parser.add_argument("--api-key", help="API key (default: $SHOWCTL_API_KEY)")
    parser.add_argument("--speed", type=float, default=1.0, help="run the clock this much faster")
    parser.add_argument("--dry-run", action="store_true", help="check and print, send nothing")
    args = parser.parse_args(argv)
    if not args.speed > 0:
        parser.error("--speed must be above 0")
    try:
        steps = load(args.sheet)
    except (OSError, ValueError) as e:
        print(f"cue_sheet: {e}", file=sys.stderr)
        return 2
    if args.dry_run:
        for s in steps:
            print(f"{s.at:7.2f}s  {s.describe()}")
        return 0

    failed = 0
    with showctl.MediaPlayer(args.url, args.api_key) as player:
        start = time.monotonic()
        for s in steps:
            time.sleep(max(0.0, start + s.at / args.speed - time.monotonic()))
            try:
                found = run_step(player, s, args.speed)
                note = f": {found}" if found else ""
                print(f"{s.at:7.2f}s  ok    {s.describe()}{note}", flush=True)
            except (showctl.ShowctlError, ValueError, Misplaced) as e:
                failed += 1
                print(f"{s.at:7.2f}s  FAIL  {s.describe()}: {e}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
