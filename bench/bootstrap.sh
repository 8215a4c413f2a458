#!/usr/bin/env bash
# bench/bootstrap.sh — speed of the resampling library (src/significance): a sacreBLEU-style
# bootstrap of corpus BLEU (issue 7's target: 1000 resamples over 100k segments in under a
# second), a paired bootstrap and an approximate randomization of one system against a
# baseline, on synthetic BLEU statistics (examples/bootstrap_bench.rs; best of 3 runs each).
#
# Usage: bench/bootstrap.sh [SEGMENTS [SAMPLES [THREADS]]]   (defaults: 100000 1000 all cores)
# Also prints the whole-process time of `bleu-stream compare` on WMT22 de-en (8 systems, BLEU
# and chrF, both tests) when ../shared/data/wmt22 is there.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
cargo build --release --quiet --example bootstrap_bench --bin bleu-stream
"$ROOT/target/release/examples/bootstrap_bench" "$@"

DATA=${WMT22_DIR:-$ROOT/../shared/data/wmt22}
if [ -d "$DATA" ]; then
    S=$DATA/system-outputs/generaltest2022.de-en.hyp
    systems=()
    for s in Online-B JDExploreAcademy LT22 Lan-Bridge Online-A Online-G Online-W Online-Y; do
        systems+=("$S.$s.en")
    done
    for test in --paired-bs --paired-ar; do
        start=$EPOCHREALTIME
        "$ROOT/target/release/bleu-stream" compare -r "$DATA/references/generaltest2022.de-en.ref.A.en" \
            -m bleu,chrf "$test" -i "${systems[@]}" > /dev/null
        end=$EPOCHREALTIME
        awk -v a="$start" -v b="$end" -v t="$test" \
            'BEGIN { printf "compare %s\tWMT22 de-en, 1984 segments, 8 systems, bleu+chrf\t%.3f s\n", t, b - a }'
    done
else
    echo "# $DATA not found: compare on WMT22 not timed"
fi
