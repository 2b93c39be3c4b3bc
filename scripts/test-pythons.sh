#!/bin/sh
# The Python-facing tests on the oldest and the newest supported CPython this machine has (3.9
# and 3.13, pyproject.toml's classifiers), on one abi3 wheel built once (the dev profile, as the
# rest of .ci/run tests): .ci/run's step "every supported Python".
#
#   scripts/test-pythons.sh [PYTEST ARGS...]    # SHOWCTL_TEST_PYTHONS="3.13": other versions
#
# An interpreter is looked for in pyenv's versions (~/.pyenv/versions/3.9*, the newest patch
# release first), then as python3.9 / python3.13 on PATH; a version with none is named ("not
# found") and the step goes on with the others. Every version found is tested, and the step
# fails when one failed, or when it found none. Each gets its own
# virtualenv (target/pythons/3.X, kept between runs) with the wheel and the wheel's own `test`
# extra (its markers as a user's pip reads them), then scripts/test-installed.sh runs, against
# the installed wheel, the test files tests/README.md names under "Every supported Python"
# (between its `every-python` markers). POSIX sh.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

files=$(sed -n '/<!-- every-python: begin -->/,/<!-- every-python: end -->/p' tests/README.md |
    sed -n 's/^- `\(tests\/[^`]*\)`.*/\1/p')
[ -n "$files" ] || { echo "tests/README.md names no test file for every Python" >&2; exit 1; }

find_python() {
    for dir in $(ls -d "$HOME/.pyenv/versions/$1".* 2>/dev/null | sort -V -r); do
        case $dir in *t) continue ;; esac # free-threaded builds cannot load an abi3 wheel
        if [ -x "$dir/bin/python" ]; then
            echo "$dir/bin/python"
            return
        fi
    done
    command -v "python$1" 2>/dev/null || true
}

echo "building the abi3 wheel once (dev profile)"
rm -rf target/pythons/wheel
# pip builds it with pyproject.toml's build backend, as .ci/run's install does (a clean clone
# has no maturin of its own in .venv).
MATURIN_PEP517_ARGS="--profile dev" python -m pip wheel -q --disable-pip-version-check --no-deps \
    -w target/pythons/wheel .
wheel=$(ls target/pythons/wheel/showctl-*-abi3-*.whl)
echo "wheel: $(basename "$wheel")"

tested=""
failed=""
missing=""
for version in ${SHOWCTL_TEST_PYTHONS:-3.9 3.13}; do
    python=$(find_python "$version")
    if [ -z "$python" ]; then
        echo "CPython $version: not found (~/.pyenv/versions/$version.*, python$version on PATH): not tested"
        missing="$missing $version"
        continue
    fi
    start=$(date +%s)
    venv="target/pythons/$version"
    [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall \
        --no-deps "$wheel"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel[test]"
    echo "CPython $("$venv/bin/python" -c 'import platform; print(platform.python_version())')" \
        "($python): $(echo "$files" | wc -l) test files"
    # As if the virtualenv were activated (over .ci/run's own): the tools the tests start
    # (pyright, the notebook's kernel) take their Python from it.
    # shellcheck disable=SC2086 # the file list is split on purpose
    if VIRTUAL_ENV="$repo/$venv" PATH="$repo/$venv/bin:$PATH" PYTHON="$repo/$venv/bin/python" \
        sh scripts/test-installed.sh "target/pythons/stage-$version" $files "$@"; then
        result=passed
    else
        result=FAILED
        failed="$failed $version"
    fi
    echo "CPython $version: $result in $(($(date +%s) - start)) s (virtualenv and install included)"
    tested="$tested $version"
done
echo "tested:${tested:- none}; failed:${failed:- none}; not found:${missing:- none}"
[ -n "$tested" ] && [ -z "$failed" ]
