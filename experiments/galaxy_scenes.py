"""Seed S0's three movies as runs of this solver (E20): two galaxies colliding (60,000 bodies) and a
galaxy of a million stars around a central body of 99 % and of 10 % of its mass, run on the GPU
with a tree engine (cuda-octree-groups, float, theta 0.5: E17's setting) and drawn by the renderer
(nbodylab/render.py: S0's colours, blue slow to red fast).

`run` (on the GPU machine, one scene a call): the scene's run with HDF5 snapshots every
T_END/MOVIE_FRAMES, then for each snapshot the face-on (xy) picture (one scale for all, from the
middle snapshot) and the stars' measures:
  results/E20_galaxy_scenes.csv       scene, t, the radii holding 10, 50 and 90 % of the stars'
                                      mass about the centre of mass, the share of the stars' mass
                                      beyond 2 R (R the galaxy's radius) and the share that has
                                      escaped (beyond 2 R and unbound: 1/2 v^2 + phi(r) > 0, phi the
                                      potential of the mass inside r plus that of the shells
                                      outside, about the centre of mass: exact for a spherical
                                      system, and near it for stars far from the rest), and the
                                      stars' kinetic energy; the rows of other scenes kept;
  results/E20_galaxy_scenes.meta.json the command, the run's summary (energy drift, seconds per
                                      step) and the build of each scene;
  results/E20_galaxy_scenes_SCENE.npz the GRID_FRAMES frames of the paper's grid (uint8 RGB,
                                      GRID_SIZE square), their times and the colour scale;
  DIR/E20_galaxy_scenes_SCENE_movie_K.tar  every frame as JPEG (MOVIE_SIZE square), for `movie`, in
                                      tar files of at most 15 MB (as the GPU machine returns them).
`movie` (here, where ffmpeg is): the frames of that tar with their time and colour bar as an
H.264 MP4 at the best quality (of MOVIE_CRF) under 2 MB, results/E20_galaxy_scenes_SCENE.mp4 (if
none is, its recipe and checksum in the meta).
`smaller` (here): a committed movie made under an earlier, larger limit encoded again at the best
quality under it; the meta keeps the quality, size, checksum and recipe it was made from.

Usage: python3 experiments/galaxy_scenes.py run --nbody NBODY --scene SCENE [--movie-dir DIR] [--work DIR]
           [--out RESULTS_DIR] [--n N --engine E --t-end T]
       python3 experiments/galaxy_scenes.py movie --scene SCENE --tar DIR/E20_galaxy_scenes_SCENE_movie_*.tar
       python3 experiments/galaxy_scenes.py smaller --scene SCENE
Needs numpy, h5py and Pillow, and for `run` a CUDA device. Standard output: one line.
"""
import argparse
import concurrent.futures
import hashlib
import io
import json
import os
import shlex
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nbodylab import files, provenance, render

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
PRODUCER = "experiments/galaxy_scenes.py"
NAME = "E20_galaxy_scenes"
TITLE = "Seed S0's three movies: two galaxies colliding, a million stars about a central body of 99 % and 10 %"
HEADER = ["scene", "t", "r10", "r50", "r90", "beyond_2R", "escaped", "kinetic"]
T_END = 14            # in units of sqrt(R^3 / (G M)) with R = 10, M = 1000, G = 1: one dynamical time
MOVIE_FRAMES = 140    # snapshots every T_END / 140 = 0.1
GRID_FRAMES = 8       # the paper's grid: t = 0, 2, ..., 14
GRID_SIZE, MOVIE_SIZE = 640, 640
MOVIE_FPS = 14
MOVIE_PART_BYTES = 15_000_000
MOVIE_LIMIT = 2_000_000  # bytes: a movie in results/ (spec), else its recipe and checksum
MOVIE_CRF = (18, 21, 24, 27, 30, 33, 36)  # H.264 qualities tried in turn
RADIUS = 10.0         # --box 20
# Every scene: leapfrog at a fixed step, Plummer softening a fortieth of R (S0 clamped the distance
# instead), the tree of E17 whose force error (median 2e-4 in float) its energy drift shows.
COMMON = ["--integrator", "leapfrog", "--dt", "0.001", "--precision", "float", "--engine", "cuda-octree-groups",
          "--theta", "0.5", "--eps", "0.25", "--G", "1"]


@dataclass
class Scene:
    ic: list
    extent: float  # half the frame's side, in R's unit
    caption: str


