"""Seed S3's SPH demonstration as pictures (E19): the 2-D dam break of E19_sph_dam_break (a water
column 1 m wide and 2 m high released in a tank 4 m wide), run with `nbody sph` past the impact on
the far wall, its fluid particles at a few times: writes results/E19_sph_dam_break_frames.csv (one
row per time: t, the fluid particles, the front and the height the fluid reaches, its mean and top
speed), the particles themselves in results/E19_sph_dam_break_frames_particles.csv.gz (t, x, y in the
case's frame, speed), each with its .meta.json (the command, the run's summary, the build).

Usage: python3 experiments/sph_dam_break_frames.py --nbody NBODY [--dx DX] [--out RESULTS_DIR]
Needs numpy. Standard output: one line.
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
PRODUCER = "experiments/sph_dam_break_frames.py"
NAME = "E19_sph_dam_break_frames"
TITLE = "SPH dam break: the fluid particles at six times, coloured by speed"
T_END, EVERY = 1.0, 0.2  # the frames: t = 0, 0.2, ..., 1.0 s (the run-up then reaches the 3 m walls' top)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nbody", required=True)
    ap.add_argument("--dx", default="0.02")
    ap.add_argument("--out", default=str(ROOT / "results"))
    a = ap.parse_args()
    out = Path(a.out)
    build_info = provenance.build_info(a.nbody)
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-") as tmp:
        tmp = Path(tmp)
        cmd = [a.nbody, "sph", "--case", "dam-break", "--dx", a.dx, "--t-end", str(T_END), "--snapshots",
               str(tmp / "snapshots.csv"), "--snapshot-every", str(EVERY), "--summary", str(tmp / "summary.json")]
        subprocess.run(cmd, check=True, stdout=subprocess.PIPE)
        data = np.loadtxt(tmp / "snapshots.csv", delimiter=",", skiprows=1)  # t,id,boundary,x,y,z,vx,vy,vz,rho,p
        summary = json.loads((tmp / "summary.json").read_text())
        shown = shlex.join(["nbody", *[Path(c).name if str(tmp) in c else c for c in cmd[1:]]])
    fluid = data[data[:, 2] == 0]
    speed = np.hypot(fluid[:, 6], fluid[:, 7])
    particles = [[f"{t:.6g}", f"{x:.5f}", f"{y:.5f}", f"{s:.4g}"] for t, x, y, s in zip(fluid[:, 0], fluid[:, 3], fluid[:, 4], speed)]
    rows = []
    for t in np.unique(fluid[:, 0]):
        at = fluid[:, 0] == t
        rows.append([f"{t:.6g}", str(int(at.sum())), f"{fluid[at, 3].max():.5f}", f"{fluid[at, 4].max():.5f}",
                     f"{speed[at].mean():.4g}", f"{speed[at].max():.4g}"])
    header, particle_header = ["t", "particles", "front", "height", "mean_speed", "top_speed"], ["t", "x", "y", "speed"]
    sections = {"parameters": {"dx": float(a.dx), "t_end": T_END, "snapshot_every": EVERY, "command": shown,
                               "summary": summary},
                "nbody": {"build_info": build_info}}
    sources = [PRODUCER, f"experiments/{NAME}.toml"]
    files.write_csv(out / f"{NAME}_particles.csv.gz", particle_header, particles,
                    provenance.results_meta(NAME, TITLE + " (the particles)", PRODUCER, particle_header, sources, **sections))
    files.write_csv(out / f"{NAME}.csv", header, rows, provenance.results_meta(NAME, TITLE, PRODUCER, header, sources, **sections))
    print(f"{NAME}: {len(particles)} particle rows, {summary['n']} particles, {summary['steps_taken']} steps, "
          f"{summary['seconds_per_step'] * 1e3:.2f} ms per step, wrote {out / NAME}.csv and _particles.csv.gz", flush=True)


if __name__ == "__main__":
    sys.exit(main())
