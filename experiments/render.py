"""Frames and a movie of HDF5 snapshots (`nbody run --snapshots NAME.hdf5`), as seed S0 showed its
galaxies: brightness from the mass in each pixel, colour from the mean speed on S0's scale (blue
slow, green, red fast), a colour bar and the time on every frame, 1920 x 1080 by default.

    .venv/bin/python experiments/render.py run.xdmf --out frames/ [--mp4 run.mp4]
    .venv/bin/python experiments/render.py run_000.hdf5 run_010.hdf5 --out frames/ --view xz
    .venv/bin/python experiments/render.py run.xdmf --out frames/ --eye 0,-30,12 --fov 35

Every frame of a call has the scales of its first: the centre (its centre of mass, or --centre),
the extent (1.2 times the radius holding 95 % of its bodies, or --extent), the speed range of the
colours (its 1st to 99th percentile, or --speed-range) and the mass per pixel drawn at full
brightness. Frames are named after their snapshots (run_003.hdf5 -> frames/run_003.png) and, like
the MP4 (H.264 through Debian's ffmpeg), appear only when complete. A line on stderr every 2 s
says how far it is (none with --quiet). Exit 2: bad input (a missing or truncated snapshot, a bad
option), in one line; 3: writing failed.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbodylab import render  # noqa: E402


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise render.RenderError(f"{message} (see --help)")


def options(argv):
    p = Parser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
               epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("snapshots", nargs="+", help="HDF5 snapshot files, or the NAME.xdmf of a series")
    p.add_argument("--out", required=True, help="folder of the frames (made if missing; its parent must exist)")
    p.add_argument("--mp4", help="also write the frames as this MP4 movie")
    p.add_argument("--fps", type=float, default=12, help="frames per second of the movie (default 12)")
    p.add_argument("--size", default="1920x1080", help="WIDTHxHEIGHT in pixels (default 1920x1080)")
    p.add_argument("--view", choices=["xy", "xz", "yz"], default="xy",
                   help="orthographic projection onto this plane (default xy); ignored with --eye")
    p.add_argument("--centre", help="X,Y,Z the view is centred on (default: the first frame's centre of mass)")
    p.add_argument("--extent", type=float, help="half-height of the orthographic view (default: from the first frame)")
    p.add_argument("--eye", help="X,Y,Z: a perspective view from here towards --centre")
    p.add_argument("--fov", type=float, default=40, help="vertical field of view of --eye in degrees (default 40)")
    p.add_argument("--speed-range", help="LO,HI: the speeds of the ends of the colour scale")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p.parse_args(argv)


def main(argv):
    o = options(argv)
    width, height = render.parse_size(o.size)
    if not (o.fps > 0 and o.fps <= 240):
        raise render.RenderError(f"--fps must be in (0, 240], got {o.fps:g}")
    if not (0 < o.fov < 180):
        raise render.RenderError(f"--fov must be in (0, 180) degrees, got {o.fov:g}")
    if o.extent is not None and not (o.extent > 0 and np.isfinite(o.extent)):
        raise render.RenderError(f"--extent must be a positive length, got {o.extent:g}")
    out = Path(o.out)
    if out.exists() and not out.is_dir():
        raise render.RenderError(f"--out {out}: is a file, not a folder")
    if not out.exists() and not out.parent.is_dir():
        raise render.RenderError(f"--out {out}: its folder '{out.parent}' does not exist")
    if o.mp4 and not Path(o.mp4).resolve().parent.is_dir():
        raise render.RenderError(f"--mp4 {o.mp4}: its folder does not exist")
    if o.mp4:
        render.ffmpeg_path()  # before any work
    files = render.snapshot_files(o.snapshots)
    for f in files:  # every input checked before any work
        render.check_snapshot(f)

    first = render.read_snapshot(files[0])
    if o.centre:
        centre = render.parse_triple(o.centre, "--centre")
    else:
        centre = tuple(np.average(first.positions, axis=0, weights=first.masses))
    if o.eye:
        camera = render.Camera(centre=centre, eye=render.parse_triple(o.eye, "--eye"), fov=o.fov)
    else:
        axes = {"xy": [0, 1], "xz": [0, 2], "yz": [1, 2]}[o.view]
        radius = np.percentile(np.linalg.norm(first.positions[:, axes] - np.asarray(centre)[axes], axis=1), 95)
        camera = render.Camera(view=o.view, centre=centre, extent=o.extent or 1.2 * float(radius) or 1.0)
    scales = render.default_scales(first, camera, width, height)
    if o.speed_range:
        try:
            lo, hi = (float(x) for x in o.speed_range.split(","))
        except ValueError:
            lo = hi = float("nan")
        if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo >= 0):
            raise render.RenderError(f"--speed-range takes LO,HI with 0 <= LO < HI, got '{o.speed_range}'")
        scales.speed_range = (lo, hi)

    out.mkdir(exist_ok=True)
    progress = render.Progress(len(files), quiet=o.quiet)
    frames = []
    try:
        for k, f in enumerate(files, 1):
            snap = first if k == 1 else render.read_snapshot(f)
            frame = out / (f.stem + ".png")
            render.write_frame(frame, render.render_image(snap, camera, scales, width, height), snap, scales, f.name)
            frames.append(frame)
            progress.done(k)
        if o.mp4:
            render.write_mp4(frames, Path(o.mp4), o.fps)
    except BaseException:  # a failure (or Ctrl-C) leaves none of this call's frames: they would be a partial series
        for frame in frames:
            frame.unlink(missing_ok=True)
        raise
    if not o.quiet:
        print(f"render: {len(frames)} frames in {out}" + (f", movie {o.mp4}" if o.mp4 else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except render.RenderError as e:
        print(f"render: {e}", file=sys.stderr)
        sys.exit(2)
    except (OSError, RuntimeError) as e:
        print(f"render: failed: {e}", file=sys.stderr)
        sys.exit(3)
