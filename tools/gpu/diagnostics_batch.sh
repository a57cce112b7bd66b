#!/usr/bin/env bash
# The diagnostics of GPU runs on the lent H100 (the `run` device tool), from the repository root:
#   tools/gpu/diagnostics_batch.sh   provenance; a Plummer sphere of N = 2^20 (SIZE) in float,
#                                    cuda-octree-groups, 1000 leapfrog steps with the default
#                                    diagnostics, its summary (the time of the steps against the
#                                    samples') in $W/summary_*.json, the same with cuda-tiled (100
#                                    steps) and with the samples' budget lifted (--diag-budget 1:
#                                    every one of the 1000 samples, to show what the budget saves);
#                                    nbody_tests "[potential]" (every engine's body potentials
#                                    against the exact sum, on the GPU too; potentials between
#                                    device-resident steps change no bit of the run); compute-
#                                    sanitizer memcheck, racecheck and synccheck on runs that sample
#                                    the engines' potentials (both octree walks, monopoles and
#                                    quadrupoles; cuda-tiled; the kd-tree's direct sum; cuda-split in
#                                    dd). RUNS=0, TESTS= and SANITIZE=0 skip those steps.
# Binaries come prebuilt in $CARRY (tools/gpu/prepare_carry.sh); tools/gpu/batch_start.sh says where
# the results land ($OUT/diagnostics.tar.gz).
NAME=diagnostics
. tools/gpu/batch_start.sh

if [ "${RUNS-1}" = 1 ]; then
  SIZE=${SIZE:-1048576}
  run_case() {  # NAME NBODY-RUN-ARGS...: one run, its summary and stderr kept
    local name=$1; shift
    step "run $name: $*"
    "$NB" run --ic plummer --n "$SIZE" --seed 1 --precision float --eps 0.01 --integrator leapfrog --dt 0.0009765625 \
      --summary "$W/summary_$name.json" "$@" > "$W/run_$name.log" 2>&1
    echo "run $name rc=$?" | tee -a "$W/steps.log"
    tail -2 "$W/run_$name.log" | tee -a "$W/steps.log"
    python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print({k: s.get(k) for k in ('wall_s','step_wall_s','diagnostics_s','samples','samples_skipped','energy_method','potential_error','dE_rel','dE_rel_max','device')})" \
      "$W/summary_$name.json" 2>&1 | tee -a "$W/steps.log"
    pack
  }
  run_case octree_groups --engine cuda-octree-groups --t-end 0.9765625 --diagnostics "$W/diag_octree_groups.csv"
  run_case tiled --engine cuda-tiled --t-end 0.09765625
  run_case octree_groups_every_sample --engine cuda-octree-groups --t-end 0.9765625 --diag-budget 1
fi

run_tests ${TESTS-"[potential]"}

if [ "${SANITIZE-1}" = 1 ]; then
  step "compute-sanitizer ($SAN)"
  for c in "cuda-octree-groups float" "cuda-octree double --moments quadrupole --leaf-size 8" "cuda-tiled float" \
           "cuda-kdtree-stackless float" "cuda-split dd"; do
    set -- $c
    e=$1 p=$2
    shift 2
    integrator=rk4
    case $e in cuda-octree*) integrator=leapfrog ;; esac
    for tool in memcheck racecheck synccheck; do
      sanitize $tool run --engine $e --precision $p --ic plummer --n 333 --integrator $integrator --dt 0.01 --t-end 0.05 \
        --diag-every 0.01 --eps 0.01 "$@"
    done
    pack
  done
  sanitizer_summary
fi

kill $smi_pid 2> /dev/null
step done
pack
