"""Asyncio fan-out: send one command to several players at once and report each outcome.

Every player gets the command concurrently (one slow or dead machine never holds up the
others), then each is read back. Exit code 1 if any player failed.

    python examples/fanout.py http://10.0.0.11:8080 http://10.0.0.12:8080 \\
        --layer Main --playlist Opening --cue "Intro Video"
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass

import showctl


@dataclass
class Outcome:
    url: str
    error: str | None = None
    media: str | None = None


async def trigger_one(url: str, key: str | None, layer: str, playlist: str, cue: str) -> Outcome:
    out = Outcome(url)
    try:
        async with showctl.MediaPlayer(url, key, timeout=2.0) as player:
            target = player.layer(layer)
            await target.trigger_async(playlist, cue)
            state = await target.transport_state_async()
            out.media = state.playing_media.name if state.playing_media else None
    except showctl.ShowctlError as e:
        out.error = str(e)
    return out


async def fan_out(
    urls: list[str], key: str | None, layer: str, playlist: str, cue: str
) -> list[Outcome]:
    return list(await asyncio.gather(*(trigger_one(u, key, layer, playlist, cue) for u in urls)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Trigger a cue on several players at once.")
    parser.add_argument("urls", nargs="+", metavar="URL", help="the players")
    parser.add_argument("--api-key", help="API key for every player (default: $SHOWCTL_API_KEY)")
    parser.add_argument("--layer", required=True, help="layer index, name or UUID")
    parser.add_argument("--playlist", required=True, help="playlist index, name or UUID")
    parser.add_argument("--cue", required=True, help="cue index, name or UUID")
    args = parser.parse_args(argv)
    try:
        outcomes = asyncio.run(
            fan_out(args.urls, args.api_key, args.layer, args.playlist, args.cue)
        )
    except ValueError as e:
        print(f"fanout: {e}", file=sys.stderr)
        return 2
    for o in outcomes:
        print(f"{o.url}  FAIL  {o.error}" if o.error else f"{o.url}  ok    playing {o.media}")
    return 1 if any(o.error for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
