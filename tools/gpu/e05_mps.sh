#!/usr/bin/env bash
# E05's full run with its three methods at once on the one GPU. Each run is latency-bound at
# N = 512 (a grid-wide barrier per force evaluation, the GPU mostly idle): under MPS, each limited
# to a third of the multiprocessors and launching 32 blocks (block=256, split=16), the three
# together cost little more per evaluation each than one alone with the whole GPU, so the GPU
# time of the whole E05 falls from the sum of the three to about the longest one; plain
# processes without MPS only time-slice (the probe: results/E05_long_run_gpu_probe.csv).
# Usage on the device (carry ["build-gpu-carry"]; state in results/E05_gpu_mps/, carried back and forth):
#   tools/gpu/e05_mps.sh          one part of every unfinished method, all at once; the part
#                                 lengths (simulated time) give each about 7-8 minutes
# Records the batch's wall time, the GPU time that E05 is charged (batches.csv: start, end, seconds).
set -u
. tools/gpu/carry.sh  # unpacks nbody once, before the three parts start
export E05_DIR=${E05_DIR:-results/E05_gpu_mps} E05_LAUNCH=${E05_LAUNCH:-block=256,split=16}
mkdir -p "$E05_DIR"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d || { echo "MPS did not start" >&2; exit 1; }
export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=33
start=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ); t0=$(date +%s.%N)
# Simulated time per part: about 450 s of device time each at the rates of earlier parts
# (evaluations per unit time x time per evaluation: results/E05_long_run_gpu_parts.csv).
tools/gpu/e05_parts.sh dopri5 110 >> "$E05_DIR/dopri5.log" 2>&1 &
tools/gpu/e05_parts.sh verner65 85 >> "$E05_DIR/verner65.log" 2>&1 &
tools/gpu/e05_parts.sh adams-bashforth 60 >> "$E05_DIR/adams-bashforth.log" 2>&1 &
wait
t1=$(date +%s.%N); end=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
echo quit | nvidia-cuda-mps-control
[ -f "$E05_DIR/batches.csv" ] || echo "start_utc,end_utc,seconds,mps_active_thread_percentage,launch" > "$E05_DIR/batches.csv"
echo "$start,$end,$(python3 -c "print(round($t1 - $t0, 3))"),$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE,\"$E05_LAUNCH\"" >> "$E05_DIR/batches.csv"
tail -n 4 "$E05_DIR"/*.log; cat "$E05_DIR/batches.csv"
tar czf "${OUT:-/tmp/e05-out}/E05_gpu_mps.tar.gz" "$E05_DIR"
