# Sourced by a device batch script, from the repository root, after it sets NAME (what its results
# are called): `NAME=verify; . tools/gpu/batch_start.sh`. Sets W=$WORK/$NAME (everything the batch
# writes), NB and NT (tools/gpu/carry.sh), SAN (compute-sanitizer), a tuning cache of its own,
# pack (W into $OUT/$NAME.tar.gz and the step log beside it, after each step, so that a call
# stopped at its limit returns what it finished), step (a dated line in the step log), run_tests
# (nbody_tests by spec) and timing_row (a bench row into $W/timings.csv); records
# the provenance (nvidia-smi, `nbody --build-info`) and starts a log of the clocks (stop it with
# `kill $smi_pid`).
set -u
OUT=${OUT:-/tmp/nbody-out}
WORK=${WORK:-/tmp/nbody-work}
W=$WORK/$NAME
rm -rf "$W"  # a machine still warm from an earlier call keeps its files: start afresh
mkdir -p "$W" "$OUT"
. tools/gpu/carry.sh
export NBODY_TUNE_CACHE=$W/tune_cache.json
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
pack() { tar czf "$OUT/$NAME.tar.gz" -C "$WORK" "$NAME"; cp "$W/steps.log" "$OUT/${NAME}_steps.log" 2> /dev/null; }
# `timing_row COLUMNS VALUES COMMAND...`: runs an `nbody bench` command and appends its row to
# $W/timings.csv followed by VALUES (comma-separated; the header, written on first use, by COLUMNS).
timing_row() {
  local columns=${1:+,$1} values=${2:+,$2}
  shift 2
  "$@" > "$W/bench.csv" 2>&1
  [ -s "$W/timings.csv" ] || head -1 "$W/bench.csv" | sed "s/\$/$columns/" > "$W/timings.csv"
  tail -1 "$W/bench.csv" | sed "s/\$/$values/" >> "$W/timings.csv"
}
step() { echo "== $(date -u +%T) $*" | tee -a "$W/steps.log"; }
# `run_tests SPEC...`: nbody_tests for each test spec, its log in $W/tests_<spec>.log (each test's
# time listed, so the log shows what ran), failures and skips gathered in $W/tests_failures.log,
# the outcome in the step log.
run_tests() {
  local t log
  for t in "$@"; do
    step "tests $t"
    log="$W/tests_${t//[^a-z-]/}.log"
    "$NT" "$t" -d yes > "$log" 2>&1; echo "nbody_tests $t rc=$?" | tee -a "$W/steps.log"
    grep -E "failed|SKIPPED" -A12 "$log" | head -150 >> "$W/tests_failures.log"
    tail -3 "$log" | tee -a "$W/steps.log"
    pack
  done
}
# `sanitize TOOL NBODY-ARGS...`: one nbody run under compute-sanitizer's TOOL, logged in
# $W/sanitizer_TOOL.log, its exit code in $W/sanitizer_summary.log; `sanitizer_summary`: the codes
# counted and the sanitizers' own summaries, into the step log.
sanitize() {
  local tool=$1; shift
  echo "--- $tool $*" >> "$W/sanitizer_$tool.log"
  "$SAN" --tool $tool --error-exitcode 99 "$NB" "$@" >> "$W/sanitizer_$tool.log" 2>&1
  echo "rc=$? ($tool $*)" >> "$W/sanitizer_summary.log"
}
sanitizer_summary() {
  cut -d' ' -f1 "$W/sanitizer_summary.log" | sort | uniq -c | tee -a "$W/steps.log"
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|SYNCCHECK SUMMARY" "$W"/sanitizer_*.log | sort | uniq -c | tee -a "$W/steps.log"
  pack
}
# The experiments named in $1 through the runner (--profile full), each bounded by LIMIT seconds
# (default 280); FORCE= resumes from the points of an earlier call (carried as results/.points/ID).
run_experiments() {
  for e in $1; do
    step "$e through the runner"
    PYTHONUNBUFFERED=1 timeout -s INT "${LIMIT:-280}" python3 experiments/runner.py run $e --profile full ${FORCE---force} \
      --nbody "$NB" > "$W/runner_$e.log" 2>&1
    echo "runner $e rc=$?" | tee -a "$W/steps.log"
    tail -3 "$W/runner_$e.log" | tee -a "$W/steps.log"
    cp results/$e.csv results/$e.meta.json "$W/" 2>> "$W/steps.log"
    cp results/${e}_timeseries.* "$W/" 2> /dev/null  # an experiment's time series, where it has one
    tar czf "$W/points_$e.tar.gz" results/.points/$e 2> /dev/null
    pack
  done
}

step provenance
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,power.draw,temperature.gpu,pstate,persistence_mode,compute_mode --format=csv
  uname -a; head -3 /etc/os-release; nproc; python3 --version
} > "$W/provenance.txt" 2>&1
"$NB" --build-info > "$W/build_info.json" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu --format=csv -lms 500 > "$W/clocks.csv" 2>&1 &
smi_pid=$!
pack
