"""What the OSC bridge adds to a command: an OSC message to its reply (which the bridge sends
once the application answered) against the HTTP call alone, in one run on loopback.

    python benches/osc_latency.py [--calls 2000] [--rounds 3]

One simulator and one `MediaPlayer`; for each round, alternately:

- `http`: `player.layer(0).mute()`, the blocking call, timed from the call to its return;
- `osc udp`: `/showctl/layer/0/mute` sent from a plain UDP socket to a running `OscBridge` (the
  same player), timed from the send to the reply's arrival;
- `osc tcp`: the same over one TCP connection with SLIP framing.

The OSC client is a raw socket with the message built once (python-osc's builder), so the
figure is the bridge's and not a client library's. Reports the median and p90 of each, and
the goal: the OSC median at most 0.5 ms above the HTTP median. Writes
benches/results/osc-latency.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import socket
import statistics
import time
from pathlib import Path

import showctl
from pythonosc.osc_message_builder import OscMessageBuilder

HERE = Path(__file__).resolve().parent
GOAL_MS = 0.5
ADDRESS = "/showctl/layer/0/mute"


def quantiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered) * 1e3, 4),
        "p90_ms": round(ordered[int(len(ordered) * 0.9)] * 1e3, 4),
    }


def http_calls(player: showctl.MediaPlayer, n: int) -> list[float]:
    layer = player.layer(0)
    out = []
    for _ in range(n):
        t = time.perf_counter()
        layer.mute()
        out.append(time.perf_counter() - t)
    return out


def udp_calls(port: int, n: int) -> list[float]:
    packet = OscMessageBuilder(ADDRESS).build().dgram
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    out = []
    for _ in range(n):
        t = time.perf_counter()
        s.send(packet)
        reply = s.recv(65536)
        out.append(time.perf_counter() - t)
        assert b'"status":"ok"' in reply, reply
    s.close()
    return out


def tcp_calls(port: int, n: int) -> list[float]:
    frame = b"\xc0" + OscMessageBuilder(ADDRESS).build().dgram + b"\xc0"
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    out = []
    for _ in range(n):
        t = time.perf_counter()
        s.sendall(frame)
        reply = b""
        # One reply frame: END, the packet, END.
        while reply.count(b"\xc0") < 2:
            chunk = s.recv(65536)
            assert chunk, "the bridge closed the connection"
            reply += chunk
        out.append(time.perf_counter() - t)
        assert b'"status":"ok"' in reply, reply
    s.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "osc-latency.json")
    args = ap.parse_args()
    samples: dict[str, list[float]] = {"http": [], "osc udp": [], "osc tcp": []}
    with showctl.Simulator() as sim, showctl.MediaPlayer(sim.url) as player:
        # A high rate: the benchmark is one sender sending as fast as it is answered.
        with showctl.OscBridge(player, port=0, rate=100_000) as bridge:
            # Warm up connections and caches once.
            http_calls(player, 200)
            udp_calls(bridge.port, 200)
            tcp_calls(bridge.port, 200)
            for _ in range(args.rounds):
                samples["http"] += http_calls(player, args.calls)
                samples["osc udp"] += udp_calls(bridge.port, args.calls)
                samples["osc tcp"] += tcp_calls(bridge.port, args.calls)
                sim.clear_requests()
    figures = {k: quantiles(v) for k, v in samples.items()}
    http = figures["http"]["median_ms"]
    goals = {
        k: {
            "added_ms": round(figures[k]["median_ms"] - http, 4),
            "goal_ms": GOAL_MS,
            "met": figures[k]["median_ms"] - http <= GOAL_MS,
        }
        for k in ("osc udp", "osc tcp")
    }
    result = {
        "calls": args.calls * args.rounds,
        "figures": figures,
        "goals": goals,
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "showctl": showctl.__version__,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for k, f in figures.items():
        extra = f"  (+{goals[k]['added_ms']:.3f} ms)" if k in goals else ""
        print(f"{k:8} median {f['median_ms']:.3f} ms  p90 {f['p90_ms']:.3f} ms{extra}")
    met = all(g["met"] for g in goals.values())
    print(f"goal: at most +{GOAL_MS} ms: {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
