#!/usr/bin/env bash
# The whole benchmark in one command: bash benches/run.sh [bench.py options, e.g. --rounds 5]
#
# Installs what is missing (nginx and wrk from the distribution; httpx, aiohttp, requests and the
# Rust-core clients pyreqwest and rnet from the `bench` extra), builds showctl in release mode
# into the virtualenv ($VIRTUAL_ENV, else .venv, created if needed), then runs benches/bench.py,
# which starts nginx on a loopback port (and delay_server.py twice, answering after 0.5 ms and
# 2 ms), measures every client against them, prints the table, writes
# benches/results/latest.json and puts the table into benches/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "benches/run.sh: please install ${missing[*]} (apt-get install -y nginx wrk)" >&2
        exit 1
    fi
    echo "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

venv=${VIRTUAL_ENV:-.venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
# shellcheck disable=SC1091
. "$venv/bin/activate"
python -m pip install -q "maturin>=1.7,<2"
echo "building showctl (release) into $venv"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! maturin develop --release --extras bench >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi

python benches/bench.py --readme "$@"
