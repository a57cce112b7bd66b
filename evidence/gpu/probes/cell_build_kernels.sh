#!/usr/bin/env bash
# Nsight Compute's time of every kernel of one cell-list build at 2^20 particles (rho = 3, float,
# random order), per builder, at the GPU's own clocks and with the L2 as the last kernel left it
# (--clock-control none --cache-control none): where a build's time goes. One device call, from
# the repository root with build-gpu-carry; writes $OUT/cell_build_kernels.tar.gz.
NAME=cell_build_kernels
. tools/gpu/batch_start.sh
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for b in ${BUILDERS-counting-sort linked-list radix-sort}; do
  step "ncu: $b"
  "$NCU" --clock-control none --cache-control none --print-summary per-kernel --csv \
    "$NB" cells --builder $b --n 1048576 --cache warm --repeats 3 > "$W/ncu_$b.csv" 2> "$W/ncu_$b.err"
  echo "ncu $b rc=$?" | tee -a "$W/steps.log"
  pack
done
python3 evidence/gpu/probes/ncu_summary.py "$W" | tee -a "$W/steps.log"
kill $smi_pid 2> /dev/null
pack
