"""Automation with showctl: what is usually built by hand around the media application.

- stable addressing: layers and playlists looked up by name and addressed by UUID
  (``resolve_layer``, ``resolve_playlist``), so a layer named "10" is not read as index 10;
- a batch that prepares the show in one call, with a result per command;
- a confirmed trigger (``confirm=True`` reads back until the cue plays);
- a transport watch printing typed events (started, stopped, media changed, time remaining,
  emptied) while the show runs;
- fades and relative opacity on a layer;
- mirrors: every command also goes to a backup machine, whose status is printed at the end.

Against an application (turn its own network backup feature off when mirroring)::

    python examples/automation.py --url http://10.0.0.5:4000 --api-key KEY \\
        --mirror http://10.0.0.6:4000 --layer Main --overlay "Lower Third/Left" \\
        --playlist Opening --cue Countdown

Without ``--url`` it starts two simulators, a main and a backup, and runs the same show on
them. Exit status: 0 when every step worked, 1 when one failed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Iterator

import showctl
from showctl import cmd


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--url", help="the media application (default: start two simulators)")
    p.add_argument("--api-key", help="the application's API key")
    p.add_argument("--mirror", action="append", default=[], help="a backup (repeatable)")
    p.add_argument("--layer", default="Main", help="the layer that plays the cue")
    p.add_argument("--overlay", default="Lower Third/Left", help="the layer to fade")
    p.add_argument("--playlist", default="Opening")
    p.add_argument("--cue", default="Countdown")
    p.add_argument("--interval", type=float, default=0.1, help="seconds between polls")
    return p.parse_args(argv)


@contextlib.contextmanager
def targets(args: argparse.Namespace) -> Iterator[tuple[str, list[str]]]:
    """The main URL and the mirrors: the ones given, or two simulators started here."""
    if args.url:
        yield args.url, list(args.mirror)
        return
    with showctl.Simulator() as main, showctl.Simulator() as backup:
        yield main.url, [backup.url, *args.mirror]


async def watch(events: showctl.TransportWatch, layer_uuid: str) -> None:
    """Print transport events until the cue on the layer stops (or the task is cancelled)."""
    async for event in events:
        where = event.layer_name or ""
        if event.kind == "time_remaining":
            print(f"event: {event.kind} {where} <= {event.threshold:g} s")
        elif event.kind == "poll_failed":
            print(f"event: {event.kind} ({event.error})")
        else:
            media = event.current.playing_media if event.current else None
            name = media.name if media else ""
            print(f"event: {event.kind} {where} {name}".rstrip())
        if event.kind == "stopped" and event.layer_uuid == layer_uuid:
            return


async def show(player: showctl.MediaPlayer, args: argparse.Namespace) -> bool:
    ok = True
    # Names to UUIDs, once: these handles keep working if a name is made of digits.
    main = await player.resolve_layer_async(args.layer)
    overlay = await player.resolve_layer_async(args.overlay)
    playlist = await player.resolve_playlist_async(args.playlist)
    cue = playlist.find(args.cue)
    if not isinstance(cue, showctl.Cue) or cue.uuid is None or playlist.uuid is None:
        print(f"no cue {args.cue!r} in playlist {args.playlist!r}", file=sys.stderr)
        return False
    print(f"layer {args.layer!r} is {main.id}, playlist {args.playlist!r} is {playlist.uuid}")

    # Prepare the show in one call: a result per command, no failure hides another.
    prepare = [cmd.unmute(main), cmd.unhide(main), cmd.unhide(overlay), cmd.set_opacity(main, 1.0)]
    prepare.append(cmd.set_opacity(overlay, 0.0))
    results = await player.batch_async(prepare)
    failed = [r for r in results if not r.ok]
    print(f"batch: {len(results) - len(failed)} ok, {len(failed)} failed")
    for r in failed:
        print(f"  {r.command!r}: {r.error}")
    ok = ok and not failed

    events = player.watch_transport_async(args.interval, thresholds=(5.0, 1.0))
    await events.baseline_async()  # what plays now: the events are changes from here
    watcher = asyncio.ensure_future(watch(events, str(main.id)))

    try:
        await main.trigger_async(playlist.uuid, cue.uuid, confirm=True)
        print(f"confirmed: {args.cue!r} plays on {args.layer!r}")
    except showctl.NotConfirmedError as e:
        print(f"not confirmed: expected {e.expected!r}, read {e.actual!r}")
        ok = False

    await overlay.fade_async(1.0, 1.0, 10)
    value = await overlay.adjust_opacity_async(-0.25, confirm=True)
    print(f"overlay at {value:g}")
    await overlay.fade_async(0.0, 0.5)
    print(f"fade done: {args.overlay!r} at {await overlay.opacity_async():g}")

    await main.go_to_async(-1.5)  # near the end: the watch sees 1 s left, then the stop
    try:
        await asyncio.wait_for(watcher, timeout=10)
    except asyncio.TimeoutError:
        print("the cue did not stop within 10 s")
        ok = False
    return ok


async def run(args: argparse.Namespace) -> int:
    with targets(args) as (url, mirrors):
        async with showctl.MediaPlayer(url, args.api_key, mirrors=mirrors) as player:
            ok = await show(player, args)
        for status in player.mirror_status():
            line = f"mirror {status.url}: sent {status.sent}, failed {status.failed}, "
            line += f"unanswered {status.unanswered}, dropped {status.dropped}"
            if status.last_error is not None:
                line += f" (last error: {status.last_error})"
            print(line)
            ok = ok and status.healthy
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
