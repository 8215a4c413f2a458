#!/usr/bin/env bash
# bench/run.sh — whole-process benchmark of bleu-stream against sacreBLEU 2.6.0 on WMT22.
#
# What it measures
#   Corpus: every WMT22 *-en system output (generaltest2022.XX-en.hyp.SYSTEM.en) pasted next to
#   reference A of its pair (cs-en has no A: its first reference in name order is used, which the
#   script prints) -> corpus.tsv (hyp<TAB>ref), plus hyp.txt / ref.txt (the two columns) for the
#   Python tools. About 127k lines, 26 MB. Tabs and CRs inside a sentence are turned into spaces
#   (once, for every tool alike) so that the TSV keeps two columns and Python reads the same lines.
#
#   Cases (each one a whole process, from start-up to exit, input read from disk):
#     corpus    corpus BLEU      bleu-stream -w 1 -b < corpus.tsv  vs  sacrebleu ref.txt -i hyp.txt -b
#     sentence  per-line BLEU    bleu-stream -w 1 < corpus.tsv     vs  sacrebleu ref.txt -i hyp.txt -sl -b
#   bleu-stream runs both with its default thread count and with --threads 1. sacreBLEU runs with
#   its defaults (13a, exp smoothing, printed width 1), hence bleu-stream's -w 1.
#     nltk      NLTK corpus_bleu bleu-stream -m nltk-bleu -w 17 -b  vs  bench/nltk_corpus.py bleu
#               (NLTK 3.10.4 on str.split() tokens); the 17-decimal scores must be identical
#     multibleu multi-bleu.perl  bleu-stream -m multi-bleu --corpus-only  vs  multi-bleu.perl ref.txt
#               < hyp.txt; the BLEU lines must be identical. The script is Moses' multi-bleu.perl
#               as the PyPI wheel nmtpytorch==4.0.0 ships it (nmtpytorch/lib/multi-bleu.perl,
#               "a verbatim copy" of Moses commit ec71c23, 2015; fetched with pip download into
#               WORK, sha256-checked) unless MULTI_BLEU_PERL names another copy. Checked against
#               ../shared/vectors/mteval/multibleu_*.jsonl (Moses 34452895): the same stdout line
#               and exit status on all 343 multi-bleu.perl records whose input files end with a
#               newline; it differs only on the 4 records without a final newline, where this
#               older copy still `chop`s the last character off the last line (the vectors'
#               version `chomp`s). hyp.txt/ref.txt always end with a newline.
#     chrf      corpus chrF      bleu-stream -m chrf -w 1 -b  vs  sacrebleu ref.txt -i hyp.txt -m chrf -b
#               (the printed scores must be identical)
#     ter       corpus TER       bleu-stream -m ter -w 1 -b  vs  sacrebleu ter_ref.txt -i ter_hyp.txt -m ter -b
#               on the first TER_LINES (default 20000) lines of the corpus for both tools:
#               sacreBLEU's TER takes about 1.35 ms a segment, over 3 minutes for the whole
#               corpus; the printed scores must be identical
#     nist      corpus NIST      bleu-stream -m nist -w 4 -b  vs  mteval-v13a.pl -n on SGML wrappings of
#               hyp.txt/ref.txt, only with MTEVAL_PERL=path (no reachable registry ships the
#               script: it is scripts/generic/mteval-v13a.pl of github.com/moses-smt/mosesdecoder;
#               it also needs Debian's libxml-twig-perl); the 4-decimal NIST must be equal
#   Added for issue 21 (speed):
#     chrfpp    corpus chrF++    bleu-stream -m chrf --chrf-word-order 2 -w 1 -b  vs  sacrebleu
#               ... -m chrf --chrf-word-order 2 -b (identical score strings)
#     chrfrows  per-line chrF    bleu-stream -m chrf -w 1  vs  sacrebleu ... -m chrf -sl -b
#               (compared like sentence)
#     gleu      NLTK corpus_gleu bleu-stream -m gleu -w 17 -b  vs  bench/nltk_corpus.py gleu
#     nltkchrf  NLTK corpus_chrf bleu-stream -m nltk-chrf -w 17 -b  vs  bench/nltk_corpus.py chrf
#     nistnltk  NLTK corpus_nist bleu-stream -m nist --nist-compat nltk --nist-tokenize none -w 17 -b
#               vs  bench/nltk_corpus.py nist (the reference for NIST when mteval-v13a.pl is
#               not available); all three print 17 decimals, which must be identical
#               The NLTK cases run on the first NLTK_LINES lines (default: all) for both tools,
#               so their ratio needs no scaling.
#   and the tool `wc -w` (case corpus, on corpus.tsv): the byte-pass floor that bleu-stream's
#   single-thread BLEU CPU time is compared with.
#
#   CPU time (user + sys, GNU time's %U + %S) is recorded next to wall time: the machine may be
#   shared, and CPU time is what another process's load disturbs least. The summary after the
#   table gives, per case, bleu-stream's speed-up over the reference tool (wall and CPU), its
#   1 -> 2 thread scaling, read two ways (wall of --threads 1 / wall of the default, and CPU of
#   --threads 1 / wall of the default, the measure issue 21 uses) and, for corpus BLEU, CPU of
#   --threads 1 / CPU of `wc -w`.
#
#   Host capacity (with bleu-stream selected): `bleu-stream -m chrf --threads 1 -b` on corpus.tsv,
#   alone and then two copies at once, R times each. Capacity = A/P1 + A/P2 (A: best wall alone;
#   P1, P2: each copy's wall in the best pair), the work two CPU-bound processes get done at once
#   in units of one alone: 2.0 on two idle cores, less where the two virtual CPUs share a core or
#   the host is busy. Thread scaling cannot exceed it, so the summary prints both.
#
#   Each (case, tool) runs R times (env RUNS, default 10): wall = the best (minimum) run, measured
#   around /usr/bin/time with bash's microsecond EPOCHREALTIME (GNU time's own %e has only 10 ms
#   resolution); peak RSS = the maximum of GNU time's %M over the runs. Without GNU time (and no
#   way to apt-get it) bench.py measures instead, with getrusage(RUSAGE_CHILDREN).
#
#   Correctness: the corpus score strings must be identical to sacreBLEU's; sentence scores are
#   compared row by row after rounding both to 1 decimal, and the mismatching rows are counted.
#   Constant memory: bleu-stream corpus mode is also run on corpus4.tsv (the corpus 4x) and the
#   two peak RSS values are printed side by side (the score must not change either).
#   Any mismatch or tool failure makes the script exit 1.
#
# Adding a tool = one row in TOOLS plus one function tool_<id> (see "Tools" below).
#
# Usage: bench/run.sh [--quick] [--tools ID,ID...] [--help]      (details: --help)
set -euo pipefail
export LC_ALL=C

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=${WORK_DIR:-$BENCH_DIR/work}
DATA=${WMT22_DIR:-$ROOT/../shared/data/wmt22}
RUNS=${RUNS:-10}   # runs of bleu-stream (under a second each; the host varies by tens of per cent)
REF_RUNS=${REF_RUNS:-1}   # runs of the reference tools (sacreBLEU, NLTK, perl: minutes each)
NLTK_LINES=${NLTK_LINES:-0}   # 0 = all lines
QUICK_LINES=${QUICK_LINES:-20000}
TER_LINES=${TER_LINES:-20000}
PYTHON=${PYTHON:-python3}
SACREBLEU_VERSION=2.6.0
NLTK_VERSION=3.10.4
BASELINE=bleu-stream   # the tool the ratio columns divide by

