#!/usr/bin/env bash
# One batch of GPU work on the lent H100 (the `run` device tool), from the repository root:
#   tools/gpu/h100_batch.sh check   provenance, the GPU tests, compute-sanitizer memcheck and
#                                   racecheck of every CUDA kernel, quick timings
#   tools/gpu/h100_batch.sh sweep   E13 tuning, E09 time vs N, E10 block sweep, E11 size x split,
#                                   E12 unroll, (E24 uses E09/E13 and the clocks logged here)
#   tools/gpu/h100_batch.sh final   after a kernel change: the GPU tests, the sanitizers on float,
#                                   Nsight Compute at full occupancy, the float timings again
#   tools/gpu/h100_batch.sh resident  device-resident stepping: its tests, compute-sanitizer on its
#                                   kernels, time per force evaluation at E05's setting (host
#                                   stepping, device stepping at several shapes)
# Binaries come prebuilt in $CARRY (tools/gpu/prepare_carry.sh: nbody, nbody_tests, libs/).
# Everything lands in $WORK/<phase>/ and is packed into $OUT/<phase>.tar.gz after each step (the
# device tool returns at most 8 files), so that a run stopped at its limit returns what it finished.
set -u
phase=${1:?usage: h100_batch.sh check|sweep|final|resident}
OUT=${OUT:-/tmp/nbody-out}
WORK=${WORK:-/tmp/nbody-work}
W=$WORK/$phase
mkdir -p "$W" "$OUT"
. tools/gpu/carry.sh
export NBODY_TUNE_CACHE=$W/tune_cache.json
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
pack() { tar czf "$OUT/$phase.tar.gz" -C "$WORK" "$phase"; cp "$W/steps.log" "$OUT/${phase}_steps.log" 2> /dev/null; }
step() { echo "== $(date -u +%T) $*" | tee -a "$W/steps.log"; }

# ---- provenance (every phase) ----
step provenance
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,power.draw,temperature.gpu,pstate,persistence_mode,compute_mode --format=csv
  nvidia-smi -q -d CLOCK,PERFORMANCE,POWER | head -120
  uname -a; cat /etc/os-release | head -3; nproc
} > "$W/provenance.txt" 2>&1
"$NB" --build-info > "$W/build_info.json" 2>&1
# NVIDIA's OpenCL driver: register its ICD with the (carried) loader.
icd=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib64/libnvidia-opencl.so.1 2>/dev/null | head -1)
mkdir -p /etc/OpenCL/vendors
if [ -n "$icd" ]; then echo "$icd" > /etc/OpenCL/vendors/nvidia.icd; else echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; fi
echo "opencl icd: ${icd:-libnvidia-opencl.so.1 (not found by path)}" >> "$W/provenance.txt"
# Clock log during the whole phase (SM/memory clock, power, temperature every 500 ms).
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu --format=csv -lms 500 > "$W/clocks.csv" 2>&1 &
smi_pid=$!
pack

