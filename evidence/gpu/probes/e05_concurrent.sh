#!/usr/bin/env bash
# A probe, not part of the solver: E05's three runs are latency-bound at N = 512 (one grid-wide
# barrier per force evaluation; ~6 us each, the GPU mostly idle). Do they go faster in all when the
# three run at once on the one GPU? Each case: dopri5, verner65 (tol 1e-12, h <= 1e-5) and
# adams-bashforth 5 (dt 1e-6) at E05's setting from t = 0, short (t_end = T1) and long (T2), so that
# (wall_long - wall_short) / (fevals_long - fevals_short) is the cost per evaluation.
#   alone:      one run at a time, the default shape (128 blocks)
#   together:   the three at once, plain processes (the GPU time-slices between contexts)
#   mps:        the three at once under MPS (nvidia-cuda-mps-control), each client limited to a
#               third of the SMs and launching 32 blocks (block=256, split=16)
# Every run under `timeout`: a cooperative kernel whose blocks cannot all be resident would hang.
# Writes $OUT/e05_concurrent.csv (case, method, length, fevals, wall_s) and the logs.
set -u
. tools/gpu/carry.sh
. tools/gpu/e05_flags.sh
W=/tmp/e05c
mkdir -p "$W"
T1=${T1:-0.02}
T2=${T2:-0.2}
one() {  # case method t_end [launch]
  local launch=""; [ -n "${4:-}" ] && launch="--launch $4"
  timeout 120 "$NB" run $(e05_flags $2) --t-end $3 $launch --summary "$W/$1_$2_$3.json" > "$W/$1_$2_$3.log" 2>&1
  echo "$1 $2 $3 rc=$?" >> "$W/steps.log"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$W/provenance.txt"
"$NB" --build-info > "$W/build_info.json"
ls -la /usr/bin/nvidia-cuda-mps* >> "$W/provenance.txt" 2>&1

for t in $T1 $T2; do for m in dopri5 verner65 adams-bashforth; do one alone $m $t; done; done
for t in $T1 $T2; do
  for m in dopri5 verner65 adams-bashforth; do one together $m $t & done; wait
done
if command -v nvidia-cuda-mps-control > /dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  nvidia-cuda-mps-control -d && echo "mps started" >> "$W/steps.log"
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=33
  for t in $T1 $T2; do
    for m in dopri5 verner65 adams-bashforth; do one mps $m $t block=256,split=16 & done; wait
  done
  one mps_alone dopri5 $T1 block=256,split=16; one mps_alone dopri5 $T2 block=256,split=16
  echo quit | nvidia-cuda-mps-control
  cp $CUDA_MPS_LOG_DIRECTORY/* "$W/" 2>/dev/null
fi
python3 - "$W" > "$OUT/e05_concurrent.csv" <<'EOF'
import json, sys
from pathlib import Path
print("case,method,t_end,fevals,wall_s,device")
for p in sorted(Path(sys.argv[1]).glob("*.json")):
    if p.name == "build_info.json":
        continue
    s = json.loads(p.read_text())
    case, rest = p.stem.split("_", 1) if not p.stem.startswith("mps_alone") else ("mps_alone", p.stem[len("mps_alone_"):])
    method, t = rest.rsplit("_", 1)
    print(f"{case},{method},{t},{s['fevals']},{s['wall_s']},\"{s.get('device', '')}\"")
EOF
cat "$W/steps.log" "$OUT/e05_concurrent.csv"
tar czf "$OUT/e05_concurrent.tar.gz" -C /tmp e05c
