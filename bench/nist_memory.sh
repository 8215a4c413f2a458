#!/usr/bin/env bash
# bench/nist_memory.sh — peak memory of `bleu-stream -m nist -b` against the input size: the
# numbers of the README section "NIST memory" and of bleu-stream(1), NIST "Streaming".
#
# Why: NIST's corpus weights need every distinct reference n-gram of the whole input, so its
# running totals keep a table of them (src/metric/nist.rs) and its memory grows with the input,
# unlike every other metric. This script measures by how much.
#
# Streams (each one TSV hyp<TAB>ref file, built once in WORK and reused):
#   wmt      every non-empty WMT22 system output line of all 21 pairs as the reference column (363,719
#            lines, ~24 tokens; the systems of a pair overlap heavily), its pair's first reference
#            (A, or the first in name order) as the hypothesis: WMT-like new text in every line.
#   repeat   the bench corpus (bench/run.sh: the *-en system outputs next to reference A,
#            126,836 lines) with the columns swapped (system outputs as references), 1x, 2x, 4x
#            (REPEATS), every line prefixed in both columns with its line number in the stream
#            ("L123 "), so that no two lines are alike; from the second copy on a line only
#            adds the n-grams that start with its prefix.
#   zipf     synthetic text (the bad case): references of 25 tokens drawn from a Zipf(1.1)
#            vocabulary of 1,000,000 words (Python's random, seed 1), hypotheses the reference
#            with each token replaced by another draw with probability 0.2; almost every 3- to
#            5-gram is new. ZIPF_SIZES segments (default 250000 500000 1000000).
#   nltk     the first zipf file with `--nist-compat nltk`, which also keeps every segment's
#            overlap lists (4 bytes per segment, order, reference and overlapping n-gram; 12 for
#            an overlap count above 1).
#
# For each file: peak RSS (GNU time %M; bench.py's getrusage without GNU time) and wall time of
# `bleu-stream -m nist -b < FILE`, and from a second run (`--corpus-only -f jsonl`, not timed)
# the number of segments and of distinct reference n-grams (the report's "ngrams"); the two
# runs' scores must agree. Printed: MiB per million segments (peak RSS / segments), bytes per
# distinct n-gram (peak RSS minus the RSS of an empty run, divided by the n-grams) and, along
# a series (repeat, zipf), the marginal MiB per million segments between consecutive sizes.
#
# Usage: bench/nist_memory.sh [--cases wmt,repeat,zipf,nltk] [--help]
#        env: BLEU_STREAM (default: target/release/bleu-stream, built with cargo if missing),
#        WMT22_DIR (default <repo>/../shared/data/wmt22), WORK_DIR (default
#        bench/work/nist-memory), REPEATS (default "1 2 4"), ZIPF_SIZES (default
#        "250000 500000 1000000"), PYTHON (default python3), BENCH_TIMER=python
set -euo pipefail
export LC_ALL=C

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=${WORK_DIR:-$BENCH_DIR/work/nist-memory}
DATA=${WMT22_DIR:-$ROOT/../shared/data/wmt22}
REPEATS=${REPEATS:-"1 2 4"}
ZIPF_SIZES=${ZIPF_SIZES:-"250000 500000 1000000"}
PYTHON=${PYTHON:-python3}
CASES=wmt,repeat,zipf,nltk

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "nist_memory.sh: error: $*" >&2; exit 1; }
note() { echo "nist_memory.sh: $*" >&2; }

while [[ $# -gt 0 ]]; do
    case $1 in
        --cases) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; CASES=$2; shift ;;
        --cases=*) CASES=${1#--cases=} ;;
        -h | --help) usage; exit 0 ;;
        *) echo "nist_memory.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
for c in ${CASES//,/ }; do
    case $c in wmt | repeat | zipf | nltk) ;; *) die "unknown case '$c' (wmt, repeat, zipf, nltk)" ;; esac
done
has_case() { [[ ,$CASES, == *,$1,* ]]; }

# ---------------------------------------------------------------- binary and timer
if [[ -n ${BLEU_STREAM:-} ]]; then
    BIN=$BLEU_STREAM
else
    BIN=${CARGO_TARGET_DIR:-$ROOT/target}/release/bleu-stream
    [[ -x $BIN ]] || (cd "$ROOT" && cargo build --release) || die "cargo build --release failed"
