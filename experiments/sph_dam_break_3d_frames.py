"""Seed S3's SPH demonstration in 3-D as pictures (E19): the 3-D dam break of E19_sph_step_time (a
water column 1 m long, 2 m high and 1 m wide released in a tank 4 m long, about 2^20 particles),
run on the GPU (`nbody sph --engine cuda`) to 1 s, its fluid particles every 0.2 s binned into
two projections, the side (x, y: along z) and the top (x, z: along y), in squares of 2 cm with
their number of particles and mean speed: writes the squares to
results/E19_sph_dam_break_3d_frames_squares.csv.gz (t, view, x, y: the square's centre in the view's
plane, count, speed) and one row per time and view to results/E19_sph_dam_break_3d_frames.csv (t,
view, squares, particles, the particles' mean speed, the squares' top mean speed), each with its
.meta.json (the command, the run's summary, the build).

Usage: python3 experiments/sph_dam_break_3d_frames.py --nbody NBODY [--dx DX] [--out RESULTS_DIR]
Needs numpy and a CUDA device. Standard output: one line.
"""
import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from nbodylab import files, provenance

ROOT = Path(__file__).resolve().parent.parent
PRODUCER = "experiments/sph_dam_break_3d_frames.py"
NAME = "E19_sph_dam_break_3d_frames"
TITLE = "3-D SPH dam break on the GPU: side and top views of the fluid at six times, binned, with mean speeds"
T_END, EVERY, BIN = 1.0, 0.2, 0.02  # frames at t = 0, 0.2, ..., 1.0 s; squares of 2 cm
VIEWS = {"side": (3, 4), "top": (3, 5)}  # the snapshot's columns (x, y) and (x, z)


def binned(points, speed):
    """{(i, j): (count, mean speed)} of points (n x 2) in squares of side BIN."""
    keys = np.floor(points / BIN).astype(np.int64)
    cells, inverse, count = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    total = np.bincount(inverse.ravel(), weights=speed, minlength=len(cells))
    return cells, count, total / count


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nbody", required=True)
    ap.add_argument("--dx", default="0.015")
    ap.add_argument("--out", default=str(ROOT / "results"))
    a = ap.parse_args()
    out = Path(a.out)
    build_info = provenance.build_info(a.nbody)
    frames_at = {}
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-") as tmp:
        tmp = Path(tmp)
        cmd = [a.nbody, "sph", "--case", "dam-break-3d", "--engine", "cuda", "--precision", "float", "--dx", a.dx,
               "--t-end", str(T_END), "--snapshots", str(tmp / "snapshots.csv"), "--snapshot-every", str(EVERY),
               "--summary", str(tmp / "summary.json")]
        subprocess.run(cmd, check=True, stdout=subprocess.PIPE)
        summary = json.loads((tmp / "summary.json").read_text())
        shown = shlex.join(["nbody", *[Path(c).name if str(tmp) in c else c for c in cmd[1:]]])
        with open(tmp / "snapshots.csv") as f:  # t,id,boundary,x,y,z,vx,vy,vz,rho,p; fluid particles only
            next(f)
            for line in f:
                v = line.split(",")
                if v[2] == "0":
                    frames_at.setdefault(v[0], []).append([float(x) for x in v[3:9]])
    rows, squares = [], []
    for t, particles in sorted(frames_at.items(), key=lambda kv: float(kv[0])):
        p = np.asarray(particles)
        speed = np.sqrt((p[:, 3:6] ** 2).sum(axis=1))
        for view, (u, w) in VIEWS.items():
            cells, count, mean = binned(p[:, [u - 3, w - 3]], speed)
            squares += [[f"{float(t):.6g}", view, f"{(i + 0.5) * BIN:.4f}", f"{(j + 0.5) * BIN:.4f}", str(c), f"{s:.4g}"]
                       for (i, j), c, s in zip(cells, count, mean)]
            rows.append([f"{float(t):.6g}", view, str(len(cells)), str(len(p)), f"{speed.mean():.4g}", f"{mean.max():.4g}"])
    header = ["t", "view", "squares", "particles", "mean_speed", "top_speed"]
    square_header = ["t", "view", "x", "y", "count", "speed"]
    sections = {"parameters": {"dx": float(a.dx), "t_end": T_END, "snapshot_every": EVERY, "bin": BIN, "command": shown,
                               "summary": summary},
                "nbody": {"build_info": build_info}}
    sources = [PRODUCER, f"experiments/{NAME}.toml"]
    files.write_csv(out / f"{NAME}_squares.csv.gz", square_header, squares,
                    provenance.results_meta(NAME, TITLE + " (the squares)", PRODUCER, square_header, sources, **sections))
    files.write_csv(out / f"{NAME}.csv", header, rows, provenance.results_meta(NAME, TITLE, PRODUCER, header, sources, **sections))
    print(f"{NAME}: {len(squares)} squares, {summary['n']} particles, {summary['steps_taken']} steps, "
          f"{summary['seconds_per_step'] * 1e3:.2f} ms per step, wrote {out / NAME}.csv and _squares.csv.gz", flush=True)


if __name__ == "__main__":
    sys.exit(main())
