#!/usr/bin/env bash
# Build the release artifacts that can be built on a Linux x86_64 machine, and check them:
#
#   scripts/build-wheels.sh [--check-only]
#
# 1. dist/showctl-VERSION-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl: one abi3
#    wheel for every CPython >= 3.9, release profile, linked by zig against glibc 2.17
#    (maturin --zig, zig from the `ziglang` package: no container, no system toolchain change).
# 2. dist/showctl-VERSION.tar.gz: the sdist (what `pip install` falls back to elsewhere).
# 3. Checks: `auditwheel show` finds the wheel consistent with the policy its file name claims
#    (manylinux2014 = manylinux_2_17) and no external shared library beyond that policy's
#    whitelist; the wheel is abi3 and carries the stubs and py.typed; the sdist carries what a
#    build from it needs.
#
# The build tools live in their own virtualenv (target/build-venv, pinned versions), apart from
# the development .venv. --check-only skips building and checks what dist/ holds.
# The other platforms' wheels are built by .github/workflows/release.yml.
set -euo pipefail
cd "$(dirname "$0")/.."

MATURIN="maturin==1.16.0"
ZIGLANG="ziglang==0.14.1"
AUDITWHEEL="auditwheel==6.8.2"
POLICY="manylinux_2_17_x86_64"  # what --compatibility manylinux2014 means on x86_64

check_only=0
[ "${1:-}" = "--check-only" ] && check_only=1

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'build-wheels: %s\n' "$*" >&2; exit 1; }

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || fail "no version in Cargo.toml"

venv=target/build-venv
step "build tools ($MATURIN, $ZIGLANG, $AUDITWHEEL) in $venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$MATURIN" "$ZIGLANG" "$AUDITWHEEL"
export PATH="$PWD/$venv/bin:$PATH"

if [ "$check_only" = 0 ]; then
    rm -f dist/showctl-"$version"-*.whl dist/showctl-"$version".tar.gz
    step "wheel: maturin build --release --zig --compatibility manylinux2014"
    start=$(date +%s)
    maturin build --release --zig --compatibility manylinux2014 --out dist
    echo "wheel built in $(($(date +%s) - start)) s"
    step "sdist: maturin sdist"
    maturin sdist --out dist
fi

wheels=(dist/showctl-"$version"-cp39-abi3-*manylinux2014_x86_64*.whl)
[ -f "${wheels[0]}" ] || fail "no abi3 manylinux2014 wheel for $version in dist/"
[ "${#wheels[@]}" = 1 ] || fail "more than one wheel for $version in dist/: ${wheels[*]}"
wheel=${wheels[0]}
sdist=dist/showctl-$version.tar.gz
[ -f "$sdist" ] || fail "no sdist $sdist"

step "auditwheel show $wheel"
report=$(auditwheel show "$wheel")
echo "$report"
report=$(tr -s ' \n' '  ' <<<"$report")  # auditwheel wraps its lines
# The wheel must be consistent with the policy its tag claims...
grep -q "consistent with the following platform tag: \"$POLICY\"" <<<"$report" ||
    fail "auditwheel does not find the wheel consistent with $POLICY"
# ...and need no shared library outside that policy's whitelist (auditwheel lists them, and
# `auditwheel repair` would have to graft them in).
if grep -q "external shared libraries are required" <<<"$report"; then
    fail "the wheel needs external shared libraries"
fi

step "wheel contents"
"$venv/bin/python" - "$wheel" <<'EOF'
import sys
import zipfile

wheel = sys.argv[1]
names = zipfile.ZipFile(wheel).namelist()
need = ["showctl/__init__.py", "showctl/_core.pyi", "showctl/py.typed", "showctl/cli/__init__.py"]
missing = [n for n in need if n not in names]
core = [n for n in names if n.startswith("showctl/_core") and n.endswith(".so")]
wheel_meta = zipfile.ZipFile(wheel).read(
    next(n for n in names if n.endswith(".dist-info/WHEEL"))
).decode()
tags = [line.split(": ", 1)[1] for line in wheel_meta.splitlines() if line.startswith("Tag: ")]
print(f"{len(names)} files; extension {core}; tags {tags}")
if missing or core != ["showctl/_core.abi3.so"]:
    sys.exit(f"wheel is missing {missing or 'the abi3 extension showctl/_core.abi3.so'}")
if not tags or not all(t.startswith("cp39-abi3-") for t in tags):
    sys.exit(f"wheel is not tagged cp39-abi3: {tags}")
EOF

step "sdist contents"
"$venv/bin/python" - "$sdist" "$version" <<'EOF'
import sys
import tarfile

sdist, version = sys.argv[1], sys.argv[2]
root = f"showctl-{version}/"
names = {n.removeprefix(root) for n in tarfile.open(sdist).getnames()}
need = ["pyproject.toml", "Cargo.toml", "Cargo.lock", "README.md", "core/src/lib.rs",
        "binding/src/lib.rs", "macros/src/lib.rs",
        "python/showctl/__init__.py", "python/showctl/_core.pyi", "PKG-INFO"]
missing = [n for n in need if n not in names]
print(f"{len(names)} files")
if missing:
    sys.exit(f"sdist is missing {missing}")
EOF

step "built"
ls -l "$wheel" "$sdist"
