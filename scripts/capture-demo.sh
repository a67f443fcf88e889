#!/usr/bin/env bash
# The screen captures of docs/demo.md: the live view in a detached tmux session of a fixed size,
# NO_COLOR, captured with capture-pane. Not run in CI.
#
#     ./scripts/capture-demo.sh            # writes target/captures/{live-120x40,live-80x24,devices-120x32}.txt
#
# Needs: cargo, tmux.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${CAPTURE_DIR:-target/captures}
mkdir -p "$OUT"
cargo build --release -q -p tui-demo
BIN=$PWD/target/release/tui-demo
SOCK=tui-demo-capture-$$
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT

capture() { # capture NAME WIDTH HEIGHT SECONDS COMMAND
    local name=$1 w=$2 h=$3 secs=$4 cmd=$5
    tm kill-server 2>/dev/null || true
    tm new-session -d -s cap -x "$w" -y "$h" "env NO_COLOR=1 $cmd"
    sleep "$secs"
    tm capture-pane -p -t cap > "$OUT/$name.txt"
    tm send-keys -t cap q
    sleep 0.5
    echo "$OUT/$name.txt"
}

capture live-120x40 120 40 5 "$BIN"
capture live-80x24 80 24 5 "$BIN"
# Device mode: eight simulated devices, 2% of their frames corrupted, sending to the host.
tm kill-server 2>/dev/null || true
tm new-session -d -s cap -x 120 -y 32 "env NO_COLOR=1 $BIN listen 127.0.0.1:7781"
sleep 0.5
"$BIN" emit 8 --corrupt 0.02 --to 127.0.0.1:7781 --seconds 9 2>/dev/null &
EMIT=$!
sleep 7
tm capture-pane -p -t cap > "$OUT/devices-120x32.txt"
echo "$OUT/devices-120x32.txt"
wait "$EMIT" || true
tm send-keys -t cap q
