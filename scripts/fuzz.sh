#!/usr/bin/env bash
# Builds the libFuzzer targets of the file readers (tests/fuzz) with clang++ in build/fuzz and
# runs each for SECONDS seconds, as many at once as there are cores:
#   scripts/fuzz.sh [SECONDS]        (default 60)
# The corpora live in build/fuzz/corpus/<target> and grow from run to run; they are seeded from
# the presets, the catalog, the published runs (../shared/validation/v2 is copied at run time,
# never committed), real `sweep --shard` outputs (tests/data/sweep-shards) and saved sweeps
# (tests/data/saved-sweeps). A crash, a sanitizer report, a leak, a timeout or running out of memory
# fails the script; the input that caused it is left in build/fuzz/findings/ (to replay it:
# build/fuzz/tests/fuzz/fuzz_<reader> FILE). A finding becomes a file in
# tests/data/fuzz-regressions/, which test_fuzzregressions reads with every reader.
set -euo pipefail

seconds=${1:-60}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$here/build/fuzz"
max_len=65536
rss_limit_mb=2048
# A single input parsed for longer than this is a finding (a reader is linear in its input).
timeout_s=10

CXX=${FUZZ_CXX:-clang++} cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DARCHIPELAGO_BUILD_FUZZERS=ON -DARCHIPELAGO_BUILD_GUI=OFF -DARCHIPELAGO_BUILD_TESTS=OFF \
  -DARCHIPELAGO_BUILD_BENCH=OFF -DARCHIPELAGO_WERROR="${ARCHIPELAGO_WERROR:-ON}" >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzzers

seed() {
  local target=$1
  shift
  mkdir -p "$build/corpus/$target"
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$build/corpus/$target/seed-$(basename "$f")"
  done
  # Every past finding is a seed too: the fuzzer starts from the inputs that once broke it.
  for f in "$here"/tests/data/fuzz-regressions/*; do
    [ -f "$f" ] && cp "$f" "$build/corpus/$target/regression-$(basename "$f")"
  done
  return 0
}
seed fuzz_scenario "$here"/presets/*.json
seed fuzz_publishedruns "$here"/../shared/validation/v2/*.json "$here"/tests/data/hopper-runs.json \
  "$here"/tests/data/calibration/measured-runs.json
seed fuzz_catalog "$here"/resources/catalog.json
seed fuzz_space "$here"/tests/data/spaces/*.json
seed fuzz_merge "$here"/tests/data/sweep-shards/*.json
seed fuzz_savedsweep "$here"/tests/data/saved-sweeps/*.json
seed fuzz_launchimport "$here"/tests/data/launch/seeds/*
seed fuzz_calibration "$here"/tests/data/calibration/* "$here"/tests/data/logs/*.log

mkdir -p "$build/findings"
# One fuzzer per core at a time: each still runs SECONDS seconds on a core of its own.
fuzz_one() {
  local target=$1
  "$build/tests/fuzz/$target" "$build/corpus/$target" \
    -dict="$here/tests/fuzz/json.dict" -max_total_time="$seconds" -max_len="$max_len" \
    -rss_limit_mb="$rss_limit_mb" -timeout="$timeout_s" -print_final_stats=1 \
    -artifact_prefix="$build/findings/$target-" 2>"$build/$target.log"
}
targets=(fuzz_scenario fuzz_publishedruns fuzz_catalog fuzz_space fuzz_merge fuzz_savedsweep
  fuzz_launchimport fuzz_calibration)
jobs=$(nproc)
failed=()
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}")
  pids=()
  for target in "${batch[@]}"; do
    echo "== $target: ${seconds} s"
    fuzz_one "$target" &
    pids+=($!)
  done
  for k in "${!batch[@]}"; do
    target=${batch[$k]}
    if ! wait "${pids[$k]}"; then
      tail -n 60 "$build/$target.log" >&2
      failed+=("$target")
    else
      echo "-- $target"
      grep -E "^(stat::number_of_executed_units|stat::new_units_added)" "$build/$target.log" || true
    fi
  done
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: findings in ${failed[*]}; inputs in $build/findings/" >&2
  ls -l "$build/findings" >&2
  exit 1
fi
echo "fuzz: no findings"
