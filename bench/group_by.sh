#!/usr/bin/env bash
# bench/group_by.sh — the cost of `--group-by` (issue 20: "the benchmark reports the cost of
# --group-by on a stream of >= 100 interleaved systems against the ungrouped run; goal <= 1.3x").
#
# What it measures
#   Input: every WMT22 system output (system-outputs/generaltest2022.<pair>.hyp.<SYSTEM>.<lang>,
#   about 180 systems over 21 language pairs), each line next to the first reference of its pair,
#   interleaved round-robin (line 1 of every system, then line 2, ...) so that consecutive lines
#   belong to different groups — the worst case for the merger's group lookup. The key is
#   `<pair>/<SYSTEM>`. Built once (not timed) in two forms:
#     jsonl  {"system": KEY, "hyp": ..., "ref": ...}      grouped: --group-by system
#     tsv    KEY<TAB>hyp<TAB>ref                          grouped: --group-by col:1
#   The ungrouped run reads the same JSONL file (the extra field is ignored), or the TSV file
#   without its key column. Every run: --corpus-only -m METRICS (default bleu), output discarded.
#   Prints, per form, the best of RUNS (default 3) whole-process wall times (bash EPOCHREALTIME)
#   and the ratio grouped / ungrouped. On a busy machine the numbers are noisy: run it when the
#   machine is quiet, and compare ratios rather than times.
#   Correctness: the grouped run's overall record must equal the ungrouped run's (the same
#   lines are scored), or the script exits 1.
#
# Usage: bench/group_by.sh   env: RUNS (3), METRICS (bleu), WMT22_DIR (../shared/data/wmt22),
#        WORK_DIR (bench/work/group_by), BLEU_STREAM (target/release/bleu-stream, built with
#        cargo build --release if missing)
set -euo pipefail
export LC_ALL=C

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=${WORK_DIR:-$BENCH_DIR/work/group_by}
DATA=${WMT22_DIR:-$ROOT/../shared/data/wmt22}
RUNS=${RUNS:-3}
METRICS=${METRICS:-bleu}
BIN=${BLEU_STREAM:-$ROOT/target/release/bleu-stream}

if [ ! -d "$DATA/system-outputs" ]; then
    echo "bench/group_by.sh: no WMT22 data at $DATA (set WMT22_DIR)" >&2
    exit 1
fi
if [ ! -x "$BIN" ]; then
    (cd "$ROOT" && cargo build --release)
fi
mkdir -p "$WORK"

python3 - "$DATA" "$WORK" <<'PY'
import json, os, sys
data, work = sys.argv[1], sys.argv[2]
outs = os.path.join(data, "system-outputs")
refs = os.path.join(data, "references")
def lines(path):
    with open(path, encoding="utf-8", newline="\n") as f:
        return f.read().split("\n")[:-1]
systems = []
for name in sorted(os.listdir(outs)):
    parts = name.split(".")
    if len(parts) < 5 or parts[2] != "hyp":
        continue
    pair, system = parts[1], ".".join(parts[3:-1])
    ref = sorted(r for r in os.listdir(refs) if r.split(".")[1] == pair and ".ref." in r)
    if not ref:
        continue
    hyp, r = lines(os.path.join(outs, name)), lines(os.path.join(refs, ref[0]))
    if len(hyp) != len(r):
        continue
    systems.append((f"{pair}/{system}", hyp, r))
longest = max(len(h) for _, h, _ in systems)
with open(os.path.join(work, "stream.jsonl"), "w", encoding="utf-8") as j, \
     open(os.path.join(work, "keyed.tsv"), "w", encoding="utf-8") as k, \
     open(os.path.join(work, "plain.tsv"), "w", encoding="utf-8") as p:
    n = 0
    for i in range(longest):
        for key, hyp, ref in systems:
            if i < len(hyp):
                j.write(json.dumps({"system": key, "hyp": hyp[i], "ref": ref[i]}, ensure_ascii=False) + "\n")
                k.write(f"{key}\t{hyp[i]}\t{ref[i]}\n")
                p.write(f"{hyp[i]}\t{ref[i]}\n")
                n += 1
print(f"{len(systems)} systems, {n} lines, interleaved", file=sys.stderr)
PY

best() {  # best wall time of RUNS runs of "$@", in seconds
    local best="" t0 t1 t
    for _ in $(seq "$RUNS"); do
        t0=$EPOCHREALTIME
        "$@" > /dev/null 2>&1
        t1=$EPOCHREALTIME
        t=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    printf '%.3f' "$best"
}

check() {  # the grouped run's overall record equals the ungrouped run's
    local grouped ungrouped
    grouped=$("$BIN" -f jsonl --corpus-only -m "$METRICS" --on-error skip "$@" 2>/dev/null | head -n 1)
    ungrouped=$("$BIN" -f jsonl --corpus-only -m "$METRICS" --on-error skip "${UNGROUPED[@]}" 2>/dev/null)
    if [ "$grouped" != "$ungrouped" ]; then
        echo "bench/group_by.sh: the grouped overall record differs from the ungrouped one" >&2
        exit 1
    fi
}

printf '%-6s %10s %10s %7s\n' form ungrouped grouped ratio
for form in jsonl tsv; do
    if [ "$form" = jsonl ]; then
        UNGROUPED=(--input jsonl "$WORK/stream.jsonl")
        GROUPED=(--group-by system "$WORK/stream.jsonl")
    else
        UNGROUPED=(--input tsv --refs 1 "$WORK/plain.tsv")
        GROUPED=(--group-by col:1 --refs 1 "$WORK/keyed.tsv")
    fi
    check "${GROUPED[@]}"
    u=$(best "$BIN" --corpus-only -m "$METRICS" --on-error skip "${UNGROUPED[@]}" 2>/dev/null)
    g=$(best "$BIN" --corpus-only -m "$METRICS" --on-error skip "${GROUPED[@]}")
    printf '%-6s %9ss %9ss %6.2fx\n' "$form" "$u" "$g" "$(echo "$g / $u" | bc -l)"
done
