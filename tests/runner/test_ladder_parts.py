"""The runner's ladder runs in parts (experiments/nbodylab/convergence.py, [ladder] part-length):
run with the real nbody (argv[1]) in a temporary points folder, a short dd Bulirsch-Stoer run of
the galaxy collision must give, in parts, the same snapshots bit for bit and the same evaluation
count as in one go; and after losing its last part (an interrupted job) it must run only that
part again and still give the same snapshots. Run by CTest (tests/CMakeLists.txt)."""
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
from nbodylab import convergence, points  # noqa: E402

ARGS = ["run", "--ic", "two-galaxies", "--seed", "1", "--r-min", "0.0001", "--t-end", "1",
        "--snapshot-every", "0.25", "--n", "8", "--integrator", "bulirsch-stoer", "--order", "16",
        "--precision", "dd", "--tol", "1e-20"]


class Exp:
    id = "T00_ladder_parts"


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    return ok


def main(nbody):
    with tempfile.TemporaryDirectory() as tmp:
        points.POINTS_DIR = Path(tmp)
        whole = convergence.Runs(Exp, nbody, force=False)
        one = whole.run({}, ARGS, {})
        snaps_one = whole.snapshots_path(one).read_bytes()
        shutil.rmtree(Path(tmp) / Exp.id)

        parted = convergence.Runs(Exp, nbody, force=False)
        rec = parted.run({}, ARGS, {}, part_length=0.3)  # stops at the first step end after 0.3, ...
        snaps_parts = parted.snapshots_path(rec).read_bytes()
        ok = check("a run in parts has several parts", len(rec["parts"]) >= 3)
        ok &= check("its snapshots equal the uninterrupted run's, bit for bit", snaps_parts == snaps_one)
        ok &= check("its evaluations and steps equal the uninterrupted run's",
                    (rec["summary"]["fevals"], rec["summary"]["steps"]) ==
                    (one["summary"]["fevals"], one["summary"]["steps"]))
        ok &= check("each part resumes the previous one's checkpoint",
                    all("--resume" in p["command_line"] for p in rec["parts"][1:]))

        # An interrupted job: the last part and the record are lost; a second runner goes on.
        parts = Path(tmp) / Exp.id / f"{rec['hash']}.parts"
        last = len(rec["parts"])
        for f in parts.glob(f"part-{last}.*"):
            f.unlink()
        (Path(tmp) / Exp.id / f"{rec['hash']}.json").unlink()
        parted.snapshots_path(rec).unlink()
        again = convergence.Runs(Exp, nbody, force=False)
        rec2 = again.run({}, ARGS, {}, part_length=0.3)
        ok &= check("after an interruption only the lost part runs again",
                    [p["wall_s"] for p in rec2["parts"][:-1]] == [p["wall_s"] for p in rec["parts"][:-1]])
        ok &= check("and the snapshots are still those of the uninterrupted run",
                    again.snapshots_path(rec2).read_bytes() == snaps_one)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
