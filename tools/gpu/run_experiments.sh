#!/usr/bin/env bash
# Runs experiments through the runner on the device, one after another, from the repository root
# with the carried build (tools/gpu/carry.sh):
#   tools/gpu/run_experiments.sh ID...      (RUNNER_FLAGS, e.g. "--profile full --force", go to each)
# After each experiment it packs every results/ file written since it started, the point store
# included (so that a later call can resume an experiment in parts), into $OUT/results.tar.gz, so
# that a call stopped at its limit, or a detached batch's `wait`, brings back what is finished.
# Unpack it in the repository root here. Exits with the number of experiments that failed.
set -u
. tools/gpu/carry.sh
OUT=${OUT:-/tmp/nbody-out}
mkdir -p "$OUT"
stamp=$(mktemp) && touch "$stamp"
failed=0
for id in "$@"; do
  echo "== $id ($(date -u +%H:%M:%S))"
  PYTHONUNBUFFERED=1 python3 experiments/runner.py run "$id" --nbody "$NB" ${RUNNER_FLAGS:-} || failed=$((failed + 1))
  find results -newer "$stamp" -type f -print0 | tar czf "$OUT/results.tar.gz" --null -T -
done
echo "== done ($(date -u +%H:%M:%S)): $failed of $# failed"
exit $failed
