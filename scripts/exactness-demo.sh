#!/usr/bin/env bash
# The exactness table of docs/demo.md: tui-demo's sketches against exact answers on a real corpus.
# Not run in CI (it reads ~150 MB and sorts it). Run it as:
#
#     nice ./scripts/exactness-demo.sh                 # the Rust sources of the local cargo registry
#     CORPUS=/path/to/file ./scripts/exactness-demo.sh # any file of lines
#
# For each key (whole lines; the first whitespace field, `--field 1`; a regex capture of function
# names, `--key-regex 'fn\s+(\w+)'`) it runs `tui-demo report --json --exact-cap 0` (sketches only)
# and computes the exact answers with standard tools (LC_ALL=C sort | uniq -c for lines and fields,
# a blank line having no field 1,
# python3's `re` for the regex, first match per line as the regex crate's `captures`), then prints
# one markdown row: lines, exact distinct, the HyperLogLog estimate and its error, whether the exact
# count lies in the sketch's 2σ band, whether the top 10 are the exact top 10 with the same counts
# in the same order, and whether every Space-Saving bracket holds the exact count.
# Needs: cargo, GNU coreutils, python3.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${EXACT_DIR:-target/exactness}
mkdir -p "$DIR"
CORPUS=${CORPUS:-}
if [ -z "$CORPUS" ]; then
    CORPUS="$DIR/cargo-registry-rs.txt"
    if [ ! -s "$CORPUS" ]; then
        echo "building the corpus: every *.rs under ~/.cargo/registry/src, in path order" >&2
        find "$HOME/.cargo/registry/src" -name '*.rs' -type f -print0 | LC_ALL=C sort -z \
            | xargs -0 cat > "$CORPUS"
    fi
fi
command -v python3 >/dev/null || { echo "error: python3 is missing" >&2; exit 1; }
BIN=target/release/tui-demo
echo "building tui-demo (release)" >&2
cargo build --release -q -p tui-demo
echo "corpus: $CORPUS, $(du -h "$CORPUS" | cut -f1), $(wc -l < "$CORPUS") lines" >&2

# exact NAME: the exact "count<TAB>key" list of a key stream on stdin, largest first.
exact_counts() { LC_ALL=C sort | LC_ALL=C uniq -c | LC_ALL=C sort -k1,1nr -s | sed -E 's/^ *([0-9]+) /\1\t/'; }

row() { # row NAME EXACT_FILE DEMO_ARGS...
    local name=$1 exact=$2
    shift 2
    "$BIN" report --input "$CORPUS" --json --exact-cap 0 "$@" > "$DIR/demo.json"
    python3 - "$name" "$exact" "$DIR/demo.json" <<'PY'
import json, sys
name, exact_path, demo_path = sys.argv[1:4]
d = json.load(open(demo_path))
counts = {}
order = []
with open(exact_path, 'rb') as f:
    for line in f:
        c, _, key = line.rstrip(b'\n').partition(b'\t')
        counts[key] = int(c)
        order.append(int(c))
distinct = len(counts)
est = d["distinct"]["estimate"]
lo, hi = d["distinct"]["lower"], d["distinct"]["upper"]
rows = d["heavy"]["rows"]
def key(r):
    return r["line"].encode()
# Rows are matched by their text (the demo keys lines by hash; the JSON has each key as it was, as
# lossy UTF-8): every line of valid UTF-8 matches.
shown = [counts.get(key(r)) for r in rows]
same = shown == order[:len(rows)]
brackets = all(c is not None and r["bounds"][0] <= c <= r["bounds"][1] for r, c in zip(rows, shown))
# Lines longer than the list's text (200 characters, `"cut": true`) cannot be looked up by it.
print(f"| {name} | {d['lines']:,} | {distinct:,} | {est:,.0f} | {100 * (est - distinct) / distinct:+.2f}% "
      f"| {'yes' if lo <= distinct <= hi else 'NO'} | {'yes' if same else 'NO'} | {'yes' if brackets else 'NO'} |")
PY
}

echo "| key | lines | exact distinct | HLL estimate | error | exact in 2σ band | top 10 = exact top 10, in order | every bracket holds |"
echo "| --- | ---: | ---: | ---: | ---: | :---: | :---: | :---: |"
# The demo drops a CR before a line's newline (and counts it): so does the exact side.
LC_ALL=C sed 's/\r$//' "$CORPUS" > "$DIR/corpus-lf.txt"
exact_counts < "$DIR/corpus-lf.txt" > "$DIR/exact-lines.txt"
row "whole lines" "$DIR/exact-lines.txt"
LC_ALL=C awk 'NF { print $1 }' "$DIR/corpus-lf.txt" | exact_counts > "$DIR/exact-field1.txt"
row "first field (\`--field 1\`)" "$DIR/exact-field1.txt" --field 1
python3 - "$DIR/corpus-lf.txt" <<'PY' | exact_counts > "$DIR/exact-fn.txt"
import re, sys
pat = re.compile(rb'fn\s+(\w+)')
out = sys.stdout.buffer
with open(sys.argv[1], 'rb') as f:
    for line in f:
        m = pat.search(line.rstrip(b'\n'))
        if m:
            out.write(m.group(1) + b'\n')
PY
row "function names (\`--key-regex 'fn\\s+(\\w+)'\`)" "$DIR/exact-fn.txt" --key-regex 'fn\s+(\w+)'
