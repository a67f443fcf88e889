#!/usr/bin/env bash
# Runs every check and test of the workspace, installing what they need first.
# This is the README's test command and what CI runs (.ci/run). It never skips a step silently:
# a missing tool is installed, and if that fails the step fails and says why.
set -uo pipefail
cd "$(dirname "$0")/.."

TARGETS=(thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf riscv32imac-unknown-none-elf wasm32-unknown-unknown)
LOG_DIR=${LOG_DIR:-target/test-all}
mkdir -p "$LOG_DIR"
failed=()
passed=0

step() { # step NAME COMMAND...: runs one step, records its result, keeps going on failure
    local name=$1
    shift
    printf '\n==> %s\n' "$name"
    local start=$SECONDS
    if "$@"; then
        printf '<== %s: ok (%ss)\n' "$name" $((SECONDS - start))
        passed=$((passed + 1))
    else
        printf '<== %s: FAILED (%ss)\n' "$name" $((SECONDS - start))
        failed+=("$name")
    fi
}

apt_updated=0
need_cmd() { # need_cmd COMMAND DEBIAN_PACKAGE...: installs the packages if COMMAND is missing
    local cmd=$1
    shift
    command -v "$cmd" >/dev/null 2>&1 && return 0
    echo "installing $* (for $cmd)"
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: $cmd is missing and apt-get is not available to install $*" >&2
        return 1
    fi
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    if [ $apt_updated -eq 0 ]; then
        "${sudo[@]}" apt-get update -qq || { echo "error: apt-get update failed" >&2; return 1; }
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null ||
        { echo "error: could not install $*" >&2; return 1; }
    command -v "$cmd" >/dev/null 2>&1 || { echo "error: $cmd still missing after installing $*" >&2; return 1; }
}

