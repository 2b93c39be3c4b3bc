#!/usr/bin/env bash
# Test the built wheel as users install it, on every CPython >= 3.9 this machine has:
#
#   scripts/test-wheel.sh [WHEEL] [-- PYTEST ARGS...]
#
# WHEEL defaults to the abi3 manylinux wheel of Cargo.toml's version in dist/ (made by
# scripts/build-wheels.sh). For each CPython found (pyenv's versions, python3.X on PATH,
# /usr/bin and /usr/local/bin; or the interpreters listed in SHOWCTL_PYTHONS, space-separated):
#
# 1. a fresh virtualenv (target/wheel-test/venv-3.X), with no Rust toolchain on PATH (every
#    directory holding cargo, rustc or rustup is left out, and that is checked);
# 2. `pip install --only-binary :all: WHEEL[test]`: the wheel itself, never a build from source;
# 3. the Python test suite against the installed package (scripts/test-installed.sh: a copy of
#    tests/ and examples/, so the source tree's python/ is nowhere on sys.path, and a check in
#    the suite's conftest that showctl and its extension come from the virtualenv).
#
# It prints a table, each version with its result, names the supported versions it found no
# interpreter for, and exits non-zero when a version failed or none could be tested.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# The versions pyproject.toml's classifiers promise.
SUPPORTED=$(sed -n 's/.*"Programming Language :: Python :: \(3\.[0-9]*\)".*/\1/p' pyproject.toml |
    tr '\n' ' ' | sed 's/ $//')

fail() { printf 'test-wheel: %s\n' "$*" >&2; exit 1; }

wheel=""
pytest_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --) shift; pytest_args=("$@"); break ;;
        *) wheel=$1; shift ;;
    esac
done
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
if [ -z "$wheel" ]; then
    for w in dist/showctl-"$version"-cp39-abi3-*manylinux*.whl; do wheel=$w; done
fi
[ -f "$wheel" ] || fail "no wheel (run scripts/build-wheels.sh first, or name one)"
wheel=$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")

# PATH without any Rust toolchain.
clean_path=""
IFS=: read -r -a path_dirs <<<"$PATH"
for d in "${path_dirs[@]}"; do
    [ -n "$d" ] || continue
    if [ -x "$d/cargo" ] || [ -x "$d/rustc" ] || [ -x "$d/rustup" ]; then continue; fi
    clean_path=${clean_path:+$clean_path:}$d
done
if env PATH="$clean_path" sh -c 'command -v cargo || command -v rustc' >/dev/null; then
    fail "could not take the Rust toolchain off PATH"
fi

# Candidate interpreters, in order of preference; one per minor version.
candidates=()
if [ -n "${SHOWCTL_PYTHONS:-}" ]; then
    read -r -a candidates <<<"$SHOWCTL_PYTHONS"
else
    for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python3; do
        [ -x "$p" ] && candidates+=("$p")
    done
    for minor in $(seq 9 20); do
        p=$(env PATH="$clean_path" sh -c "command -v python3.$minor" || true)
        [ -n "$p" ] && candidates+=("$p")
        for dir in /usr/bin /usr/local/bin; do
            [ -x "$dir/python3.$minor" ] && candidates+=("$dir/python3.$minor")
        done
    done
fi

declare -A interpreter=()
found=()
for p in "${candidates[@]}"; do
    # A pyenv shim for a version that is not selected fails here: skipped.
    info=$(env PATH="$clean_path" "$p" -c '
import sys, sysconfig
free = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
print(sys.implementation.name, "%d.%d" % sys.version_info[:2], sys.version_info >= (3, 9), free,
      sys.executable, sys.version.split()[0])' 2>/dev/null) || continue
    read -r impl minor new_enough free exe full <<<"$info"
    # abi3 wheels are not for free-threaded builds; the wheel needs CPython 3.9 or later.
    if [ "$impl" != cpython ] || [ "$new_enough" != True ] || [ "$free" != False ]; then
        continue
    fi
    [ -n "${interpreter[$minor]:-}" ] && continue
    interpreter[$minor]="$exe $full"
    found+=("$minor")
done
mapfile -t found < <(printf '%s\n' "${found[@]}" | sort -t. -k1,1n -k2,2n)
[ "${#found[@]}" -gt 0 ] || fail "no CPython >= 3.9 found"

work=$repo/target/wheel-test
mkdir -p "$work"
echo "wheel: $wheel"
echo "PATH without Rust: $clean_path"
echo "CPython versions found: ${found[*]}"

declare -A result=() seconds=()
status=0
for minor in "${found[@]}"; do
    read -r exe full <<<"${interpreter[$minor]}"
    venv=$work/venv-$minor
    log=$work/pytest-$minor.log
    printf '\n==> CPython %s (%s)\n' "$full" "$exe"
    start=$(date +%s)
    rm -rf "$venv"
    if ! env PATH="$clean_path" "$exe" -m venv "$venv" >"$log" 2>&1; then
        result[$minor]="not tested: venv failed (see $log)"; status=1; continue
    fi
    run() { env -u VIRTUAL_ENV -u PYTHONPATH -u PYTHONHOME PATH="$venv/bin:$clean_path" "$@"; }
    if ! run python -m pip install -q --disable-pip-version-check --upgrade pip >>"$log" 2>&1 ||
        ! run python -m pip install -q --disable-pip-version-check --only-binary :all: \
            "${wheel}[test]" >>"$log" 2>&1; then
        tail -n 20 "$log"
        result[$minor]="FAILED: install (see $log)"; status=1; continue
    fi
    where=$(cd "$work" && run python -c \
        'import showctl, sysconfig; print(showctl.__file__, sysconfig.get_paths()["platlib"])')
    read -r module platlib <<<"$where"
    case "$module" in
        "$platlib"/showctl/*) echo "showctl imported from $module" ;;
        *) result[$minor]="FAILED: showctl imported from $module"; status=1; continue ;;
    esac
    set +e
    PYTHON=python run scripts/test-installed.sh "$work/stage-$minor" "${pytest_args[@]}" 2>&1 |
        tee -a "$log" | grep -E '^(FAILED|ERROR)|^[0-9]+ (passed|failed)'
    code=${PIPESTATUS[0]}
    set -e
    seconds[$minor]=$(($(date +%s) - start))
    summary=$(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed).* =+$' "$log" | tail -n 1 |
        sed 's/^=* *//; s/ *=*$//')
    if [ "$code" = 0 ]; then
        result[$minor]="passed: $summary"
    else
        result[$minor]="FAILED (exit $code): ${summary:-see $log}"; status=1
    fi
done

missing=()
for minor in $SUPPORTED; do
    [ -n "${interpreter[$minor]:-}" ] || missing+=("$minor")
done

printf '\n%s\n\n' "Wheel $(basename "$wheel") on $(uname -sm), $(date -u '+%Y-%m-%d %H:%M UTC'):"
printf '| CPython | interpreter | result | time |\n|---|---|---|--:|\n'
for minor in "${found[@]}"; do
    read -r exe full <<<"${interpreter[$minor]}"
    printf '| %s | %s | %s | %s s |\n' "$full" "$exe" "${result[$minor]}" "${seconds[$minor]:-–}"
done
if [ "${#missing[@]}" -gt 0 ]; then
    printf '\nNot tested (no interpreter found): %s\n' "${missing[*]}"
else
    printf '\nEvery supported version (%s) was tested.\n' "$SUPPORTED"
fi
exit "$status"