if [ "$phase" = check ]; then
  step "tests [gpu]"
  "$NT" "[gpu]" -s -r compact > "$W/tests_gpu_full.log" 2>&1; echo "nbody_tests [gpu] rc=$?" | tee -a "$W/steps.log"
  grep -E "FAILED|SKIPPED|failed|test cases" "$W/tests_gpu_full.log" | tail -40 > "$W/tests_gpu.log"
  tail -3 "$W/tests_gpu_full.log" | tee -a "$W/steps.log"
  pack

  step "compute-sanitizer ($SAN)"
  for tool in memcheck racecheck; do
    for p in float double dd; do
      for e in cuda-naive cuda-tiled cuda-split; do
        case $e in
          cuda-naive) args="--blocks 64,100" ;;
          cuda-tiled) if [ $p = dd ]; then args="--blocks 32,96 --unrolls 1,4 --ipts 1,2"; else args="--blocks 32,96 --unrolls 1,8 --ipts 1,4"; fi ;;
          cuda-split) if [ $p = dd ]; then args="--blocks 32 --splits 1,3 --unrolls 2 --ipts 2"; else args="--blocks 32,64 --splits 1,3,7 --unrolls 4 --ipts 1,2"; fi ;;
        esac
        for law in "" "--r-min 0.05"; do
          echo "--- $tool $e $p $args $law" >> "$W/sanitizer_${tool}.log"
          "$SAN" --tool $tool --error-exitcode 99 "$NB" tune --engine $e --precision $p --n 333 $args --repeats 1 --no-store $law \
            >> "$W/sanitizer_${tool}.log" 2>&1
          echo "rc=$? ($tool $e $p $law)" | tee -a "$W/sanitizer_${tool}.log" >> "$W/sanitizer_summary.log"
        done
      done
    done
    pack
  done
  cat "$W/sanitizer_summary.log" | sort | uniq -c | sort -rn | head -5 | tee -a "$W/steps.log"
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$W"/sanitizer_*.log | sort | uniq -c | tee -a "$W/steps.log"

  step "quick timings (default shapes)"
  {
    for p in float double; do
      for e in cuda-tiled cuda-split; do
        "$NB" tune --engine $e --precision $p --n 1048576 --blocks 256 --unrolls 8 --ipts 2,4 --repeats 2 --no-store 2>&1
        "$NB" tune --engine $e --precision $p --n 4096 --blocks 64,128,256 --unrolls 8 --ipts 1,2 --repeats 5 --no-store 2>&1
      done
    done
    "$NB" tune --engine cuda-tiled --precision dd --n 131072 --blocks 128 --unrolls 1,4 --ipts 1,2 --repeats 1 --no-store 2>&1
    "$NB" bench --engine opencl-tiled --precision float --n 65536 --repeats 3 2>&1
    "$NB" bench --engine opencl-tiled --precision double --n 65536 --repeats 3 2>&1
  } > "$W/quick_timings.csv"
  grep -E ",ok,|device-events|error" "$W/quick_timings.csv" | cut -d, -f1-9 | tee -a "$W/steps.log"
  pack

  step "SASS of two kernels"
  if command -v cuobjdump > /dev/null; then
    for f in '_ZN5nbody4cuda12tiled_kernelIfNS0_10DeviceMathILb0EEELi8ELi4EEEvNS0_9TiledArgsIT_EE' \
             '_ZN5nbody4cuda12tiled_kernelIdNS0_10DeviceMathILb0EEELi8ELi2EEEvNS0_9TiledArgsIT_EE'; do
      cuobjdump -sass -fun "$f" "$NB" > "$W/sass_$(echo $f | cut -c20-60).txt" 2>&1
    done
  fi
  pack
fi