# Disk: a fresh clone's run writes about NEED_MB of build output (target/ and the firmware's
# tests/firmware/target/: 2.7 GB measured on a fresh clone, from 4.9 GB before line-tables-only debug
# info, the compile-fail tests' move and no incremental caches; the rustup targets and the MSRV
# toolchain come on top, under ~/.rustup). A run that fills the disk fails in the middle of a
# compiler or test with "No space left on device"; this check fails first, and says how much is
# missing.
NEED_MB=${SKETCH_NEED_MB:-3000}
# Incremental compilation caches are close to 1 GB here and do not pay for one full run: off unless
# the caller asks for them (CARGO_INCREMENTAL=1 ./scripts/test-all.sh when iterating).
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
disk_check() {
    local have used need
    have=$(df -Pm . | awk 'NR == 2 { print $4 }')
    used=$(du -sm target tests/firmware/target 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
    need=$((NEED_MB - used))
    echo "disk: ${have} MB free here, ${used} MB of build output already present, about ${NEED_MB} MB needed in all"
    if [ "$have" -lt "$need" ]; then
        echo "error: not enough free disk for the build: ${have} MB free, about ${need} MB more needed: free some space on this disk first" >&2
        return 1
    fi
}

setup() {
    disk_check || return 1
    command -v rustup >/dev/null 2>&1 || { echo "error: rustup is required (https://rustup.rs)" >&2; return 1; }
    rustup component add rustfmt clippy >/dev/null 2>&1 || { echo "error: rustup component add rustfmt clippy failed" >&2; return 1; }
    rustup target add "${TARGETS[@]}" >/dev/null || { echo "error: rustup target add ${TARGETS[*]} failed" >&2; return 1; }
    need_cmd tmux tmux &&
        need_cmd qemu-system-arm qemu-system-arm &&
        need_cmd qemu-system-riscv32 qemu-system-misc &&
        need_cmd arm-none-eabi-size binutils-arm-none-eabi &&
        need_cmd redis-server redis-server &&
        need_cmd chromium chromium
}

# The Redis tests (tests/tests/redis.rs, tui-demo's) talk to a real redis-server: a throw-away one on
# 127.0.0.1, on a free port, without persistence, in a temporary directory, stopped by its PID when
# this script ends (also on failure or interruption). They find it through SKETCH_REDIS_URL.
REDIS_PID=
REDIS_DIR=
stop_redis() {
    if [ -n "$REDIS_PID" ]; then
        kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null
        REDIS_PID=
    fi
    if [ -n "$REDIS_DIR" ]; then
        rm -rf "$REDIS_DIR"
        REDIS_DIR=
    fi
}
trap stop_redis EXIT
trap 'exit 130' INT TERM

start_redis() {
    command -v redis-server >/dev/null 2>&1 || { echo "error: redis-server is missing (the setup step installs it)" >&2; return 1; }
    command -v redis-cli >/dev/null 2>&1 || { echo "error: redis-cli is missing (Debian's redis-tools)" >&2; return 1; }
    REDIS_DIR=$(mktemp -d) || return 1
    local attempt port i
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        port=$((20000 + RANDOM % 40000))
        redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$REDIS_DIR" \
            --daemonize no --logfile "$REDIS_DIR/redis.log" &
        REDIS_PID=$!
        for i in $(seq 50); do
            if ! kill -0 "$REDIS_PID" 2>/dev/null; then
                break # exited: most likely the port was taken; try another
            fi
            if [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]; then
                export SKETCH_REDIS_URL="redis://127.0.0.1:$port"
                echo "redis-server $(redis-server --version | awk '{print $3}') (pid $REDIS_PID) at $SKETCH_REDIS_URL"
                return 0
            fi
            sleep 0.1
        done
        kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null
        REDIS_PID=
    done
    echo "error: could not start redis-server (log: $REDIS_DIR/redis.log)" >&2
    cat "$REDIS_DIR/redis.log" >&2 2>/dev/null
    return 1
}

firmware_lints() {
    # The firmware crate is its own workspace (it only builds for microcontrollers).
    (cd tests/firmware && cargo fmt -- --check &&
        cargo clippy -q --release --target thumbv7m-none-eabi -- -D warnings &&
        cargo clippy -q --release --target thumbv7m-none-eabi --no-default-features --features cost -- -D warnings &&
        cargo clippy -q --release --target riscv32imac-unknown-none-elf -- -D warnings)
}

run_tests() {
    # Tee the output so the totals can be summed at the end. --no-fail-fast: one failing test
    # binary must not hide the results of the others.
    cargo test --workspace --no-fail-fast 2>&1 | tee "$LOG_DIR/cargo-test.log"
    return "${PIPESTATUS[0]}"
}

cross_builds() {
    local t
    for t in "${TARGETS[@]}"; do
        echo "cargo build -p sketch-nostd --target $t (debug and release)"
        cargo build -q -p sketch-nostd --target "$t" || return 1
        cargo build -q -p sketch-nostd --target "$t" --release || return 1
    done
    # Without the wire format (feature `wire`): clippy, so that code only the wire format uses is not
    # left dead in that build.
    echo "cargo clippy -p sketch-nostd --no-default-features --target thumbv6m-none-eabi -D warnings (without the wire format)"
    cargo clippy -q -p sketch-nostd --no-default-features --target thumbv6m-none-eabi -- -D warnings || return 1
    # The same on the host with the tests and examples (an example that needs the wire format says
    # so in Cargo.toml), and its docs: an intra-doc link to a `wire` item must not break them.
    echo "cargo clippy -p sketch-nostd --no-default-features --all-targets -D warnings"
    cargo clippy -q -p sketch-nostd --no-default-features --all-targets -- -D warnings || return 1
    echo "cargo doc -p sketch-nostd --no-default-features (RUSTDOCFLAGS=-D warnings)"
    RUSTDOCFLAGS="-D warnings" cargo doc -q -p sketch-nostd --no-deps --no-default-features || return 1
    # The private items' docs too: a contributor reads them with --document-private-items.
    echo "cargo doc -p sketch-nostd --document-private-items (RUSTDOCFLAGS=-D warnings)"
    RUSTDOCFLAGS="-D warnings" cargo doc -q -p sketch-nostd --no-deps --document-private-items || return 1
}

# The library's rust-version (workspace Cargo.toml): build it with exactly that toolchain, with and
# without the wire format, so that a newer API used by mistake fails here and not at a user's.
MSRV=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
msrv_build() {
    echo "rustup toolchain install $MSRV --profile minimal"
    rustup toolchain install "$MSRV" --profile minimal || {
        echo "error: cannot install Rust $MSRV, the library's rust-version" >&2
        return 1
    }
    echo "cargo +$MSRV build -p sketch-nostd (default features, then none)"
    cargo "+$MSRV" build -q -p sketch-nostd || return 1
    cargo "+$MSRV" build -q -p sketch-nostd --no-default-features || return 1
}

step "setup (toolchain components, targets, tmux, QEMU for Arm and RISC-V, ARM binutils, redis-server, Chromium)" setup
step "start redis-server for the Redis tests" start_redis
step "cargo fmt --check" cargo fmt --all -- --check
step "cargo clippy -D warnings" cargo clippy --workspace --all-targets -- -D warnings
step "cargo test --workspace" run_tests
step "cargo doc -D warnings" env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps -q
step "firmware fmt and clippy" firmware_lints
step "no_std builds for ${TARGETS[*]}" cross_builds
step "MSRV build (Rust $MSRV)" msrv_build

# Totals of every `cargo test` result line (unit, integration and doc tests).
read -r tests_passed tests_failed < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } } END { print p + 0, f + 0 }' "$LOG_DIR/cargo-test.log" 2>/dev/null || echo "0 0")

if [ -f target/firmware-budgets.md ]; then
    printf '\nFirmware budgets (from tests/tests/firmware.rs):\n'
    cat target/firmware-budgets.md
fi
if [ -f target/firmware-targets.md ]; then
    printf '\nFamily code and stack on every target (from tests/tests/firmware.rs):\n'
    cat target/firmware-targets.md
fi
if [ -f target/firmware-cost.md ]; then
    printf '\nInstructions per operation (from tests/tests/firmware_cost.rs):\n'
    cat target/firmware-cost.md
fi

printf '\n'
if [ ${#failed[@]} -gt 0 ]; then
    printf 'FAILED step: %s\n' "${failed[@]}"
fi
printf 'steps: %d ok, %d failed\n' "$passed" "${#failed[@]}"
printf 'tests: %d passed, %d failed\n' "$tests_passed" "$tests_failed"
[ ${#failed[@]} -eq 0 ]
