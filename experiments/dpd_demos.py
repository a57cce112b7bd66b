"""Seed S3's two DPD demonstrations, run with `nbody dpd` and reduced to what the paper measures
(E19): writes results/ID.csv, results/ID_frames.csv.gz and results/ID.meta.json for

  E19_dpd_phase_separation  two species of Groot and Warren's water (a_AA = a_BB = 25, a_AB = 40,
                            density 3) start mixed in a periodic cube and separate: the domain size
                            L(t) = 2 pi / k1 from the first moment k1 of the spherically averaged
                            structure factor of phi = (n_A - n_B) / (n_A + n_B) on a grid of unit
                            cells; frames: phi on the mid-plane slab.
  E19_dpd_rayleigh_taylor   the same two fluids in layers, the upper one pushed down and the lower
                            one up by a body force g per particle (the total force is zero, so the
                            periodic box needs no walls): the interface between them at mid-height
                            is unstable (the one across the periodic boundary is stable). For each
                            of the longest waves k = 2 pi m / Lx, the amplitude of the species field
                            in a band around that interface, sum s_i exp(i k x_i) over the band
                            (s = +1 upper, -1 lower species) / particles in it, against time, from
                            four independent starts (seeds 1-4; the command recorded is seed 1's):
                            its exponential growth rate sigma_k, beside sqrt(A g k), where equal
                            densities and opposite forces of size g make A g = g.

Usage (the device machine, the committed results come from there):
  python3 experiments/dpd_demos.py --nbody NBODY [--engine cuda|openmp] [--scale full|small]
                                   [--demo ID] [--out RESULTS_DIR]
--demo runs one of the two (its experiment ID); both without it.
--scale small runs tiny versions in seconds (tests, this machine); full is the paper's.
Needs numpy. Standard output: one line per run.
"""
import argparse
import datetime
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from nbodylab import files, provenance

ROOT = Path(__file__).resolve().parent.parent
PRODUCER = "experiments/dpd_demos.py"
WATER = ["--species", "2", "--a", "25,40,40,25", "--gamma", "4.5", "--kT", "1", "--density", "3"]
# scale -> (phase separation: box, steps, snapshot every; Rayleigh-Taylor: box, g, steps, every)
SCALES = {"full": {"ps": ("40", 10000, 250), "rt": ("80,6,40", 0.1, 4000, 50)},
          "small": {"ps": ("8", 400, 100), "rt": ("16,3,10", 0.1, 400, 50)}}
DT = 0.02
MODES = 6  # Rayleigh-Taylor: the waves m = 1 .. MODES along x
RT_SEEDS = (1, 2, 3, 4)  # Rayleigh-Taylor: runs from independent random starts (the waves' noise)
# The frames: the snapshots nearest these fractions of the run (phase separation: doubling times;
# Rayleigh-Taylor: its linear stage, the overturn and the mixed state).
PS_FRAMES = (0, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1)
RT_FRAMES = (0, 0.2, 0.3, 0.4, 0.6, 1)


def nearest(snaps, fractions):
    """The snapshot times nearest the given fractions of the last one."""
    times = np.array([t for t, _ in snaps])
    return {float(times[np.abs(times - f * times[-1]).argmin()]) for f in fractions}


def run(nbody, args, tmp):
    """nbody dpd with snapshots; (its command, the snapshots as (times, rows by time))."""
    snap = tmp / "snapshots.csv"
    cmd = [nbody, "dpd", *args, "--snapshots", str(snap), "--summary", str(tmp / "summary.json")]
    subprocess.run(cmd, check=True, stdout=subprocess.PIPE)
    data = np.loadtxt(snap, delimiter=",", skiprows=1)
    summary = json.loads((tmp / "summary.json").read_text())
    # The snapshots follow one another in time: split the rows where t changes.
    blocks = np.split(data, np.flatnonzero(np.diff(data[:, 0])) + 1)
    return cmd, summary, [(b[0, 0], b) for b in blocks]


def box_of(text):
    sides = [float(v) for v in text.split(",")]
    return sides * 3 if len(sides) == 1 else sides


def phi_grid(rows, box, shape):
    """phi = (n_A - n_B) / (n_A + n_B) on a grid of `shape` cells (0 where a cell is empty)."""
    idx = tuple(np.minimum((rows[:, 3 + a] / box[a] * shape[a]).astype(int), shape[a] - 1) for a in range(3))
    a = np.zeros(shape)
    b = np.zeros(shape)
    species = rows[:, 2]
    np.add.at(a, tuple(i[species == 0] for i in idx), 1)
    np.add.at(b, tuple(i[species == 1] for i in idx), 1)
    total = a + b
    return np.where(total > 0, (a - b) / np.maximum(total, 1), 0.0)


def domain_size(phi, box):
    """2 pi / k1, k1 the first moment of the spherically averaged structure factor (k != 0)."""
    f = np.fft.fftn(phi - phi.mean())
    s = np.abs(f) ** 2
    ks = np.meshgrid(*[2 * np.pi * np.fft.fftfreq(n, d=box[a] / n) for a, n in enumerate(phi.shape)], indexing="ij")
    k = np.sqrt(sum(c ** 2 for c in ks))
    keep = k > 0
    k1 = (k[keep] * s[keep]).sum() / s[keep].sum()
    return 2 * np.pi / k1, k1


def formatted(rows):
    return [[f"{v:.6g}" if isinstance(v, float) else str(v) for v in r] for r in rows]


