"""Ryoanji on nbody's bodies, the reference for E17's GPU octree: for each N, the bodies `nbody ic`
writes (a Plummer sphere unless --ic names other initial conditions, seed 1, in float, the bodies `nbody bench --ic IC
--seed 1` times E17's engines on), then one force evaluation of Ryoanji per opening angle and leaf size, timed as
`nbody bench` times the tree engines (the median of warm evaluations, the tree build, the upward
pass and the walk apart) with its error against direct summation in double in nbody's norm; and,
in the same run on the same bodies, `nbody bench` of nbody's grouped GPU walk (--ours) over the
same opening angles, so that the two codes' ratio comes from one run on one card.
Writes FOLDER/E17_ryoanji.csv (a row per evaluation setting; `code` says whose: ryoanji, or
nbody:ENGINE) and its .meta.json (Ryoanji's commit, the build, the commands).

The runner runs it (experiments/E17_ryoanji.toml, kind = "script", requires = "cuda" and
"reference:ryoanji") where Ryoanji is built from its source in build/reference/ryoanji/
(`make reference-ryoanji RYOANJI_GIT=DIR`: tools/reference/ryoanji/build.sh with its driver
bench.cu).

Usage: python3 experiments/ryoanji_bench.py --nbody NBODY --out FOLDER [--ic IC ...] [--n N ...] [--theta T ...]
       [--ncrit C ...] [--repeats R] [--error-bodies K] [--ours ENGINE] [--ours-trees LEAF:MOMENTS ...]
Standard output: one line per evaluation.
"""
import argparse
import csv
import io
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from nbodylab import files, provenance, requirements

PRODUCER = "experiments/ryoanji_bench.py"
NAME = "E17_ryoanji"
TITLE = "Ryoanji on the same bodies and GPU: time per force evaluation against force error"
SEED = 1
COLUMNS = ["code", "ic", "seed", "n", "precision", "theta", "ncrit", "moments", "repeats", "seconds_per_eval",
           "seconds_per_eval_min", "seconds_per_eval_max", "build_seconds", "moments_seconds", "walk_seconds",
           "p2p_per_body", "m2p_per_body", "error_median", "error_p99", "error_max", "error_bodies", "device"]


