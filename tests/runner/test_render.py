"""experiments/render.py against configurations whose picture is known: two bodies (each lit where
the projection puts it, the slow one blue and the fast one red), a ring seen face-on (a circle of
the projected radius), edge-on (a line) and in perspective (a circle of radius f r / d); the frames
and the MP4 it writes (1920 x 1080 by default); and missing, truncated or foreign snapshots
refused in one line with nothing written. Run by CTest with the virtual environment's Python.

    test_render.py NBODY
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from needs_venv import require
from report import report

require("h5py", "matplotlib", "numpy")
import matplotlib.image  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

sys.path.insert(0, str(ROOT / "experiments"))
from nbodylab import render  # noqa: E402

RENDER = ROOT / "experiments" / "render.py"
HEADER = "id,mass,x,y,z,vx,vy,vz\n"
W, H = 320, 180
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def snapshot(nbody, folder, name, rows):
    """An HDF5 snapshot of the bodies `rows` (mass, x, y, z, vx, vy, vz), written by `nbody ic`."""
    csv = folder / f"{name}.csv"
    csv.write_text(HEADER + "".join(f"{i}," + ",".join(repr(float(v)) for v in row) + "\n" for i, row in enumerate(rows)))
    subprocess.run([nbody, "ic", "--ic", f"file:{csv}", "--out", str(folder / f"{name}.hdf5")], check=True, capture_output=True)
    return folder / f"{name}.hdf5"


def lit(image, fraction=0.2):
    """Rows and columns of the pixels brighter than `fraction` of the brightest."""
    b = image.max(axis=2)
    return np.nonzero(b > fraction * b.max())


def two_bodies(folder, nbody):
    path = snapshot(nbody, folder, "two", [(1, -0.5, 0.2, 0, 0.1, 0, 0), (1, 0.6, -0.3, 0, 0, 1.0, 0)])
    snap = render.read_snapshot(path)
    camera = render.Camera(view="xy", centre=(0, 0, 0), extent=1.0)
    image = render.render_image(snap, camera, render.Scales((0.0, 1.0), 1.0), W, H)
    scale = H / 2  # pixels per unit length at extent 1
    for x, y, colour in [(-0.5, 0.2, "blue"), (0.6, -0.3, "red")]:
        row, col = int(H / 2 - y * scale), int(W / 2 + x * scale)
        patch = image[row - 1:row + 2, col - 1:col + 2]
        centre = image[row, col]
        check(np.argmax(centre) == {"red": 0, "blue": 2}[colour] and centre.max() >= patch.max(axis=(0, 1)).max() - 1e-12,
              f"two bodies: the {colour} body is not brightest and {colour} at pixel ({row}, {col}): {centre}")
    rows, cols = lit(image, 0.01)
    check(len(rows) == 18, f"two bodies: {len(rows)} lit pixels, expected two 3 x 3 spots")
    # The PNG of the command: the same spots, where nothing of the overlays is drawn.
    out = folder / "frames"
    run = subprocess.run([sys.executable, RENDER, path, "--out", out, "--size", f"{W}x{H}", "--centre", "0,0,0",
                          "--extent", "1", "--speed-range", "0,1", "--quiet"], capture_output=True, text=True)
    check(run.returncode == 0, f"render two bodies: exit {run.returncode}: {run.stderr}")
    if run.returncode == 0:
        png = matplotlib.image.imread(out / "two.png")[..., :3]
        check(png.shape == (H, W, 3), f"two bodies: the frame is {png.shape}")
        body = png[60:130, 100:230]  # the middle, clear of the time, the label and the colour bar
        rows, cols = lit(body, 0.3)
        spots = {(int(r + 60), int(c + 100)) for r, c in zip(rows, cols)}
        expected = {(int(H / 2 - y * scale), int(W / 2 + x * scale)) for x, y in [(-0.5, 0.2), (0.6, -0.3)]}
        check(all(min(abs(r - er) + abs(c - ec) for er, ec in expected) <= 2 for r, c in spots) and len(spots) >= 2,
              f"two bodies: the PNG's bright pixels {sorted(spots)} are not at {sorted(expected)}")


def ring(folder, nbody):
    angles = np.linspace(0, 2 * np.pi, 720, endpoint=False)
    rows = [(1, 0.5 * np.cos(a), 0.5 * np.sin(a), 0.3, -np.sin(a), np.cos(a), 0) for a in angles]
    snap = render.read_snapshot(snapshot(nbody, folder, "ring", rows))
    scales = render.Scales((0.0, 2.0), 1.0)
    face = render.render_image(snap, render.Camera(view="xy", centre=(0, 0, 0.3), extent=1.0), scales, W, H)
    r, c = lit(face)
    radius = np.hypot(r + 0.5 - H / 2, c + 0.5 - W / 2)
    check(len(r) > 100 and abs(radius.mean() - 45) < 1 and np.abs(radius - 45).max() < 2.5,
          f"ring face-on: lit pixels at radius {radius.min():.1f}..{radius.max():.1f}, expected 45")
    edge = render.render_image(snap, render.Camera(view="xz", centre=(0, 0, 0.3), extent=1.0), scales, W, H)
    r, c = lit(edge)
    check(len(r) > 20 and np.abs(r + 0.5 - H / 2).max() <= 1.5 and abs(c.min() - (W / 2 - 45)) <= 2 and abs(c.max() - (W / 2 + 45)) <= 2,
          f"ring edge-on: rows {r.min()}..{r.max()}, columns {c.min()}..{c.max()}")
    eye = render.Camera(centre=(0, 0, 0.3), eye=(0, 0, 3.3), fov=40)
    persp = render.render_image(snap, eye, scales, W, H)
    r, c = lit(persp)
    radius = np.hypot(r + 0.5 - H / 2, c + 0.5 - W / 2)
    expected = (H / 2) / np.tan(np.radians(20)) * 0.5 / 3.0
    check(len(r) > 100 and abs(radius.mean() - expected) < 1 and np.abs(radius - expected).max() < 2.5,
          f"ring in perspective: radius {radius.min():.1f}..{radius.max():.1f}, expected {expected:.1f}")
    behind = render.render_image(snap, render.Camera(centre=(0, 0, 10), eye=(0, 0, 5)), scales, W, H)
    check(behind.max() == 0, "ring behind the camera: drawn")


def series_and_movie(folder, nbody):
    subprocess.run([nbody, "run", "--ic", "plummer", "--n", "500", "--integrator", "leapfrog", "--dt", "0.01",
                    "--t-end", "0.2", "--snapshot-every", "0.1", "--snapshots", str(folder / "run.hdf5"), "--quiet"],
                   check=True, capture_output=True)
    out = folder / "series"
    args = [sys.executable, RENDER, folder / "run.xdmf", "--out", out, "--quiet"]
    have_ffmpeg = shutil.which("ffmpeg") is not None
    if have_ffmpeg:
        args += ["--mp4", folder / "run.mp4"]
    run = subprocess.run(args, capture_output=True, text=True)
    check(run.returncode == 0, f"render the series: exit {run.returncode}: {run.stderr}")
    names = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    check(names == ["run_000.png", "run_001.png", "run_002.png"], f"series: frames {names}")
    if names:
        check(matplotlib.image.imread(out / names[0]).shape[:2] == (1080, 1920), "series: frames are not 1920 x 1080")
    if have_ffmpeg:
        probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                "stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0", folder / "run.mp4"],
                               capture_output=True, text=True)
        check(probe.stdout.strip() == "h264,1920,1080,3", f"movie: ffprobe says '{probe.stdout.strip()}'")
    else:
        print("note: no ffmpeg here: the MP4 was not checked")


def bad_input(folder, nbody):
    good = snapshot(nbody, folder, "good", [(1, 0, 0, 0, 0, 0, 0), (1, 1, 0, 0, 0, 0, 0)])
    whole = good.read_bytes()
    (folder / "cut.hdf5").write_bytes(whole[: len(whole) // 2])
    (folder / "text.hdf5").write_text(HEADER + "0,1,0,0,0,0,0,0\n")
    cases = [(["missing.hdf5"], "cannot open snapshot 'missing.hdf5' (no such file)"),
             (["cut.hdf5"], "is not a readable HDF5 file (truncated?)"),
             (["text.hdf5"], "is not a readable HDF5 file"),
             (["good.hdf5", "cut.hdf5"], "truncated"),
             (["good.hdf5", "--size", "big"], "--size takes WIDTHxHEIGHT"),
             (["good.hdf5", "--view", "zz"], "invalid choice: 'zz'"),
             (["missing.xdmf"], "cannot open series 'missing.xdmf'")]
    for args, phrase in cases:
        out = folder / "bad_frames"
        run = subprocess.run([sys.executable, RENDER, *args, "--out", out], cwd=folder, capture_output=True, text=True)
        lines = run.stderr.strip().splitlines()
        check(run.returncode == 2 and len(lines) == 1 and phrase in lines[0] and lines[0].startswith("render: "),
              f"render {' '.join(args)}: exit {run.returncode}, stderr {run.stderr!r}, expected one line with '{phrase}'")
        check(not out.exists() or not any(out.iterdir()), f"render {' '.join(args)}: left frames behind")


def main():
    nbody = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="nbody_render_") as tmp:
        for test in (two_bodies, ring, series_and_movie, bad_input):
            folder = Path(tmp) / test.__name__
            folder.mkdir()
            test(folder, nbody)
    return report(failures, "frames of known configurations, the series and its movie, bad snapshots")


if __name__ == "__main__":
    sys.exit(main())
