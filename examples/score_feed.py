"""Score-to-file feed for on-air graphics.

Follows the scoreboard and rewrites, on every change, a JSON file with the whole record and
(optionally) one small text file per field, the form most graphics systems can read. Files are
replaced atomically, so a reader never sees half a file. A lost connection is logged and the
feed carries on when the scoreboard answers again.

    python examples/score_feed.py --url http://127.0.0.1:PORT --out score.json --text-dir score/

Try it on the simulator: `showctl simulate --score-tick 2` in another terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import showctl


def write_atomic(path: Path, text: str) -> None:
    """Write to a temporary file next to `path`, then rename it over `path`."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Wire fields as text; a Custom game's properties become `game1.team1Goals`."""
    out: dict[str, str] = {}
    for key, value in record.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = "" if value is None else str(value)
    return out


# The feed's rule for the names in its own file names: 1 to 64 letters, digits, '-' or '_'.
# A field name comes from the application: each of its parts (`game1`, `team1Goals`) must
# follow the rule before it becomes a file name, so no name can reach outside the folder
# (`../x`, `/etc/x`) or make a hidden file.
NAME_PART = re.compile(r"[A-Za-z0-9_-]{1,64}")
_refused: set[str] = set()


def file_name(field: str) -> str | None:
    """`FIELD.txt`, or None when the field's name is not usable as a file name."""
    if all(NAME_PART.fullmatch(part) for part in field.split(".")):
        return f"{field}.txt"
    return None


def publish(record: showctl.ScoreRecord, out: Path, text_dir: Path | None) -> None:
    data = record.to_dict()
    write_atomic(out, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    if text_dir is not None:
        for field, value in flatten(data).items():
            name = file_name(field)
            if name is not None:
                write_atomic(text_dir / name, value)
            elif field not in _refused:
                _refused.add(field)
                print(
                    f"field {field!r} not written to a text file: its name is not 1 to 64 "
                    "letters, digits, '-' or '_' (per part)",
                    file=sys.stderr,
                    flush=True,
                )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--url", help="scoreboard URL (default: $SHOWCTL_SCOREBOARD_URL)")
    parser.add_argument("--api-key", help="API key (default: $SHOWCTL_API_KEY)")
    parser.add_argument("--out", type=Path, required=True, help="JSON file to keep up to date")
    parser.add_argument("--text-dir", type=Path, help="also write one FIELD.txt per field here")
    parser.add_argument("--interval", type=float, default=0.5, help="poll interval in seconds")
    parser.add_argument("--count", type=int, help="stop after COUNT records (default: never)")
    args = parser.parse_args(argv)
    if args.text_dir is not None:
        args.text_dir.mkdir(parents=True, exist_ok=True)

    written = 0
    with showctl.Scoreboard(args.url, args.api_key) as board:
        while True:
            try:
                for record in board.watch(interval=args.interval):
                    publish(record, args.out, args.text_dir)
                    written += 1
                    print(
                        f"{time.strftime('%H:%M:%S')} wrote {record.sport_mode} record", flush=True
                    )
                    if args.count is not None and written >= args.count:
                        return 0
            except showctl.ShowctlError as e:
                # Keep the last good files on air and try again.
                print(f"scoreboard unavailable, retrying: {e}", file=sys.stderr, flush=True)
                time.sleep(max(args.interval, 1.0))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except ValueError as e:
        sys.exit(f"score_feed: {e}")
