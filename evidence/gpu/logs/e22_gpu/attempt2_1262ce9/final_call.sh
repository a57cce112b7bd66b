#!/usr/bin/env bash
# The session's last device call (binary of 1262ce9, carried as build-e22-carry: nbody.gz,
# nbody_tests.gz, libs/, points.tar.gz with the ladder runs and parts of the earlier calls):
#  1. E22 on the GPU through the runner (tools/gpu/e22_gpu.sh run): it takes up the first two qd
#     rungs from their records and parts, and runs the 38 compared double runs on the CPU cores;
#  2. the whole GPU test suite ([gpu]: every engine, the resident stepping) with this binary,
#     the first on the GPU with the launch-shape memo (25f2718);
#  3. the runner's kind = "tune" on the H100: E10 as the runner runs it (into a log folder; the
#     committed results/E10 come from tools/gpu/h100_batch.sh with the same commands);
#  4. the third qd rung's last part (t = 23 .. 25) by hand, as a cross-check of the converged run.
set -u
C=build-e22-carry
L=tools/gpu/logs/e22_gpu/attempt2_1262ce9/final
mkdir -p "$L"
CARRY=$C OUT=$OUT LIMIT=300 tools/gpu/e22_gpu.sh run
export LD_LIBRARY_PATH=$PWD/$C/libs NBODY_TUNE_CACHE=$PWD/$L/tune_cache.json
timeout 150 "$C/nbody_tests" "[gpu]" -s -r compact > "$L/tests_gpu_full.log" 2>&1
echo "nbody_tests [gpu] rc=$?" | tee -a "$L/steps.log"; tail -2 "$L/tests_gpu_full.log"
mkdir -p "$L/runner_tune"
timeout 100 python3 experiments/runner.py run E10_block_size_sweep --nbody "$C/nbody" --force > "$L/runner_tune/runner.log" 2>&1
echo "runner E10 rc=$?" | tee -a "$L/steps.log"; tail -3 "$L/runner_tune/runner.log"
cp results/E10_block_size_sweep.csv results/E10_block_size_sweep.meta.json "$L/runner_tune/"
P=results/.points/E22_brutus_convergence_gpu/2888b4f0d63d2e668507e9d915457dd0.parts
timeout 120 "$C/nbody" run --ic two-galaxies --seed 1 --r-min 0.0001 --t-end 25 --snapshot-every 0.5 --n 512 \
  --integrator bulirsch-stoer --order 32 --engine cuda-split --precision qd --tol 1e-44 \
  --resume $P/part-4.checkpoint.bin --checkpoint $P/part-5.checkpoint.bin \
  --snapshots $P/part-5.snapshots.csv --summary $P/part-5.summary.json 2>&1 | tail -1 | tee -a "$L/steps.log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$L/provenance.txt" 2>&1
tar czf "$OUT/final_logs.tar.gz" "$L" $P/part-5.*
