#!/usr/bin/env bash
# Lookup-speed ratios of the prefilters on a shared (loaded) machine, from criterion's own samples
# (docs/prefilters.md "Lookup speed"). Criterion's mean moves by ±50% when other processes take the
# CPU; each of its 100 samples is a few milliseconds, and the least per-iteration time over the
# samples is the one no other process interrupted. This runs the given bench binaries in
# alternation, N times each, on one filter of the `prefilter/` groups, and prints per binary and
# function the ratio of its least sample time to the peer's (same run, same group), the median
# over the runs and every run's ratio.
#
#   scripts/prefilter-bench.sh N FILTER PEER BIN...
#   e.g. cargo bench -p sketch-benches --bench main --no-run   (prints the binary's path), then
#        scripts/prefilter-bench.sh 6 "prefilter/10k u64/blocked" sbbf target/release/deps/main-HASH
#
# PEER is a substring of the peer's function names (`sbbf`, `xorf`); with two peers in a group
# (xorf's 8- and 16-bit filters) each of ours is paired with the peer of the same width.
set -euo pipefail
n=$1 filter=$2 peer=$3
shift 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for _ in $(seq "$n"); do
    for bin in "$@"; do
        home=$(mktemp -d)
        echo "# $(basename "$bin") load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
        CRITERION_HOME=$home "$bin" --bench "$filter" --warm-up-time 0.5 --measurement-time 2 \
            --noplot >/dev/null 2>&1
        python3 - "$home" "$(basename "$bin")" >>"$out" <<'PY'
import json, os, sys
home, tag = sys.argv[1], sys.argv[2]
for group in sorted(os.listdir(home)):
    for fn in sorted(os.listdir(os.path.join(home, group))):
        path = os.path.join(home, group, fn, "new", "sample.json")
        if os.path.exists(path):
            d = json.load(open(path))
            least = min(t / i for t, i in zip(d["times"], d["iters"]))
            print(f"{tag}\t{group}\t{fn}\t{least:.1f}")
PY
        rm -rf "$home"
    done
done
grep '^#' "$out" | sed 's/^# //'
python3 - "$out" "$peer" <<'PY'
import collections, statistics, sys
path, peer = sys.argv[1], sys.argv[2]
runs, cur = collections.defaultdict(list), None
for line in open(path):
    if line.startswith("#"):
        cur = None
        continue
    b, g, f, t = line.rstrip("\n").split("\t")
    if cur is None:
        cur = {}
        runs[b].append(cur)
    cur[(g, f)] = float(t)
width = lambda f: "".join(c for c in f.split("Fuse")[-1] if c.isdigit())
for b, rs in runs.items():
    ratios = collections.defaultdict(list)
    for r in rs:
        for (g, f), t in r.items():
            if peer in f:
                continue
            peers = [(pf, pt) for (pg, pf), pt in r.items() if pg == g and peer in pf]
            if len(peers) > 1:
                peers = [p for p in peers if width(p[0]) == width(f)]
            ratios[(g, f)].append(t / peers[0][1])
    for (g, f), v in sorted(ratios.items()):
        runs_s = " ".join(f"{x:.2f}" for x in v)
        print(f"{b}\t{g}\t{f}\t{statistics.median(v):.2f}x\t({runs_s})")
PY
