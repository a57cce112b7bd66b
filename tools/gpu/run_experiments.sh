#!/usr/bin/env bash
# Runs experiments through the runner on the device, one after another, from the repository root
# with the carried build (tools/gpu/carry.sh):
#   tools/gpu/run_experiments.sh ID...      (RUNNER_FLAGS, e.g. "--profile full --force", go to each)
# It packs every results/ file written since it started, the point store included (so that a
# later call resumes an experiment in parts where it stopped), into $OUT/results.tar.gz after each
# experiment and every PACK_EVERY seconds (default 60) while one runs, so that a call stopped at
# its limit, or a detached batch's `wait`, brings back what is finished. Unpack it in the
# repository root here. Exits with the number of experiments that failed.
set -u
. tools/gpu/carry.sh
OUT=${OUT:-/tmp/nbody-out}
mkdir -p "$OUT"
stamp=$(mktemp) && touch "$stamp"
pack() {  # one at a time; written aside, then renamed into $OUT, so that a `wait` copies whole archives
  (flock 9
   find results -newer "$stamp" -type f ! -name '*.tmp.*' -print0 | tar czf "$stamp.tar.gz" --null -T - &&
     cp "$stamp.tar.gz" "$OUT/results.tar.gz.new" && mv "$OUT/results.tar.gz.new" "$OUT/results.tar.gz") 9> "$stamp.lock"
}
while sleep "${PACK_EVERY:-60}"; do pack; done &
packer=$!
trap 'kill $packer 2> /dev/null' EXIT
failed=0
for id in "$@"; do
  echo "== $id ($(date -u +%H:%M:%S))"
  PYTHONUNBUFFERED=1 python3 experiments/runner.py run "$id" --nbody "$NB" ${RUNNER_FLAGS:-} || failed=$((failed + 1))
  pack
done
echo "== done ($(date -u +%H:%M:%S)): $failed of $# failed"
exit $failed
