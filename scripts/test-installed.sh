#!/bin/sh
# Run the Python test suite against the showctl installed in an interpreter (an installed wheel),
# never against the source tree:
#
#   scripts/test-installed.sh STAGE_DIR [PYTEST ARGS...]     # PYTHON=... picks the interpreter
#
# tests/, examples/, pyproject.toml (pytest's settings), Cargo.toml (the version source), the
# three crates' sources core/, binding/ and macros/ (what the module-graph, version and trace
# tests read; never built here), python/ without any built extension (its sources and stubs,
# read by the module-graph, stub and API-reference tests; never imported: the package's folder
# is python/showctl, and only STAGE_DIR/showctl is on sys.path), benches/ (the module-graph test
# reads it), and README.md, mkdocs.yml, docs/ and scripts/ (what the docs tests and the
# public-surface test read) are copied to STAGE_DIR/showctl and pytest runs there with
# --import-mode=importlib; SHOWCTL_TEST_INSTALLED=1 makes the suite's conftest refuse to run
# unless showctl and its extension come from the interpreter's site-packages. No test reads a file
# outside the repository, so nothing beside it is linked in.
# POSIX sh: scripts/test-wheel.sh and the release workflow (Linux, macOS, Windows, Alpine) use it.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
stage=${1:?usage: scripts/test-installed.sh STAGE_DIR [PYTEST ARGS...]}
shift
python=${PYTHON:-python}

rm -rf "$stage"
mkdir -p "$stage/showctl"
cp -r "$repo/tests" "$repo/examples" "$repo/pyproject.toml" "$repo/Cargo.toml" \
    "$repo/Cargo.lock" "$repo/core" "$repo/binding" "$repo/macros" "$repo/python" \
    "$repo/benches" "$repo/README.md" "$repo/mkdocs.yml" "$repo/docs" "$repo/scripts" \
    "$stage/showctl/"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +
# An editable build leaves the extension in python/showctl: the stage keeps none of it.
find "$stage/showctl/python" \( -name '*.so' -o -name '*.pyd' -o -name '*.dylib' \) -exec rm -f {} +

cd "$stage/showctl"
SHOWCTL_TEST_INSTALLED=1 exec "$python" -m pytest -q -p no:cacheprovider --import-mode=importlib "$@"
