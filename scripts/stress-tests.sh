#!/usr/bin/env bash
# The whole Python suite, several times in a row, while another process keeps every core busy:
# a timing race that a quiet machine hides shows up here. Prints one line per run and a
# summary; exits non-zero if any run had a failure (docs/reliability.md keeps the result).
#
#   scripts/stress-tests.sh [RUNS]        # RUNS in a row (default 5)
#
# Extra pytest arguments may be given in STRESS_PYTEST_ARGS (for example `-x`). Each run's
# output is kept in target/stress/run-N.log. Needs the .venv that `bash .ci/run` sets up.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${1:-5}"
cores="$(nproc)"
mkdir -p target/stress
# shellcheck disable=SC1091
. .venv/bin/activate

# The load: one busy loop per core (a process and its daemon children), ended with this script.
python - "$cores" >/dev/null 2>&1 <<'LOAD' &
import multiprocessing, signal, sys

def spin() -> None:
    while True:
        pass

# SIGTERM ends this process normally, which ends its daemon children with it.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
for _ in range(int(sys.argv[1]) - 1):
    multiprocessing.Process(target=spin, daemon=True).start()
spin()
LOAD
load=$!
trap 'kill "$load" 2>/dev/null || true' EXIT

printf 'stress: %d runs of the Python suite, %d busy loops on %d cores\n' "$runs" "$cores" "$cores"
failed_runs=0
for i in $(seq 1 "$runs"); do
    log="target/stress/run-$i.log"
    started=$(date +%s)
    # shellcheck disable=SC2086
    if python -m pytest -q -p no:cacheprovider ${STRESS_PYTEST_ARGS:-} >"$log" 2>&1; then
        status=ok
    else
        status=FAILED
        failed_runs=$((failed_runs + 1))
    fi
    summary=$(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' "$log" | tail -1 | tr -d '=')
    printf 'run %d: %s in %ds: %s\n' "$i" "$status" "$(($(date +%s) - started))" "$summary"
    grep -E '^(FAILED|ERROR) ' "$log" || true
done
printf 'stress: %d of %d runs with a failure\n' "$failed_runs" "$runs"
[ "$failed_runs" -eq 0 ]
