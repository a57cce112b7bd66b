"""The files of `nbody run`, `nbody dpd` and `nbody sph` whatever befalls the run (docs/design.md,
"Output files"; solver/io/output_set.hpp, solver/core/interrupt.hpp): every case either exits 2
before running, or ends 0 with every output whole, or leaves nothing but the checkpoint; always with
at most one line on stderr, and never a temporary file (*.tmp.*) or a lock file (*.lock) behind.

- a full disk (a file size limit; a small tmpfs where a user namespace can mount one) fails the run
  with exit 3 and one line;
- a provenance record, XDMF sidecar or checkpoint backup that is a directory, and a snapshot series
  one of whose files is the input, are refused before the run;
- a second run writing the same files is refused at once, naming the first one's process;
- SIGTERM at 30 instants from 0 to 2 s after the start (SIGINT at a few more): exit 143 (130) with one
  line, or, when the run had finished, exit 0 with every output;
- after `kill -9` in mid-run, a new run with the same outputs runs and leaves no debris.
Run by CTest (tests/CMakeLists.txt).

    test_run_outputs.py NBODY
"""
import concurrent.futures
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from report import report

# Each command at three lengths: short (a tenth of a second), long (most of a second) and endless
# (stopped by the test), writing every kind of output.
LENGTHS = {"short": 0, "long": 1, "endless": 2}


def command(model, length):
    which = LENGTHS[length]
    outputs = ["--diagnostics", "d.csv", "--final-state", "f.csv", "--summary", "s.json", "--checkpoint", "c.bin", "--quiet"]
    if model == "run":
        t_end = (1, 25, 1000)[which]
        return ["run", "--ic", "plummer", "--n", "64", "--seed", "1", "--integrator", "leapfrog", "--dt", "0.001",
                "--t-end", str(t_end), "--snapshots", "s.hdf5", "--snapshot-every", str(t_end / 20),
                "--checkpoint-every", "0.5", *outputs]
    if model == "dpd":
        steps = (100, 1800, 10**7)[which]
        return ["dpd", "--box", "4", "--steps", str(steps), "--snapshots", "s.csv", "--checkpoint-every", "200", *outputs]
    return ["sph", "--case", "hydrostatic", "--dx", "0.05", "--t-end", ("0.2", "7", "1e5")[which], "--snapshots", "s.csv",
            "--checkpoint-every", "500", *outputs]


MODELS = ["run", "dpd", "sph"]
KEPT = {"c.bin", "c.bin.bak"}  # what an interrupted or failed run may leave
ENV = dict(os.environ, OMP_NUM_THREADS="1", LC_ALL="C")


def names(folder):
    return {p.name for p in folder.iterdir()}


def debris(folder):
    return sorted(n for n in names(folder) if ".tmp." in n or n.endswith(".lock"))


def one_line(err):
    return err.count(b"\n") == 1 and err.endswith(b"\n")


def start(nbody, folder, args, **kw):
    return subprocess.Popen([nbody, *args], cwd=folder, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def run(nbody, folder, args, **kw):
    return subprocess.run([nbody, *args], cwd=folder, env=ENV, capture_output=True, timeout=120, **kw)


def outcome_problems(label, folder, code, err, complete):
    """What is wrong with an ended command: 0 with every output (`complete`: the names an
    uninterrupted run leaves), or 2, 3, 130, 143 with one line and nothing but the checkpoint."""
    problems = []
    left = names(folder)
    if debris(folder):
        problems.append(f"{label}: left {debris(folder)}")
    if code == 0:
        if left != complete:
            problems.append(f"{label}: exit 0 without every output: missing {sorted(complete - left)}, extra {sorted(left - complete)}")
        if err:
            problems.append(f"{label}: exit 0 with stderr {err[:300]!r}")
    elif code in (2, 3, 130, 143):
        if not left <= KEPT:
            problems.append(f"{label}: exit {code} left outputs {sorted(left - KEPT)}")
        if not one_line(err):
            problems.append(f"{label}: exit {code} with stderr {err[:600]!r}, not one line")
    else:
        problems.append(f"{label}: exit {code}, stderr {err[:600]!r}")
    return problems


def reference(nbody, tmp, model, length):
    """The names an uninterrupted run leaves; a problem if it does not end 0."""
    folder = tmp / f"reference_{model}_{length}"
    folder.mkdir()
    done = run(nbody, folder, command(model, length))
    problems = outcome_problems(f"{model} uninterrupted", folder, done.returncode, done.stderr, names(folder))
    if done.returncode != 0:
        problems.append(f"{model} {length}: exit {done.returncode}: {done.stderr[:600]!r}")
    return names(folder), problems


def disk_full(nbody, tmp, model, complete):
    """A file size limit at sizes from a lock file's to the whole run's: exit 3 naming the reason,
    or 0 when everything fits."""
    problems, failed = [], 0
    for limit in (64, 1000, 8000, 30000, 200000):
        folder = tmp / f"fsize_{model}_{limit}"
        folder.mkdir()
        done = run(nbody, folder, command(model, "short"),
                   preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)))
        label = f"{model} with a file size limit of {limit} bytes"
        problems += outcome_problems(label, folder, done.returncode, done.stderr, complete)
        if done.returncode not in (0, 3) or (done.returncode == 3 and b"File too large" not in done.stderr):
            problems.append(f"{label}: exit {done.returncode}, {done.stderr[:300]!r}: not 3 and 'File too large'")
        failed += done.returncode == 3
    if failed == 0:
        problems.append(f"{model}: no file size limit made the run fail")
    return problems


