#!/usr/bin/env bash
# The short-range methods on the lent H100 (the `run` device tool), from the repository root:
#   tools/gpu/shortrange_batch.sh [check]
#       provenance; nbody_tests "[cells],[shortrange],[dpd]~[cli]" (every CUDA cell-list builder
#       against the CPU's list, DPD on the GPU against the CPU bit for bit); compute-sanitizer
#       memcheck, racecheck and synccheck on `nbody dpd --engine cuda` with every builder (float,
#       double; boxes of 1 and 4-5 cells per side) and on `nbody cells` (both orders); then one DPD step's time at 2^20 particles
#       (rho = 3) with every builder, float and double, and on the host's cores (BOX, STEPS,
#       BUILDERS and TESTS, a list of test specs, override; SANITIZE=0 and TIMINGS=0 skip steps)
#   tools/gpu/shortrange_batch.sh sph
#       SPH on the GPU: nbody_tests "[sph]~[cli]" (the GPU against the CPU bit for bit);
#       compute-sanitizer memcheck, racecheck and synccheck on `nbody sph --engine cuda` (2-D and 3-D
#       dam breaks, Poiseuille; float and double); then E19_sph_step_time_gpu through the runner (the
#       3-D dam break's time per step at about 2^20 particles) and its frames
#       (experiments/sph_dam_break_3d_frames.py, results in $W/results); TIMINGS=0 skips both
#   tools/gpu/shortrange_batch.sh demos
#       S3's DPD demonstrations (experiments/dpd_demos.py: phase separation, Rayleigh-Taylor), their
#       results in $W/results
#   tools/gpu/shortrange_batch.sh experiments
#       E18_cell_list_build_gpu and E19_dpd_step_time_gpu through the runner (--profile full; EXPS=ID, LIMIT=s and FORCE= as
#       octree_batch.sh)
# Binaries come prebuilt in $CARRY (tools/gpu/prepare_carry.sh); results in
# $OUT/shortrange[_experiments].tar.gz.
phase=${1:-check}
NAME=shortrange${1:+_$1}
. tools/gpu/batch_start.sh
if [ "$phase" = demos ]; then
  step "S3's DPD demonstrations (experiments/dpd_demos.py)"
  PYTHONUNBUFFERED=1 python3 experiments/dpd_demos.py --nbody "$NB" --out "$W/results" > "$W/demos.log" 2>&1
  echo "dpd_demos rc=$?" | tee -a "$W/steps.log"
  cat "$W/demos.log" >> "$W/steps.log"
  kill $smi_pid 2> /dev/null
  pack
  exit 0
fi
if [ "$phase" = sph ]; then
  run_tests ${TESTS-"[sph]~[cli]"}
  if [ "${SANITIZE-1}" = 1 ]; then
    step "compute-sanitizer ($SAN) on nbody sph --engine cuda"
    for run in "memcheck float dam-break 0.1 2e-3" "memcheck double dam-break 0.1 2e-3" "memcheck float dam-break-3d 0.1 2e-3" \
               "memcheck double poiseuille 5e-5 5e-3" "racecheck float dam-break-3d 0.1 2e-3" \
               "synccheck float dam-break-3d 0.1 2e-3"; do
      set -- $run  # tool precision case dx t-end: a few steps each
      sanitize $1 sph --engine cuda --precision $2 --case $3 --dx $4 --t-end $5
    done
    sanitizer_summary
  fi
  if [ "${TIMINGS-1}" = 1 ]; then
    run_experiments "${EXPS-E19_sph_step_time_gpu}"
    step "the 3-D dam break's frames (experiments/sph_dam_break_3d_frames.py)"
    mkdir -p "$W/results"
    PYTHONUNBUFFERED=1 python3 experiments/sph_dam_break_3d_frames.py --nbody "$NB" --out "$W/results" > "$W/frames.log" 2>&1
    echo "sph_dam_break_3d_frames rc=$?" | tee -a "$W/steps.log"
    cat "$W/frames.log" >> "$W/steps.log"
  fi
  kill $smi_pid 2> /dev/null
  pack
  exit 0
fi
if [ "$phase" = experiments ]; then
  run_experiments "${EXPS-E18_cell_list_build_gpu E19_dpd_step_time_gpu}"
  kill $smi_pid 2> /dev/null
  pack
  exit 0
fi
builders=${BUILDERS-linked-list shared-lists linked-to-arrays incremental counting-sort radix-sort binned two-level}

run_tests ${TESTS-"[cells]~[cli],[shortrange]~[cli],[dpd]~[cli]"}

if [ "${SANITIZE-1}" = 1 ]; then
  step "compute-sanitizer ($SAN)"
  # memcheck: every builder, precision and a box of 1 and of 4-5 cells per side; racecheck and
  # synccheck (shared memory, barriers): every builder in float.
  for b in $builders; do
    for run in "memcheck float 1" "memcheck float 4,4.5,5" "memcheck double 1" "memcheck double 4,4.5,5" \
               "racecheck float 4,4.5,5" "synccheck float 4,4.5,5"; do
      set -- $run
      sanitize $1 dpd --engine cuda --cell-list $b --precision $2 --box $3 --steps 3 --species 2 --a 25,40,40,25
    done
    # `nbody cells`: the builder alone, both orders (the incremental re-sort of a step's moves).
    for run in "memcheck random" "memcheck step" "racecheck random" "synccheck step"; do
      set -- $run
      sanitize $1 cells --builder $b --n 5000 --order $2 --repeats 1
    done
    pack
  done
  sanitizer_summary
fi

[ "${TIMINGS-1}" = 1 ] && step "timings: one DPD step at rho = 3, box ${BOX:=70.4242} (2^20 particles)"
[ "${TIMINGS-1}" = 1 ] && for p in float double; do
  for b in $builders; do
    "$NB" dpd --engine cuda --cell-list $b --precision $p --box $BOX --steps ${STEPS:-200} --summary "$W/dpd_cuda_${p}_$b.json" \
      >> "$W/timings.log" 2>&1
    echo "cuda $p $b rc=$?" >> "$W/timings.log"
  done
  OMP_PROC_BIND=close "$NB" dpd --engine openmp --precision $p --box $BOX --steps 5 --summary "$W/dpd_openmp_$p.json" \
    >> "$W/timings.log" 2>&1
  echo "openmp $p rc=$?" >> "$W/timings.log"
  pack
done
python3 - "$W" <<'PY' | tee -a "$W/steps.log"
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "dpd_*.json"))):
    s = json.load(open(f))
    extra = (f", device {1e3 * s['device_seconds_per_step']:.3f} ms, cell list {1e3 * s['cell_list_seconds_per_step']:.3f} ms"
             if "device_seconds_per_step" in s else "")
    print(f"{os.path.basename(f)}: n {s['n']}, {1e3 * s['seconds_per_step']:.3f} ms per step{extra}, "
          f"kT {s['kT_mean']:.4f}, threads {s['threads']} [{s['device']}]")
PY
kill $smi_pid 2> /dev/null
pack
