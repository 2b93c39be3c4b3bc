"""``showctl demo``: a short scripted show on the built-in simulator, through the public client."""

from __future__ import annotations

import argparse
import sys
import time

import showctl
from showctl.cli.errors import EXIT_OK
from showctl.cli.output import TRANSPORT_HEADERS, score_line, table, transport_row
from showctl.cli.subcommands import Subcommands, no_json, pause


def run(pace: float = 0.0) -> None:
    """Start a simulator, run the show against it, print each step and what came back."""
    step = 0

    def title(text: str) -> None:
        nonlocal step
        step += 1
        time.sleep(pace)
        print(f"\n{step}. {text}", flush=True)

    with showctl.Simulator() as sim:
        print(f"showctl demo: a short show on the built-in simulator at {sim.url}")
        with showctl.MediaPlayer(sim.url) as player, showctl.Scoreboard(sim.url) as board:
            title("Playlists (GET /data/playlists)")
            root = player.playlists()

            def show(playlist: showctl.Playlist, depth: int) -> None:
                cues = ", ".join(str(c.name) for c in playlist.items)
                print(f"   {'  ' * depth}{playlist.name!s:<{14 - 2 * depth}} {cues}".rstrip())
                for child in playlist.children:
                    show(child, depth + 1)

            for playlist in root.children:
                show(playlist, 0)

            title('Trigger cue "Intro Video" of playlist "Opening" on layer "Main"')
            main = player.layer("Main")
            main.trigger("Opening", "Intro Video")
            state = main.transport_state()
            media = state.playing_media.name if state.playing_media else None
            print(f"   Main is playing {media}, {state.time_remaining:.1f} s left")

            title('Fade layer "Main" to 30 % over one second')
            before = main.opacity()
            main.fade(0.3, 1.0, steps=5)
            # Shown to two places: the application keeps single precision (0.3 reads back as
            # 0.30000001192092896; docs/automation.md).
            print(f"   opacity {before:.2f} -> {main.opacity():.2f}")

            title("Transport state of every layer (GET /transportState/workspace)")
            table(
                TRANSPORT_HEADERS,
                [transport_row(i, ts) for i, ts in enumerate(player.transport_state())],
                indent="   ",
            )

            title("Scoreboard: switch to Hockey and watch the score (GET /data/scores)")
            sim.set_sport("Hockey")
            watch = board.watch(interval=0.05)
            print(f"   {score_line(next(watch))}")
            for field, value in (("team1Score", "1"), ("team2Score", "1"), ("team1Score", "2")):
                time.sleep(pace / 2)
                sim.set_score(field, value)
                print(f"   {field} -> {value}: {score_line(next(watch))}", flush=True)

        print(
            f"\nDone: {len(sim.requests)} requests, each answered by the simulator.\n"
            "Next: run `showctl simulate` and point `showctl layers --url URL` or your own "
            "tools at the URL it prints."
        )


def cmd_demo(args: argparse.Namespace) -> int:
    no_json(
        args,
        "it narrates a short show for people; `showctl simulate --json` starts a "
        "simulator for scripts",
    )
    pace = args.pace if args.pace is not None else (0.6 if sys.stdout.isatty() else 0.0)
    run(pace=pace)
    return EXIT_OK


def register(commands: Subcommands) -> None:
    """Add ``demo``."""
    p = commands.add(
        "demo",
        "run a short scripted show on the built-in simulator and print what happened",
        cmd_demo,
        description="Start the built-in simulator and run a short show through the public "
        "client: list playlists, trigger a cue on a layer, fade its opacity, read the "
        "transport state, switch the scoreboard's sport and watch the score change.",
    )
    p.add_argument(
        "--pace",
        type=pause,
        metavar="SECONDS",
        help="pause between steps (default: 0.6 on a terminal, else 0)",
    )
