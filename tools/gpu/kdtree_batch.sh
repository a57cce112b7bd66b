#!/usr/bin/env bash
# The GPU kd-tree engines on the lent H100 (the `run` device tool), from the repository root:
#   tools/gpu/kdtree_batch.sh check        provenance; nbody_tests "[tree]" and "[gpu]" (every tree
#                                          engine against simple, GPU-built against host-built trees,
#                                          every launch knob); compute-sanitizer memcheck, racecheck
#                                          and synccheck on every CUDA tree engine (float, double;
#                                          clamp on and off; leaves of 1 and 8; each value of its
#                                          knobs); the headline timings at N = 2^20, lambda_crit = 4
#   tools/gpu/kdtree_batch.sh experiments  E15 and E16 through the runner (--profile full; EXPS=ID
#                                          runs one, LIMIT its seconds, default 280; FORCE= resumes
#                                          from the points in results/.points, carried)
# Binaries come prebuilt in $CARRY (tools/gpu/prepare_carry.sh); tools/gpu/batch_start.sh says where
# the results land ($OUT/kdtree_<phase>.tar.gz).
phase=${1:?usage: kdtree_batch.sh check|experiments}
NAME=kdtree_$phase
. tools/gpu/batch_start.sh
"$NB" list engines > "$W/engines.txt" 2>&1
pack

if [ "$phase" = check ]; then
  # The tests (the CLI ones need the build folder, not carried; the million-body check takes minutes).
  run_tests ${TESTS-"[tree]~[cli]" "[gpu]" "[cuda-kdtree-large]"}

  step "compute-sanitizer ($SAN)"
  engines=$("$NB" list engines --json | python3 -c "import json,sys; print(' '.join(e['name'] for e in json.load(sys.stdin) if e['device']=='cuda' and e.get('tree')))")
  echo "CUDA tree engines: $engines" | tee -a "$W/steps.log"
  # Each engine and precision twice (block 32, leaves of 1; block 96 with the L1 preference,
  # leaves of 8 and the clamp), and the host build once.
  cases=()
  for e in $engines; do
    for p in float double; do
      cases+=("$e $p block=32 --leaf-size 1" "$e $p block=96,l1=1 --leaf-size 8 --r-min 0.05")
    done
  done
  cases+=("cuda-kdtree-stackless double block=64,host_build=1 --leaf-size 1")
  for c in "${cases[@]}"; do
    set -- $c
    e=$1 p=$2 shape=$3
    shift 3
    for tool in memcheck racecheck synccheck; do
      echo "--- $tool $c" >> "$W/sanitizer_${tool}.log"
      "$SAN" --tool $tool --error-exitcode 99 "$NB" bench --engine $e --precision $p --n 333 --repeats 1 \
        --ic two-galaxies --lambda-crit 2 --launch $shape "$@" >> "$W/sanitizer_${tool}.log" 2>&1
      echo "rc=$? ($tool $c)" >> "$W/sanitizer_summary.log"
    done
    pack
  done
  cut -d' ' -f1 "$W/sanitizer_summary.log" | sort | uniq -c | tee -a "$W/steps.log"
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|SYNCCHECK SUMMARY" "$W"/sanitizer_*.log | sort | uniq -c | tee -a "$W/steps.log"
  pack

  step "headline timings: N = 2^20, lambda_crit = 4, two galaxies"
  for p in float double; do
    for e in $engines; do
      for shape in "block=64" "block=128" "block=256" "block=1024" "block=128,host_build=1"; do
        timing_row "" "" "$NB" bench --engine $e --precision $p --n 1048576 --repeats 5 --ic two-galaxies --lambda-crit 4 \
          --launch $shape
      done
    done
    timing_row "" "" "$NB" bench --engine cuda-tiled --precision $p --n 1048576 --repeats 5 --ic two-galaxies
    pack
  done
  cut -d, -f1,3,6,14,18-20 "$W/timings.csv" | tee -a "$W/steps.log"
fi

if [ "$phase" = experiments ]; then
  run_experiments "${EXPS-E15_kdtree_gpu_blocks E16_kdtree_gpu_lambda}"
fi
kill "$smi_pid" 2> /dev/null
step done
pack
ls -la "$OUT"