def small_tmpfs(nbody, tmp, model):
    """The run in a tmpfs of 48 KiB, mounted in a user namespace (skipped where there is none)."""
    folder = tmp / f"tmpfs_{model}"
    folder.mkdir()
    script = ('mount -t tmpfs -o size=48k none "$0" || exit 77; cd "$0"; "$@" 2>../tmpfs_err; echo $? >../tmpfs_code; '
              'ls -A >../tmpfs_left')
    inside = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, str(folder), nbody,
                             *command(model, "short")], cwd=tmp, env=ENV, capture_output=True, timeout=120)
    if inside.returncode == 77 or not (tmp / "tmpfs_code").exists():
        return None  # no user namespace, or no tmpfs in it
    code = int((tmp / "tmpfs_code").read_text())
    err = (tmp / "tmpfs_err").read_bytes()
    left = set((tmp / "tmpfs_left").read_text().split())
    problems = []
    if code != 3 or b"No space left on device" not in err or not one_line(err):
        problems.append(f"{model} in a full tmpfs: exit {code}, {err[:300]!r}: not 3 and one line 'No space left on device'")
    if not left <= KEPT:
        problems.append(f"{model} in a full tmpfs left {sorted(left - KEPT)}")
    for f in ("tmpfs_code", "tmpfs_err", "tmpfs_left"):
        (tmp / f).unlink()
    return problems


def refused_before_running(nbody, tmp, model):
    """Places the run cannot write, found before it runs: exit 2, one line, the folder as it was."""
    cases = [("f.meta.json", "the provenance record f.meta.json of --final-state f.csv is a directory"),
             ("c.bin.bak", "the backup c.bin.bak of --checkpoint c.bin is a directory"),
             ("d.csv.lock", "the lock file d.csv.lock of --diagnostics d.csv is a directory")]
    if model == "run":
        cases.append(("s.xdmf", "the XDMF time series s.xdmf of --snapshots s.hdf5 is a directory"))
    problems = []
    for directory, message in cases:
        folder = tmp / f"dir_{model}_{directory}"
        folder.mkdir()
        (folder / directory).mkdir()
        done = run(nbody, folder, command(model, "short"))
        if done.returncode != 2 or not one_line(done.stderr) or message.encode() not in done.stderr:
            problems.append(f"{model} with a directory {directory}: exit {done.returncode}, {done.stderr[:300]!r}")
        if names(folder) != {directory}:
            problems.append(f"{model} with a directory {directory} left {sorted(names(folder))}")
    if model == "run":  # the start is the series' first file
        folder = tmp / "series_over_input"
        folder.mkdir()
        run(nbody, folder, ["ic", "--ic", "plummer", "--n", "64", "--out", "s_000.hdf5"])
        before = (folder / "s_000.hdf5").read_bytes()
        args = [a if a != "plummer" else "file:s_000.hdf5" for a in command(model, "short")]
        done = run(nbody, folder, args)
        message = b"the snapshot s_000.hdf5 of --snapshots s.hdf5 would overwrite the input --ic s_000.hdf5"
        if done.returncode != 2 or not one_line(done.stderr) or message not in done.stderr:
            problems.append(f"a series over its input: exit {done.returncode}, {done.stderr[:300]!r}")
        if names(folder) != {"s_000.hdf5"} or (folder / "s_000.hdf5").read_bytes() != before:
            problems.append(f"a series over its input left {sorted(names(folder))} or changed the input")
    return problems


def wait_for(folder, proc, test, seconds=30):
    end = time.monotonic() + seconds
    while time.monotonic() < end and proc.poll() is None:
        if test(names(folder)):
            return True
        time.sleep(0.005)
    return False


def two_runs(nbody, tmp, model):
    """The second of two runs on the same files is refused at once, naming the first."""
    folder = tmp / f"two_{model}"
    folder.mkdir()
    first = start(nbody, folder, command(model, "endless"))
    problems = []
    if not wait_for(folder, first, lambda n: "c.bin.lock" in n and "d.csv.lock" in n):
        problems.append(f"{model}: the first run took no lock")
    t0 = time.monotonic()
    second = run(nbody, folder, command(model, "short"))
    if second.returncode != 2 or not one_line(second.stderr) or f"(process {first.pid})".encode() not in second.stderr:
        problems.append(f"{model}: the second run: exit {second.returncode}, {second.stderr[:300]!r}")
    if time.monotonic() - t0 > 5:
        problems.append(f"{model}: the second run was refused only after {time.monotonic() - t0:.1f} s")
    first.send_signal(signal.SIGTERM)
    out, err = first.communicate(timeout=60)
    problems += outcome_problems(f"{model} stopped after a second run", folder, first.returncode, err, set())
    return problems