# ---------------------------------------------------------------- Tools
# One row per tool: id|label|check, where check is
#   ref = the reference scores (sacreBLEU), yes = must match the reference, no = timed only.
# tool_<id with - as _> ACTION is called with ACTION = setup (install/build; may be called
# more than once) or a case name (corpus|sentence|corpus4), and then sets
#   CMD=(command and arguments) and IN=file for its standard input,
# or CMD=() if the tool does not do that case. Outputs go to $D/out/<case>.<id>.{out,err}.
TOOLS=(
    "bleu-stream|bleu-stream|yes"
    "bleu-stream-t1|bleu-stream --threads 1|yes"
    "sacrebleu|sacreBLEU $SACREBLEU_VERSION|ref"
    "nltk|NLTK $NLTK_VERSION|no"
    "multi-bleu-perl|multi-bleu.perl|no"
    "mteval|mteval-v13a.pl|no"
    "wc|wc -w|no"
)
CASES=(corpus sentence nltk multibleu chrf chrfpp chrfrows ter nist gleu nltkchrf nistnltk)

tool_bleu_stream() {
    IN=$D/corpus.tsv
    case $1 in
        setup) setup_bleu_stream ;;
        corpus) CMD=("$BIN" -w 1 -b) ;;
        corpus4) CMD=("$BIN" -w 1 -b); IN=$D/corpus4.tsv ;;
        sentence) CMD=("$BIN" -w 1) ;;
        nltk) CMD=("$BIN" -m nltk-bleu -w 17 -b) ;;
        multibleu) CMD=("$BIN" -m multi-bleu --corpus-only) ;;
        chrf) CMD=("$BIN" -m chrf -w 1 -b) ;;
        ter) CMD=("$BIN" -m ter -w 1 -b); IN=$D/ter.tsv ;;
        nist) CMD=("$BIN" -m nist -w 4 -b) ;;
        chrfpp) CMD=("$BIN" -m chrf --chrf-word-order 2 -w 1 -b) ;;
        chrfrows) CMD=("$BIN" -m chrf -w 1) ;;
        gleu) CMD=("$BIN" -m gleu -w 17 -b); IN=$D/nltk.tsv ;;
        nltkchrf) CMD=("$BIN" -m nltk-chrf -w 17 -b); IN=$D/nltk.tsv ;;
        nistnltk) CMD=("$BIN" -m nist --nist-compat nltk --nist-tokenize none -w 17 -b); IN=$D/nltk.tsv ;;
        *) CMD=() ;;
    esac
}

# wc -w over the corpus: the single-pass floor for corpus BLEU's CPU time.
tool_wc() {
    IN=$D/corpus.tsv
    case $1 in
        setup) ;;
        corpus) CMD=(wc -w) ;;
        *) CMD=() ;;
    esac
}

