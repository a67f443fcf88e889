#!/usr/bin/env bash
# Instructions per lookup of the prefilters on every target, counted in the compiler's assembly
# (docs/prefilters.md "Instruction counts"). Deterministic, unlike timings on a shared
# machine: the blocked filter's block test is branch-free, so the instructions of its function are
# the instructions one lookup executes (plus the one bounds check's branch).
#
# Builds a small no_std library of `#[no_mangle]` wrappers around `contains_hash` / `insert_hash`
# in release mode for each target, emits its assembly (`--emit asm`, nothing is linked or run),
# and prints, per function and target, the instruction count and how many are branches.
#
# Usage: scripts/prefilter-kernel-asm.sh   (installs the rustup target aarch64-unknown-none if
# missing; the others are the firmware test's targets)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${WORK:-$ROOT/target/prefilter-asm}
mkdir -p "$WORK/src"

rustup target list --installed | grep -qx aarch64-unknown-none ||
    rustup target add aarch64-unknown-none

cat >"$WORK/Cargo.toml" <<EOF
[package]
name = "prefilter-asm"
version = "0.0.0"
edition = "2021"
publish = false
[lib]
path = "src/lib.rs"
[dependencies]
sketch-nostd = { path = "$ROOT/sketch-nostd" }
[features]
std = ["sketch-nostd/std"]
[profile.release]
codegen-units = 1
[workspace]
EOF

cat >"$WORK/src/lib.rs" <<'EOF'
//! One function per measured operation; 1,024 blocks (64 KB), K = 8 as in the benchmarks.
#![no_std]
use sketch_nostd::{fuse::BinaryFuse8Ref, wire::{BlockedBloomRef, BloomRef}, BlockedBloom, Bloom};

#[no_mangle]
pub fn pf_blocked_contains(f: &BlockedBloom<1024, 8>, h: u64) -> bool {
    f.contains_hash(h)
}
#[no_mangle]
pub fn pf_blocked_insert(f: &mut BlockedBloom<1024, 8>, h: u64) -> bool {
    f.insert_hash(h)
}
#[no_mangle]
pub fn pf_blocked_view_contains(f: &BlockedBloomRef<'_>, h: u64) -> bool {
    f.contains_hash(h)
}
#[no_mangle]
pub fn pf_bloom_contains(f: &Bloom<8192, 7>, h: u64) -> bool {
    f.contains_hash(h)
}
#[no_mangle]
pub fn pf_bloom_view_contains(f: &BloomRef<'_>, h: u64) -> bool {
    f.contains_hash(h)
}
#[no_mangle]
pub fn pf_fuse8_contains(f: &BinaryFuse8Ref<'_>, h: u64) -> bool {
    f.contains_hash(h)
}
EOF

FUNCS=(pf_blocked_contains pf_blocked_insert pf_blocked_view_contains pf_bloom_contains pf_bloom_view_contains pf_fuse8_contains)

# count ASM FUNC: "instructions branches" of FUNC in the assembly file ASM (ELF or wasm text).
count() {
    awk -v f="$2" '
        $0 ~ "^" f ":" { on = 1; next }
        on && (/^\.Lfunc_end/ || /end_function/ || /^\t\.size/ || /^[A-Za-z_][A-Za-z0-9_$.]*:/) { exit }
        on {
            line = $0; sub(/^[ \t]+/, "", line)
            if (line == "" || line ~ /^[.#@\/;]/ || line ~ /:$/) next
            n++
            op = line; sub(/[ \t].*/, "", op)
            if (op ~ /^(j|b\.|b$|bl$|br$|cb|tb|ret|call|br_if|br_table|beq|bne|blt|bge|bltu|bgeu|beqz|bnez)/) b++
        }
        END { printf "%d %d\n", n, b }
    ' "$1"
}

# build NAME TARGET RUSTFLAGS [FEATURES]
declare -A RESULT
build() {
    local name=$1 target=$2 flags=$3 features=${4:-}
    local dir="$WORK/target-$name"
    (cd "$WORK" && RUSTFLAGS="$flags" CARGO_TARGET_DIR="$dir" cargo rustc -q --release --lib \
        --target "$target" ${features:+--features "$features"} -- --emit asm)
    local asm
    asm=$(ls -t "$dir/$target/release/deps/"prefilter_asm-*.s | head -1)
    for f in "${FUNCS[@]}"; do
        RESULT[$name,$f]=$(count "$asm" "$f")
    done
}

NAMES=(x86-64 x86-64+std x86-64-v3 aarch64 wasm32 wasm32+simd128 thumbv7em)
build x86-64 x86_64-unknown-linux-gnu ""
build x86-64+std x86_64-unknown-linux-gnu "" std
build x86-64-v3 x86_64-unknown-linux-gnu "-C target-cpu=x86-64-v3"
build aarch64 aarch64-unknown-none ""
build wasm32 wasm32-unknown-unknown ""
build wasm32+simd128 wasm32-unknown-unknown "-C target-feature=+simd128"
build thumbv7em thumbv7em-none-eabihf ""

printf '| function | %s |\n' "$(IFS='|'; echo "${NAMES[*]}" | sed 's/|/ | /g')"
printf '| --- |%s\n' "$(for _ in "${NAMES[@]}"; do printf ' -: |'; done)"
for f in "${FUNCS[@]}"; do
    row="| \`$f\` |"
    for n in "${NAMES[@]}"; do
        read -r ins br <<<"${RESULT[$n,$f]}"
        row+=" $ins ($br) |"
    done
    echo "$row"
done
echo
echo "instructions in the function (of which branches, calls and returns); x86-64+std: the"
echo "baseline build with feature std, whose AVX2 kernel is a separate function (not counted here)."
