#!/usr/bin/env bash
# Runs every reader's fuzzer of a build made with NBODY_FUZZ (`make sanitize-test`) for SECONDS each,
# seeded with the files that build's nbody writes (seeds.py) and the regression corpus (corpus/).
# Inputs that add coverage are kept in BUILD/fuzz/corpus/READER (the next run starts from them);
# an input that breaks a reader is left as BUILD/fuzz/crash-READER-* and fails the run: copy it
# into tests/fuzz/corpus/READER/ once mended (README.md).
#   tests/fuzz/fuzz.sh BUILD SECONDS [READER...]    (default: every fuzz_* of BUILD)
set -euo pipefail
build=$1 seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# A library's malloc of a size read from a damaged file fails as it would without ASan (HDF5 then
# returns an error, which nbody refuses in one line) instead of aborting.
export ASAN_OPTIONS="allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
work=$build/fuzz
mkdir -p "$work"
python3 "$here/seeds.py" "$build/nbody" "$work/seeds" >/dev/null
readers=("$@")
if [ ${#readers[@]} -eq 0 ]; then
  for f in "$build"/tests/fuzz/fuzz_*; do readers+=("${f##*/fuzz_}"); done
fi
broken=0
for r in "${readers[@]}"; do
  mkdir -p "$work/corpus/$r"
  log=$work/$r.log
  # -timeout: an input running longer is a hang; -max_len: checkpoints of a few dozen bodies
  if ! "$build/tests/fuzz/fuzz_$r" -max_total_time="$seconds" -timeout=30 -max_len=65536 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$work/crash-$r-" \
      "$work/corpus/$r" "$work/seeds/$r" "$here/corpus/$r" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: $r broke (its input: $work/crash-$r-*; the log: $log)" >&2
    broken=1
    continue
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
  echo "fuzz: $r: $runs inputs in ${seconds} s, $cov, corpus $(ls "$work/corpus/$r" | wc -l) files, no crash"
done
exit $broken
