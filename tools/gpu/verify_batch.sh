#!/usr/bin/env bash
# After a change of the GPU back ends (a kernel, its spec or launch, the host code around them), one
# call on the lent GPU machine, from the repository root:
#   tools/gpu/verify_batch.sh
# 1. provenance (nvidia-smi, `nbody --build-info`);
# 2. `nbody_tests "[gpu]"`: every engine of the registry against `simple` in every precision it
#    runs in, every value of every launch knob, the shapes that combine knobs, device-resident
#    steps; the worst norm per test in tests_worst_norms.csv;
# 3. compute-sanitizer memcheck, racecheck and synccheck on every CUDA engine in every precision
#    it runs in, with and without the clamp, over two values of each of its knobs (read from
#    `nbody list engines --json`: its kernel's spec), and on the device-resident stepping kernels;
# 4. timings at N = 2^20 and 4096 with the committed tuning cache (`nbody bench`, E09's setting).
# Binaries come prebuilt in $CARRY (tools/gpu/prepare_carry.sh). Everything lands in $WORK/verify/
# and is packed into $OUT/verify.tar.gz after each step.
NAME=verify
. tools/gpu/batch_start.sh

step "tests [gpu]"
"$NT" "[gpu]" -s -r compact > "$W/tests_gpu_full.log" 2>&1; echo "nbody_tests [gpu] rc=$?" | tee -a "$W/steps.log"
grep -E "FAILED|failed" -A12 "$W/tests_gpu_full.log" | head -200 > "$W/tests_gpu_failures.log"
grep -c "SKIPPED" "$W/tests_gpu_full.log" | sed 's/^/skip messages: /' | tee -a "$W/steps.log"
tail -3 "$W/tests_gpu_full.log" | tee -a "$W/steps.log"
python3 - "$W/tests_gpu_full.log" > "$W/tests_worst_norms.csv" << 'EOF'
import re, sys
# "ENGINE[ --launch SHAPE], n = N, ..." then "norm = X, tolerance Y" (support.hpp's INFO lines)
worst = {}
what = None
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"((?:cuda|opencl|openmp)[a-z0-9-]*|simple)(?: --launch (?:'[^']*'|\S+))?, n = \d+", line)
    if m:
        what = m.group(1)
    m = re.search(r"norm = ([0-9.eE+-]+), tolerance ([0-9.eE+-]+)", line)
    if m and what:
        key = (what, m.group(2))
        worst[key] = max(worst.get(key, 0.0), float(m.group(1)))
print("engine,tolerance,worst_norm")
for (e, tol), v in sorted(worst.items()):
    print(f"{e},{tol},{v:.3g}")
EOF
cat "$W/tests_worst_norms.csv" | tee -a "$W/steps.log"
pack

step "compute-sanitizer ($SAN)"
"$NB" list engines --json > "$W/engines.json"
for p in float double dd qd; do "$NB" list engines --json --precision $p > "$W/engines_$p.json"; done
python3 - "$W" > "$W/sanitizer_cases.txt" << 'EOF'
import json, sys
# One case per (CUDA engine, precision it runs in): two values of each knob of its spec (block
# 32 and 96, split 1 and 3, the first and last compiled variant of the others).
w = sys.argv[1]
for p in ("float", "double", "dd", "qd"):
    for e in json.load(open(f"{w}/engines_{p}.json")):
        if e["device"] != "cuda" or p not in e["precisions"]:
            continue
        args = []
        for k in e["launch"]:
            valid = k["valid"]
            if k["key"] == "block":
                vals = "32,96"
            elif k["key"] == "split":
                vals = "1,3"
            else:  # the first and the last compiled variant
                v = valid.replace(" ", "").split(",")
                vals = ",".join(dict.fromkeys([v[0], v[-1]]))
            args.append(f"--{k['key']}s {vals}")
        print(e["name"], p, " ".join(args))
EOF
while read -r e p args; do
  for tool in memcheck racecheck synccheck; do
    for law in "" "--r-min 0.05"; do
      echo "--- $tool $e $p $args $law" >> "$W/sanitizer_${tool}.log"
      "$SAN" --tool $tool --error-exitcode 99 "$NB" tune --engine $e --precision $p --n 333 $args --repeats 1 --no-store $law \
        >> "$W/sanitizer_${tool}.log" 2>&1
      echo "rc=$? ($tool $e $p $law)" >> "$W/sanitizer_summary.log"
    done
  done
  pack
done < "$W/sanitizer_cases.txt"
small="run --ic plummer --n 97 --seed 3 --eps 0.01 --engine cuda-split --stepping device --t-end 0.02 --diag-every 0.01"
for tool in memcheck racecheck synccheck; do
  for m in "--precision float --integrator dopri5 --tol 1e-8" "--precision double --integrator dop853 --tol 1e-8 --r-min 0.05" \
           "--precision double --integrator adams-bashforth --dt 1e-3 --launch cluster=8"; do
    echo "--- $tool resident $m" >> "$W/sanitizer_${tool}.log"
    "$SAN" --tool $tool --error-exitcode 99 "$NB" $small $m >> "$W/sanitizer_${tool}.log" 2>&1
    echo "rc=$? ($tool resident $m)" >> "$W/sanitizer_summary.log"
  done
done
cut -d' ' -f1 "$W/sanitizer_summary.log" | sort | uniq -c | tee -a "$W/steps.log"
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|SYNCCHECK SUMMARY" "$W"/sanitizer_*.log | sort | uniq -c | tee -a "$W/steps.log"
pack

step "timings with the committed tuning cache"
cp results/E13_tune_cache.json "$NBODY_TUNE_CACHE"
for c in "cuda-pairs float 1048576" "cuda-pairs double 1048576" "cuda-tiled float 1048576" "cuda-tiled double 1048576" \
         "cuda-tiled dd 1048576" "cuda-split float 4096"; do
  set -- $c
  timing_row "" "" "$NB" bench --engine $1 --precision $2 --n $3 --repeats 5
done
cut -d, -f1-7 "$W/timings.csv" | tee -a "$W/steps.log"
kill "$smi_pid" 2> /dev/null
step done
pack
ls -la "$OUT"
