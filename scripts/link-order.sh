#!/usr/bin/env bash
# Regenerates tui-demo/link-order.txt: the functions of the tui-demo binary that `--help`, an empty
# report and the headless report over two small logs run, in the order they first run, for the
# linker to place together (tui-demo/build.rs passes it as lld's --symbol-ordering-file). The kernel
# maps a binary's code 64 KiB around each page touched, so code that runs scattered over the binary
# costs resident memory for the code around it (docs/demo.md, "Memory"). Not run in CI.
#
#     ./scripts/link-order.sh
#
# The names are mangled and carry hashes that change with the toolchain, the dependencies' versions
# and their features: names that no longer exist are skipped by the linker (those functions keep
# the default layout, with no error). The file matches `cargo build --release -p tui-demo` (what
# bench-demo.sh and users build); a workspace build unifies some dependencies' features differently
# and matches part of it. Rerun this after a toolchain or Cargo.lock update.
# Needs: cargo, valgrind (callgrind), binutils (nm).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "error: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

cargo build --release -q -p tui-demo
BIN=$PWD/target/release/tui-demo
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Two logs: the synthetic one (long lines) and this repository's Rust sources (short lines).
"$BIN" generate 5M --seed 1 > "$WORK/synthetic.log"
git ls-files -z '*.rs' | xargs -0 cat > "$WORK/rust.txt"
: > "$WORK/empty.log"

n=0
profile() { # profile ARGS...: the functions one run calls, mangled, in callgrind's order
    n=$((n + 1))
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$WORK/cg.$n" "$BIN" "$@" > /dev/null 2>&1
    # Functions appear as "fn=(ID) NAME" or "cfn=(ID) NAME" the first time, "(ID)" alone after.
    sed -n 's/^c\{0,1\}fn=([0-9]*) \(.\+\)$/\1/p' "$WORK/cg.$n"* >> "$WORK/called"
}
report=(report --json --exact-cap 0 --field 1-)
profile --help
profile "${report[@]}" --input "$WORK/empty.log"
profile "${report[@]}" --input "$WORK/synthetic.log"
profile "${report[@]}" --input "$WORK/rust.txt"

# Only the binary's own functions (not the C library's), each once, in the order first called.
nm --defined-only "$BIN" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u > "$WORK/defined"
awk '!seen[$0]++' "$WORK/called" | grep -xFf "$WORK/defined" > tui-demo/link-order.txt
echo "tui-demo/link-order.txt: $(wc -l < tui-demo/link-order.txt) functions"
