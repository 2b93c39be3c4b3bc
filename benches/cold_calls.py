"""Where a paced call's CPU goes: the same call made with the caches cold, for cachegrind.

    python benches/cold_calls.py CLIENT URL N

makes 20 warm-up calls of the CPU benchmark's call (``cases.SYNC[CLIENT]``: showctl, pyreqwest,
rnet..., or ``none`` for the loop alone), then N calls, each after writing one byte in every
64-byte line of 8 MiB: that evicts a last-level cache of 2 MiB, as 5 ms of sleep between two
paced calls does on the project's virtual machine (a call after a sleep costs 3-6x its
back-to-back time there, for every client). Under

    valgrind --tool=cachegrind --cache-sim=yes --LL=2097152,16,64 \\
        python benches/cold_calls.py CLIENT URL N

the difference between two runs (N = 50 and N = 150, ``cg_diff``) divided by 100 is what one
cold call costs: instructions, and the cache lines it had to fetch (code: ILmr, data read:
DLmr, data written: DLmw), minus the same for ``none``. Both are counts, not times: the load of
the machine does not change them. It prints nothing.
"""

from __future__ import annotations

import sys

import cases  # benches/ is the script's directory, first on sys.path

LINE = 64
EVICT = 8 << 20  # 4x the simulated last-level cache
WARMUP = 20


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    client, url, n = argv[1], argv[2], int(argv[3])
    call = (lambda: None) if client == "none" else cases.SYNC[client](url)
    buf = bytearray(EVICT)
    ones = b"\1" * (EVICT // LINE)
    for _ in range(WARMUP):
        call()
    for _ in range(n):
        buf[::LINE] = ones
        call()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
