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
python3 - "$W" <<'PY' | tee -a "$W/steps.log"
import csv, glob, io, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "ncu_*.csv"))):
    text = open(f).read()
    start = text.find('"Process ID"')
    if start < 0:
        print(os.path.basename(f), "no table"); continue
    rows = [r for r in csv.DictReader(io.StringIO(text[start:])) if r["Metric Name"] == "Duration"]
    scale = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "nsecond": 1e-3, "ms": 1e3, "msecond": 1e3}
    print(os.path.basename(f), "(microseconds per launch, under the profiler's clocks)")
    for r in rows:
        us = float(r["Average"].replace(",", "")) * scale.get(r["Metric Unit"], float("nan"))
        print(f"  {r['Kernel Name'][:70]:70} {us:9.1f} x{r['Invocations']}")
PY
kill $smi_pid 2> /dev/null
pack