if [ "$phase" = sweep ]; then
  T="$NB tune --no-store"
  step "float tests and sanitizer for the 8-bodies-per-thread variant"
  "$NT" "every_registered_engine_matches_simple_in_every_precision_it_claims - float" > "$W/tests_float.log" 2>&1; echo "float tests rc=$?" | tee -a "$W/steps.log"
  tail -2 "$W/tests_float.log" | tee -a "$W/steps.log"
  for tool in memcheck racecheck; do
    "$SAN" --tool $tool --error-exitcode 99 "$NB" tune --engine cuda-split --precision float --n 333 --blocks 32,64 --splits 1,3 \
      --unrolls 4 --ipts 8 --repeats 1 --no-store > "$W/sanitizer_${tool}_ipt8.log" 2>&1
    echo "$tool ipt=8 rc=$?" | tee -a "$W/steps.log"
  done
  pack

  step "ncu: pipes and stalls of the float and double tiled kernels"
  NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  for cfg in "float 8 4" "float 8 8" "double 8 2"; do
    set -- $cfg
    "$NCU" --clock-control none --kernel-name regex:tiled_kernel --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
      --section InstructionStats --section Occupancy --print-details all \
      "$NB" tune --engine cuda-tiled --precision $1 --n 131072 --blocks 256 --unrolls $2 --ipts $3 --repeats 1 --no-store \
      > "$W/ncu_${1}_u${2}_i${3}.txt" 2>&1
    echo "ncu $cfg rc=$?" | tee -a "$W/steps.log"
    grep -iE "Issue Slots Busy|Issued Ipc|No Eligible|Warp Cycles Per Issued|Achieved Occupancy|SM Busy|Stall|FMA|XU" "$W/ncu_${1}_u${2}_i${3}.txt" | head -30 >> "$W/steps.log"
  done
  pack
  step "E13: tuning per (precision, N) for cuda-split and cuda-tiled"
  for p in float double; do
    for n in 4096 16384 65536 262144; do
      ipts=1,2,4; [ $p = float ] && ipts=1,2,4,8
      "$NB" tune --engine cuda-split --precision $p --n $n --blocks 64,128,256,512 --unrolls 1,4,8,16 --ipts $ipts --repeats 3 \
        --csv "$W/E13_cuda-split_${p}_${n}.csv" > /dev/null 2>> "$W/E13.log"
    done
    ipts=2,4; [ $p = float ] && ipts=2,4,8
    "$NB" tune --engine cuda-tiled --precision $p --n 1048576 --blocks 128,256,512 --unrolls 4,8,16 --ipts $ipts --repeats 1 \
      --csv "$W/E13_cuda-tiled_${p}_1048576.csv" > /dev/null 2>> "$W/E13.log"
  done
  for n in 4096 32768; do
    "$NB" tune --engine cuda-split --precision dd --n $n --blocks 64,128,256 --unrolls 1,2,4 --ipts 1,2 --repeats 3 \
      --csv "$W/E13_cuda-split_dd_${n}.csv" > /dev/null 2>> "$W/E13.log"
  done
  cat "$W/E13.log" | tee -a "$W/steps.log"; pack

  step "E09: time per evaluation vs N (engines use the tuned shapes)"
  # One CSV: the bench header once, then one row per point; a failed point is an ERROR row with
  # the message (never a time).
  bench_row() {
    local out
    out=$("$NB" bench --engine $1 --precision $2 --n $3 --repeats $4 2>&1)
    if echo "$out" | head -1 | grep -q '^engine,'; then
      [ -f "$W/E09_time_vs_n.csv" ] || echo "$out" | head -1 > "$W/E09_time_vs_n.csv"
      echo "$out" | sed -n 2p >> "$W/E09_time_vs_n.csv"
    else
      echo "$1,$2,$3,ERROR,$(echo "$out" | tr ',\n' '; ')" >> "$W/E09_errors.csv"
    fi
  }
  for n in 4096 8192 16384 32768 65536 131072 262144 524288 1048576; do
    for p in float double; do
      for e in cuda-naive cuda-tiled cuda-split opencl-tiled openmp-simd openmp; do
        case $e in openmp*) [ $n -gt 131072 ] && continue ;; esac
        r=3; [ $n -ge 524288 ] && r=2
        bench_row $e $p $n $r
      done
    done
    for e in cuda-tiled cuda-split; do
      [ $n -gt 131072 ] && continue
      bench_row $e dd $n 2
    done
    pack
  done
  "$NB" tune --engine cuda-tiled --precision dd --n 1048576 --blocks 128 --unrolls 1 --ipts 2 --repeats 1 --no-store \
    --csv "$W/E09_dd_1048576.csv" > /dev/null 2>> "$W/steps.log"
  pack

  step "E10: block-size sweep of cuda-naive (S1 table 1)"
  for p in float double; do
    $T --engine cuda-naive --precision $p --n 4096 --blocks 1,2,3,4,8,16,30,31,32,64,128,256,512,1023,1024,1025 --repeats 5 \
      --csv "$W/E10_block_sweep_$p.csv" > /dev/null 2>> "$W/steps.log"
  done
  pack
  step "E11: block size x split of cuda-split (S1 tables 2-3)"
  for n in 4096 32768; do
    $T --engine cuda-split --precision float --n $n --blocks 8,16,32,64,128,256,512 --splits 1,2,4,8,16,32,64,128 --unrolls 1 --ipts 1 \
      --repeats 5 --csv "$W/E11_split_sweep_float_$n.csv" > /dev/null 2>> "$W/steps.log"
  done
  pack
  step "E12: unroll x bodies per thread of cuda-tiled (S2 table 14-1)"
  for p in float double; do
    ipts=1,2,4; [ $p = float ] && ipts=1,2,4,8
    $T --engine cuda-tiled --precision $p --n 262144 --blocks 256 --unrolls 1,2,4,8,16,32 --ipts $ipts --repeats 3 \
      --csv "$W/E12_unroll_$p.csv" > /dev/null 2>> "$W/steps.log"
  done
  $T --engine cuda-tiled --precision dd --n 32768 --blocks 128 --unrolls 1,2,4 --ipts 1,2 --repeats 3 \
    --csv "$W/E12_unroll_dd.csv" > /dev/null 2>> "$W/steps.log"
  pack
