#!/usr/bin/env bash
# A batch longer than one device call (10 minutes), run detached on the warm machine, from the
# repository root:
#   tools/gpu/detached.sh start NAME COMMAND...  copies the repository (with its carry) to
#                                               /tmp/detached/NAME/repo and runs COMMAND there in a
#                                               process session of its own, which outlives the call
#                                               while the machine stays warm (the device README: 30 s
#                                               idle between calls), with OUT=/tmp/detached/NAME/out;
#                                               then waits as `wait` does
#   tools/gpu/detached.sh wait NAME [SECONDS]    waits until COMMAND ends or SECONDS pass (default
#                                               540), then copies what it wrote under its OUT, its
#                                               log (NAME.log) and, once it ended, its exit status
#                                               (NAME.rc) into this call's $OUT; exits 0 when COMMAND
#                                               has ended, 1 while it still runs, 2 if no such batch
# The next call must follow at once, or the machine goes back and the batch with it: what it had
# written by the last `wait` is what comes back.
set -u
action=${1:?usage: detached.sh start|wait NAME ...}
name=${2:?usage: detached.sh start|wait NAME ...}
D=/tmp/detached/$name
OUT=${OUT:-/tmp/nbody-out}
mkdir -p "$OUT"
if [ "$action" = start ]; then
  shift 2
  rm -rf "$D" && mkdir -p "$D/out"
  cp -a . "$D/repo"
  (cd "$D/repo" && OUT=$D/out setsid bash -c '"$@"; echo $? > "$0"' "$D/rc" "$@" > "$D/log" 2>&1 < /dev/null &)
  set -- wait "$name" "${WAIT:-540}"
  action=wait
fi
[ "$action" = wait ] || { echo "detached.sh: unknown action '$action' (start, wait)" >&2; exit 2; }
[ -d "$D" ] || { echo "detached.sh: no batch '$name' on this machine (it went back, or was never started)" >&2; exit 2; }
end=$((SECONDS + ${3:-540}))
while [ ! -f "$D/rc" ] && [ $SECONDS -lt $end ]; do sleep 5; done
cp -a "$D/out/." "$OUT/" 2> /dev/null
cp "$D/log" "$OUT/$name.log"
[ -f "$D/rc" ] && cp "$D/rc" "$OUT/$name.rc" && exit 0
echo "detached.sh: '$name' still runs ($(tail -1 "$D/log"))"
exit 1
