#!/usr/bin/env bash
# Runs every cargo-fuzz target of bleu-stream for a bounded time (issue 6).
#
#   FUZZ_SECONDS=60 fuzz/run.sh [TARGET...]      (default: every target, 60 s each)
#
# Only the machine's stable toolchain exists here; cargo-fuzz needs nightly flags (-Z
# sanitizer=address, sancov passes), which stable accepts with RUSTC_BOOTSTRAP=1. cargo-fuzz is
# installed from crates.io when missing. The committed seed corpus (fuzz/corpus/<target>) is
# only read: new inputs go to a scratch directory, so a run leaves the work tree as it was.
# A crash, a failed assertion, a leak or a timeout of one input (10 s) fails the run; its
# input is kept in fuzz/artifacts/<target>/ — turn it into a regression test in tests/.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${FUZZ_SECONDS:-60}
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install --locked cargo-fuzz --version 0.13.2
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi

echo "== cargo fuzz build ($(rustc --version))"
cargo fuzz build

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=()
for t in "${targets[@]}"; do
  echo "== fuzz $t for ${seconds}s"
  mkdir -p "$scratch/$t" "corpus/$t"
  log="$scratch/$t.log"
  set +e
  cargo fuzz run "$t" "$scratch/$t" "corpus/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=8192 \
    -print_final_stats=1 >"$log" 2>&1
  status=$?
  set -e
  # libFuzzer's summary: executions, coverage (edges), features, corpus size.
  grep -E '^#[0-9]+[[:space:]]+DONE|^Done [0-9]+ runs|stat::number_of_executed_units' "$log" | tail -3 \
    | sed "s/^/fuzz $t: /" || true
  if [ "$status" -ne 0 ]; then
    failed+=("$t")
    echo "fuzz $t: FAILED (exit $status); the end of its log:"
    tail -40 "$log"
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failing targets: ${failed[*]} (inputs in fuzz/artifacts/)"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, no failure"
