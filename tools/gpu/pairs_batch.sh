#!/usr/bin/env bash
# cuda-pairs on the lent H100 (the `run` device tool), from the repository root, binaries of a clean
# commit gzipped in $CARRY (nbody.gz, nbody_tests.gz, libs/: tools/gpu/prepare_carry.sh, then gzip).
# Every phase: provenance (GPU, driver, clocks; nbody --build-info) and a clock log.
#   check        the GPU tests, all of them ("[gpu]"; NVIDIA's OpenCL ICD registered first);
#                compute-sanitizer memcheck and racecheck of the cuda-pairs kernels (float, double;
#                tiles cut short, several passes, the clamp on and off); N = 2^20 and 4096:
#                cuda-pairs shapes against cuda-tiled's best, one `nbody tune` each
#   experiments  E13's tuning of cuda-pairs (added to the committed tuning cache, which the other
#                CUDA engines read as before), then E09 through the runner
#   final        Nsight Compute on cuda-pairs at N = 2^20 (float 256 x 8, double 256 x 8: issue slots,
#                stalls, SASS per opcode), then E09 through the runner again (the runner now samples
#                the SM clock of every point) with the committed tuning cache, which holds
#                cuda-pairs' entries from `experiments` (tools/gpu/collect_pairs.py)
#   e09          E09 through the runner only, as in `final`
# Results in $OUT (the device tool brings back at most 8 files: one tarball plus the logs).
set -u
phase=${1:-check}
W=/tmp/pairs/$phase
mkdir -p "$W"
. tools/gpu/carry.sh
export NBODY_TUNE_CACHE=$W/tune_cache.json
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
pack() { tar czf "$OUT/$phase.tar.gz" -C /tmp/pairs "$phase"; cp "$W/steps.log" "$OUT/${phase}_steps.log" 2>/dev/null; }
step() { echo "== $(date -u +%T) $*" | tee -a "$W/steps.log"; }

step provenance
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu,pstate --format=csv
} > "$W/provenance.txt" 2>&1
"$NB" --build-info > "$W/build_info.json" 2>&1
mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu --format=csv -lms 500 > "$W/clocks.csv" 2>&1 &
smi_pid=$!

if [ "$phase" = check ]; then
step "tests [gpu]"
"$NT" "[gpu]" -r compact > "$W/tests_gpu_full.log" 2>&1; echo "nbody_tests [gpu] rc=$?" | tee -a "$W/steps.log"
tail -3 "$W/tests_gpu_full.log" | tee -a "$W/steps.log"
pack

step "compute-sanitizer ($SAN) on cuda-pairs"
for tool in memcheck racecheck; do
  for p in float double; do
    for law in "" "--r-min 0.05"; do
      echo "--- $tool $p $law" >> "$W/sanitizer_${tool}.log"
      "$SAN" --tool $tool --error-exitcode 99 "$NB" tune --engine cuda-pairs --precision $p --n 333 --blocks 32,96 \
        --ipts 1,4 --splits 0,3 --repeats 1 --no-store $law >> "$W/sanitizer_${tool}.log" 2>&1
      echo "rc=$? ($tool cuda-pairs $p $law)" | tee -a "$W/sanitizer_${tool}.log" >> "$W/sanitizer_summary.log"
    done
  done
done
sort "$W/sanitizer_summary.log" | uniq -c | tee -a "$W/steps.log"
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$W"/sanitizer_*.log | sort | uniq -c | tee -a "$W/steps.log"
pack

step "timings"
for n in 1048576 4096; do
  "$NB" tune --engine cuda-tiled --precision float --n $n --blocks 256,512 --unrolls 16 --ipts 1,2,4 --repeats 2 --no-store \
    --csv "$W/tiled_float_$n.csv" > "$W/tiled_float_$n.txt" 2>> "$W/timings.err"
  "$NB" tune --engine cuda-pairs --precision float --n $n --repeats 2 --no-store --csv "$W/pairs_float_$n.csv" \
    > "$W/pairs_float_$n.txt" 2>> "$W/timings.err"
  "$NB" tune --engine cuda-pairs --precision double --n $n --repeats 2 --no-store --csv "$W/pairs_double_$n.csv" \
    > "$W/pairs_double_$n.txt" 2>> "$W/timings.err"
  pack
done
for f in "$W"/*_1048576.txt "$W"/*_4096.txt; do echo "# $f"; tail -4 "$f"; done | tee -a "$W/steps.log"
fi

# The other CUDA engines read their tuned shapes from the committed cache (cuda-pairs' too, once
# `experiments` has added them there through tools/gpu/collect_pairs.py).
[ "$phase" != check ] && cp results/E13_tune_cache.json "$NBODY_TUNE_CACHE"

if [ "$phase" = final ]; then
  NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
  for p in float double; do
    step "ncu cuda-pairs $p"
    "$NCU" --clock-control none --kernel-name regex:pairs_kernel --launch-skip 1 --launch-count 1 \
      --section SourceCounters --section WarpStateStats --section SchedulerStats --section InstructionStats \
      --section ComputeWorkloadAnalysis --section SpeedOfLight --section Occupancy -o "$W/pairs_$p" -f \
      "$NB" tune --engine cuda-pairs --precision $p --n 1048576 --blocks 256 --ipts 8 --repeats 1 --no-store \
      > "$W/ncu_run_$p.log" 2>&1
    echo "ncu $p rc=$?" | tee -a "$W/steps.log"
    "$NCU" -i "$W/pairs_$p.ncu-rep" --print-details all > "$W/ncu_details_$p.txt" 2>&1
    "$NCU" -i "$W/pairs_$p.ncu-rep" --page source --csv --print-source sass > "$W/ncu_sass_$p.csv" 2>&1
    rm -f "$W/pairs_$p.ncu-rep"
    grep -iE "Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Registers Per|Achieved Occupancy" "$W/ncu_details_$p.txt" \
      | tee -a "$W/steps.log"
    pack
  done
fi

if [ "$phase" = experiments ]; then
  step "E13: cuda-pairs tuned per (precision, N), stored in the cache"
  for p in float double; do
    for n in 4096 16384 65536 262144 1048576; do
      blocks=32,64,128,256; ipts=1,2,4,8
      [ $n = 1048576 ] && blocks=64,128,256 && ipts=4,8
      "$NB" tune --engine cuda-pairs --precision $p --n $n --blocks $blocks --ipts $ipts --repeats 3 \
        --csv "$W/E13_cuda-pairs_${p}_${n}.csv" > /dev/null 2>> "$W/E13.log"
      echo "tune cuda-pairs $p $n rc=$?" | tee -a "$W/steps.log"
    done
  done
  cp "$NBODY_TUNE_CACHE" "$W/tune_cache.json"
  pack
fi

if [ "$phase" != check ]; then
  step "E09 through the runner"
  PYTHONUNBUFFERED=1 timeout -s INT "${LIMIT:-400}" python3 experiments/runner.py run E09_gpu_time_vs_n --force \
    --nbody "$NB" > "$W/runner.log" 2>&1
  echo "runner rc=$?" | tee -a "$W/steps.log"
  tail -5 "$W/runner.log" | tee -a "$W/steps.log"
  cp results/E09_gpu_time_vs_n.csv results/E09_gpu_time_vs_n.meta.json "$W/" 2>> "$W/steps.log"
fi
kill $smi_pid
pack