tool_bleu_stream_t1() {
    tool_bleu_stream "$1"
    if [[ $1 != setup && ${#CMD[@]} -gt 0 ]]; then CMD+=(--threads 1); fi
}

tool_sacrebleu() {
    IN=/dev/null
    case $1 in
        setup) setup_sacrebleu ;;
        corpus) CMD=("$VENV/bin/sacrebleu" "$D/ref.txt" -i "$D/hyp.txt" -b) ;;
        sentence) CMD=("$VENV/bin/sacrebleu" "$D/ref.txt" -i "$D/hyp.txt" -sl -b) ;;
        chrf) CMD=("$VENV/bin/sacrebleu" "$D/ref.txt" -i "$D/hyp.txt" -m chrf -b) ;;
        ter) CMD=("$VENV/bin/sacrebleu" "$D/ter_ref.txt" -i "$D/ter_hyp.txt" -m ter -b) ;;
        chrfpp) CMD=("$VENV/bin/sacrebleu" "$D/ref.txt" -i "$D/hyp.txt" -m chrf --chrf-word-order 2 -b) ;;
        chrfrows) CMD=("$VENV/bin/sacrebleu" "$D/ref.txt" -i "$D/hyp.txt" -m chrf -sl -b) ;;
        *) CMD=() ;;
    esac
}

# nltk: NLTK's corpus_bleu on whitespace tokens (bench/nltk_corpus.py bleu), the same corpus
# as `bleu-stream -m nltk-bleu` reads; both print the score with 17 decimals (checked equal).
tool_nltk() {
    IN=/dev/null
    case $1 in
        setup) setup_nltk ;;
        nltk) CMD=("$VENV/bin/python" "$BENCH_DIR/nltk_corpus.py" bleu "$D/hyp.txt" "$D/ref.txt") ;;
        gleu) CMD=("$VENV/bin/python" "$BENCH_DIR/nltk_corpus.py" gleu "$D/nltk_hyp.txt" "$D/nltk_ref.txt") ;;
        nltkchrf) CMD=("$VENV/bin/python" "$BENCH_DIR/nltk_corpus.py" chrf "$D/nltk_hyp.txt" "$D/nltk_ref.txt") ;;
        nistnltk) CMD=("$VENV/bin/python" "$BENCH_DIR/nltk_corpus.py" nist "$D/nltk_hyp.txt" "$D/nltk_ref.txt") ;;
        *) CMD=() ;;
    esac
}

# multi-bleu.perl (Moses) on hyp.txt/ref.txt: the copy in the nmtpytorch 4.0.0 wheel (see the
# header), or MULTI_BLEU_PERL; skipped with a note without perl or when pip cannot fetch it. Its
# BLEU line must equal `bleu-stream -m multi-bleu`'s.
tool_multi_bleu_perl() {
    IN=$D/hyp.txt
    case $1 in
        setup) setup_multi_bleu_perl ;;
        multibleu) if [[ -n $MULTI_BLEU ]]; then CMD=(perl "$MULTI_BLEU" "$D/ref.txt"); else CMD=(); fi ;;
        *) CMD=() ;;
    esac
}

# mteval-v13a.pl -n (NIST only) on SGML wrappings of hyp.txt/ref.txt (bench.py sgm: verbatim
# lines, documents of 100 segments: one document of the whole corpus makes mteval's reader
# quadratic, see bench.py). No package registry this project can reach ships the script, so it is
# timed only when MTEVAL_PERL names a copy (skipped with a note otherwise). Its NIST must equal
# `bleu-stream -m nist -w 4 -b`'s.
tool_mteval() {
    IN=/dev/null
    case $1 in
        setup) setup_mteval ;;
        nist) if [[ -n $MTEVAL ]]; then
                  CMD=(perl "$MTEVAL" -n -r "$D/ref.sgm" -s "$D/src.sgm" -t "$D/tst.sgm")
              else CMD=(); fi ;;
        *) CMD=() ;;
    esac
}

