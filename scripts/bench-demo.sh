#!/usr/bin/env bash
# Headless tui-demo against exact counting with standard tools, side by side in one run, on two
# logs, and the live view at 1M lines/s. Not run in CI: it takes a few minutes. Run it on a quiet
# machine:
#
#     nice ./scripts/bench-demo.sh            # SIZE=100M by default; SIZE=1G for longer logs
#
# The logs (each of about SIZE bytes):
#   synthetic  tui-demo generate SIZE --seed SEED: the built-in access log (long lines, ~42% distinct)
#   (SYNTHETIC=0 skips it)
#   rust       real text: every *.rs file under ~/.cargo/registry/src in path order (C locale),
#              concatenated and cut to the last whole line before SIZE bytes (the corpus of the
#              issue's baseline; reproducible for the same registry contents). RUST=0 skips it.
# For each, ROUNDS rounds (5 unless set) of one run each of the three commands below, the order
# rotated from round to round so that a slow spell of the machine falls on each in turn; each run's
# wall time (Python's monotonic clock around the run), CPU time (the run's rusage, in microseconds:
# user + system of every process of the run) and peak resident memory (/usr/bin/time's %M), and the
# medians are compared (the runs take tenths of a second, where /usr/bin/time's 10 ms steps and a
# busy moment of the machine are a tenth of the figure):
#   demo      tui-demo report --input LOG --json --exact-cap 0 --field 1-
#             (every panel's sketches: HLL, Space-Saving, Bloom; the windows' per-interval sketches,
#             which are always on; and key extraction: `--field 1-`, from the first field to the end
#             of the line, which is the line with its leading and trailing space removed)
#   distinct  LC_ALL=C sort -u LOG | wc -l                  (the exact distinct line count)
#   top 10    LC_ALL=C sort LOG | uniq -c | sort -rn | head (the exact top 10 lines)
# and prints the ratios against the targets (>= 10x faster than sort -u, >= 15x than sort | uniq -c,
# <= 1/100 of their memory), the load average before and after (other work on the machine slows
# every run), the distinct-count error against the sketch's 2σ bound, and whether the top 10 agree.
# The demo's keys are trimmed lines (a blank line has none); where the log has lines with
# surrounding space (the Rust sources' indentation) its answers are checked against exact counts of
# the trimmed lines less the blank ones (made with sed, untimed), else against the timed runs' own
# output.
# The page cache is warmed first so that every command reads the file from memory. For a pipeline,
# /usr/bin/time reports the peak of its largest process (sort), not the sum.
#
# Then (LIVE=0 skips it) the live view in a detached 120x40 tmux pane: `tui-demo --rate 1000000
# --seconds 12` (the synthetic log, every panel, the exact table on, as a user starts it), its
# header read at 4, 8 and 11 s (lines, lines/s, frames per second), and each thread's CPU time
# (from /proc/PID/task) per line ingested.
# Needs: cargo, GNU coreutils, sed, /usr/bin/time (Debian package `time`), python3, tmux (live).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-100M}
DIR=${BENCH_DIR:-target/bench-demo}
SEED=${SEED:-1}
mkdir -p "$DIR"
BIN=target/release/tui-demo

