#!/usr/bin/env bash
# tests/gpu/check.sh: the GPU's correctness, on any Linux machine with an NVIDIA GPU and a CUDA
# toolkit (`make gpu-check` runs it on $(BUILD) after `make build`).
#
# Usage: tests/gpu/check.sh BUILD_DIR         run the checks with BUILD_DIR's nbody and nbody_tests
#        tests/gpu/check.sh --list BUILD_DIR  print the sanitizer cases it would run (no GPU needed)
#        tests/gpu/check.sh [--help]          this text
#
# What it checks, in this order (each a step with its own log; a progress line per step):
#   tests       nbody_tests on the GPU tags: "[gpu]" (every engine of the registry against `simple` in
#               every precision it runs in, every launch-knob value, the tree engines, the CUDA
#               cell-list builders, DPD and SPH on the GPU against the CPU bit for bit, device-resident
#               steps, potentials) and the host-side tests of the same code ("[tree]", "[cells]",
#               "[shortrange]", "[dpd]", "[resident]"), MPI and CLI tests left out (`make test` runs
#               those); the worst norm per engine and tolerance in tests_worst_norms.csv.
#   sanitizer   compute-sanitizer memcheck, racecheck and synccheck on every case of
#               tests/gpu/check.py, which reads `nbody list engines --json` (so a new CUDA engine is
#               covered without editing anything):
#                 allpairs    every CUDA all-pairs engine in every precision it runs in, two values of
#                             each launch knob (`nbody tune --no-store`: all their combinations), the
#                             clamp (--r-min) off and on;
#                 resident    device-resident steps (Runge-Kutta stages, step control, Adams-Bashforth
#                             with clusters);
#                 tree        every CUDA tree engine, float and double, each knob at both ends, leaves
#                             of 1 and 8, the clamp, a host-built tree, leapfrog on the device (octree);
#                 shortrange  DPD on the GPU with every cell-list builder, each builder alone
#                             (`nbody cells`), SPH on the GPU (2-D and 3-D dam breaks, Poiseuille);
#                 potential   `nbody potential` on the GPU.
#   mpi         (by default where mpiexec is on PATH and nbody is built with MPI) MPI ranks sharing
#               the GPU: nbody_tests "[mpi]"; every CUDA engine that ranks split (mpi:, and mpi-ring:
#               where it splits by blocks of bodies), float and double, on two ranks against one
#               process, bit for bit (ranks_results.tsv); compute-sanitizer memcheck, racecheck and
#               synccheck of each on two ranks (the sanitizer family mpi).
#   large       (only when named) the kd-tree built on the GPU at a million bodies (about 9 minutes).
# Exit status: 0 all passed; 1 a test failed, a sanitizer reported an error or a run failed;
# 2 nothing checked: no CUDA device for nbody, no compute-sanitizer, no python3 or no build.
#
# Settings (environment):
#   GPU_CHECK_STEPS    steps to run, from: tests sanitizer mpi large, or single sanitizer families
#                      (allpairs resident tree shortrange potential); default "tests sanitizer",
#                      and mpi where mpiexec is on PATH and nbody is built with MPI
#   GPU_CHECK_QUICK=1  a quick subset of the sanitizer cases: one precision and one value of each
#                      knob per engine, float DPD in one box per builder (81 cases instead of 303 with
#                      today's registry)
#   GPU_CHECK_OUT      the folder everything goes to, cleared first (default BUILD_DIR/gpu-check):
#                      provenance.txt, build_info.json, logs/ (one log per step), sanitizer_cases.tsv,
#                      sanitizer_results.tsv, tests_worst_norms.csv, summary.txt
#   GPU_CHECK_JOBS     sanitizer runs at a time (default: a quarter of the cores, 1 to 4; 1 where the
#                      GPU is in an exclusive compute mode): the sanitizers spend their time on the CPU
#   GPU_CHECK_TIMEOUT  seconds one sanitizer run may take (default 300) before it counts as failed
#   GPU_CHECK_SANITIZER  compute-sanitizer to use (default: on PATH, else /usr/local/cuda*/bin)
# BUILD_DIR is a CMake build folder (nbody, tests/nbody_tests) or a carried copy of one
# (nbody, nbody_tests, libs/; each binary may come as NAME.gz or NAME.xz: tools/gpu/README.md).
#
# Time on one H100 (16 cores), estimated from the device batch scripts' logs that ran the same
# steps: tests about 3.5-4 minutes (nbody_tests "[gpu],[potential]" took 3 min 28 s); the 303
# sanitizer runs at 0.7-1.3 s each, about 5 minutes one at a time, 1.5-2 minutes four at a time;
# in all about 6 minutes with the default jobs (9-10 one at a time), GPU_CHECK_QUICK=1 about 4.5.

