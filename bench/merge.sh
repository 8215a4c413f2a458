#!/usr/bin/env bash
# bench/merge.sh — how long `bleu-stream merge` takes to sum 1,000 stats documents (issue 7:
# "merge of 1,000 stats files in well under a second").
#
# What it measures
#   Input: WMT22 cs-en, every system output pasted next to references B and C (about 16k lines,
#   5 MB: a WMT22 test set with all its systems), or --input FILE. It is cut into SHARDS pieces of
#   whole lines (`split -n l/SHARDS`, default 1000) and each piece is scored with
#   `bleu-stream --emit stats` (not timed). Cases, one per metric setting:
#     bleu     -m bleu                 ~0.2 KB per document
#     chrf     -m chrf                 ~0.4 KB per document
#     nist     -m nist                 the largest documents: NIST's n-gram table of the shard
#     all      every mergeable metric  (bleu,chrf,nltk-bleu,gleu,multi-bleu,nist,mteval-bleu)
#   For each case it times, best of RUNS (default 5) whole-process runs, with bash's microsecond
#   EPOCHREALTIME:
#     files    bleu-stream merge shard-0000.json … shard-0999.json > /dev/null
#     stdin    cat shard-*.json | bleu-stream merge          (how GNU parallel's recipe feeds it)
#   and prints the documents' total size, the CPU time of the best file run (user + system, both
#   threads: merge parses on one thread while it sums on the other) and merge's peak RSS (GNU
#   time %U %S %M, when available). On a busy machine compare the CPU times: wall times then
#   include waiting for a core.
#   Correctness: `merge -f jsonl` of the shards must equal the `-f jsonl --corpus-only` record of
#   one run over the whole input, byte for byte; any difference makes the script exit 1.
#
# Usage: bench/merge.sh [--shards N] [--cases bleu,chrf,nist,all] [--input FILE --refs N]
#        env: RUNS (default 5), WMT22_DIR (default ../shared/data/wmt22), WORK_DIR
#        (default bench/work/merge), BLEU_STREAM (default: target/release/bleu-stream, built
#        with cargo build --release if missing)
set -euo pipefail
export LC_ALL=C

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=${WORK_DIR:-$BENCH_DIR/work/merge}
DATA=${WMT22_DIR:-$ROOT/../shared/data/wmt22}
RUNS=${RUNS:-5}
SHARDS=1000
CASES=bleu,chrf,nist,all
INPUT=""
REFS=""

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --shards) SHARDS=$2; shift 2 ;;
        --cases) CASES=$2; shift 2 ;;
        --input) INPUT=$2; shift 2 ;;
        --refs) REFS=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "merge.sh: error: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

BIN=${BLEU_STREAM:-$ROOT/target/release/bleu-stream}
if [[ ! -x $BIN ]]; then
    (cd "$ROOT" && cargo build --release --quiet)
fi
mkdir -p "$WORK"

# ---------------------------------------------------------------- input
if [[ -z $INPUT ]]; then
    if [[ ! -d $DATA ]]; then
        echo "merge.sh: error: WMT22 data not found at $DATA (set WMT22_DIR, or give --input)" >&2
        exit 1
    fi
    INPUT=$WORK/cs-en.tsv
    REFS=2
    if [[ ! -s $INPUT ]]; then
        : > "$INPUT.tmp"
        for hyp in "$DATA"/system-outputs/generaltest2022.cs-en.hyp.*.en; do
            paste "$hyp" "$DATA"/references/generaltest2022.cs-en.ref.B.en \
                "$DATA"/references/generaltest2022.cs-en.ref.C.en >> "$INPUT.tmp"
        done
        mv "$INPUT.tmp" "$INPUT"
    fi
fi
[[ -n $REFS ]] || { echo "merge.sh: error: --input needs --refs N" >&2; exit 2; }
FRAMING=(--refs "$REFS" --on-error skip)
printf 'input: %s (%d lines, %s bytes), %d shards, best of %d runs\n' "$INPUT" \
    "$(wc -l < "$INPUT")" "$(wc -c < "$INPUT")" "$SHARDS" "$RUNS"