[ -x /usr/bin/time ] || { echo "error: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "error: python3 is missing" >&2; exit 1; }

echo "building tui-demo (release)"
cargo build --release -q -p tui-demo
# The peak memory depends on the link order (tui-demo/build.rs): say how much of it still matches
# the binary (a stale list costs memory, not a failed build; scripts/link-order.sh renews it).
if command -v nm >/dev/null; then
    ordered=$(nm --defined-only "$BIN" | awk '{ print $3 }' | sort -u |
        grep -cxFf - tui-demo/link-order.txt || true)
    echo "link order: $ordered of $(wc -l < tui-demo/link-order.txt) functions of tui-demo/link-order.txt in the binary"
fi

ROUNDS=${ROUNDS:-5}

measure() { # measure NAME LOG: ROUNDS rounds of the three runs of NAME, their figures in $DIR/NAME-RUN.json
    python3 - "$DIR" "$1" "$2" "$BIN" "$ROUNDS" <<'PY'
import json, os, subprocess, sys, tempfile, time

d, name, log, binary, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
runs = {
    "demo": [binary, "report", "--input", log, "--json", "--exact-cap", "0", "--field", "1-"],
    "distinct": ["sh", "-c", f"LC_ALL=C sort -u '{log}' | wc -l"],
    "top10": ["sh", "-c", f"LC_ALL=C sort '{log}' | uniq -c | sort -rn | head -10"],
}
for run, argv in runs.items():
    print(f"  {run}: {' '.join(argv)}")
figures = {run: [] for run in runs}
names = list(runs)
with tempfile.NamedTemporaryFile() as rss:
    for r in range(rounds):
        for run in names[r % len(names):] + names[: r % len(names)]:
            with open(f"{d}/{name}-{run}.out", "wb") as out:
                start = time.monotonic()
                # /usr/bin/time only for the peak memory: wait4 on it gives the CPU time of the
                # run's processes (time waits for them), and the clock around it the wall time.
                p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name, *runs[run]],
                                     stdout=out, stdin=subprocess.DEVNULL)
                _, status, usage = os.wait4(p.pid, 0)
                wall = time.monotonic() - start
            if status != 0:
                sys.exit(f"error: {run} failed (wait status {status})")
            rss_kb = int(open(rss.name).read().split()[-1])
            figures[run].append({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_kb": rss_kb})
        print(f"  round {r + 1} of {rounds} done")
for run, rows in figures.items():
    json.dump(rows, open(f"{d}/{name}-{run}.json", "w"))
PY
}

bench() { # bench NAME LOG
    local name=$1 log=$2
    echo
    echo "== $name: $(du -h "$log" | cut -f1), $(wc -l < "$log") lines ($log)"
    echo "warming the page cache"
    cat "$log" > /dev/null
    local load_before load_after
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "running $ROUNDS rounds of:"
    measure "$name" "$log"
    load_after=$(cut -d' ' -f1-3 /proc/loadavg)
    local exact_distinct="$DIR/$name-distinct.out" exact_top="$DIR/$name-top10.out"
    if LC_ALL=C grep -q -m1 -E $'^[ \t\f\r]|[ \t\f\r]$' "$log"; then
        # The demo's keys are the trimmed lines (`--field 1-`): exact answers of those, untimed.
        echo "exact answers of the trimmed lines (untimed)"
        # A blank line has no field 1: no key, not counted (`missing_field`), so it is left out.
        LC_ALL=C sed -E $'s/^[ \t\f\r]+//; s/[ \t\f\r]+$//; /^$/d' "$log" > "$DIR/$name-trimmed.txt"
        LC_ALL=C sort -u "$DIR/$name-trimmed.txt" | wc -l > "$DIR/$name-trimmed-distinct.out"
        # (head ends the pipe early: without pipefail, as in the timed run)
        sh -c "LC_ALL=C sort '$DIR/$name-trimmed.txt' | uniq -c | sort -rn | head -10" > "$DIR/$name-trimmed-top10.out"
        rm -f "$DIR/$name-trimmed.txt"
        exact_distinct="$DIR/$name-trimmed-distinct.out"
        exact_top="$DIR/$name-trimmed-top10.out"
    fi
    python3 - "$DIR" "$name" "$log" "$load_before" "$load_after" "$(nproc)" "$exact_distinct" "$exact_top" <<'PY'
import json, re, statistics, sys

d, name, log, load_before, load_after, cores, exact_distinct_path, exact_top_path = sys.argv[1:9]

def timing(run):
    """The medians of the run's rounds: wall time (s), peak memory (KiB), CPU time (s)."""
    rows = json.load(open(f"{d}/{name}-{run}.json"))
    med = lambda k: statistics.median(r[k] for r in rows)
    return med("wall"), med("rss_kb"), med("cpu")

def spread(run):
    rows = json.load(open(f"{d}/{name}-{run}.json"))
    return f"{min(r['wall'] for r in rows):.3f}–{max(r['wall'] for r in rows):.3f} s"

demo = json.load(open(f"{d}/{name}-demo.out"))
exact_distinct = int(open(exact_distinct_path).read().split()[0])
top_exact = []
for line in open(exact_top_path, encoding="utf-8", errors="replace"):
    m = re.match(r"\s*(\d+) (.*)\n?$", line)
    top_exact.append((int(m.group(1)), m.group(2)))

(t_demo, m_demo, c_demo), (t_u, m_u, c_u), (t_top, m_top, c_top) = timing("demo"), timing("distinct"), timing("top10")
print()
print(f"input: {demo['lines']:,} lines, {demo['bytes'] / 2**20:.0f} MiB ({log})")
print(f"machine: {cores} cores; load average (1, 5, 15 min) {load_before} before, {load_after} after")
rounds = len(json.load(open(f"{d}/{name}-demo.json")))
print(f"medians of {rounds} rounds (wall time's range in brackets)")
print()
print("| run | wall time | CPU time (user + sys) | peak memory | demo is faster (wall / CPU) | demo uses less memory |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
print(f"| tui-demo report --json --exact-cap 0 --field 1- (all answers) | {t_demo:.3f} s ({spread('demo')}) | {c_demo:.3f} s | {m_demo / 1024:.1f} MiB | | |")
print(f"| sort -u \\| wc -l (distinct) | {t_u:.3f} s ({spread('distinct')}) | {c_u:.3f} s | {m_u / 1024:.1f} MiB | {t_u / t_demo:.1f}× / {c_u / c_demo:.1f}× | {m_u / m_demo:.0f}× |")
print(f"| sort \\| uniq -c \\| sort -rn \\| head (top 10) | {t_top:.3f} s ({spread('top10')}) | {c_top:.3f} s | {m_top / 1024:.1f} MiB | {t_top / t_demo:.1f}× / {c_top / c_demo:.1f}× | {m_top / m_demo:.0f}× |")
print()
for what, ratio, target in (
    ("faster than sort -u (wall)", t_u / t_demo, 10),
    ("faster than sort -u (CPU)", c_u / c_demo, 10),
    ("faster than sort | uniq -c (wall)", t_top / t_demo, 15),
    ("faster than sort | uniq -c (CPU)", c_top / c_demo, 15),
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
    print(f"distinct keys: exact {exact_distinct:,}, HLL {est:,.0f} ({err:+.3%}; 1σ = {rse:.3%}, "
          f"2σ band {lo:,.0f} … {hi:,.0f}: exact is {verdict} it)")
else:
    print(f"distinct keys: exact {exact_distinct:,}; the demo has no HyperLogLog")

heavy = demo.get("heavy")
if heavy:
    top_demo = [(r["bounds"], r["line"]) for r in heavy["rows"][:10]]
    same = [a[1] for a in top_demo] == [b[1] for b in top_exact]
    same_set = sorted(a[1] for a in top_demo) == sorted(b[1] for b in top_exact)
    print(f"top 10: {'same keys in the same order' if same else ('same keys, order differs' if same_set else 'DIFFERENT keys')}"
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
}

# The synthetic log is generated every time (under a second per 100 MB), so it always matches the
# binary's generator.
LOG="$DIR/access-$SIZE-seed$SEED.log"
if [ "${SYNTHETIC:-1}" != 0 ]; then
    echo "generating $LOG ($SIZE of synthetic access log, seed $SEED)"
    "$BIN" generate "$SIZE" --seed "$SEED" > "$LOG"
    bench synthetic "$LOG"
fi

if [ "${RUST:-1}" != 0 ]; then
    CORPUS="$DIR/rust-sources-$SIZE.txt"
    if [ ! -s "$CORPUS" ]; then
        echo "building $CORPUS: the *.rs files under ~/.cargo/registry/src in path order, cut to $SIZE"
        BYTES=$(numfmt --from=iec "$SIZE")
        find "$HOME/.cargo/registry/src" -name '*.rs' -type f -print0 | LC_ALL=C sort -z \
            | xargs -0 cat | { head -c "$BYTES"; cat > /dev/null; } > "$CORPUS.part"
        # Cut to the last whole line.
        python3 -c 'import sys; p = sys.argv[1]; b = open(p, "rb").read(); open(p, "wb").write(b[: b.rfind(b"\n") + 1])' "$CORPUS.part"
        mv "$CORPUS.part" "$CORPUS"
    fi
    bench rust "$CORPUS"
fi

if [ "${LIVE:-1}" != 0 ]; then
    command -v tmux >/dev/null || { echo "error: tmux is missing (LIVE=0 skips the live view)" >&2; exit 1; }
    echo
    echo "== the live view at --rate 1000000 in a 120x40 tmux pane, 12 s"
    SOCK=tui-demo-bench-$$
    tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
    trap 'tm kill-server 2>/dev/null || true' EXIT
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    tm new-session -d -s live -x 120 -y 40 \
        "env NO_COLOR=1 $PWD/$BIN --rate 1000000 --seconds 12; sleep 60"
    sleep 1
    # The pane runs sh, whose child is the demo (env execs it).
    PID=$(pgrep -P "$(tm list-panes -t live -F '#{pane_pid}')" -x tui-demo)
    for t in 4 8 11; do
        sleep $(( t == 4 ? 3 : t == 8 ? 4 : 3 ))
        screen="$(tm capture-pane -p -t live)"
        # Each thread's CPU time (utime + stime, in clock ticks) at the same moment as the header.
        for task in /proc/"$PID"/task/*; do
            echo "$(cat "$task/comm") $(cut -d' ' -f14,15 "$task/stat")"
        done > "$DIR/live-threads.txt" 2>/dev/null || true
        head=$(head -1 <<< "$screen")
        echo "at ${t} s: ${head# } · $(tail -1 <<< "$screen" | grep -o '[0-9]* fps')"
    done
    echo "$head" > "$DIR/live-header.txt"
    sleep 2
    # The summary the view prints on the restored terminal when it quits.
    tm capture-pane -p -t live -S -100 > "$DIR/live-summary.txt"
    load_after=$(cut -d' ' -f1-3 /proc/loadavg)
    python3 - "$DIR" "$load_before" "$load_after" "$(getconf CLK_TCK)" <<'PY'
import re, sys
d, load_before, load_after, tck = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
summary = open(f"{d}/live-summary.txt", encoding="utf-8", errors="replace").read()
m = re.search(r"lines\s+([\d,]+) \(.* in ([\d.]+) s", summary)
lines, secs = int(m.group(1).replace(",", "")), float(m.group(2))
print(f"load average {load_before} before, {load_after} after")
print(f"ingested {lines:,} lines in {secs:.2f} s: {lines / secs / 1e6:.2f}M lines/s on average")
head = open(f"{d}/live-header.txt").read()
n, unit = re.search(r"([\d.]+)([kM]?) lines", head).groups()
lines = float(n) * {"": 1, "k": 1e3, "M": 1e6}[unit]
print(f"at 11 s, {lines:,.0f} lines (the header's, to 3 figures); CPU per line so far:")
for row in open(f"{d}/live-threads.txt"):
    name, ut, st = row.rsplit(None, 2)
    cpu = (int(ut) + int(st)) / tck
    print(f"  thread {name}: {cpu:.2f} s of CPU, {cpu / lines * 1e9:.0f} ns per line ingested")
PY
    tm kill-server 2>/dev/null || true
fi