def phase_separation(nbody, engine, scale, tmp):
    box_text, steps, every = SCALES[scale]["ps"]
    args = ["--engine", engine, "--precision", "float", "--box", box_text, *WATER, "--layout", "mixed",
            "--dt", str(DT), "--steps", str(steps), "--snapshot-every", str(every), "--seed", "1"]
    cmd, summary, snaps = run(nbody, args, tmp)
    box = box_of(box_text)
    shape = tuple(int(round(L)) for L in box)  # cells of unit side
    rows, frames = [], []
    frame_times = nearest(snaps, PS_FRAMES)
    for t, data in snaps:
        phi = phi_grid(data, box, shape)
        L, k1 = domain_size(phi, box)
        rows.append((t, L, k1, float(np.mean(np.abs(phi)))))
        if t in frame_times:  # the slab |z - Lz/2| < 1 on a 2-D grid of unit cells
            slab = data[np.abs(data[:, 5] - box[2] / 2) < 1]
            ph = phi_grid(np.column_stack([slab[:, :5], np.full(len(slab), box[2] / 2)]), [box[0], box[1], box[2]],
                          (shape[0], shape[1], 1))[:, :, 0]
            frames += [(t, i, j, float(ph[i, j])) for i in range(shape[0]) for j in range(shape[1])]
    return cmd, summary, rows, frames


def rayleigh_taylor(nbody, engine, scale, tmp):
    box_text, g, steps, every = SCALES[scale]["rt"]
    box = box_of(box_text)
    band = box[2] / 5
    rows, frames = [], []
    for seed in RT_SEEDS:
        # species 0 below (pushed up), species 1 above (pushed down): the mid-height interface is unstable
        args = ["--engine", engine, "--precision", "float", "--box", box_text, *WATER, "--layout", "layers",
                "--body-force", f"0,0,{g},0,0,{-g}", "--dt", str(DT), "--steps", str(steps), "--snapshot-every",
                str(every), "--seed", str(seed)]
        cmd, summary, snaps = run(nbody, args, tmp)
        if seed == RT_SEEDS[0]:
            first = cmd, summary
        frame_times = nearest(snaps, RT_FRAMES) if seed == RT_SEEDS[0] else set()
        for t, data in snaps:
            near = data[np.abs(data[:, 5] - box[2] / 2) < band]
            s = np.where(near[:, 2] == 1, 1.0, -1.0)
            for m in range(1, MODES + 1):
                k = 2 * np.pi * m / box[0]
                amp = abs(np.sum(s * np.exp(1j * k * near[:, 3]))) / max(len(near), 1)
                rows.append((seed, t, m, k, amp, math.sqrt(g * k)))
            if t in frame_times:  # phi on (x, z), averaged over the thin y
                ph = phi_grid(np.column_stack([data[:, :4], np.full(len(data), 0.0), data[:, 5]]), [box[0], box[1], box[2]],
                              (int(round(box[0])), 1, int(round(box[2]))))[:, 0, :]
                frames += [(t, i, j, float(ph[i, j])) for i in range(ph.shape[0]) for j in range(ph.shape[1])]
    return (*first, rows, frames)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nbody", required=True)
    ap.add_argument("--engine", default="cuda", choices=["cuda", "openmp"])
    ap.add_argument("--scale", default="full", choices=list(SCALES))
    ap.add_argument("--demo", choices=["E19_dpd_phase_separation", "E19_dpd_rayleigh_taylor"])
    ap.add_argument("--out", default=str(ROOT / "results"))
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    build_info = provenance.build_info(a.nbody)
    demos = {"E19_dpd_phase_separation": (phase_separation, "DPD phase separation of two species: domain size against time",
                                          ["t", "L", "k1", "mean_abs_phi"]),
             "E19_dpd_rayleigh_taylor": (rayleigh_taylor, "DPD Rayleigh-Taylor instability: growth of the interface's waves",
                                         ["seed", "t", "m", "k", "amplitude", "sqrt_Agk"])}
    for name, (demo, title, header) in demos.items():
        if a.demo not in (None, name):
            continue
        with tempfile.TemporaryDirectory(prefix=f"{name}-") as tmp:
            cmd, summary, rows, frames = demo(a.nbody, a.engine, a.scale, Path(tmp))
        shown = shlex.join(["nbody", *[Path(c).name if tmp in c else c for c in cmd[1:]]])
        seeds = {"seeds": list(RT_SEEDS)} if name.endswith("rayleigh_taylor") else {}
        sections = {"parameters": {"scale": a.scale, "engine": a.engine, "command": shown, **seeds, "summary": summary},
                    "nbody": {"build_info": build_info}}
        sources = [PRODUCER, f"experiments/{name}.toml"]
        files.write_csv(out / f"{name}.csv", header, formatted(rows),
                        provenance.results_meta(name, title, PRODUCER, header, sources, **sections))
        frame_header = ["t", "i", "j", "phi"]
        files.write_csv(out / f"{name}_frames.csv.gz", frame_header, formatted(frames),
                        provenance.results_meta(name, title + " (frames: phi on a grid of unit cells)", PRODUCER,
                                                frame_header, sources, **sections))
        print(f"{name}: {len(rows)} rows, {summary['n']} particles, {summary['seconds_per_step'] * 1e3:.3f} ms per step "
              f"({a.engine}), wrote {out / name}.csv", flush=True)


if __name__ == "__main__":
    sys.exit(main())
