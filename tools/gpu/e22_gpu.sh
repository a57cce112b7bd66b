#!/usr/bin/env bash
# E22 at N = 512 to 30 digits with qd forces on the GPU (experiments/E22_brutus_convergence_gpu.toml),
# on the device, from the repository root:
#   tools/gpu/e22_gpu.sh check   the qd GPU tests; `nbody tune` of cuda-split for qd at N = 512
#                                (the best shape cached for `run`); the cost of a qd
#                                Bulirsch-Stoer evaluation at N = 512 (short runs); provenance
#   tools/gpu/e22_gpu.sh run     the experiment's full profile through the runner, every core
# Binaries come prebuilt in $CARRY (nbody or nbody.gz, nbody_tests or nbody_tests.gz, libs/;
# tools/gpu/prepare_carry.sh; gzip the binaries when the tree and carry exceed 64 MiB), with,
# optionally, $CARRY/points.tar.gz: ladder runs and parts finished in earlier calls
# (results/.points/E22_brutus_convergence_gpu/), which the runner takes up where they stopped.
# What comes back: $OUT/e22_gpu_<phase>.tar.gz with the results (results/E22_brutus_convergence_gpu*),
# the runner's log, provenance (nvidia-smi, build-info) and the ladder's run records, and
# $OUT/e22_gpu_points.tar.gz, the runs and parts themselves (snapshots, checkpoints) for the next
# call (about 6 MB per finished qd rung: more than one or two may exceed what the device tool
# brings back; a machine kept warm keeps results/.points/ between calls anyway). Unpack both in
# the repository root.
set -u
phase=${1:?usage: e22_gpu.sh check|run}
OUT=${OUT:-/tmp/e22-out}
W=evidence/gpu/logs/e22_gpu/$phase
mkdir -p "$W" "$OUT"
. tools/gpu/carry.sh
[ -f "$CARRY/points.tar.gz" ] && tar xzf "$CARRY/points.tar.gz"
# `check` tunes cuda-split for qd at N = 512 and stores the best shape here; the runs of `run` in
# the same call take it from there (the engines' default when no --launch is given).
export NBODY_TUNE_CACHE=$PWD/evidence/gpu/logs/e22_gpu/tune_cache.json
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
  nproc
} > "$W/provenance.txt" 2>&1
"$NB" --build-info > "$W/build_info.json" 2>&1
pack() { tar czf "$OUT/e22_gpu_$phase.tar.gz" "$W" results/E22_brutus_convergence_gpu* 2> /dev/null; }

if [ "$phase" = check ]; then
  "$NT" "every_registered_engine_matches_simple_in_every_precision_it_claims - qd" > "$W/tests_qd.log" 2>&1
  echo "tests rc=$?" >> "$W/tests_qd.log"
  tail -3 "$W/tests_qd.log"
  "$NB" tune --engine cuda-split --precision qd --n 512 --blocks 16,32,64 --splits 0,8,16,32 --repeats 5 \
    --csv "$W/tune_qd_512.csv" > "$W/tune_qd_512.log" 2>&1
  echo "tune rc=$?: $(tail -1 "$W/tune_qd_512.log")"
  # The cost of a qd Bulirsch-Stoer evaluation at N = 512 in the tuned shape, host work included
  # (a short run; never probe dd below ~1e-30: its steps shrink without end).
  timeout 90 "$NB" run --ic two-galaxies --n 512 --seed 1 --r-min 1e-4 --precision qd --integrator bulirsch-stoer \
    --order 32 --tol 1e-36 --t-end 0.002 --engine cuda-split 2>&1 | tail -1 | tee -a "$W/cost.log"
  cp "$NBODY_TUNE_CACHE" "$W/" 2> /dev/null
  pack
fi

if [ "$phase" = run ]; then
  PYTHONUNBUFFERED=1 timeout -s INT "${LIMIT:-560}" python3 experiments/runner.py run E22_brutus_convergence_gpu \
    --profile full --nbody "$NB" --jobs "$(nproc)" > "$W/runner.log" 2>&1
  echo "runner rc=$?" | tee -a "$W/runner.log"
  tail -20 "$W/runner.log"
  mkdir -p "$W/records"
  for f in results/.points/E22_brutus_convergence_gpu/*.json; do cp "$f" "$W/records/"; done 2> /dev/null
  pack
  tar czf "$OUT/e22_gpu_points.tar.gz" results/.points/E22_brutus_convergence_gpu
fi