def killed_then_again(nbody, tmp, model, complete):
    """kill -9 in mid-run (outputs staged, a checkpoint written), then the same outputs again."""
    folder = tmp / f"kill9_{model}"
    folder.mkdir()
    first = start(nbody, folder, command(model, "endless"))
    problems = []
    if not wait_for(folder, first, lambda n: "c.bin" in n and any(".tmp." in x for x in n)):
        problems.append(f"{model}: the run to kill wrote no checkpoint")
    first.kill()
    first.communicate()
    if not debris(folder):
        problems.append(f"{model}: kill -9 left no debris (the test proves nothing)")
    done = run(nbody, folder, command(model, "short"))  # the killed run's checkpoint is kept as the backup
    problems += outcome_problems(f"{model} after kill -9", folder, done.returncode, done.stderr, complete | {"c.bin.bak"})
    if done.returncode != 0:
        problems.append(f"{model} after kill -9: exit {done.returncode}")
    return problems


def catches(proc, sig):
    """Whether the process has its handler for sig in place (Linux: /proc/PID/status, SigCgt)."""
    try:
        status = Path(f"/proc/{proc.pid}/status").read_text()
    except OSError:
        return True
    caught = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigCgt:")), None)
    return caught is None or bool(caught >> (sig - 1) & 1)


def interrupted(nbody, tmp, model, at, sig, complete):
    """sig `at` seconds after the start (or none, if the run ends first). The start is when nbody
    has its handler in place: before, while the system loads its libraries, nothing of it runs and
    the signal ends it as it ends any process (killed by the signal, nothing written)."""
    folder = tmp / f"signal_{model}_{at:.4f}_{sig}"
    folder.mkdir()
    proc = start(nbody, folder, command(model, "long"))
    while proc.poll() is None and not catches(proc, sig):
        time.sleep(0.0005)
    try:
        proc.wait(timeout=at)
    except subprocess.TimeoutExpired:
        proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    label = f"{model} with {signal.Signals(sig).name} at {at:.3f} s"
    problems = outcome_problems(label, folder, proc.returncode, err, complete)
    if proc.returncode not in (0, 128 + sig):
        problems.append(f"{label}: exit {proc.returncode}, not 0 or {128 + sig}")
    if proc.returncode == 128 + sig and not err.startswith(b"nbody: interrupted"):
        problems.append(f"{label}: {err[:300]!r} does not say it was interrupted")
    shutil.rmtree(folder)
    return problems, proc.returncode


def main(nbody):
    nbody = str(Path(nbody).resolve())
    for sig in (signal.SIGINT, signal.SIGTERM):  # ignored signals stay ignored in nbody: not these
        if signal.getsignal(sig) == signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)
    began = time.monotonic()
    failures, skipped = [], []
    with tempfile.TemporaryDirectory(prefix="nbody_run_outputs_") as tmp:
        tmp = Path(tmp)
        complete = {}
        for model in MODELS:
            for length in ("short", "long"):
                complete[model, length], problems = reference(nbody, tmp, model, length)
                failures += problems
        for model in MODELS:
            failures += disk_full(nbody, tmp, model, complete[model, "short"])
            tmpfs = small_tmpfs(nbody, tmp, model)
            if tmpfs is None:
                skipped.append(f"{model} in a small tmpfs")
            else:
                failures += tmpfs
            failures += refused_before_running(nbody, tmp, model)
            failures += two_runs(nbody, tmp, model)
            failures += killed_then_again(nbody, tmp, model, complete[model, "short"])
        # Denser near the start, where setup, locks and the first files pass quickly.
        instants = [(MODELS[i % 3], 2.0 * (i / 29) ** 2, signal.SIGTERM) for i in range(30)]
        instants += [(model, at, signal.SIGINT) for model, at in (("run", 0.005), ("dpd", 0.2), ("sph", 0.4))]
        codes = []
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for problems, code in pool.map(lambda c: interrupted(nbody, tmp, c[0], c[1], c[2], complete[c[0], "long"]),
                                           instants):
                failures += problems
                codes.append(code)
    if skipped:
        print("skipped (not possible on this machine):", ", ".join(skipped))
    stopped = sum(code != 0 for code in codes)
    return report(failures, f"outputs of run, dpd and sph under full disks, bad places, two runs, signals ({stopped} of "
                            f"{len(codes)} runs stopped, the others done) and kill -9 ({time.monotonic() - began:.1f} s)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
