#!/usr/bin/env bash
# Nsight Compute's time of every kernel of a DPD step on the GPU at 2^20 particles (rho = 3),
# float, with the radix-sort and counting-sort cell lists: where a step's time goes. One device
# call, from the repository root with build-gpu-carry; writes $OUT/dpd_kernels.tar.gz.
NAME=dpd_kernels
. tools/gpu/batch_start.sh
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for b in radix-sort counting-sort; do
  for p in float double; do
    step "ncu: $b $p"
    "$NCU" --launch-skip 40 --launch-count 30 --print-summary per-kernel --csv \
      "$NB" dpd --engine cuda --cell-list $b --precision $p --box 70.4242 --steps 6 > "$W/ncu_${b}_$p.csv" 2> "$W/ncu_${b}_$p.err"
    echo "ncu $b $p rc=$?" | tee -a "$W/steps.log"
    pack
  done
done
python3 evidence/gpu/probes/ncu_summary.py "$W" ", under the profiler's clocks" | tee -a "$W/steps.log"
kill $smi_pid 2> /dev/null
pack