# ---------------------------------------------------------------- helpers
usage() {
    cat <<EOF
Usage: bench/run.sh [--quick] [--tools ID,ID...] [--help]

Whole-process benchmark of bleu-stream vs sacreBLEU $SACREBLEU_VERSION, NLTK $NLTK_VERSION and (when
available) the perl scripts on the WMT22 *-en system outputs (about 127k hyp/ref pairs):
corpus and per-sentence BLEU, chrF, chrF++, TER, NLTK BLEU/GLEU/chrF/NIST, multi-bleu, NIST;
wall and CPU time (best of RUNS / REF_RUNS), peak RSS, score equality, 1 -> 2 thread scaling
(bleu-stream's two-thread and --threads 1 runs alternate), single-thread BLEU CPU against wc -w,
and a constant-memory check on the corpus 4x.

Options:
  --quick          only the first $QUICK_LINES lines of the corpus (smoke run; in WORK/quick/)
  --tools LIST     comma-separated tool ids to run (default: all): $(tool_ids | paste -sd, -)
                   Scores are checked only if sacrebleu is among them.
  -h, --help       this text

Environment:
  RUNS=N             runs per bleu-stream measurement (default 10: under a second each)
  REF_RUNS=N         runs per reference-tool measurement (default 1: they take minutes)
  NLTK_LINES=N       lines of the corpus the NLTK cases (gleu, nltkchrf, nistnltk) score, for
                     both tools (default 0: all)
  BLEU_STREAM=PATH   use this binary instead of 'cargo build --release' in the repo root
  WORK_DIR=DIR       work directory (default bench/work; holds corpus, venv, outputs)
  WMT22_DIR=DIR      WMT22 data (default <repo>/../shared/data/wmt22)
  QUICK_LINES=N      lines kept by --quick (default 20000)
  TER_LINES=N        lines of the corpus the ter case scores (default 20000)
  PYTHON=python3     interpreter used to create the venv and to run bench.py
  BENCH_TIMER=python measure with bench.py (getrusage) even if GNU time is there
  MULTI_BLEU_PERL=F  time this multi-bleu.perl (default: the one in the nmtpytorch 4.0.0
                     wheel, fetched with pip download into WORK_DIR)
  MTEVAL_PERL=F      time mteval-v13a.pl at F (case nist; skipped without it)

Exit status: 0 all scores match, 1 a score mismatch or a failure, 2 usage error.
EOF
}

die() { echo "run.sh: error: $*" >&2; exit 1; }
note() { echo "run.sh: $*" >&2; }
tool_ids() { local row; for row in "${TOOLS[@]}"; do echo "${row%%|*}"; done; }
tool_fn() { echo "tool_${1//-/_}"; }
count_lines() { awk 'END { print NR }' "$1"; }   # counts a last line without newline too
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# ---------------------------------------------------------------- arguments
QUICK=0
SELECTED=""
while [[ $# -gt 0 ]]; do
    case $1 in
        --quick) QUICK=1 ;;
        --tools) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; SELECTED=$2; shift ;;
        --tools=*) SELECTED=${1#--tools=} ;;
        -h | --help) usage; exit 0 ;;
        *) echo "run.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: RUNS must be a positive integer" >&2; exit 2; }
