"""Seed S0's three movies as runs of this solver (E20): two galaxies colliding (60,000 bodies) and a
galaxy of a million stars around a central body of 99 % and of 10 % of its mass, run on the GPU
with a tree engine (cuda-octree-groups, float, theta 0.5: E17's setting) and drawn by the renderer
(nbodylab/render.py: S0's colours, blue slow to red fast).

The runner runs it (experiments/E20_galaxy_scenes.toml: kind = "script", requires = "cuda"), every
scene in one call. For each scene, the run with HDF5 snapshots every T_END/MOVIE_FRAMES (the
paper's 14 and 140: every 0.1), then for each snapshot the face-on (xy) picture (one scale for all,
from the middle snapshot) and the stars' measures; into FOLDER:
  E20_galaxy_scenes.csv       scene, t, the radii holding 10, 50 and 90 % of the stars' mass about
                              the centre of mass, the share of the stars' mass beyond 2 R (R the
                              galaxy's radius) and the share that has escaped (beyond 2 R and
                              unbound: 1/2 v^2 + phi(r) > 0, phi the potential of the mass inside r
                              plus that of the shells outside, about the centre of mass: exact for a
                              spherical system, and near it for stars far from the rest), and the
                              stars' kinetic energy;
  E20_galaxy_scenes.meta.json the command, the run's summary (energy drift, seconds per step), the
                              build and the movie of each scene;
  E20_galaxy_scenes_SCENE.npz the GRID_FRAMES frames of the paper's grid (uint8 RGB, GRID_SIZE
                              square), their times and the colour scale;
  E20_galaxy_scenes_SCENE.mp4 the movie: every frame (MOVIE_SIZE square) with its time and the
                              colour bar, H.264 at the best quality of MOVIE_CRF under MOVIE_LIMIT
                              bytes (none if even the lowest is over: its size and checksum in the
                              meta).

The movies are made by ffmpeg with its libx264 encoder (render.write_mp4), the encoder of every
movie in results/. Where there is no such ffmpeg (as on a GPU machine's bare image) the script still
runs every scene and writes the table, the grids and the meta, and says in one line on stderr that
it makes no movie: each scene's meta records why, and the frames (JPEG, in tar files of at most
MOVIE_PART_BYTES) stay in --frames DIR for `movie`, which makes the movie where ffmpeg is. Not
opencv's VideoWriter: its wheels carry no H.264 encoder (x264 is GPL), only MPEG-4 part 2, which
browsers do not play, with no quality setting to bring a movie under MOVIE_LIMIT: its movies would be
unlike the committed ones. So every movie in results/ has one recipe, and the meta names no movie
that was not made.

`movie` (where ffmpeg is): the movie of a scene from the frames a run left (--frames, or the tar
files named), into results/E20_galaxy_scenes_SCENE.mp4 and its record in the meta.
`smaller`: a committed movie made under an earlier, larger limit encoded again at the best quality
under it; the meta keeps the quality, size, checksum and recipe it was made from.

Usage: python3 experiments/galaxy_scenes.py --nbody NBODY --out FOLDER [--scenes SCENE ...] [--n N]
           [--t-end T --movie-frames K] [--engine E] [--frames DIR] [--work DIR]
       python3 experiments/galaxy_scenes.py movie --scene SCENE [--frames DIR | --tar TAR ...]
       python3 experiments/galaxy_scenes.py smaller --scene SCENE
Needs numpy, h5py, Pillow and matplotlib, a CUDA device for the cuda engine, and ffmpeg for the
movies. Standard output: one line per scene.
"""
import argparse
import concurrent.futures
import hashlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nbodylab import RESULTS_DIR, files, provenance, render

ROOT = Path(__file__).resolve().parent.parent
RESULTS = RESULTS_DIR  # results/, or NBODYLAB_RESULTS
FRAMES = ROOT / "build" / "E20_galaxy_scenes_frames"  # where a run without ffmpeg leaves the movies' frames
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
WORKERS = min(8, os.cpu_count() or 1)
# Every scene: leapfrog at a fixed step, Plummer softening a fortieth of R (S0 clamped the distance
# instead), the tree of E17 whose force error (median 2e-4 in float) its energy drift shows.
COMMON = ["--integrator", "leapfrog", "--dt", "0.001", "--precision", "float", "--engine", "cuda-octree-groups",
          "--theta", "0.5", "--eps", "0.25", "--G", "1"]


def bodies(n):
    return "a million bodies" if n == 1_000_000 else f"{n:,} bodies"