SCENES = {
    "collision": Scene(["--ic", "two-galaxies", "--n", "60000", "--box", "20"], 25.0,
                       "two galaxies of 30,000 bodies collide (each 99.9 % in its central body)"),
    "central-99": Scene(["--ic", "galaxy", "--n", "1000000", "--box", "20", "--central-fraction", "0.99"], 13.0,
                        "a million bodies, the central one 99 % of the mass"),
    "central-10": Scene(["--ic", "galaxy", "--n", "1000000", "--box", "20", "--central-fraction", "0.1"], 25.0,
                        "a million bodies, the central one 10 % of the mass"),
}


def measures(snap):
    """The stars' (the bodies at most twice as heavy as the lightest: not the central bodies) radii,
    spread and escape, as HEADER's columns after t."""
    m = snap.masses.astype(np.float64)
    centre = (m[:, None] * snap.positions).sum(axis=0) / m.sum()
    drift = (m[:, None] * snap.velocities).sum(axis=0) / m.sum()
    r = np.linalg.norm(snap.positions - centre, axis=1)
    v2 = ((snap.velocities - drift) ** 2).sum(axis=1)
    order = np.argsort(r)
    r_sorted, m_sorted = r[order], m[order]
    inside = np.cumsum(m_sorted)  # mass within each radius, the body itself included
    outer = np.cumsum((m_sorted / np.maximum(r_sorted, 1e-30))[::-1])[::-1]  # sum of m/r beyond, itself included
    phi = np.empty_like(r)
    phi[order] = -(inside - m_sorted) / np.maximum(r_sorted, 1e-30) - (outer - m_sorted / np.maximum(r_sorted, 1e-30))
    stars = m <= 2 * m.min()  # not the central bodies
    ms, rs = m[stars], r[stars]
    total = ms.sum()
    by_radius = np.argsort(rs)
    cumulative = np.cumsum(ms[by_radius]) / total
    radii = [float(rs[by_radius[np.searchsorted(cumulative, q)]]) for q in (0.1, 0.5, 0.9)]
    far = rs > 2 * RADIUS
    unbound = 0.5 * v2[stars] + phi[stars] > 0
    return [*radii, float(ms[far].sum() / total), float(ms[far & unbound].sum() / total),
            float(0.5 * (ms * v2[stars]).sum())]


def frame(path, camera, scales, size):
    """(time, measures, RGB uint8 frame) of one snapshot."""
    snap = render.read_snapshot(path)
    image = render.render_image(snap, camera, scales, size, size)
    return snap.time, measures(snap), (np.clip(image, 0, 1) * 255 + 0.5).astype(np.uint8)


def jpeg(image):
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="JPEG", quality=92)
    return buffer.getvalue()


def write_movie_parts(folder, scene, frames):
    """The frames as JPEG in tar files NAME_SCENE_movie_K.tar of at most MOVIE_PART_BYTES each (what
    one file from the GPU machine may be). Each part is written under a temporary name and renamed
    once whole, so a run that fails or is stopped leaves whole parts only."""
    part, size, current = 0, 0, None  # current: (open tar, its temporary path, its final path)

    def finish(tar, tmp, final):
        tar.close()
        os.replace(tmp, final)

    try:
        for k, (t, image) in enumerate(frames):
            data = jpeg(image)
            if current is None or size + len(data) + 1024 > MOVIE_PART_BYTES:
                if current:
                    finish(*current)
                    current = None
                part, size = part + 1, 0
                final = Path(folder) / f"{NAME}_{scene}_movie_{part}.tar"
                tmp = final.with_name(f"{final.name}.tmp.{os.getpid()}")
                current = (tarfile.open(tmp, "w"), tmp, final)
            info = tarfile.TarInfo(f"frame_{k:04d}_t{t:.6g}.jpg")
            info.size = len(data)
            current[0].addfile(info, io.BytesIO(data))
            size += len(data) + 1024
        if current:
            finish(*current)
            current = None
    finally:
        if current:
            current[0].close()
            current[1].unlink(missing_ok=True)


def merged_rows(out, scene, rows):
    """OUT/NAME.csv's rows of the other scenes, then this scene's."""
    path = out / f"{NAME}.csv"
    kept = [[r[k] for k in HEADER] for r in files.read_csv(path) if r["scene"] != scene] if path.exists() else []
    return kept + rows


