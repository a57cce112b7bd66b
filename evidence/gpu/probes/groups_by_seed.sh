#!/usr/bin/env bash
# The grouped walk's time against N around 2^18 and the Plummer sphere's seed (E17 found 14-22 ms
# at 2^18, more than at 2^20), then Nsight Compute's time of every kernel of one evaluation at 2^18
# (seed 1). Run from the repository root on the device with build-gpu-carry. diag.csv's columns:
# seed, engine, n, seconds_per_eval, build_seconds, walk_seconds, moments_seconds.
. tools/gpu/carry.sh
mkdir -p $OUT
for n in 131072 200000 262144 300000 524288 1048576; do
  for seed in 1 2; do
    "$NB" bench --engine cuda-octree-groups --precision float --n $n --seed $seed --repeats 3 --ic plummer --theta 0.7 \
      --moments monopole | tail -1 | cut -d, -f1,3,6,18,19,24 | sed "s/^/seed=$seed,/" >> $OUT/diag.csv
  done
done
cat $OUT/diag.csv
/usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum --csv "$NB" bench --engine cuda-octree-groups --precision float \
  --n 262144 --repeats 1 --ic plummer --theta 0.7 > $OUT/ncu_262144.csv 2>&1
python3 - <<'PY'
import csv, os
rows = [r for r in csv.reader(l for l in open(os.environ["OUT"] + "/ncu_262144.csv") if l.startswith('"')) if len(r) > 10]
hdr = rows[0]; k = hdr.index("Kernel Name"); v = hdr.index("Metric Value")
tot = {}
for r in rows[1:]:
    name = r[k].split("(")[0].split("<")[0][-40:]
    tot[name] = tot.get(name, 0) + float(r[v].replace(",", ""))
for name, t in sorted(tot.items(), key=lambda x: -x[1])[:8]:
    print(f"{t/1e3:10.1f} us  {name}")
PY
