#!/usr/bin/env bash
# E05's full run (seed S0's long run: N = 512, T_max = 300, ~7e8 force evaluations) on the GPU, in
# parts: each call advances each unfinished run by one part (to --stop-at, a checkpoint), with
# device-resident steps. State between calls: results/E05_gpu/ (checkpoints, each part's
# diagnostics and summary), carried to the device and brought back. Usage on the device:
#   tools/gpu/e05_parts.sh METHOD DT_PART     (METHOD: dopri5, verner65, adams-bashforth)
# with carry ["build-gpu-carry/nbody", "build-gpu-carry/libs"] (the tests binary would push the
# working tree and carry over the device tool's 64 MiB). Afterwards, here:
# python3 tools/gpu/collect_e05.py (joins the parts into results/E05_long_run_gpu*). Each part
# keeps the checkpoint it started from (part_NNN.start.bin), so that any part can be re-run, e.g.
# with --stepping host as a cross-check.
# E05_DIR (default results/E05_gpu) and E05_LAUNCH (a --launch shape, default none) let
# tools/gpu/e05_mps.sh run the three methods at once, each in its own folder and shape.
set -u
method=${1:?usage: e05_parts.sh dopri5|verner65|adams-bashforth DT_PART}
part_dt=${2:?usage: e05_parts.sh METHOD DT_PART}
. tools/gpu/carry.sh
. tools/gpu/e05_flags.sh
D=${E05_DIR:-results/E05_gpu}/$method
mkdir -p "$D" "${OUT:-/tmp/e05-out}"
flags="$(e05_flags "$method") --t-end 300" || exit 2
[ -n "${E05_LAUNCH:-}" ] && flags="$flags --launch $E05_LAUNCH"
part=$(ls "$D"/part_*.summary.json 2>/dev/null | wc -l)
t_now=0
if [ "$part" -gt 0 ]; then
  last=$(printf "%s/part_%03d.summary.json" "$D" $((part - 1)))
  t_now=$(python3 -c "import json;print(json.load(open('$last'))['t'])")
  if python3 -c "import json,sys;sys.exit(0 if json.load(open('$last'))['completed'] else 1)"; then echo "$method: done"; exit 0; fi
fi
stop=$(python3 -c "print(min(300.0, round($t_now + $part_dt, 6)))")
name=$(printf "part_%03d" "$part")
resume=""; [ "$part" -gt 0 ] && resume="--resume $D/checkpoint.bin" && cp "$D/checkpoint.bin" "$D/$name.start.bin"
nvidia-smi --query-gpu=timestamp,name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$D/$name.gpu.csv" 2>&1
"$NB" --build-info > "$D/$name.build.json" 2>&1
echo "$method $name: t = $t_now -> $stop"
"$NB" run $flags --checkpoint "$D/checkpoint.bin" --stop-at "$stop" $resume \
  --diagnostics "$D/$name.diagnostics.csv" --summary "$D/$name.summary.json" 2>&1 | tail -3
rc=${PIPESTATUS[0]}
echo "rc=$rc"
tar czf "${OUT:-/tmp/e05-out}/$(basename "${E05_DIR:-E05_gpu}")_$method.tar.gz" "$D"
exit $rc
