"""E20's renderer timed: one 1920 x 1080 frame of a Plummer sphere of N bodies (an HDF5 snapshot
written by `nbody ic`), by stage: reading the snapshot, projecting and depositing the bodies,
colouring, and writing the PNG with its colour bar (experiments/nbodylab/render.py, as
experiments/render.py runs them). The median of --repeats frames per N. Writes
results/E20_render_time.csv and its .meta.json.

Usage: python3 experiments/render_time.py --nbody NBODY [--n 10000,100000,1000000] [--repeats 5]
Needs numpy, h5py, matplotlib. Standard output: one line per N.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from nbodylab import files, provenance, render

ROOT = Path(__file__).resolve().parent.parent
PRODUCER = "experiments/render_time.py"
NAME = "E20_render_time"
TITLE = "The renderer: seconds per 1920 x 1080 frame against N, by stage"
WIDTH, HEIGHT = 1920, 1080


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nbody", required=True)
    ap.add_argument("--n", default="10000,100000,1000000")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "results"))
    a = ap.parse_args()
    build_info = provenance.build_info(a.nbody)
    rows = []
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-") as tmp:
        tmp = Path(tmp)
        for n in (int(x) for x in a.n.split(",")):
            snapshot = tmp / f"plummer_{n}.hdf5"
            subprocess.run([a.nbody, "ic", "--ic", "plummer", "--n", str(n), "--seed", "1", "--precision", "float",
                            "--out", str(snapshot)], check=True, capture_output=True)
            first = render.read_snapshot(snapshot)
            camera = render.Camera(view="xy", centre=(0.0, 0.0, 0.0), extent=3.0)
            scales = render.default_scales(first, camera, WIDTH, HEIGHT)
            stages = {"read": [], "deposit": [], "colour": [], "write": [], "frame": []}
            for _ in range(a.repeats):
                t0 = time.perf_counter()
                snap = render.read_snapshot(snapshot)
                t1 = time.perf_counter()
                m, mv = render.deposit(snap, camera, WIDTH, HEIGHT)
                t2 = time.perf_counter()
                image = render.colour_image(m, mv, scales)
                t3 = time.perf_counter()
                render.write_frame(tmp / "frame.png", image, snap, scales, snapshot.name)
                t4 = time.perf_counter()
                stages["read"].append(t1 - t0)
                stages["deposit"].append(t2 - t1)
                stages["colour"].append(t3 - t2)
                stages["write"].append(t4 - t3)
                stages["frame"].append(t4 - t0)
            medians = {k: float(np.median(v)) for k, v in stages.items()}
            rows.append([n, WIDTH, HEIGHT, a.repeats] + [f"{medians[k]:.4f}" for k in stages])
            print(f"{NAME}: N = {n}: {medians['frame']:.3f} s per frame (read {medians['read']:.3f}, deposit "
                  f"{medians['deposit']:.3f}, colour {medians['colour']:.3f}, write {medians['write']:.3f})", flush=True)
    header = ["n", "width", "height", "repeats", "read_s", "deposit_s", "colour_s", "write_s", "frame_s"]
    sections = {"parameters": {"n": a.n, "repeats": a.repeats, "size": f"{WIDTH}x{HEIGHT}", "initial_condition": "plummer",
                               "precision": "float", "threads": os.cpu_count()},
                "nbody": {"build_info": build_info}, "host": provenance.host()}
    files.write_csv(Path(a.out) / f"{NAME}.csv", header, rows,
                    provenance.results_meta(NAME, TITLE, PRODUCER, header,
                                            [PRODUCER, "experiments/nbodylab/render.py", f"experiments/{NAME}.toml"], **sections))


if __name__ == "__main__":
    sys.exit(main())
