#!/usr/bin/env bash
# A/B of the cooperative octree build and the vectorised grouped walk against the build they
# replace (c4f8035), one call on the device, from the repository root with build-gpu-carry (new
# nbody and nbody_tests, xz-compressed to fit the device tool's 64 MiB) and build-gpu-carry/ab/
# (nbody_VARIANT.xz: other builds to time beside it, e.g. nbody_old.xz, the earlier build).
# CHECKS=0 skips the tests and sanitizers, LEAVES="2 4 8" adds a leaf-size sweep of the new build,
# DOUBLE=1 two double rows at 2^20 for each binary.
# Writes $OUT/build_walk_ab.tar.gz:
#   tests_*.log       nbody_tests [tree]~[cli] and [resident] of the new build
#   sanitizer_*.log   memcheck, racecheck, synccheck of the new build (bench n=333, the deep tree test)
#   timings.csv       bench rows of each binary (column `binary`), alternating, at 2^20 and 2^22
#   ncu_*             Nsight Compute: every kernel's time in one evaluation (each binary); the walk's
#                     and the build's details and their instructions' counts and stalls in SASS (new)
NAME=build_walk_ab
. tools/gpu/batch_start.sh
declare -A BIN=([new]=$NB)
mkdir -p "$WORK/bin"  # outside W: the binaries stay out of the tarball
for f in build-gpu-carry/ab/nbody_*.xz; do
  v=$(basename $f .xz); v=${v#nbody_}
  unpack $f "$WORK/bin/nbody_$v" && BIN[$v]=$WORK/bin/nbody_$v
done

[ "${CHECKS-1}" = 1 ] && step "tests" && for t in "[tree]~[cli]" "[resident]"; do
  log="$W/tests_${t//[^a-z-]/}.log"
  timeout 300 "$NT" "$t" -r compact > "$log" 2>&1; echo "nbody_tests $t rc=$?" | tee -a "$W/steps.log"
  tail -2 "$log" | tee -a "$W/steps.log"
done
pack

step "timings"
bench_row() {  # binary n theta leaf moments [precision]
  timing_row theta,leaf,moments,binary $3,$4,$5,$1 "${BIN[$1]}" bench --engine cuda-octree-groups --precision ${6:-float} \
    --n $2 --repeats 5 --ic plummer --theta $3 --leaf-size $4 --moments $5 --force-error --error-bodies 4096
}
for n in 1048576 4194304; do
  for s in "0.5 1 monopole" "0.7 16 quadrupole" "0.5 16 monopole" "0.7 1 quadrupole"; do
    for b in "${!BIN[@]}"; do bench_row $b $n $s; done
  done
  pack
done
for leaf in ${LEAVES-}; do bench_row new 1048576 0.5 $leaf monopole; done
for s in ${DOUBLE:+"0.5 1 monopole" "0.7 16 quadrupole"}; do
  for b in "${!BIN[@]}"; do bench_row $b 1048576 $s double; done
done
python3 - "$W/timings.csv" <<'PY' | tee -a "$W/steps.log"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if not r.get("seconds_per_eval"): print("FAILED", r); continue
    print(f"{r['binary']:5} {r['precision']:6} n={r['n']} theta={r['theta']} leaf={r['leaf']} {r['moments'][:4]}: {float(r['seconds_per_eval'])*1e3:6.2f} ms "
          f"(build {float(r['build_seconds'])*1e3:.2f}, moments {float(r['moments_seconds'])*1e3:.2f}, walk {float(r['walk_seconds'])*1e3:.2f}) "
          f"terms {float(r['terms_per_body']):.0f} p99 {float(r['error_p99']):.3e}")
PY

step "Nsight Compute"
NCU=/usr/local/cuda/bin/ncu
for b in "${!BIN[@]}"; do
  $NCU --metrics gpu__time_duration.sum --csv "${BIN[$b]}" bench --engine cuda-octree-groups --precision float --n 1048576 \
    --repeats 1 --ic plummer --theta 0.5 --leaf-size 1 --moments monopole > "$W/ncu_kernels_$b.csv" 2>&1
  python3 - "$W/ncu_kernels_$b.csv" <<'PY' | tee "$W/ncu_kernels_$b.txt"
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')) if len(r) > 10]
hdr = rows[0]; k = hdr.index("Kernel Name"); v = hdr.index("Metric Value")
tot, cnt = {}, {}
for r in rows[1:]:
    name = r[k].split("(")[0].split("<")[0][-40:]
    tot[name] = tot.get(name, 0) + float(r[v].replace(",", "")); cnt[name] = cnt.get(name, 0) + 1
for name, t in sorted(tot.items(), key=lambda x: -x[1])[:14]:
    print(f"{t/1e3/2:10.1f} us per evaluation  {cnt[name]/2:6.0f} launches  {name}")
PY
done
$NCU --set full --import-source no -k regex:group_walk --launch-count 1 -o "$W/walk_new" "$NB" bench --engine cuda-octree-groups \
  --precision float --n 1048576 --repeats 1 --ic plummer --theta 0.5 --leaf-size 1 --moments monopole > "$W/ncu_walk_run.log" 2>&1
$NCU --import "$W/walk_new.ncu-rep" --page details > "$W/ncu_walk_details.txt" 2>&1
$NCU --import "$W/walk_new.ncu-rep" --page source --csv --print-source sass > "$W/ncu_walk_sass.csv" 2>&1
$NCU --set full --import-source no -k regex:build_kernel --launch-count 1 -o "$W/build_new" "$NB" bench --engine cuda-octree-groups \
  --precision float --n 1048576 --repeats 1 --ic plummer --theta 0.5 --leaf-size 1 --moments monopole > "$W/ncu_build_run.log" 2>&1
$NCU --import "$W/build_new.ncu-rep" --page details > "$W/ncu_build_details.txt" 2>&1
$NCU --import "$W/build_new.ncu-rep" --page source --csv --print-source sass > "$W/ncu_build_sass.csv" 2>&1
rm -f "$W"/*.ncu-rep
pack

[ "${CHECKS-1}" = 1 ] && step "compute-sanitizer" && for tool in memcheck racecheck synccheck; do
  for p in float double; do
    for m in monopole quadrupole; do
      "$SAN" --tool $tool --error-exitcode 99 "$NB" bench --engine cuda-octree-groups --precision $p --n 333 --repeats 1 \
        --ic two-galaxies --theta 0.5 --leaf-size 1 --moments $m >> "$W/sanitizer_$tool.log" 2>&1
      echo "rc=$? $tool $p $m" >> "$W/sanitizer_summary.log"
    done
  done
  "$SAN" --tool $tool --error-exitcode 99 "$NT" "an_octree_of_many*" >> "$W/sanitizer_$tool.log" 2>&1
  echo "rc=$? $tool deep tree test" >> "$W/sanitizer_summary.log"
  pack
done
[ "${CHECKS-1}" = 1 ] && cut -d' ' -f1 "$W/sanitizer_summary.log" | sort | uniq -c | tee -a "$W/steps.log"
[ "${CHECKS-1}" = 1 ] && grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|SYNCCHECK SUMMARY" "$W"/sanitizer_*.log | sort | uniq -c | tee -a "$W/steps.log"
kill $smi_pid 2> /dev/null
pack
