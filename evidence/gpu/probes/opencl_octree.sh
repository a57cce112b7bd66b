#!/usr/bin/env bash
# opencl-octree on the H100 through NVIDIA's OpenCL, one call on the device, from the repository
# root with build-gpu-carry (nbody and nbody_tests, xz-compressed or as tools/gpu/carry.sh takes
# them): the tree tests (every tree engine, OpenCL on the GPU), then `nbody bench` of opencl-octree
# and cuda-octree-groups at N = 2^20, float and double, theta 0.5 (leaves of 1, monopoles) and 0.7
# (leaves of 16, quadrupoles), force error of 4096 bodies. Writes $OUT/opencl_octree.tar.gz.
NAME=opencl_octree
. tools/gpu/batch_start.sh
"$NB" list engines 2>&1 | grep octree > "$W/engines.txt"
step "tests [tree]~[cli]"
timeout 240 "$NT" "[tree]~[cli]" -r compact > "$W/tests_tree.log" 2>&1; echo "nbody_tests [tree]~[cli] rc=$?" | tee -a "$W/steps.log"
tail -2 "$W/tests_tree.log" | tee -a "$W/steps.log"
grep -c "opencl-octree" "$W/tests_tree.log" >> "$W/steps.log"
pack
step "timings"
for p in float double; do
  for s in "0.5 1 monopole" "0.7 16 quadrupole"; do
    set -- $s
    for e in opencl-octree cuda-octree-groups; do
      timing_row theta,leaf,moments $1,$2,$3 "$NB" bench --engine $e --precision $p --n 1048576 --repeats 3 --ic plummer \
        --theta $1 --leaf-size $2 --moments $3 --force-error --error-bodies 4096
    done
  done
  pack
done
python3 - "$W/timings.csv" <<'PY' | tee -a "$W/steps.log"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if not r.get("seconds_per_eval"): print("FAILED", r); continue
    print(f"{r['engine']:18} {r['precision']:6} theta={r['theta']} leaf={r['leaf']} {r['moments'][:4]}: device {float(r['seconds_per_eval'])*1e3:8.2f} ms, "
          f"wall {float(r['wall_seconds_per_eval'])*1e3:8.2f} ms (build {float(r['build_seconds'])*1e3:.2f}, walk {float(r['walk_seconds'])*1e3:.2f}) "
          f"terms {float(r['terms_per_body']):.0f} p99 {float(r['error_p99']):.3e} [{r['device'][:60]}]")
PY
kill $smi_pid 2> /dev/null
pack
