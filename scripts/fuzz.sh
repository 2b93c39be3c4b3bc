#!/usr/bin/env bash
# Fuzz the reply decoders, the identifier encoder, request()'s paths and key scrubbing for a
# fixed budget, and print what ran and what was found (docs/reliability.md keeps the result).
#
#   scripts/fuzz.sh [SECONDS]      # SECONDS per cargo-fuzz target (default 300)
#
# 1. The proptest suite (core/tests/fuzz_decoders.rs) with SHOWCTL_FUZZ_CASES cases per property
#    (default 50000): mutated recordings, allocation bounded per body byte.
# 2. With a nightly toolchain: the cargo-fuzz targets in fuzz/ (libFuzzer, AddressSanitizer),
#    seeded with the response bodies of tests/recordings/, for SECONDS each, with any single
#    allocation above 64 MiB or a process above 1 GiB counted as a failure. cargo-fuzz is
#    installed from crates.io when missing. Without nightly this step is left out (said so).
#
# A failure leaves its input in fuzz/artifacts/<target>/ (cargo-fuzz) or
# core/tests/fuzz_decoders.proptest-regressions (proptest) and the script exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

budget="${1:-300}"
cases="${SHOWCTL_FUZZ_CASES:-50000}"

step() { printf '\n==> %s\n' "$*"; }

step "proptest: $cases cases per property"
SHOWCTL_FUZZ_CASES="$cases" cargo test -p showctl --test fuzz_decoders -- --nocapture 2>&1 |
    grep -E '^(fuzz |test |test result)'

if ! cargo +nightly --version >/dev/null 2>&1; then
    step "cargo-fuzz: no nightly toolchain, left out (rustup toolchain install nightly)"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    step "installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

step "seed corpus from tests/recordings"
python3 - <<'EOF'
import hashlib, json, pathlib
out = pathlib.Path("fuzz/corpus/decoders")
out.mkdir(parents=True, exist_ok=True)
ids = pathlib.Path("fuzz/corpus/identifiers")
ids.mkdir(parents=True, exist_ok=True)
n = 0
for path in sorted(pathlib.Path("tests/recordings").rglob("*.json")):
    rec = json.loads(path.read_text(encoding="utf-8"))
    resp, req = rec["response"], rec["request"]
    body = resp.get("body_text", "").encode() if "body_text" in resp else (
        json.dumps(resp["body"]).encode() if "body" in resp else b"")
    (out / hashlib.sha1(body).hexdigest()).write_bytes(body)
    seed = req["path"].encode() + b"\0" + b"\0".join(
        f"{k}\0{v}".encode() for k, v in (req.get("query") or {}).items())
    (ids / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
    n += 1
print(f"{n} recordings")
EOF

mkdir -p fuzz/corpus/osc
for target in decoders identifiers osc; do
    step "cargo-fuzz: $target for ${budget}s"
    status=0
    cargo +nightly fuzz run "$target" "fuzz/corpus/$target" -- \
        -max_total_time="$budget" -rss_limit_mb=1024 -malloc_limit_mb=64 -max_len=65536 \
        -print_final_stats=1 >"fuzz/$target.log" 2>&1 || status=$?
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY)|#[0-9]+ *DONE|panicked|ERROR' \
        "fuzz/$target.log" || true
    if [ "$status" -ne 0 ]; then
        echo "cargo-fuzz $target FOUND A FAILURE: see fuzz/$target.log and fuzz/artifacts/$target/"
        exit 1
    fi
done
step "no failure"