set -u
export LC_ALL=C  # EPOCHREALTIME and awk agree on the decimal point

usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; }
die() { echo "gpu-check: $*" >&2; exit 2; }

list_only=0
case "${1:-}" in
  "" | -h | --help) usage; exit 0 ;;
  --list) list_only=1; shift ;;
esac
[ $# -eq 1 ] || die "one build folder expected, got $#: $* (tests/gpu/check.sh --help)"
B=${1%/}
here=$(cd "$(dirname "$0")" && pwd)

# A carried build may hold its binaries compressed (the device tool's 64 MiB): tools/gpu/carry.sh
# unpacks them in place and puts its libs/ on LD_LIBRARY_PATH.
[ -d "$B" ] || die "no build folder $B"
CARRY=$B . "$here/../../tools/gpu/carry.sh"
binary() {  # binary NAME PLACE...: the first place holding the executable NAME; "" if none
  local p
  for p in "${@:2}"; do
    if [ -x "$p/$1" ]; then echo "$(cd "$p" && pwd)/$1"; return; fi
  done
}

command -v python3 > /dev/null || die "no python3 (it reads nbody's JSON)"
quick=()
[ "${GPU_CHECK_QUICK:-0}" = 0 ] || quick=(--quick)
NB=$(binary nbody "$B")
[ -n "$NB" ] || die "no nbody in $B (make build)"

if [ "$list_only" = 1 ]; then
  cases=$(python3 "$here/check.py" cases "$NB" "${quick[@]}") || die "cannot list the sanitizer cases of $NB"
  awk -F'\t' '{ printf "%4d  %-10s %-9s nbody %s\n", NR, $1, $2, $4 }' <<< "$cases"
  echo "$(grep -c . <<< "$cases") sanitizer cases${quick:+ (GPU_CHECK_QUICK)}"
  exit 0
fi

# The steps asked for, each sanitizer family named alone (mpi: its tests, the ranks against one
# process and its sanitizer family).
info=$("$NB" --build-info 2> /dev/null) || die "$NB --build-info failed"
MPIEXEC=$(command -v mpiexec)
with_mpi=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["build"].get("mpi") or "")' <<< "$info")
default_steps="tests sanitizer$([ -n "$MPIEXEC" ] && [ -n "$with_mpi" ] && echo " mpi")"
families="allpairs resident tree shortrange potential"
steps=" "
for s in ${GPU_CHECK_STEPS:-$default_steps}; do
  case "$s" in
    sanitizer) steps+="$families " ;;
    tests | large | mpi | allpairs | resident | tree | shortrange | potential) steps+="$s " ;;
    *) die "unknown step '$s' in GPU_CHECK_STEPS (tests sanitizer mpi large $families)" ;;
  esac
done
want() { [[ "$steps" == *" $1 "* ]]; }
chosen=$(for f in $families mpi; do want "$f" && printf '%s,' "$f"; done)
chosen=${chosen%,}

