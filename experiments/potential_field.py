"""Seed S4's potential field (E20): the softened potential of 4096 bodies (S4 computed the field of
4096, in real time) on a plane of 128 x 128 grid nodes through their centre, by `nbody potential`
(the CPU's compensated direct sum here); the bodies of S0's two-galaxy collision, the state the
field is taken of. Writes results/E20_potential_field.csv (x, y, phi on the z = centre plane),
results/E20_potential_field_bodies.csv (x, y, z, mass of the bodies) and their .meta.json.

Usage: python3 experiments/potential_field.py --nbody NBODY [--n 4096] [--resolution 128] [--out RESULTS_DIR]
Standard output: one line.
"""
import argparse
import csv
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from nbodylab import files, provenance

ROOT = Path(__file__).resolve().parent.parent
PRODUCER = "experiments/potential_field.py"
NAME = "E20_potential_field"
TITLE = "The potential of 4096 bodies (S0's two galaxies) on the plane through their centre"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nbody", required=True)
    ap.add_argument("--n", default="4096")
    ap.add_argument("--resolution", default="128")
    ap.add_argument("--out", default=str(ROOT / "results"))
    a = ap.parse_args()
    out = Path(a.out)
    build_info = provenance.build_info(a.nbody)
    state = ["--ic", "two-galaxies", "--n", a.n, "--seed", "1"]
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-") as tmp:
        tmp = Path(tmp)
        cmd = [a.nbody, "potential", *state, "--eps", "0.5", "--resolution", a.resolution, "--plane", "xy",
               "--out", str(tmp / "grid.csv"), "--summary", str(tmp / "summary.json")]
        subprocess.run(cmd, check=True, stdout=subprocess.PIPE)
        subprocess.run([a.nbody, "ic", *state, "--out", str(tmp / "bodies.csv")], check=True, stdout=subprocess.PIPE)
        grid = list(csv.DictReader(open(tmp / "grid.csv")))
        bodies = list(csv.DictReader(open(tmp / "bodies.csv")))
        summary = json.loads((tmp / "summary.json").read_text())
        grid_meta = files.read_json(tmp / "grid.meta.json")
        shown = shlex.join(["nbody", *[Path(c).name if str(tmp) in c else c for c in cmd[1:]]])
    rows = [[f"{float(r['x']):.6g}", f"{float(r['y']):.6g}", f"{float(r['phi']):.7g}"] for r in grid]
    sections = {"parameters": {"command": shown, "summary": summary, "grid": grid_meta["parameters"]},
                "nbody": {"build_info": build_info}, "host": provenance.host()}
    sources = [PRODUCER, f"experiments/{NAME}.toml"]
    files.write_csv(out / f"{NAME}.csv", ["x", "y", "phi"], rows,
                    provenance.results_meta(NAME, TITLE, PRODUCER, ["x", "y", "phi"], sources, **sections))
    body_rows = [[f"{float(b['x']):.6g}", f"{float(b['y']):.6g}", f"{float(b['z']):.6g}", f"{float(b['mass']):.6g}"]
                 for b in bodies]
    header = ["x", "y", "z", "mass"]
    files.write_csv(out / f"{NAME}_bodies.csv", header, body_rows,
                    provenance.results_meta(NAME, "The bodies of E20_potential_field", PRODUCER, header, sources,
                                            parameters={"state": shlex.join(["nbody", "ic", *state])},
                                            nbody={"build_info": build_info}))
    print(f"{NAME}: {len(rows)} nodes, {len(body_rows)} bodies, {summary['method']}, {summary['seconds']:.3g} s; "
          f"wrote {out / NAME}.csv", flush=True)


if __name__ == "__main__":
    sys.exit(main())
