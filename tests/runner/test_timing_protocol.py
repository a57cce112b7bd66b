"""The timing protocol of the runner (experiments/nbodylab/bench.py), checked without timing anything:

- a timing experiment (kind bench or tune) whose points repeat fewer than 5 times is refused with
  one line naming the file and the point, except in the smoke profile; unset repeats (nbody's
  default) and 5 load;
- the cores other work kept busy are the machine's busy CPU time less the point's own, per second;
- a timing is refused where other work kept more cores busy than the point left free (its threads
  times its ranks; every core where the row does not say) beyond a margin, accepted within it;
- `_measure` takes a refused timing again, BUSY_TRIES times, then fails the point saying the
  machine is busy; on a quiet machine it returns the row at once with the other work measured.
The machine's CPU time is a stand-in here (`_busy_seconds`, `_cores`), nbody a script.

Run by CTest (tests/CMakeLists.txt):  test_timing_protocol.py
"""
import stat
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
from nbodylab import bench, spec  # noqa: E402
from nbodylab.sweep import PointFailed  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import report  # noqa: E402

TIMING = """title = "timing"
kind = "{kind}"
[fixed]
engine = "openmp"
{repeats}
[sweep]
n = [512, 1024]
[profile.smoke.fixed]
repeats = 1
"""


def main():
    failures, checks = [], 0

    def check(what, ok):
        nonlocal checks
        checks += 1
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        spec.EXPERIMENTS_DIR = Path(tmp)
        for kind in ("bench", "tune"):
            for repeats, ok in (("repeats = 3", False), ("repeats = 1", False), ("", True), ("repeats = 5", True)):
                (Path(tmp) / "T.toml").write_text(TIMING.format(kind=kind, repeats=repeats))
                for profile in ("default", "full"):
                    try:
                        spec.load("T", profile)
                        check(f"{kind} {repeats or 'unset'} loads in {profile}", ok)
                    except spec.SpecError as e:
                        said = str(e)
                        check(f"{kind} {repeats}: refused in {profile} in one line naming the file, the point and 5: {said}",
                              not ok and "\n" not in said and "T.toml" in said and "n=512" in said and "at least 5" in said)
                check(f"{kind} {repeats or 'unset'}: the smoke profile's 1 repeat loads", spec.load("T", "smoke").points())
    spec.EXPERIMENTS_DIR = spec.ROOT / "experiments"

    check("other cores: busy CPU time less the point's own, per second",
          bench._other_cores((100.0, 1.0), (103.0, 2.0), 2.0) == 1.0)
    check("other cores: the point's own time is never counted as other work",
          bench._other_cores((100.0, 1.0), (101.0, 3.0), 1.0) == 0.0)
    check("other cores unknown without /proc/stat", bench._other_cores(None, (1.0, 0.0), 1.0) is None)

    cores = bench._cores
    bench._cores = lambda: 2
    try:
        for row, other, refused in (({"threads": "1"}, 1.0, False), ({"threads": "1"}, 1.5, True),
                                    ({"threads": "2"}, 0.2, False), ({"threads": "2"}, 0.5, True),
                                    ({"threads": "1", "ranks": "2"}, 0.5, True), ({"threads": "1", "ranks": ""}, 1.0, False),
                                    ({}, 0.5, True), ({"threads": "2"}, None, False)):
            why = bench._too_busy(other, [row], 10.0)
            check(f"{row}, other work on {other} of 2 cores: {'refused' if refused else 'taken'} ({why})",
                  (why is not None) == refused and (why is None or f"{other:.2f} cores" in why))
    finally:
        bench._cores = cores

    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs"
        nbody = Path(tmp) / "nbody"
        nbody.write_text(f"#!{sys.executable}\nopen({str(runs)!r}, 'a').write('x')\n"
                         "print('engine,n,threads,seconds_per_eval\\nopenmp,8,2,1e-6')\n")
        nbody.chmod(nbody.stat().st_mode | stat.S_IXUSR)
        busy, tries, wait = bench._busy_seconds, bench.BUSY_TRIES, bench.BUSY_WAIT_S
        bench.BUSY_TRIES, bench.BUSY_WAIT_S = 3, 0
        try:
            bench._busy_seconds = lambda: (8.0 * time.monotonic(), 0.0)  # other work on 8 cores
            try:
                bench._measure(str(nbody), ["bench"], "cmd", "bench", [])
                check("a timing while other work runs is refused", False)
            except PointFailed as e:
                check(f"refused after 3 tries, saying the machine is busy: {e.message}",
                      "machine is busy" in e.message and "3 tries" in e.message and runs.read_text() == "xxx")
            runs.unlink()
            bench._busy_seconds = lambda: (0.0, 0.0)  # a quiet machine
            rows, before, after, other, mhz = bench._measure(str(nbody), ["bench"], "cmd", "bench", [])
            check(f"on a quiet machine: the row at once, no other work ({other})",
                  rows[0]["n"] == "8" and other == 0.0 and runs.read_text() == "x" and mhz is None)
        finally:
            bench._busy_seconds, bench.BUSY_TRIES, bench.BUSY_WAIT_S = busy, tries, wait
        reading = bench._busy_seconds()
        check(f"this machine's busy time and the runner's own are read: {reading}",
              reading is None or (reading[0] > 0 and reading[1] >= 0))
    return report(failures, f"{checks} checks of the timing protocol")


if __name__ == "__main__":
    sys.exit(main())