[[ $REF_RUNS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: REF_RUNS must be a positive integer" >&2; exit 2; }
[[ $NLTK_LINES =~ ^[0-9]+$ ]] || { echo "run.sh: NLTK_LINES must be a number" >&2; exit 2; }
[[ $QUICK_LINES =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: QUICK_LINES must be a positive integer" >&2; exit 2; }
[[ $TER_LINES =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: TER_LINES must be a positive integer" >&2; exit 2; }
if [[ -n $SELECTED ]]; then
    for id in ${SELECTED//,/ }; do
        tool_ids | grep -qx -- "$id" || { echo "run.sh: unknown tool '$id' (known: $(tool_ids | paste -sd, -))" >&2; exit 2; }
    done
fi
selected() { [[ -z $SELECTED ]] || [[ ,$SELECTED, == *",$1,"* ]]; }

# ---------------------------------------------------------------- data
ref_for_pair() {   # ref_for_pair cs-en -> path of reference A, or of the first one in name order
    local pair=$1 refs
    local a=$DATA/references/generaltest2022.$pair.ref.A.en
    if [[ -f $a ]]; then echo "$a"; return; fi
    refs=("$DATA"/references/generaltest2022."$pair".ref.*.en)
    [[ -f ${refs[0]} ]] || die "no reference for $pair in $DATA/references"
    note "pair $pair has no reference A: using ${refs[0]##*/} instead" >&2
    echo "${refs[0]}"
}

sanitize() { tr '\t\r' '  ' < "$1"; }   # keep the TSV at two columns; same text for every tool

prepare_corpus() {
    local out=$WORK/corpus.tsv hyp pair ref n_hyp n_ref nsys=0 npairs=0 dirty
    local -A ref_of=()
    [[ -d $DATA/system-outputs ]] || die "WMT22 data not found at $DATA (set WMT22_DIR)"
    mkdir -p "$WORK"
    : > "$out.tmp"
    shopt -s nullglob
    for hyp in "$DATA"/system-outputs/generaltest2022.*-en.hyp.*.en; do
        pair=${hyp##*/generaltest2022.}
        pair=${pair%%.hyp.*}
        if [[ -z ${ref_of[$pair]:-} ]]; then
            ref_of[$pair]=$(ref_for_pair "$pair")
            npairs=$((npairs + 1))
        fi
        ref=${ref_of[$pair]}
        n_hyp=$(count_lines "$hyp")
        n_ref=$(count_lines "$ref")
        [[ $n_hyp -eq $n_ref ]] || die "${hyp##*/} has $n_hyp lines but ${ref##*/} has $n_ref"
        paste <(sanitize "$hyp") <(sanitize "$ref") >> "$out.tmp"
        nsys=$((nsys + 1))
    done
    shopt -u nullglob
    [[ $nsys -gt 0 ]] || die "no *-en system outputs in $DATA/system-outputs"
    dirty=$(grep -c $'[\t\r]' "$DATA"/system-outputs/generaltest2022.*-en.hyp.*.en "${ref_of[@]}" \
        | awk -F: '$NF > 0 { n += $NF } END { print n + 0 }') || true
    [[ $dirty -eq 0 ]] || note "$dirty input line(s) had a tab or CR inside; replaced by spaces"
    mv "$out.tmp" "$out"
    note "corpus: $nsys systems, $npairs language pairs -> $out"
}

derive_files() {   # derive_files DIR: hyp.txt, ref.txt and corpus4.tsv from DIR/corpus.tsv
    local dir=$1 bad
    bad=$(awk -F'\t' 'NF != 2' "$dir/corpus.tsv" | wc -l)
    [[ $bad -eq 0 ]] || die "$bad line(s) of $dir/corpus.tsv do not have exactly 2 columns"
    cut -f1 "$dir/corpus.tsv" > "$dir/hyp.txt"
    cut -f2 "$dir/corpus.tsv" > "$dir/ref.txt"
    cat "$dir/corpus.tsv" "$dir/corpus.tsv" "$dir/corpus.tsv" "$dir/corpus.tsv" > "$dir/corpus4.tsv"
    head -n "$TER_LINES" "$dir/corpus.tsv" > "$dir/ter.tsv"
    if [[ $NLTK_LINES -gt 0 ]]; then head -n "$NLTK_LINES" "$dir/corpus.tsv"; else cat "$dir/corpus.tsv"; fi > "$dir/nltk.tsv"
    cut -f1 "$dir/nltk.tsv" > "$dir/nltk_hyp.txt"
    cut -f2 "$dir/nltk.tsv" > "$dir/nltk_ref.txt"
    cut -f1 "$dir/ter.tsv" > "$dir/ter_hyp.txt"
    cut -f2 "$dir/ter.tsv" > "$dir/ter_ref.txt"
}

# ---------------------------------------------------------------- tool setup
BIN=""
setup_bleu_stream() {
    [[ -z $BIN ]] || return 0
    if [[ -n ${BLEU_STREAM:-} ]]; then
        [[ -x $BLEU_STREAM ]] || die "BLEU_STREAM=$BLEU_STREAM is not an executable"
        BIN=$BLEU_STREAM
    else
        note "building bleu-stream (cargo build --release in $ROOT)"
        (cd "$ROOT" && cargo build --release) || die "cargo build --release failed"
        local target=${CARGO_TARGET_DIR:-target}
        [[ $target == /* ]] || target=$ROOT/$target
        BIN=$target/release/bleu-stream
        [[ -x $BIN ]] || die "no binary at $BIN after the build"
    fi
    note "bleu-stream: $BIN ($("$BIN" --version 2>/dev/null || echo 'version unknown'))"
}

VENV=$WORK/venv
setup_sacrebleu() {
    if ! "$VENV/bin/python" -c "import sacrebleu, sys; sys.exit(sacrebleu.__version__ != '$SACREBLEU_VERSION')" 2>/dev/null; then
        note "installing sacrebleu==$SACREBLEU_VERSION into $VENV"
        [[ -x $VENV/bin/python ]] || "$PYTHON" -m venv "$VENV" || die "cannot create a venv with $PYTHON"
        "$VENV/bin/pip" install --quiet --disable-pip-version-check "sacrebleu==$SACREBLEU_VERSION" \
            || die "pip install sacrebleu==$SACREBLEU_VERSION failed"
    fi
    note "sacreBLEU: $("$VENV/bin/sacrebleu" --version 2>&1)"
}

setup_nltk() {
    setup_sacrebleu   # the same venv
    if ! "$VENV/bin/python" -c "import nltk, sys; sys.exit(nltk.__version__ != '$NLTK_VERSION')" 2>/dev/null; then
        note "installing nltk==$NLTK_VERSION into $VENV"
        "$VENV/bin/pip" install --quiet --disable-pip-version-check "nltk==$NLTK_VERSION" \
            || die "pip install nltk==$NLTK_VERSION failed"
    fi
    note "NLTK: $("$VENV/bin/python" -c 'import nltk; print(nltk.__version__)')"
}

MULTI_BLEU=""
# Moses multi-bleu.perl from the nmtpytorch 4.0.0 wheel on PyPI (the only registry copy found).
MULTI_BLEU_WHEEL=nmtpytorch==4.0.0
MULTI_BLEU_MEMBER=nmtpytorch/lib/multi-bleu.perl
MULTI_BLEU_SHA256=68e1c6bf0644b2f2e88cacd0ebbe644dc92171d1a2feeea913bb809f8d0879ed
fetch_multi_bleu_perl() {   # prints the path of the fetched script, or fails
    local dir=$WORK/multi-bleu script wheel
    script=$dir/multi-bleu.perl
    sha_ok() { [[ -f $script && $(sha256sum "$script" | cut -d' ' -f1) == "$MULTI_BLEU_SHA256" ]]; }
    if ! sha_ok; then
        rm -rf "$dir"
        mkdir -p "$dir"
        "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps \
            --dest "$dir" "$MULTI_BLEU_WHEEL" > "$dir/pip.log" 2>&1 || return 1
        wheel=$(ls "$dir"/nmtpytorch-4.0.0-*.whl 2> /dev/null | head -n 1)
        [[ -n $wheel ]] || return 1
        "$PYTHON" -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
            "$wheel" "$MULTI_BLEU_MEMBER" > "$script" || return 1
        if ! sha_ok; then
            note "multi-bleu.perl: $MULTI_BLEU_MEMBER in $wheel is not the expected file (sha256 differs)"
            return 1
        fi
    fi
    echo "$script"
}

setup_multi_bleu_perl() {
    [[ -z $MULTI_BLEU ]] || return 0
    if ! command -v perl > /dev/null; then
        note "multi-bleu.perl: skipped; no perl"
        return
    fi
    MULTI_BLEU=${MULTI_BLEU_PERL:-}
    if [[ -z $MULTI_BLEU ]]; then
        if ! MULTI_BLEU=$(fetch_multi_bleu_perl); then
            note "multi-bleu.perl: skipped; could not fetch it from $MULTI_BLEU_WHEEL (see $WORK/multi-bleu/pip.log; set MULTI_BLEU_PERL=/path/to/multi-bleu.perl)"
            MULTI_BLEU=""
            return
        fi
    elif [[ ! -f $MULTI_BLEU ]]; then
        note "multi-bleu.perl: skipped; $MULTI_BLEU missing"
        MULTI_BLEU=""
        return
    fi
    note "multi-bleu.perl: $MULTI_BLEU"
}

MTEVAL=""
setup_mteval() {
    MTEVAL=${MTEVAL_PERL:-}
    if [[ -z $MTEVAL ]]; then
        note "mteval-v13a.pl: skipped; no reachable package registry (Debian, PyPI, npm) ships it (set MTEVAL_PERL=/path/to/mteval-v13a.pl to time it)"
        return
    fi
    if [[ ! -f $MTEVAL ]] || ! command -v perl > /dev/null; then
        note "mteval-v13a.pl: skipped; $MTEVAL missing or no perl"
        MTEVAL=""
        return
    fi
    if ! perl -MXML::Twig -e 1 2> /dev/null; then
        note "mteval-v13a.pl needs XML::Twig: trying apt-get install -y libxml-twig-perl"
        { apt-get install -y libxml-twig-perl || { apt-get update && apt-get install -y libxml-twig-perl; }; } > "$WORK/apt-twig.log" 2>&1 || true
        if ! perl -MXML::Twig -e 1 2> /dev/null; then
            note "mteval-v13a.pl: skipped; XML::Twig unavailable (see $WORK/apt-twig.log)"
            MTEVAL=""
            return
        fi
    fi
    "$PYTHON" "$BENCH_DIR/bench.py" sgm "$D/hyp.txt" "$D/ref.txt" "$D" || die "bench.py sgm failed"
    note "mteval-v13a.pl: $MTEVAL"
}

# ---------------------------------------------------------------- timing
# TIMER ... -o FILE CMD...: runs CMD, writes "wall_seconds peak_rss_kib" as the last line of FILE.
setup_timer() {
    if [[ ${BENCH_TIMER:-auto} == python ]]; then
        TIMER_KIND=python
        TIMER=("$PYTHON" "$BENCH_DIR/bench.py" measure)
        return
    fi
    if ! { [[ -x /usr/bin/time ]] && /usr/bin/time --version 2>&1 | grep -q GNU; }; then
        note "GNU time missing: trying apt-get install -y time"
        { apt-get install -y time || { apt-get update && apt-get install -y time; }; } > "$WORK/apt.log" 2>&1 || true
    fi
    if [[ -x /usr/bin/time ]] && /usr/bin/time --version 2>&1 | grep -q GNU; then
        TIMER_KIND=gnu
        TIMER=(/usr/bin/time -f '%e %M %U %S')
    else
        note "GNU time unavailable: measuring with bench.py (getrusage RUSAGE_CHILDREN)"
        TIMER_KIND=python
        TIMER=("$PYTHON" "$BENCH_DIR/bench.py" measure)
    fi
}

# timed CASE ID LABEL: runs the tool's CMD < IN, RUNS times (REF_RUNS for a reference tool);
# leaves the best wall in BEST_WALL and BEST[CASE.ID], the max peak RSS (KiB) in PEAK_KB and
# PEAK[CASE.ID] (see timed_run).
declare -A BEST=() PEAK=()
timed() {
    local case=$1 id=$2 label=$3 r runs=$RUNS
    [[ $id == bleu-stream* ]] || runs=$REF_RUNS
    unset "BEST[$case.$id]" "PEAK[$case.$id]"
    for ((r = 1; r <= runs; r++)); do
        timed_run "$case" "$id" "$label" "$r" "$runs"
    done
    BEST_WALL=${BEST[$case.$id]} PEAK_KB=${PEAK[$case.$id]}
}

# timed_run CASE ID LABEL R RUNS: run R of RUNS of the tool's CMD < IN; appends it to RUNS_TSV
# and keeps the best wall in BEST[CASE.ID] and the max peak RSS (KiB) in PEAK[CASE.ID].
timed_run() {
    local case=$1 id=$2 label=$3 r=$4 runs=$5 t0 t1 wall rss user sys cpu
    local out=$D/out/$case.$id.out err=$D/out/$case.$id.err tf=$D/out/$case.$id.time
    t0=$EPOCHREALTIME
    if ! "${TIMER[@]}" -o "$tf" "${CMD[@]}" < "$IN" > "$out" 2> "$err"; then
        echo "run.sh: error: $label failed in case '$case': ${CMD[*]} < $IN" >&2
        tail -n 20 "$err" >&2
        exit 1
    fi
    t1=$EPOCHREALTIME
    read -r wall rss user sys < <(tail -n 1 "$tf")
    [[ $TIMER_KIND == gnu ]] && wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    printf '%s\t%s\t%d\t%s\t%s\t%s\n' "$case" "$label" "$r" "$wall" "$rss" "$cpu" >> "$RUNS_TSV"
    printf '  %-9s %-26s run %d/%d  %8.3f s  cpu %7.2f s  %8s MiB\n' "$case" "$label" "$r" "$runs" "$wall" "$cpu" "$(mib "$rss")"
    local best=${BEST[$case.$id]:-}
    if [[ -z $best ]] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then
        BEST[$case.$id]=$wall
    fi
    [[ $rss -le ${PEAK[$case.$id]:-0} ]] || PEAK[$case.$id]=$rss
}

# ---------------------------------------------------------------- main
prepare_corpus
if [[ $QUICK -eq 1 ]]; then
    D=$WORK/quick
    mkdir -p "$D"
    head -n "$QUICK_LINES" "$WORK/corpus.tsv" > "$D/corpus.tsv"
    note "--quick: first $QUICK_LINES lines only, in $D"
else
    D=$WORK
fi
derive_files "$D"
echo "corpus: $D/corpus.tsv  $(count_lines "$D/corpus.tsv") lines, $(wc -c < "$D/corpus.tsv") bytes" \
    "(hyp.txt $(wc -c < "$D/hyp.txt") B, ref.txt $(wc -c < "$D/ref.txt") B)"

mkdir -p "$D/out"
# Outputs of an earlier run must not be compared as if a tool skipped now had produced them.
rm -f "$D"/out/*.out "$D"/out/*.err "$D"/out/*.time
RUNS_TSV=$D/out/runs.tsv
: > "$RUNS_TSV"
setup_timer

ACTIVE=()   # rows of the selected tools
for row in "${TOOLS[@]}"; do
    IFS='|' read -r id label check <<< "$row"
    selected "$id" || continue
    "$(tool_fn "$id")" setup
    ACTIVE+=("$row")
done
REF_ID=""
for row in "${ACTIVE[@]}"; do
    IFS='|' read -r id label check <<< "$row"
    [[ $check != ref ]] || REF_ID=$id
done
[[ -n $REF_ID ]] || note "no reference tool (sacrebleu) selected: scores are not checked"

FAILURES=0
CHECKS=()
echo
echo "timing: $RUNS run(s) per measurement, timer: $TIMER_KIND"
for case in "${CASES[@]}"; do
    # bleu-stream's own measurements (two threads, --threads 1) take turns, run by run: the
    # host's speed drifts by tens of per cent within a minute, and measured one block after the
    # other that drift showed up as thread scaling (2.17x once, on a 2-core host).
    OURS=()
    for row in "${ACTIVE[@]}"; do
        IFS='|' read -r id label check <<< "$row"
        [[ $id == bleu-stream* ]] || continue
        "$(tool_fn "$id")" "$case"
        [[ ${#CMD[@]} -gt 0 ]] || continue
        unset "BEST[$case.$id]" "PEAK[$case.$id]"
        OURS+=("$row")
    done
    for ((r = 1; r <= RUNS; r++)); do
        for row in "${OURS[@]}"; do
            IFS='|' read -r id label check <<< "$row"
            "$(tool_fn "$id")" "$case"
            timed_run "$case" "$id" "$label" "$r" "$RUNS"
        done
    done
    for row in "${ACTIVE[@]}"; do
        IFS='|' read -r id label check <<< "$row"
        [[ $id != bleu-stream* ]] || continue
        "$(tool_fn "$id")" "$case"
        [[ ${#CMD[@]} -gt 0 ]] || continue
        timed "$case" "$id" "$label"
    done
    [[ -n $REF_ID && -s $D/out/$case.$REF_ID.out ]] || continue
    for row in "${ACTIVE[@]}"; do
        IFS='|' read -r id label check <<< "$row"
        [[ $check == yes && -e $D/out/$case.$id.out ]] || continue
        if result=$("$PYTHON" "$BENCH_DIR/bench.py" "compare-$case" "$D/out/$case.$REF_ID.out" "$D/out/$case.$id.out"); then :; else
            FAILURES=$((FAILURES + 1))
        fi
        CHECKS+=("$(printf '%-9s %-26s %s' "$case" "$label" "${result//$'\n'/$'\n'    }")")
    done
done

# NLTK and multi-bleu.perl are the references of their own cases.
pair_check() {   # pair_check CASE TOOL_ID LABEL FILTER: bleu-stream's output vs TOOL_ID's
    local case=$1 id=$2 label=$3 filter=$4 a=$D/out/$1.bleu-stream.out b=$D/out/$1.$2.out result
    [[ -s $a && -s $b ]] || return 0
    if result=$("$PYTHON" "$BENCH_DIR/bench.py" compare-corpus <(grep -E "$filter" "$b") <(grep -E "$filter" "$a")); then :; else
        FAILURES=$((FAILURES + 1))
    fi
    CHECKS+=("$(printf '%-9s %-26s %s' "$case" "bleu-stream vs $label" "$result")")
}
pair_check nltk nltk "NLTK" '^[0-9]'
pair_check multibleu multi-bleu-perl "multi-bleu.perl" '^BLEU = '
pair_check gleu nltk "NLTK corpus_gleu" '^[0-9]'
pair_check nltkchrf nltk "NLTK corpus_chrf" '^[0-9]'
pair_check nistnltk nltk "NLTK corpus_nist" '^[0-9]'
# mteval prints `NIST score = 9.2800  for system "sys"`; bleu-stream -b -w 4 prints `9.2800`.
if [[ -s $D/out/nist.mteval.out && -s $D/out/nist.bleu-stream.out ]]; then
    if result=$("$PYTHON" "$BENCH_DIR/bench.py" compare-corpus \
        <(sed -n 's/^NIST score = \([0-9.]*\).*/\1/p' "$D/out/nist.mteval.out") "$D/out/nist.bleu-stream.out"); then :; else
        FAILURES=$((FAILURES + 1))
    fi
    CHECKS+=("$(printf '%-9s %-26s %s' nist "bleu-stream vs mteval-v13a.pl" "$result")")
fi

MEMLINE=""
if selected bleu-stream; then
    echo
    echo "constant memory: bleu-stream corpus mode on corpus.tsv vs corpus4.tsv (4x)"
    one_kb=${PEAK[corpus.bleu-stream]} one_wall=${BEST[corpus.bleu-stream]}
    tool_bleu_stream corpus4
    timed corpus-4x bleu-stream "bleu-stream (4x)"
    MEMLINE=$(printf 'peak RSS  1x (%s lines): %s MiB   4x (%s lines): %s MiB   ratio %s   (best wall %.3f s vs %.3f s)' \
        "$(count_lines "$D/corpus.tsv")" "$(mib "$one_kb")" "$(count_lines "$D/corpus4.tsv")" "$(mib "$PEAK_KB")" \
        "$(awk -v a="$PEAK_KB" -v b="$one_kb" 'BEGIN { printf "%.2fx", a / b }')" "$one_wall" "$BEST_WALL")
    if result=$("$PYTHON" "$BENCH_DIR/bench.py" compare-corpus "$D/out/corpus.bleu-stream.out" "$D/out/corpus-4x.bleu-stream.out"); then :; else
        FAILURES=$((FAILURES + 1))
    fi
    CHECKS+=("$(printf '%-9s %-26s %s' corpus-4x "bleu-stream 4x vs 1x" "$result")")
fi

# host_capacity: what two single-thread bleu-stream processes get done at once, in units of one
# alone (see the header). Sets CAPLINE.
CAPLINE=""
host_capacity() {
    local cmd=("$BIN" -m chrf -w 1 -b --threads 1) in=$D/corpus.tsv r t0 a p1 p2 alone="" pair=""
    local f1=$D/out/capacity.1 f2=$D/out/capacity.2
    for ((r = 1; r <= RUNS; r++)); do
        t0=$EPOCHREALTIME
        "${cmd[@]}" < "$in" > /dev/null
        a=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f", b - a }')
        [[ -n $alone ]] && awk -v a="$a" -v b="$alone" 'BEGIN { exit !(a >= b) }' || alone=$a
        for f in "$f1" "$f2"; do
            ( t=$EPOCHREALTIME; "${cmd[@]}" < "$in" > /dev/null
              awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f\n", b - a }' > "$f" ) &
        done
        wait
        p1=$(< "$f1") p2=$(< "$f2")
        # The best pair: the one whose slower copy finished first.
        if [[ -z $pair ]] || awk -v a="$p1" -v b="$p2" -v c="${pair% *}" -v d="${pair#* }" \
            'BEGIN { x = a > b ? a : b; y = c > d ? c : d; exit !(x < y) }'; then
            pair="$p1 $p2"
        fi
    done
    CAPLINE=$(awk -v a="$alone" -v p="${pair% *}" -v q="${pair#* }" 'BEGIN {
        printf "host capacity for two CPU-bound processes: %.2fx (bleu-stream -m chrf --threads 1: %.3f s alone, %.3f s and %.3f s as two at once)", a / p + a / q, a, p, q }')
    echo "$CAPLINE"
}
if selected bleu-stream; then
    echo
    echo "host capacity: two single-thread runs at once vs one alone"
    host_capacity
fi

echo
echo "== results ($(count_lines "$D/corpus.tsv") lines$([[ $QUICK -eq 1 ]] && echo ', --quick'); per-run data: $RUNS_TSV)"
grep -v $'^corpus-4x\t' "$RUNS_TSV" > "$D/out/runs.table.tsv" || true
label_of() { local row id label; for row in "${TOOLS[@]}"; do IFS='|' read -r id label _ <<< "$row"; [[ $id == "$1" ]] && echo "$label"; done; }
"$PYTHON" "$BENCH_DIR/bench.py" table "$D/out/runs.table.tsv" "$(label_of "$BASELINE")" \
    "$(label_of bleu-stream-t1)" "$(label_of wc)"
if [[ -n $CAPLINE ]]; then
    echo
    echo "== $CAPLINE"
    echo "   (the 1 -> 2 thread scaling of CPU-bound work is bounded by it)"
fi
if [[ -n $MEMLINE ]]; then
    echo
    echo "== constant memory (bleu-stream -b)"
    echo "$MEMLINE"
fi
echo
echo "== score checks (reference: ${REF_ID:-none})"
if [[ ${#CHECKS[@]} -gt 0 ]]; then printf '%s\n' "${CHECKS[@]}"; else echo "(none)"; fi
if [[ $FAILURES -gt 0 ]]; then
    echo "FAILED: $FAILURES score check(s) did not match" >&2
    exit 1
fi
[[ ${#CHECKS[@]} -eq 0 ]] || echo "all score checks passed"