fi
[[ -x $BIN ]] || die "$BIN is not an executable"
if [[ ${BENCH_TIMER:-auto} != python ]] && /usr/bin/time -f '%e %M' -o /dev/null true 2>/dev/null; then
    TIMER=(/usr/bin/time -f '%e %M')
    TIMER_KIND="GNU time %M"
else
    TIMER=("$PYTHON" "$BENCH_DIR/bench.py" measure)
    TIMER_KIND="getrusage (bench.py)"
fi
mkdir -p "$WORK"

# ---------------------------------------------------------------- inputs
sanitize() { tr '\t\r' '  ' < "$1"; }   # keep two columns

first_ref() {   # first_ref PAIR TGT: reference A, else the first in name order
    local refs
    if [[ -f $DATA/references/generaltest2022.$1.ref.A.$2 ]]; then
        echo "$DATA/references/generaltest2022.$1.ref.A.$2"; return
    fi
    refs=("$DATA"/references/generaltest2022."$1".ref.*."$2")
    [[ -f ${refs[0]} ]] || die "no reference for $1 in $DATA/references"
    echo "${refs[0]}"
}

# sys-as-ref.tsv: every system output as the reference, its pair's first reference as hyp.
make_wmt() {
    local out=$WORK/sys-as-ref.tsv hyp pair tgt ref
    [[ -s $out ]] && return 0
    [[ -d $DATA/system-outputs ]] || die "WMT22 data not found at $DATA (set WMT22_DIR)"
    : > "$out.tmp"
    for hyp in "$DATA"/system-outputs/generaltest2022.*.hyp.*; do
        pair=${hyp##*/generaltest2022.}
        pair=${pair%%.hyp.*}
        tgt=${hyp##*.}
        ref=$(first_ref "$pair" "$tgt")
        # A system output that is empty would be a segment with only an empty reference,
        # which kills mteval-v13a.pl (and makes bleu-stream's report an error): left out.
        paste <(sanitize "$ref") <(sanitize "$hyp") | awk -F'\t' '$2 ~ /[^[:space:]]/' >> "$out.tmp"
    done
    mv "$out.tmp" "$out"
}

# en.tsv: the bench corpus of bench/run.sh (*-en outputs next to reference A), columns swapped.
make_en() {
    local out=$WORK/en.tsv hyp pair ref
    [[ -s $out ]] && return 0
    : > "$out.tmp"
    for hyp in "$DATA"/system-outputs/generaltest2022.*-en.hyp.*.en; do
        pair=${hyp##*/generaltest2022.}
        pair=${pair%%.hyp.*}
        ref=$(first_ref "$pair" en)
        paste <(sanitize "$ref") <(sanitize "$hyp") >> "$out.tmp"
    done
    mv "$out.tmp" "$out"
}

make_repeat() {   # make_repeat K: en.tsv K times, "L<n> " before both columns of line n
    local k=$1 out=$WORK/en-x$1.tsv i
    [[ -s $out ]] && return 0
    make_en
    for ((i = 0; i < k; i++)); do cat "$WORK/en.tsv"; done \
        | awk -F'\t' -v OFS='\t' '{ print "L" NR " " $1, "L" NR " " $2 }' > "$out.tmp"
    mv "$out.tmp" "$out"
}

make_zipf() {   # make_zipf N
    local n=$1 out=$WORK/zipf-$1.tsv
    [[ -s $out ]] && return 0
    "$PYTHON" - "$n" > "$out.tmp" <<'EOF'
import itertools, random, sys
n = int(sys.argv[1])
rng = random.Random(1)
V, S, LEN, NOISE = 1_000_000, 1.1, 25, 0.2
cum = list(itertools.accumulate(1.0 / r ** S for r in range(1, V + 1)))
words = ["w%d" % r for r in range(1, V + 1)]
out = sys.stdout
for _ in range(n):
    ref = rng.choices(words, cum_weights=cum, k=LEN)
    hyp = [rng.choices(words, cum_weights=cum)[0] if rng.random() < NOISE else w for w in ref]
    out.write(" ".join(hyp) + "\t" + " ".join(ref) + "\n")
EOF
    mv "$out.tmp" "$out"
}

# ---------------------------------------------------------------- measuring
RESULTS=()   # "case|label|segments|ngrams|rss_kib|wall"
BASE_KIB=0

measure() {   # measure CASE LABEL FILE [OPTION...]: bleu-stream -m nist OPTION...
    local case=$1 label=$2 file=$3 tf out wall kib score record segments ngrams jscore
    shift 3
    tf=$(mktemp) out=$(mktemp)
    "${TIMER[@]}" -o "$tf" "$BIN" -m nist "$@" -w 4 -b < "$file" > "$out" || die "bleu-stream failed on $file"
    read -r wall kib < <(tail -n 1 "$tf")
    score=$(cat "$out")
    record=$("$BIN" -m nist "$@" --corpus-only -f jsonl < "$file") || die "bleu-stream failed on $file"
    rm -f "$tf" "$out"
    segments=$(grep -o '"segments":[0-9]*' <<< "$record" | head -n 1 | cut -d: -f2)
    ngrams=$(grep -o '"ngrams":[0-9]*' <<< "$record" | cut -d: -f2)
    jscore=$(grep -o '"score":[-0-9.eE+]*' <<< "$record" | cut -d: -f2)
    if [[ -n $jscore ]]; then
        jscore=$(awk -v s="$jscore" 'BEGIN { printf "%.4f", s }')
    elif grep -q '"score":null' <<< "$record"; then
        # No score where mteval dies (e.g. a segment with only empty references); -b prints nan.
        jscore=nan
    fi
    [[ $jscore == "$score" ]] || die "$file: -b printed $score but the report says $jscore"
    [[ $score == nan ]] && score="none (mteval would die: $(grep -o 'segment [0-9]* has only empty references' <<< "$record" | head -n 1 || echo error))"
    RESULTS+=("$case|$label|$segments|$ngrams|$kib|$wall")
    printf '  %-36s %10s segments %12s n-grams %9.1f MiB %7.1f s  NIST %s\n' \
        "$label" "$segments" "$ngrams" "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$wall" "$score"
}

echo "bleu-stream: $("$BIN" --version); timer: $TIMER_KIND; $(nproc) cores"
tf=$(mktemp)
"${TIMER[@]}" -o "$tf" "$BIN" -m nist -b < /dev/null > /dev/null 2>&1 || true
read -r _ BASE_KIB < <(tail -n 1 "$tf")
rm -f "$tf"
echo "empty input: $(awk -v k="$BASE_KIB" 'BEGIN { printf "%.1f", k / 1024 }') MiB peak RSS"

if has_case wmt; then
    make_wmt
    measure wmt "WMT22 systems as refs" "$WORK/sys-as-ref.tsv"
fi
if has_case repeat; then
    for k in $REPEATS; do
        make_repeat "$k"
        measure repeat "*-en, ${k}x, numbered" "$WORK/en-x$k.tsv"
    done
fi
if has_case zipf; then
    for n in $ZIPF_SIZES; do
        make_zipf "$n"
        measure zipf "Zipf, $n" "$WORK/zipf-$n.tsv"
    done
fi
if has_case nltk; then
    n=${ZIPF_SIZES%% *}
    make_zipf "$n"
    measure nltk "Zipf, $n, --nist-compat nltk" "$WORK/zipf-$n.tsv" --nist-compat nltk
fi

# ---------------------------------------------------------------- table
echo
printf '%-36s %10s %12s %10s %12s %10s %14s\n' stream segments "ref n-grams" "peak MiB" \
    "MiB per 1M" "B/n-gram" "marginal /1M"
prev_case="" prev_seg=0 prev_kib=0
for r in "${RESULTS[@]}"; do
    IFS='|' read -r case label segments ngrams kib _ <<< "$r"
    marginal="-"
    if [[ $case == "$prev_case" && $segments -gt $prev_seg ]]; then
        marginal=$(awk -v a="$prev_kib" -v b="$kib" -v s="$prev_seg" -v t="$segments" \
            'BEGIN { printf "%.0f MiB", (b - a) / 1024 / ((t - s) / 1e6) }')
    fi
    awk -v l="$label" -v s="$segments" -v g="$ngrams" -v k="$kib" -v b="$BASE_KIB" -v m="$marginal" \
        'BEGIN { printf "%-36s %10d %12d %10.0f %12.0f %10.1f %14s\n", l, s, g, k / 1024,
                 k / 1024 / (s / 1e6), (k - b) * 1024 / g, m }'
    prev_case=$case prev_seg=$segments prev_kib=$kib
done