def run(a):
    scene = SCENES[a.scene]
    ic, common = list(scene.ic), list(COMMON)
    if a.n:
        ic[ic.index("--n") + 1] = a.n
    if a.engine:
        common[common.index("--engine") + 1] = a.engine
    build_info = provenance.build_info(a.nbody)
    movie_dir, out = Path(a.movie_dir), Path(a.out)
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-", dir=a.work) as tmp:
        tmp = Path(tmp)
        cmd = [a.nbody, "run", *ic, *common, "--t-end", f"{a.t_end:g}", "--snapshots", str(tmp / "snap.hdf5"),
               "--snapshot-every", f"{T_END / MOVIE_FRAMES:.6g}", "--diag-every", f"{a.t_end:g}",
               "--summary", str(tmp / "summary.json")]
        subprocess.run(cmd, check=True, stdout=subprocess.PIPE)
        summary = json.loads((tmp / "summary.json").read_text())
        shown = shlex.join(["nbody", *[Path(c).name if str(tmp) in c else c for c in cmd[1:]]])
        paths = sorted(tmp.glob("snap_*.hdf5"))
        camera = render.Camera(view="xy", extent=scene.extent)
        # One scale for every frame, from the middle one: the speeds and densities the scene goes
        # through (the first frame's circular orbits span a narrow range of speeds).
        scales = render.default_scales(render.read_snapshot(paths[len(paths) // 2]), camera, MOVIE_SIZE, MOVIE_SIZE)
        with concurrent.futures.ProcessPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
            done = list(pool.map(frame, paths, [camera] * len(paths), [scales] * len(paths), [MOVIE_SIZE] * len(paths)))
    every = MOVIE_FRAMES // (GRID_FRAMES - 1)
    grid = done[::every][:GRID_FRAMES]
    rows = [[a.scene, f"{t:.6g}", *(f"{x:.6g}" for x in m)] for t, m, _ in done]
    frames_path = out / f"{NAME}_{a.scene}.npz"
    tmp_npz = frames_path.with_name(f".{frames_path.name}.tmp.{os.getpid()}.npz")
    np.savez_compressed(tmp_npz, frames=np.stack([f for _, _, f in grid]), times=np.array([t for t, _, _ in grid]),
                        speed_range=np.array(scales.speed_range), extent=np.array(scene.extent))
    os.replace(tmp_npz, frames_path)
    write_movie_parts(movie_dir, a.scene, [(t, image) for t, _, image in done])
    meta_path = files.sidecar(out / f"{NAME}.csv")
    scenes = files.read_json(meta_path)["parameters"]["scenes"] if meta_path.exists() else {}
    scenes[a.scene] = {"command": shown, "summary": summary, "caption": scene.caption, "extent": scene.extent,
                       "speed_range": list(scales.speed_range), "bright_mass": scales.bright_mass,
                       "frames": {"file": frames_path.name, "sha256": provenance.sha256_file(frames_path)},
                       "nbody": {"build_info": build_info}, "host": provenance.host()}
    # The build and machine of the latest scene's run (each scene keeps its own).
    sections = {"parameters": {"t_end": T_END, "snapshot_every": T_END / MOVIE_FRAMES, "radius": RADIUS,
                               "common": shlex.join(COMMON), "scenes": scenes},
                "nbody": {"build_info": build_info}, "host": scenes[a.scene]["host"]}
    files.write_csv(out / f"{NAME}.csv", HEADER, merged_rows(out, a.scene, rows),
                    provenance.results_meta(NAME, TITLE, PRODUCER, HEADER, [PRODUCER, f"experiments/{NAME}.toml"],
                                            **sections))
    last = done[-1][1]
    print(f"{NAME} {a.scene}: {summary['n']} bodies, {summary['steps']} steps, "
          f"{summary['step_wall_s'] / summary['steps'] * 1e3:.3g} ms per step, dE/E0 {summary['dE_rel']:.2g}, "
          f"escaped {last[4]:.4f} at t = {done[-1][0]:.3g}; wrote {len(done)} frames", flush=True)


def movie(a):
    """The MP4 of a scene's frames (as `run` wrote them), each with its time and the colour bar."""
    meta_path = files.sidecar(RESULTS / f"{NAME}.csv")
    meta = files.read_json(meta_path)
    entry = meta["parameters"]["scenes"][a.scene]
    scales = render.Scales(tuple(entry["speed_range"]), entry["bright_mass"])
    from matplotlib.image import imread

    jpegs = {}
    for part in a.tar:
        with tarfile.open(part) as tar:
            jpegs.update({m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.name.endswith(".jpg")})
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-movie-") as tmp:
        frames = []
        for k, name in enumerate(sorted(jpegs)):
            image = imread(io.BytesIO(jpegs[name]), format="jpg") / 255.0
            t = float(name.rsplit("_t", 1)[1].removesuffix(".jpg"))
            path = Path(tmp) / f"frame_{k:04d}.png"
            render.write_frame(path, image, render.Snapshot(path, t, None, None, None), scales,
                               f"nbody-lab E20: {entry['caption']}")
            frames.append(path)
        out = RESULTS / f"{NAME}_{a.scene}.mp4"
        encoded = Path(tmp) / out.name
        for crf in MOVIE_CRF:  # the best quality under MOVIE_LIMIT bytes
            render.write_mp4(frames, encoded, MOVIE_FPS, crf)
            if encoded.stat().st_size < MOVIE_LIMIT:
                break
        data = encoded.read_bytes()
    entry["movie"] = {"frames": len(frames), "fps": MOVIE_FPS, "crf": crf, "bytes": len(data),
                      "sha256": hashlib.sha256(data).hexdigest(),
                      "recipe": f"python3 {PRODUCER} movie --scene {a.scene} --tar "
                                + " ".join(Path(p).name for p in a.tar),
                      "file": out.name if len(data) < MOVIE_LIMIT else None}
    if len(data) < MOVIE_LIMIT:
        tmp_out = out.with_name(f".{out.name}.tmp.{os.getpid()}")
        tmp_out.write_bytes(data)
        os.replace(tmp_out, out)
    files.write_json(meta_path, meta)
    print(f"{NAME} {a.scene}: {len(frames)} frames, {len(data) / 1e6:.2f} MB"
          + (f", crf {crf}, wrote {out}" if len(data) < MOVIE_LIMIT else ", too large for results/: recipe and checksum kept"))


def smaller(a):
    """The committed movie of a scene encoded again at the best quality under MOVIE_LIMIT (its frames
    stay on the GPU machine); the meta keeps what it was made from."""
    meta_path = files.sidecar(RESULTS / f"{NAME}.csv")
    meta = files.read_json(meta_path)
    old = meta["parameters"]["scenes"][a.scene]["movie"]
    source = RESULTS / (old.get("file") or "")
    if not source.is_file() or hashlib.sha256(source.read_bytes()).hexdigest() != old["sha256"]:
        print(f"{NAME} {a.scene}: results/{source.name} is not the movie its meta names", file=sys.stderr)
        return 2
    if old["bytes"] < MOVIE_LIMIT:
        print(f"{NAME} {a.scene}: {old['bytes'] / 1e6:.2f} MB, already under {MOVIE_LIMIT / 1e6:g} MB")
        return 0
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-movie-") as tmp:
        encoded = Path(tmp) / source.name
        for crf in (c for c in MOVIE_CRF if c > old["crf"]):
            render.reencode_mp4(source, encoded, crf)
            if encoded.stat().st_size < MOVIE_LIMIT:
                break
        data = encoded.read_bytes()
    if len(data) >= MOVIE_LIMIT:
        print(f"{NAME} {a.scene}: {len(data) / 1e6:.2f} MB even at crf {crf}; left as it is", file=sys.stderr)
        return 3
    meta["parameters"]["scenes"][a.scene]["movie"] = {
        "frames": old["frames"], "fps": old["fps"], "crf": crf, "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(), "recipe": f"python3 {PRODUCER} smaller --scene {a.scene}",
        "file": source.name, "encoded_from": {k: old[k] for k in ("crf", "bytes", "sha256", "recipe")}}
    tmp_out = source.with_name(f".{source.name}.tmp.{os.getpid()}")
    tmp_out.write_bytes(data)
    os.replace(tmp_out, source)
    files.write_json(meta_path, meta)
    print(f"{NAME} {a.scene}: {old['bytes'] / 1e6:.2f} MB at crf {old['crf']} -> {len(data) / 1e6:.2f} MB at crf {crf}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("--nbody", required=True)
    r.add_argument("--scene", required=True, choices=list(SCENES))
    r.add_argument("--n", help="bodies (a smaller trial of the scene)")
    r.add_argument("--engine", help="another engine (a trial where no GPU is)")
    r.add_argument("--t-end", type=float, default=T_END, help="an earlier end (a trial)")
    r.add_argument("--movie-dir", default=".")
    r.add_argument("--out", default=str(RESULTS), help="the results folder (another for a trial)")
    r.add_argument("--work", help="folder for the snapshots (default: the system's temporary folder)")
    m = sub.add_parser("movie")
    m.add_argument("--scene", required=True, choices=list(SCENES))
    m.add_argument("--tar", required=True, nargs="+", help="the movie's tar files, as `run` wrote them")
    sm = sub.add_parser("smaller")
    sm.add_argument("--scene", required=True, choices=list(SCENES))
    a = ap.parse_args()
    return {"run": run, "movie": movie, "smaller": smaller}[a.what](a)


if __name__ == "__main__":
    sys.exit(main())
