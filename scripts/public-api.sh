#!/usr/bin/env bash
# Regenerates docs/api.md: the public API of sketch-nostd at a base commit and in this tree, listed
# from rustdoc's JSON output (which needs the nightly toolchain: `rustup toolchain install nightly`)
# by scripts/public_api.py.
#
#   scripts/public-api.sh [--check] [BASE]     (BASE defaults to 34a82c8, the API before the
#                                               1.0 clean-up of modules and filter shells)
#
# --check writes nothing and fails if docs/api.md is not what the tree gives.
set -euo pipefail

check=0
if [[ "${1:-}" == "--check" ]]; then
    check=1
    shift
fi
base="${1:-34a82c8}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
target="${CARGO_TARGET_DIR:-$root/target}/public-api"

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "public-api: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
    exit 1
fi

# rustdoc JSON of the tree in $1 into $2 (all features: wire and alloc).
api_json() {
    (cd "$1" && cargo +nightly rustdoc -q -p sketch-nostd --lib --features alloc \
        --target-dir "$target" -- -Z unstable-options --output-format json)
    cp "$target/doc/sketch_nostd.json" "$2"
}

mkdir "$work/base"
git -C "$root" archive "$base" | tar -x -C "$work/base"
api_json "$work/base" "$work/base.json"
api_json "$root" "$work/now.json"
python3 "$root/scripts/public_api.py" list "$work/base.json" >"$work/base.txt"
python3 "$root/scripts/public_api.py" list "$work/now.json" >"$work/now.txt"
python3 "$root/scripts/public_api.py" markdown "$work/base.txt" "$work/now.txt" "$base" >"$work/api.md"

if [[ $check == 1 ]]; then
    if ! diff -u "$root/docs/api.md" "$work/api.md"; then
        echo "public-api: docs/api.md is out of date; run scripts/public-api.sh" >&2
        exit 1
    fi
    echo "public-api: docs/api.md is up to date"
else
    cp "$work/api.md" "$root/docs/api.md"
    echo "public-api: wrote docs/api.md"
fi
