#!/usr/bin/env bash
# One batch of GPU work on the lent H100 (the `run` device tool), from the repository root:
#   tools/gpu/h100_batch.sh resident  device-resident stepping: its tests, compute-sanitizer on its
#                                   kernels, time per force evaluation at E05's setting (host
#                                   stepping, device stepping at several shapes)
# Binaries come prebuilt in $CARRY (tools/gpu/prepare_carry.sh: nbody, nbody_tests, libs/).
# Everything lands in $WORK/<phase>/ and is packed into $OUT/<phase>.tar.gz after each step (the
# device tool returns at most 8 files), so that a run stopped at its limit returns what it finished.
set -u
phase=${1:?usage: h100_batch.sh resident}
[ "$phase" = resident ] || { echo "h100_batch.sh: unknown phase '$phase' (resident; the GPU tests and sanitizers are make gpu-check, the experiments tools/gpu/run_experiments.sh)" >&2; exit 2; }
OUT=${OUT:-/tmp/nbody-out}
WORK=${WORK:-/tmp/nbody-work}
W=$WORK/$phase
mkdir -p "$W" "$OUT"
. tools/gpu/carry.sh
export NBODY_TUNE_CACHE=$W/tune_cache.json
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
pack() { tar czf "$OUT/$phase.tar.gz" -C "$WORK" "$phase"; cp "$W/steps.log" "$OUT/${phase}_steps.log" 2> /dev/null; }
step() { echo "== $(date -u +%T) $*" | tee -a "$W/steps.log"; }

# ---- provenance ----
step provenance
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,power.draw,temperature.gpu,pstate,persistence_mode,compute_mode --format=csv
  nvidia-smi -q -d CLOCK,PERFORMANCE,POWER | head -120
  uname -a; cat /etc/os-release | head -3; nproc
} > "$W/provenance.txt" 2>&1
"$NB" --build-info > "$W/build_info.json" 2>&1
# Clock log during the whole phase (SM/memory clock, power, temperature every 500 ms).
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu --format=csv -lms 500 > "$W/clocks.csv" 2>&1 &
smi_pid=$!
pack

