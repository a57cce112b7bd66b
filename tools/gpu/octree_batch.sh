#!/usr/bin/env bash
# The GPU octree engines on the lent H100 (the `run` device tool), from the repository root:
#   tools/gpu/octree_batch.sh check   provenance; nbody_tests "[tree]~[cli]" (every tree engine
#                                     against simple and the CPU octree, deep trees, error bounds);
#                                     compute-sanitizer memcheck, racecheck and synccheck on every
#                                     CUDA octree engine (float, double; monopole and quadrupole;
#                                     leaves of 1 and 8; the clamp on and off); timings at N = 2^20
#                                     and 2^22 over theta, leaf size and moments, with the force error
#                                     of 4096 bodies (SIZES, THETAS, LEAVES, MOMENTS, BLOCKS, PRECISIONS
#                                     and ENGINES override the lists; TESTS= skips the tests,
#                                     SANITIZE=0 the sanitizers)
#   tools/gpu/octree_batch.sh experiments  E17's two experiments through the runner (--profile
#                                     full; EXPS=ID runs one, LIMIT=s bounds each, FORCE= resumes
#                                     from the points of an earlier call, carried as
#                                     results/.points/ID); results/ files and the point store come
#                                     back in the tarball
# Binaries come prebuilt in $CARRY (tools/gpu/prepare_carry.sh); tools/gpu/batch_start.sh says where
# the results land ($OUT/octree_<phase>.tar.gz).
phase=${1:?usage: octree_batch.sh check|experiments}
NAME=octree_$phase
. tools/gpu/batch_start.sh
"$NB" list engines > "$W/engines.txt" 2>&1
engines=${ENGINES-$("$NB" list engines --json | python3 -c "import json,sys; print(' '.join(e['name'] for e in json.load(sys.stdin) if e['device']=='cuda' and e['tree']=='octree'))")}
echo "CUDA octree engines: $engines" | tee -a "$W/steps.log"
pack

if [ "$phase" = check ]; then
  run_tests ${TESTS-"[tree]~[cli]"}

  [ "${SANITIZE-1}" = 1 ] && step "compute-sanitizer ($SAN)"
  cases=()
  [ "${SANITIZE-1}" = 1 ] && for e in $engines; do
    for p in float double; do
      cases+=("$e $p block=32 --leaf-size 1 --moments monopole" "$e $p block=96 --leaf-size 8 --moments quadrupole --r-min 0.05")
    done
  done
  for c in "${cases[@]}"; do
    set -- $c
    e=$1 p=$2 shape=$3
    shift 3
    for tool in memcheck racecheck synccheck; do
      echo "--- $tool $c" >> "$W/sanitizer_${tool}.log"
      "$SAN" --tool $tool --error-exitcode 99 "$NB" bench --engine $e --precision $p --n 333 --repeats 1 \
        --ic two-galaxies --theta 0.5 --launch $shape "$@" >> "$W/sanitizer_${tool}.log" 2>&1
      echo "rc=$? ($tool $c)" >> "$W/sanitizer_summary.log"
    done
    pack
  done
  # Device-resident leapfrog steps (the axpy kicks and drifts between the evaluations).
  [ "${SANITIZE-1}" = 1 ] && for e in $engines; do
    for tool in memcheck racecheck synccheck; do
      echo "--- $tool $e leapfrog on the device" >> "$W/sanitizer_${tool}.log"
      "$SAN" --tool $tool --error-exitcode 99 "$NB" run --engine $e --precision float --ic plummer --n 333 \
        --integrator leapfrog --dt 0.01 --t-end 0.05 --stepping device >> "$W/sanitizer_${tool}.log" 2>&1
      echo "rc=$? ($tool $e leapfrog on the device)" >> "$W/sanitizer_summary.log"
    done
    pack
  done
  if [ "${SANITIZE-1}" = 1 ]; then
    cut -d' ' -f1 "$W/sanitizer_summary.log" | sort | uniq -c | tee -a "$W/steps.log"
    grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|SYNCCHECK SUMMARY" "$W"/sanitizer_*.log | sort | uniq -c | tee -a "$W/steps.log"
  fi
  pack

  step "timings: Plummer sphere, theta, leaf size, moments; error of 4096 bodies"
  for n in ${SIZES-1048576 4194304}; do
    for p in ${PRECISIONS-float double}; do
      for e in $engines; do
        for leaf in ${LEAVES-1 8 16 32}; do
          for th in ${THETAS-0.5 0.7}; do
            for m in ${MOMENTS-monopole quadrupole}; do
              for blk in ${BLOCKS-0}; do
                launch=""
                [ "$blk" != 0 ] && launch="--launch block=$blk"
                timing_row theta,leaf,moments $th,$leaf,$m "$NB" bench --engine $e --precision $p --n $n --repeats 5 \
                  --ic plummer --theta $th --leaf-size $leaf --moments $m $launch --force-error --error-bodies 4096
              done
            done
          done
        done
      done
      pack
    done
  done
  python3 - "$W/timings.csv" <<'PY' | tee -a "$W/steps.log"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if not r.get("seconds_per_eval"): continue
    print(f"{r['engine']} {r['precision']} n={r['n']} theta={r['theta']} leaf={r['leaf']} {r['moments']} [{r['device'].split('; ')[-1]}]: "
          f"{float(r['seconds_per_eval'])*1e3:.2f} ms (build {float(r['build_seconds'])*1e3:.2f}, moments "
          f"{float(r['moments_seconds'] or 'nan')*1e3:.2f}, walk {float(r['walk_seconds'])*1e3:.2f}) terms {float(r['terms_per_body']):.0f} "
          f"p99 {r['error_p99']} depth {r['tree_depth']}")
PY
fi

if [ "$phase" = experiments ]; then
  run_experiments "${EXPS-E17_force_accuracy_time E17_tree_energy_drift}"
fi
kill $smi_pid 2> /dev/null
pack