@dataclass
class Scene:
    ic: list
    extent: float  # half the frame's side, in R's unit
    caption: object  # the caption for n bodies

    def n(self):
        return int(self.ic[self.ic.index("--n") + 1])


SCENES = {
    "collision": Scene(["--ic", "two-galaxies", "--n", "60000", "--box", "20"], 25.0,
                       lambda n: f"two galaxies of {n // 2:,} bodies collide (each 99.9 % in its central body)"),
    "central-99": Scene(["--ic", "galaxy", "--n", "1000000", "--box", "20", "--central-fraction", "0.99"], 13.0,
                        lambda n: f"{bodies(n)}, the central one 99 % of the mass"),
    "central-10": Scene(["--ic", "galaxy", "--n", "1000000", "--box", "20", "--central-fraction", "0.1"], 25.0,
                        lambda n: f"{bodies(n)}, the central one 10 % of the mass"),
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
    once whole, so a run that fails or is stopped leaves whole parts only. Returns their paths."""
    part, size, current, written = 0, 0, None, []  # current: (open tar, its temporary path, its final path)

    def finish(tar, tmp, final):
        tar.close()
        os.replace(tmp, final)
        written.append(final)

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
    return written


def no_h264():
    """Why this machine cannot make the movies (one line), or None: ffmpeg on PATH with libx264."""
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        return "no ffmpeg on PATH"
    try:
        encoders = subprocess.run([ffmpeg, "-hide_banner", "-encoders"], capture_output=True, text=True).stdout
    except OSError as e:
        return f"ffmpeg does not run ({e})"
    return None if " libx264 " in encoders else "the ffmpeg on PATH has no libx264 encoder"


def ffmpeg_version():
    out = subprocess.run([shutil.which("ffmpeg"), "-version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else None


def draw(data, t, path, scales, label):
    """One movie frame from its JPEG: the picture with its time and the colour bar, as a PNG."""
    from matplotlib.image import imread

    image = imread(io.BytesIO(data), format="jpg") / 255.0
    render.write_frame(path, image, render.Snapshot(path, t, None, None, None), scales, label)


def frames_record(scene, tars):
    """The meta's record of a movie's frames in `tars`: their checksums and the `movie` command."""
    return {"frames_kept": {p.name: provenance.sha256_file(p) for p in tars},
            "recipe": f"python3 {PRODUCER} movie --scene {scene} --tar " + " ".join(p.name for p in tars)}


def encode(tars, scales, caption, out):
    """The movie of the frames in `tars` (as write_movie_parts wrote them), each drawn with its time
    and the colour bar, as H.264 at the best quality of MOVIE_CRF under MOVIE_LIMIT bytes, written
    to `out` if under it. Returns its record for the meta."""
    jpegs = {}
    for part in tars:
        with tarfile.open(part) as tar:
            jpegs.update({m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.name.endswith(".jpg")})
    names = sorted(jpegs)
    times = [float(n.rsplit("_t", 1)[1].removesuffix(".jpg")) for n in names]
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-movie-") as tmp:
        paths = [Path(tmp) / f"frame_{k:04d}.png" for k in range(len(names))]
        with concurrent.futures.ProcessPoolExecutor(max_workers=WORKERS) as pool:
            list(pool.map(draw, [jpegs[n] for n in names], times, paths, [scales] * len(names),
                          [f"nbody-lab E20: {caption}"] * len(names)))
        encoded = Path(tmp) / out.name
        for crf in MOVIE_CRF:  # the best quality under MOVIE_LIMIT bytes
            render.write_mp4(paths, encoded, MOVIE_FPS, crf)
            if encoded.stat().st_size < MOVIE_LIMIT:
                break
        data = encoded.read_bytes()
    small = len(data) < MOVIE_LIMIT
    if small:
        tmp_out = out.with_name(f".{out.name}.tmp.{os.getpid()}")
        tmp_out.write_bytes(data)
        os.replace(tmp_out, out)
    return {"frames": len(names), "fps": MOVIE_FPS, "crf": crf, "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(), "encoder": f"libx264, {ffmpeg_version()}",
            "file": out.name if small else None}


def run_scene(a, name, common, pool, out, movies_why):
    """One scene: its run, frames, measures, grid and movie (or its frames kept). Returns its CSV rows
    and its record for the meta."""
    scene = SCENES[name]
    ic = list(scene.ic)
    if a.n:
        ic[ic.index("--n") + 1] = str(a.n)
    n = a.n or scene.n()
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-", dir=a.work) as tmp:
        tmp = Path(tmp)
        cmd = [a.nbody, "run", *ic, *common, "--t-end", f"{a.t_end:g}", "--snapshots", str(tmp / "snap.hdf5"),
               "--snapshot-every", f"{a.t_end / a.movie_frames:.6g}", "--diag-every", f"{a.t_end:g}",
               "--summary", str(tmp / "summary.json")]
        status = subprocess.run(cmd, stdout=subprocess.PIPE).returncode
        if status != 0:
            raise RuntimeError(f"{NAME} {name}: nbody run failed (exit {status}): {shlex.join(cmd)}")
        summary = json.loads((tmp / "summary.json").read_text())
        shown = shlex.join(["nbody", *[Path(c).name if str(tmp) in c else c for c in cmd[1:]]])
        paths = sorted(tmp.glob("snap_*.hdf5"))
        camera = render.Camera(view="xy", extent=scene.extent)
        # One scale for every frame, from the middle one: the speeds and densities the scene goes
        # through (the first frame's circular orbits span a narrow range of speeds).
        scales = render.default_scales(render.read_snapshot(paths[len(paths) // 2]), camera, MOVIE_SIZE, MOVIE_SIZE)
        done = list(pool.map(frame, paths, [camera] * len(paths), [scales] * len(paths), [MOVIE_SIZE] * len(paths)))
    grid = done[::a.movie_frames // (GRID_FRAMES - 1)][:GRID_FRAMES]
    rows = [[name, f"{t:.6g}", *(f"{x:.6g}" for x in m)] for t, m, _ in done]
    frames_path = out / f"{NAME}_{name}.npz"
    np.savez_compressed(frames_path, frames=np.stack([f for _, _, f in grid]), times=np.array([t for t, _, _ in grid]),
                        speed_range=np.array(scales.speed_range), extent=np.array(scene.extent))
    caption = scene.caption(n)
    movie_frames = [(t, image) for t, _, image in done]
    if movies_why:  # the frames kept for `movie`, the parts of an earlier run gone first so that none mixes in
        folder = Path(a.frames)
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob(f"{NAME}_{name}_movie_*.tar"):
            old.unlink()
        tars = write_movie_parts(folder, name, movie_frames)
        movie = {"file": None, "frames": len(done), "fps": MOVIE_FPS, "not_made": movies_why, **frames_record(name, tars)}
    else:  # through the same JPEG frames as `movie`: one recipe for every movie
        with tempfile.TemporaryDirectory(prefix=f"{NAME}-frames-") as tmp:
            tars = write_movie_parts(tmp, name, movie_frames)
            movie = encode(tars, scales, caption, out / f"{NAME}_{name}.mp4")
    record = {"command": shown, "summary": summary, "caption": caption, "extent": scene.extent,
              "speed_range": list(scales.speed_range), "bright_mass": scales.bright_mass,
              "frames": {"file": frames_path.name, "sha256": provenance.sha256_file(frames_path)}, "movie": movie}
    last = done[-1][1]
    print(f"{NAME} {name}: {summary['n']} bodies, {summary['steps']} steps, "
          f"{summary['step_wall_s'] / summary['steps'] * 1e3:.3g} ms per step, dE/E0 {summary['dE_rel']:.2g}, "
          f"escaped {last[4]:.4f} at t = {done[-1][0]:.3g}; {len(done)} frames, "
          + (f"movie {movie['bytes'] / 1e6:.2f} MB at crf {movie['crf']}" if movie.get("bytes") else "no movie"),
          flush=True)
    return rows, record


def run(a):
    if a.movie_frames % (GRID_FRAMES - 1):
        print(f"{NAME}: --movie-frames must be a multiple of {GRID_FRAMES - 1} (the grid's steps), "
              f"got {a.movie_frames}", file=sys.stderr)
        return 2
    out = Path(a.out)
    build_info = provenance.build_info(a.nbody)
    common = list(COMMON)
    if a.engine:
        common[common.index("--engine") + 1] = a.engine
    movies_why = no_h264()
    if movies_why:
        print(f"{NAME}: {movies_why}, so no movies: their frames stay in {a.frames}/ and "
              f"`python3 {PRODUCER} movie --scene SCENE` makes each where ffmpeg is", file=sys.stderr, flush=True)
    rows, scenes = [], {}
    with concurrent.futures.ProcessPoolExecutor(max_workers=WORKERS) as pool:
        for name in a.scenes:
            try:
                scene_rows, scenes[name] = run_scene(a, name, common, pool, out, movies_why)
            except RuntimeError as e:
                print(e, file=sys.stderr)
                return 1
            rows += scene_rows
    sections = {"parameters": {"t_end": a.t_end, "snapshot_every": float(f"{a.t_end / a.movie_frames:.6g}"),
                               "radius": RADIUS, "common": shlex.join(common), "scenes": scenes},
                "nbody": {"build_info": build_info}, "host": provenance.host()}
    files.write_csv(out / f"{NAME}.csv", HEADER, rows,
                    provenance.results_meta(NAME, TITLE, PRODUCER, HEADER, [PRODUCER, f"experiments/{NAME}.toml"],
                                            **sections))
    return 0


def movie(a):
    """The movie of a scene from the frames a run kept, into results/ and its record in the meta."""
    meta_path = files.sidecar(RESULTS / f"{NAME}.csv")
    meta = files.read_json(meta_path)
    entry = meta["parameters"]["scenes"].get(a.scene)
    if entry is None:
        print(f"{NAME} {a.scene}: results/{meta_path.name} has no such scene", file=sys.stderr)
        return 2
    tars = [Path(p) for p in a.tar] if a.tar else sorted(Path(a.frames).glob(f"{NAME}_{a.scene}_movie_*.tar"))
    kept = entry.get("movie", {}).get("frames_kept")
    if not tars or (kept and frames_record(a.scene, tars)["frames_kept"] != kept):
        print(f"{NAME} {a.scene}: {'no frames in ' + a.frames if not tars else 'these are not the frames'} "
              f"of the run results/{meta_path.name} describes", file=sys.stderr)
        return 2
    why = no_h264()
    if why:
        print(f"{NAME} {a.scene}: {why}; the movie needs ffmpeg with libx264", file=sys.stderr)
        return 2
    out = RESULTS / f"{NAME}_{a.scene}.mp4"
    try:
        record = encode(tars, render.Scales(tuple(entry["speed_range"]), entry["bright_mass"]), entry["caption"], out)
    except (OSError, tarfile.TarError) as e:
        print(f"{NAME} {a.scene}: {' '.join(map(str, tars))}: not the tar files of a run's frames ({type(e).__name__})",
              file=sys.stderr)
        return 2
    entry["movie"] = {**record, **frames_record(a.scene, tars)}
    files.write_json(meta_path, meta)
    print(f"{NAME} {a.scene}: {record['frames']} frames, {record['bytes'] / 1e6:.2f} MB"
          + (f", crf {record['crf']}, wrote {out}" if record["file"]
             else ", too large for results/: recipe and checksum kept"))
    return 0


def smaller(a):
    """The committed movie of a scene encoded again at the best quality under MOVIE_LIMIT (its frames
    stay on the GPU machine); the meta keeps what it was made from."""
    meta_path = files.sidecar(RESULTS / f"{NAME}.csv")
    meta = files.read_json(meta_path)
    old = meta["parameters"]["scenes"][a.scene]["movie"]
    source = RESULTS / (old.get("file") or "")
    if not source.is_file() or provenance.sha256_file(source) != old["sha256"]:
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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    description = __doc__.split("\n\n")[0]
    if argv[:1] in (["movie"], ["smaller"]):
        ap = argparse.ArgumentParser(prog=f"galaxy_scenes.py {argv[0]}", description=description)
        ap.add_argument("--scene", required=True, choices=list(SCENES))
        if argv[0] == "movie":
            ap.add_argument("--frames", default=str(FRAMES),
                            help="the folder a run left the frames in (default: %(default)s)")
            ap.add_argument("--tar", nargs="+", help="the movie's tar files, as a run wrote them (instead of --frames)")
        return {"movie": movie, "smaller": smaller}[argv[0]](ap.parse_args(argv[1:]))
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--nbody", required=True)
    ap.add_argument("--out", required=True, help="the folder to write the results into")
    ap.add_argument("--scenes", nargs="+", choices=list(SCENES), default=list(SCENES))
    ap.add_argument("--n", type=int, help="bodies of every scene (a smaller trial)")
    ap.add_argument("--t-end", type=float, default=T_END, help="the runs' end (default: %(default)s)")
    ap.add_argument("--movie-frames", type=int, default=MOVIE_FRAMES,
                    help="snapshot intervals up to --t-end (default: %(default)s)")
    ap.add_argument("--engine", help="another engine (a trial where no GPU is)")
    ap.add_argument("--frames", default=str(FRAMES), help="where the movies' frames stay when there is no ffmpeg "
                                                          "(default: %(default)s)")
    ap.add_argument("--work", help="folder for the snapshots (default: the system's temporary folder)")
    return run(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