def ours_row(nbody_row):
    """An `nbody bench` row in COLUMNS' terms: a leaf's bodies at most as ncrit, its body terms as
    p2p and its cells taken whole as m2p."""
    cells = float(nbody_row["cell_terms_per_body"])
    return {**nbody_row, "p2p_per_body": f"{float(nbody_row['terms_per_body']) - cells:.6g}", "m2p_per_body": f"{cells:.6g}"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nbody", required=True, help="nbody, which writes the bodies")
    ap.add_argument("--out", required=True, help="the folder to write the results into")
    ap.add_argument("--ic", nargs="+", default=["plummer"], help="initial conditions of `nbody ic` (those `nbody ic --help` lists)")
    ap.add_argument("--n", type=int, nargs="+", default=[1048576], help="numbers of bodies")
    ap.add_argument("--theta", type=float, nargs="+", default=[0.4, 0.5, 0.6, 0.7], help="opening angles")
    ap.add_argument("--ncrit", type=int, nargs="+", default=[64], help="Ryoanji's bodies per leaf at most")
    ap.add_argument("--repeats", type=int, default=5, help="timed evaluations (after one untimed)")
    ap.add_argument("--error-bodies", type=int, default=8192, help="bodies the error is taken over")
    ap.add_argument("--ours", default="cuda-octree-groups", help="nbody's engine timed beside Ryoanji; none: not any")
    ap.add_argument("--ours-trees", nargs="+", default=["1:monopole", "16:quadrupole"],
                    help="nbody's leaf sizes and moments (LEAF:MOMENTS), each at every opening angle")
    a = ap.parse_args()
    try:
        trees = [(int(leaf), moments) for leaf, moments in (t.split(":") for t in a.ours_trees)]
    except ValueError:
        print(f"{NAME}: --ours-trees takes LEAF:MOMENTS, e.g. 1:monopole, got {a.ours_trees}", file=sys.stderr)
        return 2
    build = requirements.reference_build("ryoanji")
    if build is None:
        print(f"{NAME}: {requirements.lacking_reference('ryoanji')}", file=sys.stderr)
        return 2
    bench = requirements.reference_dir("ryoanji") / build["files"]["bench"]
    rows, commands = [], []
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-") as tmp:
        bodies = Path(tmp) / "bodies.csv"
        for ic, n in ((ic, n) for ic in a.ic for n in a.n):
            subprocess.run([a.nbody, "ic", "--ic", ic, "--n", str(n), "--seed", str(SEED), "--precision", "float",
                            "--out", str(bodies)], check=True, stdout=subprocess.DEVNULL)
            for theta in a.theta:
                for ncrit in a.ncrit:
                    cmd = [str(bench), "--bodies", str(bodies), "--theta", f"{theta:g}", "--ncrit", str(ncrit),
                           "--repeats", str(a.repeats), "--error-bodies", str(a.error_bodies)]
                    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
                    row = next(csv.DictReader(io.StringIO(out)))
                    rows.append({**row, "code": "ryoanji", "ic": ic, "seed": SEED, "moments": "quadrupole"})
                    commands.append(shlex.join(["ryoanji_bench", "--bodies", f"<nbody ic --ic {ic} --n {n} --seed "
                                                f"{SEED} --precision float>", *cmd[3:]]))
                    print(f"{NAME}: {ic}, n {n}, theta {theta:g}, ncrit {ncrit}: {float(row['seconds_per_eval']) * 1e3:.3g} ms "
                          f"(build {float(row['build_seconds']) * 1e3:.3g}, walk {float(row['walk_seconds']) * 1e3:.3g}), "
                          f"error p99 {float(row['error_p99']):.3g}", flush=True)
            for theta, (leaf, moments) in ((t, tree) for t in a.theta for tree in trees if a.ours != "none"):
                cmd = [a.nbody, "bench", "--engine", a.ours, "--precision", "float", "--n", str(n), "--ic", ic,
                       "--seed", str(SEED), "--theta", f"{theta:g}", "--leaf-size", str(leaf), "--moments", moments,
                       "--repeats", str(a.repeats), "--force-error", "--error-bodies", str(a.error_bodies)]
                row = list(csv.DictReader(io.StringIO(subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                                                                     text=True).stdout)))[-1]
                rows.append({**ours_row(row), "code": f"nbody:{a.ours}", "ic": ic, "seed": SEED, "theta": f"{theta:g}",
                             "ncrit": leaf, "moments": moments})
                commands.append(shlex.join(["nbody", *cmd[1:]]))
                print(f"{NAME}: nbody {a.ours}, {ic}, n {n}, theta {theta:g}, leaves of {leaf}, {moments}: "
                      f"{float(row['seconds_per_eval']) * 1e3:.3g} ms, error p99 {float(row['error_p99']):.3g}", flush=True)
    sections = {"ryoanji": {"repository": "https://github.com/exafmm/ryoanji", "commit": build.get("commit"),
                            "build": {"recipe": "tools/reference/ryoanji/build.sh",
                                      **{k: build.get(k) for k in ("options", "compiler", "driver_sha256", "built_utc")}}},
                "parameters": {"seed": SEED, "repeats": a.repeats, "error_bodies": a.error_bodies,
                               "commands": commands},
                "host": provenance.host()}
    table = [[r.get(c, "") for c in COLUMNS] for r in rows]
    files.write_csv(Path(a.out) / f"{NAME}.csv", COLUMNS, table,
                    provenance.results_meta(NAME, TITLE, PRODUCER, COLUMNS,
                                            [PRODUCER, f"experiments/{NAME}.toml", "tools/reference/ryoanji/build.sh",
                                             "tools/reference/ryoanji/bench.cu"], **sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