echo "bleu-stream: $BIN ($("$BIN" --version)), $(nproc) cores"

SHARD_DIR=$WORK/shards.$SHARDS
if [[ ! -f $SHARD_DIR/.done || $SHARD_DIR/.done -ot $INPUT ]]; then
    rm -rf "$SHARD_DIR"
    mkdir -p "$SHARD_DIR"
    split -n "l/$SHARDS" -a 4 -d "$INPUT" "$SHARD_DIR/shard-"
    touch "$SHARD_DIR/.done"
fi

TIMER=()
if [[ -x /usr/bin/time ]] && /usr/bin/time --version 2>&1 | grep -q GNU; then
    TIMER=(/usr/bin/time -f '%M %U %S' -o "$WORK/time.out")
fi

# best_of CMD...: runs the command RUNS times (stdout to /dev/null), sets BEST (seconds), CPU
# (user + system seconds of that run) and PEAK (KiB, max over runs; 0 without GNU time).
best_of() {
    local r t0 t1 wall kb user sys
    BEST="" PEAK=0 CPU=0
    for ((r = 1; r <= RUNS; r++)); do
        t0=$EPOCHREALTIME
        "${TIMER[@]}" "$@" > /dev/null
        t1=$EPOCHREALTIME
        wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
        kb=0 user=0 sys=0
        [[ ${#TIMER[@]} -eq 0 ]] || read -r kb user sys < <(tail -n 1 "$WORK/time.out")
        if [[ -z $BEST ]] || awk -v a="$wall" -v b="$BEST" 'BEGIN { exit !(a < b) }'; then
            BEST=$wall
            CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
        fi
        [[ $kb -le $PEAK ]] || PEAK=$kb
    done
}

metrics_of() {
    case $1 in
        all) echo bleu,chrf,nltk-bleu,gleu,multi-bleu,nist,mteval-bleu ;;
        *) echo "$1" ;;
    esac
}

status=0
printf '\n%-6s %10s %12s %10s %9s %10s %9s  %s\n' case documents "total size" files "(cpu)" stdin \
    "peak RSS" check
IFS=, read -r -a case_list <<< "$CASES"
for c in "${case_list[@]}"; do
    m=$(metrics_of "$c")
    docs=$WORK/docs.$SHARDS.$c
    if [[ ! -f $docs/.done || $docs/.done -ot $SHARD_DIR/.done || $docs/.done -ot $BIN ]]; then
        rm -rf "$docs"
        mkdir -p "$docs"
        (cd "$SHARD_DIR" && ls shard-*) | xargs -P "$(nproc)" -I{} \
            sh -c '"$1" "$2" "$3" "$4" "$5" -m "$6" --emit stats < "$7/$8" > "$9/$8.json"' \
            sh "$BIN" "${FRAMING[@]}" "$m" "$SHARD_DIR" {} "$docs"
        touch "$docs/.done"
    fi
    files=("$docs"/shard-*.json)
    size=$(cat "${files[@]}" | wc -c)
    best_of "$BIN" merge "${files[@]}"
    t_files=$BEST cpu=$CPU peak=$PEAK
    best_of sh -c 'cat "$@" | "$0" merge' "$BIN" "${files[@]}"
    t_stdin=$BEST
    one=$("$BIN" "${FRAMING[@]}" -m "$m" -f jsonl --corpus-only < "$INPUT")
    merged=$("$BIN" merge -f jsonl "${files[@]}")
    if [[ $one == "$merged" ]]; then check=same; else check=DIFFERENT; status=1; fi
    printf '%-6s %10d %9.1f MB %8.3f s %7.2f s %8.3f s %6.1f MB  %s\n' "$c" "${#files[@]}" \
        "$(awk -v b="$size" 'BEGIN { print b / 1e6 }')" "$t_files" "$cpu" "$t_stdin" \
        "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')" "$check"
done
[[ $status -eq 0 ]] || echo "merge.sh: error: a merged report differs from one run" >&2
exit "$status"
