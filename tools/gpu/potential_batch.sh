#!/usr/bin/env bash
# `nbody potential` and the HDF5 snapshots on the lent H100 (the `run` device tool), from the
# repository root:
#   tools/gpu/potential_batch.sh
#       provenance; nbody_tests "[potential]~[cli],[hdf5]~[cli]" (the CUDA engines' potential against the
#       CPU's compensated sum in float, double and dd; snapshots read back in every precision);
#       compute-sanitizer memcheck, racecheck and synccheck on `nbody potential --engine cuda-naive`
#       (float, double, dd; one node, part of a tile, many tiles); then the time of a 256 x 256
#       plane of S0's two galaxies at N = 2^16 and 2^20 with cuda-pairs (float, double) and at
#       N = 2^16 on the host's cores (openmp-simd, double). SANITIZE=0 and TIMINGS=0 skip steps.
# Binaries come prebuilt in $CARRY (tools/gpu/prepare_carry.sh); results in $OUT/potential.tar.gz.
NAME=potential
. tools/gpu/batch_start.sh
run_tests ${TESTS-"[potential]~[cli],[hdf5]~[cli]"}
if [ "${SANITIZE-1}" = 1 ]; then
  step "compute-sanitizer ($SAN) on nbody potential --engine cuda-naive"
  for run in "memcheck float 2 1000" "memcheck double 30 129" "memcheck dd 9 300" "racecheck float 30 1000" \
             "racecheck double 9 129" "synccheck float 30 1000" "synccheck dd 9 300"; do
    set -- $run  # tool precision nodes-per-axis bodies
    sanitize $1 potential --engine cuda-naive --precision $2 --ic plummer --n $4 --eps 0.01 --resolution $3 \
      --out "$W/sanitized.csv"
  done
  sanitizer_summary
fi
if [ "${TIMINGS-1}" = 1 ]; then
  step "a 256 x 256 plane of the two galaxies"
  for run in "cuda-pairs float 65536" "cuda-pairs double 65536" "cuda-pairs float 1048576" "cuda-pairs double 1048576" \
             "openmp-simd double 65536"; do
    set -- $run
    "$NB" potential --engine $1 --precision $2 --ic two-galaxies --n $3 --seed 1 --eps 0.05 --resolution 256 \
      --out "$W/plane_$1_$2_$3.csv" --summary "$W/plane_$1_$2_$3.json" >> "$W/timings.log" 2>&1
    echo "rc=$? ($*)" | tee -a "$W/steps.log"
  done
  tail -5 "$W/timings.log" | tee -a "$W/steps.log"
fi
kill $smi_pid 2> /dev/null
pack
