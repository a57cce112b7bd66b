"""A run experiment's points in parts (`part_length`, experiments/nbodylab/parts.py through
sweep.py): with the real nbody (argv[1]) in a temporary results folder, a short DOPRI5 run of the
galaxy collision gives in parts the same results row and diagnostics as in one go (bar wall times),
with the count of parts; a runner stopped after two parts (a failing third) keeps them, and run
again runs only the parts that are left. Run by CTest (tests/CMakeLists.txt)."""
import os
import sys
import tempfile
from pathlib import Path

TMP = tempfile.TemporaryDirectory()
os.environ["NBODYLAB_RESULTS"] = TMP.name  # before nbodylab is imported: every module writes there
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
from nbodylab import RESULTS_DIR, files, provenance, spec, sweep, timeseries_path  # noqa: E402

TOML = """title = "a short run{title}"
timeseries = true
metrics = ["steps", "fevals", "dE_rel", "t"{metrics}]
{part_length}
[fixed]
ic = "two-galaxies"
n = 8
seed = 1
r-min = 1e-4
t-end = 1
diag-every = 0.125
integrator = "dopri5"
tol = 1e-10

[sweep]
precision = ["double"]
"""


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    return ok


def timed(columns):
    return {i for i, c in enumerate(columns) if "wall" in c or c.endswith("_s")}


def without_timings(rows):
    """The rows (first the header) with the wall-time columns dropped."""
    drop = timed(rows[0])
    return [[v for i, v in enumerate(r) if i not in drop] for r in rows]


def main(nbody):
    experiments = Path(TMP.name) / "experiments"
    experiments.mkdir()
    spec.EXPERIMENTS_DIR = experiments
    (experiments / "T01_whole.toml").write_text(TOML.format(title="", metrics="", part_length=""))
    (experiments / "T02_parts.toml").write_text(
        TOML.format(title=" in parts", metrics=', "parts"', part_length="part_length = 0.3"))
    info = provenance.build_info(nbody)
    sweep.run(spec.load("T01_whole", "default"), Path(nbody), 1, False, info)

    calls, call = [], sweep._call

    def failing_third(*args):
        calls.append(args)
        if len(calls) == 3:
            raise sweep.PointFailed("nbody run ...", "exit 1: stopped", 1)
        return call(*args)
    sweep._call = failing_third
    parted = spec.load("T02_parts", "default")
    status = sweep.run(parted, Path(nbody), 1, False, info)
    kept = sorted(p.name for p in (RESULTS_DIR / ".points" / "T02_parts").glob("*.parts/part-*.summary.json"))
    ok = check(f"a runner stopped in the third part fails and keeps the two parts done: {kept}",
               status == 1 and kept == ["part-1.summary.json", "part-2.summary.json"])
    calls.clear()
    sweep._call = lambda *args: calls.append(args) or call(*args)
    status = sweep.run(parted, Path(nbody), 1, False, info)
    ok &= check(f"run again, it resumes at the third part ({len(calls)} parts run)",
                status == 0 and len(calls) >= 1 and "--resume" in calls[0][1]
                and any(a.endswith("part-2.checkpoint.bin") for a in calls[0][1]))

    whole, parts = files.read_csv(RESULTS_DIR / "T01_whole.csv"), files.read_csv(RESULTS_DIR / "T02_parts.csv")
    ok &= check(f"in {parts[0]['parts']} parts, the row of the run in one go (steps, evaluations, dE/E0, t)",
                int(parts[0]["parts"]) == 2 + len(calls) >= 3
                and all(parts[0][k] == whole[0][k] for k in ("steps", "fevals", "dE_rel", "t")))
    series = [files.read_csv(timeseries_path(exp_id)) for exp_id in ("T01_whole", "T02_parts")]
    rows = [without_timings([list(s[0])] + [list(r.values()) for r in s]) for s in series]
    ok &= check(f"and its diagnostics ({len(rows[1]) - 1} samples) bit for bit, bar wall times", rows[0] == rows[1])
    meta = files.read_json(RESULTS_DIR / "T02_parts.meta.json")
    ok &= check("the meta lists each part with its command line, each after the first resuming",
                all("--resume" in p["command_line"] for p in meta["points"][0]["parts"][1:])
                and len(meta["points"][0]["parts"]) == int(parts[0]["parts"]))
    ok &= check("and no parts are left behind", not list((RESULTS_DIR / ".points" / "T02_parts").glob("*.parts")))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