if [ "$phase" = resident ]; then
  step "tests [resident]"
  "$NT" "[resident]" -s -r compact > "$W/tests_resident_full.log" 2>&1; echo "nbody_tests [resident] rc=$?" | tee -a "$W/steps.log"
  grep -E "FAILED|SKIPPED|failed|test cases|with expansion" -A3 "$W/tests_resident_full.log" | tail -60 > "$W/tests_resident.log"
  tail -2 "$W/tests_resident_full.log" | tee -a "$W/steps.log"
  pack

  step "compute-sanitizer on the stepping kernels"
  small="run --ic plummer --n 97 --seed 3 --eps 0.01 --engine cuda-split --stepping device --t-end 0.02 --diag-every 0.01"
  for tool in memcheck racecheck synccheck; do
    for p in float double; do
      for m in "--integrator dopri5 --tol 1e-8" "--integrator rk4 --dt 1e-3" "--integrator adams-bashforth --dt 1e-3" \
               "--integrator dop853 --tol 1e-8 --r-min 0.05"; do
        echo "--- $tool $p $m" >> "$W/sanitizer_${tool}.log"
        "$SAN" --tool $tool --error-exitcode 99 "$NB" $small --precision $p $m >> "$W/sanitizer_${tool}.log" 2>&1
        echo "rc=$? ($tool $p $m)" | tee -a "$W/sanitizer_${tool}.log" >> "$W/sanitizer_summary.log"
      done
    done
    # The cluster barrier's variants too (--launch cluster=8), and a shape of several passes per block.
    for m in "--integrator dopri5 --tol 1e-8 --launch cluster=8" "--integrator adams-bashforth --order 4 --dt 1e-3 --launch cluster=8" \
             "--integrator rk4 --dt 1e-3 --launch block=32,split=1" "--integrator adams-bashforth --dt 1e-3 --launch block=64,split=64"; do
      echo "--- $tool double $m" >> "$W/sanitizer_${tool}.log"
      "$SAN" --tool $tool --error-exitcode 99 "$NB" $small --precision double $m >> "$W/sanitizer_${tool}.log" 2>&1
      echo "rc=$? ($tool double $m)" | tee -a "$W/sanitizer_${tool}.log" >> "$W/sanitizer_summary.log"
    done
    pack
  done
  sort "$W/sanitizer_summary.log" | cut -d' ' -f1 | uniq -c | tee -a "$W/steps.log"
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$W"/sanitizer_*.log | sort | uniq -c | tee -a "$W/steps.log"

  step "time per force evaluation at E05's setting (N = 512, two galaxies)"
  mkdir -p "$W/timing"
  e05="run --ic two-galaxies --n 512 --seed 1 --r-min 1e-4"  # double unless a case says otherwise
  timed() {  # label, flags...
    local label=$1; shift
    "$NB" $e05 "$@" --summary "$W/timing/$label.json" > "$W/timing/$label.log" 2>&1
    echo "$label rc=$? $(tail -1 "$W/timing/$label.log")" | tee -a "$W/steps.log"
  }
  # Each case at two lengths: the difference of the wall times over that of the force evaluations
  # is the cost per evaluation without the start-up (CUDA context, initial conditions).
  dp="--integrator dopri5 --tol 1e-12 --h-min 1e-9 --h-max 1e-5 --diag-every 0.01"
  vr="--integrator verner65 --tol 1e-12 --h-min 1e-9 --h-max 1e-5 --diag-every 0.01"
  ab="--integrator adams-bashforth --dt 1e-6 --diag-every 0.001"
  for len in short long; do
    if [ $len = short ]; then te=0.02; tab=0.004; else te=0.1; tab=0.02; fi
    timed dopri5_host_cuda-split_$len $dp --t-end $te --engine cuda-split --stepping host
    timed dopri5_host_openmp-simd_$len $dp --t-end $te --engine openmp-simd
    timed dopri5_device_$len $dp --t-end $te --engine cuda-split --stepping device
    # Shapes: 32 to 128 blocks of 256 threads (the most), 128 and 64 threads; one cluster of 16.
    for sh in block=256,split=16 block=256,split=64 block=128,split=32 block=128,split=16 block=64,split=32 cluster=16; do
      timed dopri5_device_${sh}_$len $dp --t-end $te --engine cuda-split --stepping device --launch $sh
    done
    timed dopri5_device_float_$len $dp --t-end $te --engine cuda-split --stepping device --precision float
    timed verner65_device_$len $vr --t-end $te --engine cuda-split --stepping device
    timed verner65_host_cuda-split_$len $vr --t-end $te --engine cuda-split --stepping host
    timed ab5_device_$len $ab --t-end $tab --engine cuda-split --stepping device
    timed ab5_host_cuda-split_$len $ab --t-end $tab --engine cuda-split --stepping host
    pack
  done
  # Larger N: rk4 at fixed steps (800 and 4000 evaluations), two galaxies, default shape and the
  # cluster of 16.
  for n in 1024 2048 4096; do
    for len in short long; do
      if [ $len = short ]; then te=0.002; else te=0.01; fi
      for sh in block=256 cluster=16; do
        "$NB" run --ic two-galaxies --n $n --seed 1 --r-min 1e-4 --integrator rk4 --dt 1e-5 --diag-every 0.001 --t-end $te \
          --engine cuda-split --stepping device --launch $sh --summary "$W/timing/rk4_n${n}_${sh}_$len.json" \
          > "$W/timing/rk4_n${n}_${sh}_$len.log" 2>&1
        echo "rk4_n${n}_${sh}_$len rc=$?" | tee -a "$W/steps.log"
      done
    done
    pack
  done
  pack
fi

kill "$smi_pid" 2> /dev/null
step done
pack
ls -la "$OUT"

