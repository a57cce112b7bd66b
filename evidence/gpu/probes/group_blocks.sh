#!/usr/bin/env bash
# The grouped walk's block size with two bodies per lane: `cuda-octree-groups` at --launch block=
# 64 ... 1024 (and the default), N = 2^20 (theta 0.5, leaves of 1, monopoles; theta 0.7, leaves of
# 16, quadrupoles) and 2^22 (the latter), float, force error of 1024 bodies. One call on the device
# from the repository root with build-gpu-carry (as opencl_octree.sh). Writes $OUT/group_blocks.tar.gz.
NAME=group_blocks
. tools/gpu/batch_start.sh
step "timings"
for c in "1048576 0.5 1 monopole" "1048576 0.7 16 quadrupole" "4194304 0.7 16 quadrupole"; do
  set -- $c
  for blk in 0 64 128 256 512 1024; do
    launch=""
    [ $blk != 0 ] && launch="--launch block=$blk"
    timing_row theta,leaf,moments,block $2,$3,$4,$blk "$NB" bench --engine cuda-octree-groups --precision float --n $1 \
      --repeats 5 --ic plummer --theta $2 --leaf-size $3 --moments $4 $launch --force-error --error-bodies 1024
  done
  pack
done
python3 - "$W/timings.csv" <<'PY' | tee -a "$W/steps.log"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if not r.get("seconds_per_eval"): print("FAILED", r); continue
    print(f"n={r['n']} theta={r['theta']} leaf={r['leaf']} {r['moments'][:4]} block={r['block']} [{r['device'].split('; ')[-1]}]: "
          f"{float(r['seconds_per_eval'])*1e3:6.2f} ms (walk {float(r['walk_seconds'])*1e3:.2f}) p99 {float(r['error_p99']):.3e}")
PY
kill $smi_pid 2> /dev/null
pack