# Nothing runs without all it needs: one line names what is missing.
missing=()
cuda=$(python3 "$here/check.py" device "$B/nbody" <<< "$info") || die "cannot read $NB --build-info"
[ -n "$cuda" ] && missing+=("$cuda")
sanitizer() {
  local f
  command -v compute-sanitizer && return
  for f in /usr/local/cuda*/bin/compute-sanitizer; do [ -x "$f" ] && echo "$f" && return; done
}
SAN=${GPU_CHECK_SANITIZER:-$(sanitizer)}
[ -n "$chosen" ] && [ ! -x "$SAN" ] && missing+=("compute-sanitizer (not on PATH nor in /usr/local/cuda*/bin; GPU_CHECK_SANITIZER names one)")
NT=$(binary nbody_tests "$B/tests" "$B")
{ want tests || want large || want mpi; } && [ -z "$NT" ] && missing+=("nbody_tests (in $B/tests or $B)")
want mpi && [ -z "$MPIEXEC" ] && missing+=("mpiexec on PATH (the step mpi)")
want mpi && [ -z "$with_mpi" ] && missing+=("MPI in $NB (--build-info build.mpi; the step mpi)")
if want mpi && [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
[ ${#missing[@]} -eq 0 ] || die "nothing checked: no $(printf '%s; no ' "${missing[@]}" | sed 's/; no $//')"

D=${GPU_CHECK_OUT:-$B/gpu-check}
# The folder is cleared: only one that is new, empty or an earlier check's (its provenance.txt).
if [ -d "$D" ] && [ -n "$(ls -A "$D")" ] && [ ! -f "$D/provenance.txt" ]; then
  die "GPU_CHECK_OUT $D holds other files and would be cleared: name a new folder"
fi
rm -rf -- "$D"
mkdir -p "$D/logs" "$D/scratch" || die "cannot create $D"
D=$(cd "$D" && pwd)
export NBODY_TUNE_CACHE=$D/tune_cache.json  # the engines' own shapes, not a tuning cache of this machine

{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,temperature.gpu,pstate,persistence_mode,compute_mode --format=csv
  uname -a; head -3 /etc/os-release; nproc; python3 --version
  echo "nbody: $NB"; echo "nbody_tests: ${NT:-none}"; echo "compute-sanitizer: ${SAN:-none}"
  [ -x "$SAN" ] && "$SAN" --version
  echo "OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-} LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  echo "GPU_CHECK_STEPS=${GPU_CHECK_STEPS:-} GPU_CHECK_QUICK=${GPU_CHECK_QUICK:-}"
} > "$D/provenance.txt" 2>&1
echo "$info" > "$D/build_info.json"

jobs=${GPU_CHECK_JOBS:-$(($(nproc) / 4))}
((jobs < 1)) && jobs=1
((jobs > 4)) && [ -z "${GPU_CHECK_JOBS:-}" ] && jobs=4
grep -qi exclusive <(nvidia-smi --query-gpu=compute_mode --format=csv,noheader 2> /dev/null) && jobs=1

if [ -n "$chosen" ]; then
  python3 "$here/check.py" cases "$NB" --families "$chosen" "${quick[@]}" > "$D/sanitizer_cases.tsv" \
    || die "cannot list the sanitizer cases of $NB"
fi
ncases=0
[ -s "$D/sanitizer_cases.tsv" ] && ncases=$(wc -l < "$D/sanitizer_cases.tsv")
total=$((ncases + $(want tests && echo 1 || echo 0) + $(want large && echo 1 || echo 0) + $(want mpi && echo 2 || echo 0)))
t0=$EPOCHREALTIME
elapsed() { awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { s = b - a; printf "%d:%02d", s / 60, s % 60 }'; }
seconds() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
progress() {  # progress STEP MESSAGE [SECONDS]
  printf 'gpu-check [%*d/%d] %s (%s%s elapsed)\n' ${#total} "$1" "$total" "$2" "${3:+$3 s, }" "$(elapsed)"
}
echo "gpu-check: $total steps ($ncases sanitizer runs, $jobs at a time) into $D"
step=0

# nbody_tests with every passing assertion (-s) so that the worst norms can be read; the output is
# filtered as it streams, since the tree tests alone make hundreds of thousands of lines.
run_tests() {  # run_tests NAME SPEC
  local name=$1 spec=$2 t=$EPOCHREALTIME log rc n failed passed
  step=$((step + 1))
  log=$D/logs/$(printf %03d "$step")-tests-$name.log
  progress "$step" "nbody_tests $spec: started"
  n=$("$NT" "$spec" --list-test-names-only 2> /dev/null | grep -c .)
  "$NT" "$spec" -s -r compact -d yes < /dev/null 2>&1 \
    | grep -E "failed|FAILED|SKIPPED|warning:|norm = |^[0-9.]+ s: |^(Passed|Failed|No tests)" > "$log"
  rc=${PIPESTATUS[0]}
  failed=$(sed -nE 's/^Failed (both |all )?([0-9]+) test case.*/\2/p' "$log" | tail -1)
  passed=$(sed -nE 's/^Passed (both |all )?([0-9]+) test case.*/\2/p' "$log" | tail -1)
  if [ -n "$failed" ]; then passed=$((n - failed)); elif [ -n "$passed" ]; then failed=0; else failed="?" passed="?"; fi
  printf 'spec=%s\ntotal=%s\npassed=%s\nfailed=%s\nskips=%s\nrc=%s\nlog=%s\n' "$spec" "$n" "$passed" "$failed" \
    "$(grep -c SKIPPED "$log")" "$rc" "${log##*/}" > "$D/tests_result_$name.txt"
  [ "$name" = gpu ] && python3 "$here/check.py" norms "$log" > "$D/tests_worst_norms.csv"
  progress "$step" "nbody_tests $name: $n test cases, $passed passed, $failed failed, rc=$rc, logs/${log##*/}" "$(seconds "$t")"
}

want tests && run_tests gpu "[gpu]~[mpi],[tree]~[cli]~[mpi],[cells]~[cli]~[mpi],[shortrange]~[cli]~[mpi],[dpd]~[cli]~[mpi],[resident]~[cli]~[mpi]"
want large && run_tests large "[cuda-kdtree-large]"
if want mpi; then
  run_tests mpi "[mpi]"
  step=$((step + 1)) t=$EPOCHREALTIME
  progress "$step" "MPI ranks against one process: started"
  log=$D/logs/$(printf %03d "$step")-ranks.log
  python3 "$here/check.py" ranks "$NB" "$MPIEXEC" "$D" > "$log" 2>&1
  progress "$step" "MPI ranks against one process: $(grep -c ': same$' "$log") of $(grep -c '^gpu-check ranks:' "$log") \
the same, logs/${log##*/}" "$(seconds "$t")"
fi

# One sanitizer run: its log, a result row (index, family, tool, label, rc, ok|errors|failed,
# errors reported, log) and a progress line. compute-sanitizer exits 99 on an error it found; any
# other failure of the run, or a log without the sanitizer's summary, is a failed run.
sanitize() {  # sanitize INDEX FAMILY TOOL LABEL ARGS
  local i=$1 family=$2 tool=$3 label=$4 args=$5 t=$EPOCHREALTIME rc errors status name
  name=$(printf '%03d-%s-%s.log' "$i" "$tool" "$(printf '%s' "$family $label" | tr -c 'A-Za-z0-9.,=_-' '_' | cut -c1-120)")
  # shellcheck disable=SC2086  # the arguments are words without spaces (tests/gpu/check.py)
  local ranks=()
  [ "$family" = mpi ] && ranks=("$MPIEXEC" -n 2 --oversubscribe)  # two ranks sharing the GPU
  (cd "$D/scratch" && timeout -k 10 "${GPU_CHECK_TIMEOUT:-300}" "${ranks[@]}" "$SAN" --tool "$tool" --error-exitcode 99 \
    "$NB" $args) > "$D/logs/$name" 2>&1
  rc=$?
  errors=$(sed -nE 's/.*ERROR SUMMARY: ([0-9]+) error.*/\1/p; s/.*RACECHECK SUMMARY: .*\(([0-9]+) error.*/\1/p' "$D/logs/$name" \
    | awk '{ s += $1; n++ } END { print n ? s : "none" }')
  if [ "$rc" = 99 ] || { [ "$errors" != none ] && [ "$errors" -gt 0 ]; }; then status=errors
  elif [ "$rc" = 0 ] && [ "$errors" = 0 ]; then status=ok
  else status=failed; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$family" "$tool" "$label" "$rc" "$status" "$errors" "$name" \
    >> "$D/sanitizer_results.tsv"
  progress "$i" "$tool $family $label: $status$([ "$status" = ok ] || echo " (rc=$rc, errors $errors), logs/$name")" "$(seconds "$t")"
}

if [ "$ncases" -gt 0 ]; then
  : > "$D/sanitizer_results.tsv"
  while IFS=$'\t' read -r family tool label args; do
    step=$((step + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    sanitize "$step" "$family" "$tool" "$label" "$args" < /dev/null &
  done < "$D/sanitizer_cases.tsv"
  wait
  sort -n -o "$D/sanitizer_results.tsv" "$D/sanitizer_results.tsv"
fi
rm -rf "$D/scratch"

echo "gpu-check: done in $(elapsed); summary in $D/summary.txt"
python3 "$here/check.py" summary "$D"
