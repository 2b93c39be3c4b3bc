"""Commands lost, duplicated or late against servers that close kept connections and against a
small server (the figures of docs/reliability.md, "Delivery").

    python benches/delivery.py                  # the re-send rule, 3 rounds each
    python benches/delivery.py --cap 4 8 16 64  # 1,000 gathered calls against 8 worker slots
    python benches/delivery.py --cap 8 64 --slots 1000  # ... against a server without a limit

Uses the fault servers of tests/ (tests/kit/fakeserver.py, tests/client/test_delivery.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: tests.kit

import showctl

from tests.kit.delivery import (
    SmallServer,
    answer_then_close,
    close_before_reading_the_next,
    run_commands,
)
from tests.kit.fakeserver import FakeServer


def resend(rounds: int) -> None:
    for name, script, count in (
        ("closes after each answer", answer_then_close, 300),
        ("closes the kept connection as the next arrives", close_before_reading_the_next, 40),
    ):
        for mode in ("sync", "async"):
            for _ in range(rounds):
                with FakeServer(script()) as server:
                    errors = run_commands(server.url, mode, count)
                    values = [json.loads(s.body)["value"] for s in server.requests]
                received = len(values)
                duplicated = received - len(set(values))
                print(
                    f"{name}, {mode}: {count} commands, {len(errors)} raised, "
                    f"{received} received, {duplicated} duplicated"
                )


def gathered(cap: int | None, calls: int, work: float, slots: int) -> dict[str, Any]:
    small = SmallServer(slots=slots, work=work)
    options: dict[str, Any] = {} if cap is None else {"max_connections": cap}
    with small.server:
        player = showctl.MediaPlayer(small.url, **options)

        async def main() -> list[object]:
            return await asyncio.gather(
                *(player.mute_async() for _ in range(calls)), return_exceptions=True
            )

        started = time.perf_counter()
        outcomes = asyncio.run(main())
        took = time.perf_counter() - started
        failed = [o for o in outcomes if isinstance(o, BaseException)]
        # Let the server finish what it was sent, to count what ran after its caller failed.
        time.sleep(2 * work * calls / slots + 1)
        return {
            "slots": slots,
            "cap": cap,
            "answered": calls - len(failed),
            "raised": len(failed),
            "raised not_sent": sum(getattr(e, "delivery", "") == "not_sent" for e in failed),
            "ran on the server": small.requests,
            "most connections": small.most,
            "seconds": round(took, 2),
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cap", nargs="*", type=int, help="max_connections values to try")
    parser.add_argument("--default", action="store_true", help="also the client's default")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--work", type=float, default=0.002, help="seconds per request")
    parser.add_argument("--slots", type=int, default=8, help="the server's worker slots")
    args = parser.parse_args()
    if args.cap is None and not args.default:
        resend(args.rounds)
        return
    for cap in ([None] if args.default else []) + (args.cap or []):
        print(gathered(cap, args.calls, args.work, args.slots))


if __name__ == "__main__":
    main()
