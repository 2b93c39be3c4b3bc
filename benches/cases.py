"""The workloads of the benchmark, one client per process.

Run by bench.py as ``python cases.py BENCH CLIENT BASE_URL`` (each in a fresh interpreter, so
the peak RSS it reports belongs to that client alone). It prints one JSON object on stdout.
Every client meets the same server and does the same work: the same requests, the same status
check, the same JSON decode, the same kind of result.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

OPACITY = "/api/0/opacity/layer/0"
TREE = "/api/0/data/playlists"

SYNC_WARMUP = 500
SYNC_CALLS = 5000
FANOUT_COMMANDS = 2000
FANOUT_IN_FLIGHT = 64
FANOUT_WARMUP = 256
FANOUT_REPEATS = 3
FANOUT_BUDGET_S = 3.0  # a slow client runs fewer timed waves (at least one)
TREE_WARMUP = 3
TREE_REPEATS = 25
CPU_WARMUP = 100
CPU_CALLS = 1000
CPU_RATE = 200  # calls per second, paced
CPU_IDLE_STEPS = 200  # steps of the loop without a call, for reference
SEQUENCE_STEPS = 20
SEQUENCE_WARMUP = 3
SEQUENCE_REPEATS = 25


def mute_path(i: int) -> str:
    return f"/api/0/mute/layer/{i}"


# ---------------------------------------------------------------------------------------------
# sync latency: GET /opacity/layer/0 and decode {"opacity": {"value": x}} to a float


def sync_showctl(base: str) -> Callable[[], float]:
    import showctl

    return showctl.MediaPlayer(base).layer(0).opacity


def sync_httpx(base: str) -> Callable[[], float]:
    import httpx

    client = httpx.Client(base_url=base)

    def call() -> float:
        r = client.get(OPACITY)
        r.raise_for_status()
        return float(r.json()["opacity"]["value"])

    return call


def sync_requests(base: str) -> Callable[[], float]:
    import requests

    session = requests.Session()
    url = base + OPACITY

    def call() -> float:
        r = session.get(url)
        r.raise_for_status()
        return float(r.json()["opacity"]["value"])

    return call


def sync_http_client(base: str) -> Callable[[], float]:
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port)

    def call() -> float:
        conn.request("GET", OPACITY)
        r = conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError(f"status {r.status}")
        return float(json.loads(body)["opacity"]["value"])

    return call


def sync_pyreqwest(base: str) -> Callable[[], float]:
    from pyreqwest.client import SyncClientBuilder

    client = SyncClientBuilder().base_url(base).build()

    def call() -> float:
        r = client.get(OPACITY).build().send()
        if r.status != 200:
            raise RuntimeError(f"status {r.status}")
        return float(r.json()["opacity"]["value"])

    return call


def sync_rnet(base: str) -> Callable[[], float]:
    from rnet.blocking import BlockingClient

    client = BlockingClient()
    url = base + OPACITY

    def call() -> float:
        r = client.get(url)
        if r.status != 200:
            raise RuntimeError(f"status {r.status}")
        return float(r.json()["opacity"]["value"])

    return call


SYNC = {
    "showctl": sync_showctl,
    "httpx": sync_httpx,
    "requests": sync_requests,
    "http.client": sync_http_client,
    "pyreqwest": sync_pyreqwest,
    "rnet": sync_rnet,
}


def run_sync(client: str, base: str) -> dict[str, Any]:
    call = SYNC[client](base)
    if call() != 0.5:
        raise RuntimeError(f"{client}: unexpected opacity {call()!r}")
    for _ in range(SYNC_WARMUP):
        call()
    clock = time.perf_counter_ns
    samples = [0] * SYNC_CALLS
    started = clock()
    for i in range(SYNC_CALLS):
        t0 = clock()
        call()
        samples[i] = clock() - t0
    total = clock() - started
    samples.sort()
    return {
        "calls": SYNC_CALLS,
        "median_us": statistics.median(samples) / 1000,
        "p90_us": samples[int(SYNC_CALLS * 0.9)] / 1000,
        "p99_us": samples[int(SYNC_CALLS * 0.99)] / 1000,
        "mean_us": total / SYNC_CALLS / 1000,
    }


# ---------------------------------------------------------------------------------------------
# CPU per call: the sync call above, 1,000 times, back-to-back or paced at 200 per second;
# process CPU time (user + system, every thread of this process) per call


def run_cpu(client: str, base: str, paced: bool) -> dict[str, Any]:
    call = SYNC[client](base)
    if call() != 0.5:
        raise RuntimeError(f"{client}: unexpected opacity {call()!r}")
    period = 1 / CPU_RATE if paced else 0.0
    clock = time.perf_counter

    def calls(n: int, work: Callable[[], object] = call) -> list[float]:
        walls = [0.0] * n
        start = clock()
        for i in range(n):
            if paced:
                ahead = start + i * period - clock()
                if ahead > 0:
                    time.sleep(ahead)
            t0 = clock()
            work()
            walls[i] = clock() - t0
        return walls

    # For reference: the CPU of the same loop without a call (paced: the sleeps alone).
    idle0 = time.process_time()
    calls(CPU_IDLE_STEPS, lambda: None)
    idle = (time.process_time() - idle0) * 1e6 / CPU_IDLE_STEPS
    calls(CPU_WARMUP)
    before, cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.process_time(), clock()
    walls = calls(CPU_CALLS)
    cpu, wall = time.process_time() - cpu0, clock() - wall0
    after = resource.getrusage(resource.RUSAGE_SELF)
    walls.sort()
    per_call = 1e6 / CPU_CALLS
    return {
        "calls": CPU_CALLS,
        "rate_per_s": CPU_RATE if paced else CPU_CALLS / wall,
        "cpu_us": cpu * per_call,
        "user_us": (after.ru_utime - before.ru_utime) * per_call,
        "system_us": (after.ru_stime - before.ru_stime) * per_call,
        "voluntary_switches": (after.ru_nvcsw - before.ru_nvcsw) / CPU_CALLS,
        "involuntary_switches": (after.ru_nivcsw - before.ru_nivcsw) / CPU_CALLS,
        "wall_median_us": statistics.median(walls) * 1e6,
        "wall_p90_us": walls[int(CPU_CALLS * 0.9)] * 1e6,
        "loop_without_call_us": idle,
        "threads": len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 0,
    }


def run_cpu_back_to_back(client: str, base: str) -> dict[str, Any]:
    return run_cpu(client, base, paced=False)


def run_cpu_paced(client: str, base: str) -> dict[str, Any]:
    return run_cpu(client, base, paced=True)


# ---------------------------------------------------------------------------------------------
# async fan-out: 2,000 x POST /mute/layer/{i}, 64 in flight, asyncio.gather


Send = Callable[[int], Awaitable[None]]


async def fanout_showctl(base: str) -> tuple[Send, Callable[[], Awaitable[None]]]:
    import showctl

    player = showctl.MediaPlayer(base)

    async def send(i: int) -> None:
        await player.layer(i).mute_async()

    async def close() -> None:
        player.close()

    return send, close


async def fanout_httpx(base: str) -> tuple[Send, Callable[[], Awaitable[None]]]:
    import httpx

    limits = httpx.Limits(
        max_connections=FANOUT_IN_FLIGHT, max_keepalive_connections=FANOUT_IN_FLIGHT
    )
    client = httpx.AsyncClient(base_url=base, limits=limits)

    async def send(i: int) -> None:
        r = await client.post(mute_path(i))
        r.raise_for_status()

    return send, client.aclose


async def fanout_aiohttp(base: str) -> tuple[Send, Callable[[], Awaitable[None]]]:
    import aiohttp

    session = aiohttp.ClientSession(
        base_url=base, connector=aiohttp.TCPConnector(limit=FANOUT_IN_FLIGHT)
    )

    async def send(i: int) -> None:
        async with session.post(mute_path(i)) as r:
            r.raise_for_status()
            await r.read()

    return send, session.close


FANOUT = {
    "showctl": fanout_showctl,
    "httpx": fanout_httpx,
    "aiohttp": fanout_aiohttp,
}
# One Python call that runs every command in Rust (reported, not a goal).
BATCH = "showctl batch_async"


async def fanout_main(client: str, base: str) -> dict[str, Any]:
    if client == BATCH:
        import showctl

        player = showctl.MediaPlayer(base)

        async def send_all(n: int) -> None:
            commands = [showctl.cmd.mute(i) for i in range(n)]
            results = await player.batch_async(commands, concurrency=FANOUT_IN_FLIGHT)
            if not all(r.ok for r in results):
                raise RuntimeError(f"{client}: a command failed")

        async def close_player() -> None:
            player.close()

        close: Callable[[], Awaitable[None]] = close_player
    else:
        send, close = await FANOUT[client](base)
        limit = asyncio.Semaphore(FANOUT_IN_FLIGHT)

        async def one(i: int) -> None:
            async with limit:
                await send(i)

        async def send_all(n: int) -> None:
            await asyncio.gather(*(one(i) for i in range(n)))

    async def wave(n: int) -> float:
        t0 = time.perf_counter()
        await send_all(n)
        return time.perf_counter() - t0

    await wave(FANOUT_WARMUP)  # opens the connections
    walls = [await wave(FANOUT_COMMANDS)]
    while len(walls) < FANOUT_REPEATS and sum(walls) < FANOUT_BUDGET_S:
        walls.append(await wave(FANOUT_COMMANDS))
    await close()
    return {
        "commands": FANOUT_COMMANDS,
        "in_flight": FANOUT_IN_FLIGHT,
        "waves": len(walls),
        "wall_ms": statistics.median(walls) * 1000,
        "best_ms": min(walls) * 1000,
    }


def run_fanout(client: str, base: str) -> dict[str, Any]:
    return asyncio.run(fanout_main(client, base))


# ---------------------------------------------------------------------------------------------
# big tree: GET /data/playlists, decode into typed objects


@dataclass(slots=True)
class Cue:
    name: str
    uuid: str


@dataclass(slots=True)
class Playlist:
    uuid: str
    name: str
    items: list[Cue]
    children: list[Playlist]


def playlist_from(d: dict[str, Any]) -> Playlist:
    return Playlist(
        uuid=d["uuid"],
        name=d["name"],
        items=[Cue(name=c["name"], uuid=c["uuid"]) for c in d.get("items", ())],
        children=[playlist_from(c) for c in d.get("children", ())],
    )


def count_cues(tree: Any) -> int:
    if isinstance(tree, dict):
        return len(tree.get("items", ())) + sum(count_cues(c) for c in tree.get("children", ()))
    return len(tree.items) + sum(count_cues(c) for c in tree.children)


def tree_showctl(base: str) -> Callable[[], Any]:
    import showctl

    return showctl.MediaPlayer(base).playlists


def tree_httpx(base: str) -> Callable[[], Any]:
    import httpx

    client = httpx.Client(base_url=base)

    def call() -> Playlist:
        r = client.get(TREE)
        r.raise_for_status()
        return playlist_from(r.json()["playlist"])

    return call


def tree_requests(base: str) -> Callable[[], Any]:
    import requests

    session = requests.Session()
    url = base + TREE

    def call() -> Playlist:
        r = session.get(url)
        r.raise_for_status()
        return playlist_from(r.json()["playlist"])

    return call


def tree_httpx_dicts(base: str) -> Callable[[], Any]:
    import httpx

    client = httpx.Client(base_url=base)

    def call() -> Any:
        r = client.get(TREE)
        r.raise_for_status()
        return r.json()["playlist"]

    return call


TREE_CLIENTS = {
    "showctl": tree_showctl,
    "httpx+dataclasses": tree_httpx,
    "requests+dataclasses": tree_requests,
    "httpx+json (dicts only)": tree_httpx_dicts,
}


def walk(tree: Any) -> int:
    """Touch every playlist and every cue (its name): the tree as a program would use it."""
    if isinstance(tree, dict):
        n = sum(len(c["name"]) for c in tree.get("items", ()))
        return n + sum(walk(c) for c in tree.get("children", ()))
    n = sum(len(c.name) for c in tree.items)
    return n + sum(walk(c) for c in tree.children)


def run_tree(client: str, base: str) -> dict[str, Any]:
    call = TREE_CLIENTS[client](base)
    first = call()
    cues = count_cues(first)
    expected = walk(first)
    for _ in range(TREE_WARMUP):
        walk(call())
    walls = []
    for _ in range(TREE_REPEATS):
        t0 = time.perf_counter()
        if walk(call()) != expected:
            raise RuntimeError(f"{client}: the tree changed")
        walls.append(time.perf_counter() - t0)
    return {
        "cues": cues,
        "repeats": TREE_REPEATS,
        "median_ms": statistics.median(walls) * 1000,
        "best_ms": min(walls) * 1000,
    }


# ---------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------
# sequence overhead: a 20-step sequence of opacity commands against delay_server.py; the time
# beyond the answers the server held (its /stats), per step, next to 20 plain calls in a loop


def held_us(base: str) -> float:
    """The time delay_server.py held its answers since the last call, summed (microseconds)."""
    import urllib.request

    with urllib.request.urlopen(base + "/stats", timeout=10) as r:
        return float(json.loads(r.read()).get("sum_us", 0.0))


def run_sequence(client: str, base: str) -> dict[str, Any]:
    import showctl
    from showctl import cmd

    player = showctl.MediaPlayer(base)
    steps = [cmd.set_opacity(0, 0.5) for _ in range(SEQUENCE_STEPS)]
    layer = player.layer(0)

    def plain() -> None:
        for _ in range(SEQUENCE_STEPS):
            layer.set_opacity(0.5)

    def sequence() -> None:
        if not player.sequence(steps).ok:
            raise RuntimeError("the sequence failed")

    out: dict[str, Any] = {"steps": SEQUENCE_STEPS, "repeats": SEQUENCE_REPEATS}
    for name, run in (("plain", plain), ("sequence", sequence)):
        for _ in range(SEQUENCE_WARMUP):
            run()
        held_us(base)  # the count starts here
        walls = []
        for _ in range(SEQUENCE_REPEATS):
            t0 = time.perf_counter()
            run()
            walls.append((time.perf_counter() - t0) * 1e6)
        held = held_us(base)
        beyond = (sum(walls) - held) / (SEQUENCE_REPEATS * SEQUENCE_STEPS)
        out[f"{name}_wall_ms_median"] = statistics.median(walls) / 1000
        out[f"{name}_held_ms_per_run"] = held / SEQUENCE_REPEATS / 1000
        out[f"{name}_beyond_answers_us_per_step"] = beyond
    return out


BENCHES: dict[str, tuple[Callable[[str, str], dict[str, Any]], dict[str, Any]]] = {
    "sync": (run_sync, SYNC),
    "fanout": (run_fanout, {**FANOUT, BATCH: None}),
    "tree": (run_tree, TREE_CLIENTS),
    "cpu-back-to-back": (run_cpu_back_to_back, SYNC),
    "cpu-paced": (run_cpu_paced, SYNC),
    "sequence": (run_sequence, {"showctl": None}),
}


def peak_rss_mib() -> float:
    """Peak resident set of this process. VmHWM belongs to this program alone; ru_maxrss on
    Linux also counts the parent's pages at fork time, before exec."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str]) -> int:
    if len(argv) != 4 or argv[1] not in BENCHES or argv[2] not in BENCHES[argv[1]][1]:
        names = {b: sorted(c) for b, (_, c) in BENCHES.items()}
        print(f"usage: cases.py BENCH CLIENT BASE_URL; known: {names}", file=sys.stderr)
        return 2
    bench, client, base = argv[1], argv[2], argv[3]
    gc.collect()
    figures = BENCHES[bench][0](client, base)
    figures["peak_rss_mib"] = peak_rss_mib()
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
