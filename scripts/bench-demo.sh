#!/usr/bin/env bash
# Headless tui-demo against exact counting with standard tools, side by side in one run on the same
# generated access log. Not run in CI: it takes a minute or more. Run it on a quiet machine:
#
#     nice ./scripts/bench-demo.sh            # SIZE=100M by default; SIZE=1G for a longer log
#
# It measures, with /usr/bin/time -v (wall clock, CPU and peak resident memory), one run each of:
#   demo      tui-demo report --input LOG --json --exact-cap 0 --field 1-
#             (every panel's sketches: HLL, Space-Saving, Bloom; the windows' per-interval sketches,
#             which are always on; and key extraction: `--field 1-`, from the first field to the end
#             of the line, which is each line of this log as read, so the answers compare with the
#             exact ones on whole lines)
#   distinct  LC_ALL=C sort -u LOG | wc -l                  (the exact distinct line count)
#   top 10    LC_ALL=C sort LOG | uniq -c | sort -rn | head (the exact top 10 lines)
# and prints the ratios against the targets (>= 10x faster than sort -u, >= 15x than sort | uniq -c,
# <= 1/100 of their memory), the load average before and after (other work on the machine slows
# every run), the distinct-count error against the sketch's 2σ bound, and whether the top 10 agree.
# The page cache is warmed first so that every command reads the file from memory. For a pipeline,
# /usr/bin/time reports the peak of its largest process (sort), not the sum.
# Needs: cargo, GNU coreutils, /usr/bin/time (Debian package `time`), python3.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-100M}
DIR=${BENCH_DIR:-target/bench-demo}
SEED=${SEED:-1}
mkdir -p "$DIR"
LOG="$DIR/access-$SIZE-seed$SEED.log"
BIN=target/release/tui-demo

[ -x /usr/bin/time ] || { echo "error: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "error: python3 is missing" >&2; exit 1; }

echo "building tui-demo (release)"
cargo build --release -q -p tui-demo

if [ ! -s "$LOG" ]; then
    echo "generating $LOG ($SIZE of synthetic access log, seed $SEED)"
    "$BIN" generate "$SIZE" --seed "$SEED" > "$LOG"
fi
echo "log: $(du -h "$LOG" | cut -f1), $(wc -l < "$LOG") lines"
echo "warming the page cache"
cat "$LOG" > /dev/null

measure() { # measure NAME COMMAND...: runs COMMAND under /usr/bin/time -v, output to $DIR/NAME.out
    local name=$1
    shift
    echo "running $name: $*"
    /usr/bin/time -v -o "$DIR/$name.time" "$@" > "$DIR/$name.out"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
measure demo "$BIN" report --input "$LOG" --json --exact-cap 0 --field 1-
measure distinct sh -c "LC_ALL=C sort -u '$LOG' | wc -l"
measure top10 sh -c "LC_ALL=C sort '$LOG' | uniq -c | sort -rn | head -10"

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$DIR" "$LOG" "$LOAD_BEFORE" "$LOAD_AFTER" "$(nproc)" <<'PY'
import json, re, sys

d, log, load_before, load_after, cores = sys.argv[1:6]

def timing(name):
    text = open(f"{d}/{name}.time").read()
    wall = re.search(r"Elapsed \(wall clock\) time.*: (.*)", text).group(1).strip()
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    cpu = sum(float(re.search(rf"{k} time \(seconds\): (.*)", text).group(1)) for k in ("User", "System"))
    return secs, rss_kb, cpu

demo = json.load(open(f"{d}/demo.out"))
exact_distinct = int(open(f"{d}/distinct.out").read().split()[0])
top_exact = []
for line in open(f"{d}/top10.out", encoding="utf-8", errors="replace"):
    m = re.match(r"\s*(\d+) (.*)\n?$", line)
    top_exact.append((int(m.group(1)), m.group(2)))

(t_demo, m_demo, c_demo), (t_u, m_u, c_u), (t_top, m_top, c_top) = timing("demo"), timing("distinct"), timing("top10")
print()
print(f"input: {demo['lines']:,} lines, {demo['bytes'] / 2**20:.0f} MiB ({log})")
print(f"machine: {cores} cores; load average (1, 5, 15 min) {load_before} before, {load_after} after")
print()
print("| run | wall time | CPU time (user + sys) | peak memory | demo is faster (wall / CPU) | demo uses less memory |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
print(f"| tui-demo report --json --exact-cap 0 --field 1- (all answers) | {t_demo:.2f} s | {c_demo:.2f} s | {m_demo / 1024:.1f} MiB | | |")
print(f"| sort -u \\| wc -l (distinct) | {t_u:.2f} s | {c_u:.2f} s | {m_u / 1024:.1f} MiB | {t_u / t_demo:.1f}× / {c_u / c_demo:.1f}× | {m_u / m_demo:.0f}× |")
print(f"| sort \\| uniq -c \\| sort -rn \\| head (top 10) | {t_top:.2f} s | {c_top:.2f} s | {m_top / 1024:.1f} MiB | {t_top / t_demo:.1f}× / {c_top / c_demo:.1f}× | {m_top / m_demo:.0f}× |")
print()
for what, ratio, target in (
    ("faster than sort -u (wall)", t_u / t_demo, 10),
    ("faster than sort | uniq -c (wall)", t_top / t_demo, 15),
    ("less memory than sort -u", m_u / m_demo, 100),
    ("less memory than sort | uniq -c", m_top / m_demo, 100),
):
    print(f"target {what}: {ratio:.1f}× against ≥ {target}×: {'met' if ratio >= target else 'NOT met'}")
print()

dist = demo.get("distinct")
if dist:
    est, lo, hi, rse = dist["estimate"], dist["lower"], dist["upper"], dist["rse"]
    err = (est - exact_distinct) / exact_distinct
    verdict = "within" if lo <= exact_distinct <= hi else "OUTSIDE"
    print(f"distinct lines: exact {exact_distinct:,}, HLL {est:,.0f} ({err:+.3%}; 1σ = {rse:.3%}, "
          f"2σ band {lo:,.0f} … {hi:,.0f}: exact is {verdict} it)")
else:
    print(f"distinct lines: exact {exact_distinct:,}; the demo has no HyperLogLog yet")

heavy = demo.get("heavy")
if heavy:
    top_demo = [(r["bounds"], r["line"]) for r in heavy["rows"][:10]]
    same = [a[1] for a in top_demo] == [b[1] for b in top_exact]
    same_set = sorted(a[1] for a in top_demo) == sorted(b[1] for b in top_exact)
    print(f"top 10: {'same lines in the same order' if same else ('same lines, order differs' if same_set else 'DIFFERENT lines')}"
          f" (ε·N = {heavy['bound']:,})")
    print()
    print("| rank | exact count | Space-Saving: true ≥ | true ≤ | bracket holds |")
    print("| ---: | ---: | ---: | ---: | --- |")
    exact_by_line = {l: c for c, l in top_exact}
    for i, ((lo, hi), l) in enumerate(top_demo, 1):
        c = exact_by_line.get(l)
        exact = format(c, ",") if c is not None else "?"
        holds = ("yes" if lo <= c <= hi else "NO") if c is not None else "?"
        print(f"| {i} | {exact} | {lo:,} | {hi:,} | {holds} |")
else:
    print("top 10: the demo listed no heavy hitters")
PY