fi

if [ "$phase" = final ]; then
  # After the float kernel's change ((m r)(r r) instead of ((m r) r) r): all GPU tests again,
  # the sanitizers on float, ncu at full occupancy, then the float timings again.
  step "tests [gpu]"
  "$NT" "[gpu]" -s -r compact > "$W/tests_gpu_full.log" 2>&1; echo "nbody_tests [gpu] rc=$?" | tee -a "$W/steps.log"
  grep -E "FAILED|SKIPPED|failed|test cases" "$W/tests_gpu_full.log" | tail -40 > "$W/tests_gpu.log"
  tail -2 "$W/tests_gpu_full.log" | tee -a "$W/steps.log"
  for tool in memcheck racecheck; do
    for e in cuda-tiled cuda-split; do
      "$SAN" --tool $tool --error-exitcode 99 "$NB" tune --engine $e --precision float --n 333 --blocks 32,96 --unrolls 1,8 \
        --ipts 1,4,8 --repeats 1 --no-store >> "$W/sanitizer_${tool}.log" 2>&1
      echo "$tool $e float rc=$?" | tee -a "$W/steps.log"
    done
  done
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$W"/sanitizer_*.log | sort | uniq -c | tee -a "$W/steps.log"
  pack
  step "ncu at full occupancy (float, N = 524288, one wave)"
  NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  "$NCU" --clock-control none --kernel-name regex:tiled_kernel --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
    --section InstructionStats --section Occupancy --print-details all \
    "$NB" tune --engine cuda-tiled --precision float --n 524288 --blocks 256 --unrolls 8 --ipts 4 --repeats 1 --no-store \
    > "$W/ncu_float_full.txt" 2>&1
  grep -iE "Issue Slots Busy|Issued Ipc|No Eligible|Warp Cycles Per Issued|Achieved Occupancy|Pipe|Stall (Wait|Short|Not Sel|Dispatch|Math)" \
    "$W/ncu_float_full.txt" | head -30 | tee -a "$W/steps.log"
  pack
  step "float timings again: E13 float, E12 float, E09 float GPU rows"
  for n in 4096 16384 65536 262144; do
    "$NB" tune --engine cuda-split --precision float --n $n --blocks 64,128,256,512 --unrolls 1,4,8,16 --ipts 1,2,4,8 --repeats 3 \
      --csv "$W/E13_cuda-split_float_${n}.csv" > /dev/null 2>> "$W/steps.log"
  done
  "$NB" tune --engine cuda-tiled --precision float --n 1048576 --blocks 128,256,512 --unrolls 4,8,16 --ipts 2,4,8 --repeats 1 \
    --csv "$W/E13_cuda-tiled_float_1048576.csv" > /dev/null 2>> "$W/steps.log"
  pack
  $NB tune --no-store --engine cuda-tiled --precision float --n 262144 --blocks 256 --unrolls 1,2,4,8,16,32 --ipts 1,2,4,8 \
    --repeats 3 --csv "$W/E12_unroll_float.csv" > /dev/null 2>> "$W/steps.log"
  pack
  for n in 4096 8192 16384 32768 65536 131072 262144 524288 1048576; do
    for e in cuda-naive cuda-tiled cuda-split; do
      r=3; [ $n -ge 524288 ] && r=2
      "$NB" bench --engine $e --precision float --n $n --repeats $r > "$W/b.csv" 2>&1
      [ -f "$W/E09_float_gpu.csv" ] || head -1 "$W/b.csv" > "$W/E09_float_gpu.csv"
      sed -n 2p "$W/b.csv" >> "$W/E09_float_gpu.csv"
    done
  done
  grep -E "1048576|,4096," "$W/E09_float_gpu.csv" | cut -d, -f1-7 | tee -a "$W/steps.log"
  pack
fi

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

