"""Pictures of N-body snapshots as seed S0 showed them: every body drawn where the camera sees it,
the brightness from the mass that falls in each pixel (log scale), the colour from the mean speed
there on S0's scale (blue slow, green, red fast), a colour bar and the time on each frame; frames
of a series at one scale, so that they compare, and an MP4 of them through Debian's ffmpeg.

Input: the HDF5 snapshots of `nbody run --snapshots NAME.hdf5` (GADGET layout: PartType1/
Coordinates, Velocities, Masses, Header/Time), given as files or as their NAME.xdmf.
The command is experiments/render.py; render_image() gives the picture as an array (the tests and
the figure scripts use it).
"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# S0's scale: blue for the slowest bodies, green, red for the fastest.
S0_COLOURS = [(0.10, 0.30, 1.00), (0.10, 0.90, 0.20), (1.00, 0.15, 0.05)]
DYNAMIC_RANGE = 1000.0  # of the brightness: pixels 1000 times fainter than the reference are black


class RenderError(Exception):
    """Bad input (a missing or unreadable snapshot, a bad option): one line, exit 2."""


@dataclass
class Snapshot:
    path: Path
    time: float
    positions: np.ndarray  # (N, 3)
    velocities: np.ndarray
    masses: np.ndarray


@contextmanager
def _opened_snapshot(path):
    """The snapshot's PartType1 group and time, its datasets' shapes checked; any way it cannot be
    read (missing, a directory, not HDF5, truncated, another layout) a RenderError in one line."""
    import h5py

    path = Path(path)
    if not path.is_file():
        raise RenderError(f"cannot open snapshot '{path}' ({'a directory' if path.is_dir() else 'no such file'})")
    try:
        with h5py.File(path, "r") as f:
            group = f["PartType1"]
            n = group["Masses"].shape[0]
            if [group[name].shape for name in ("Coordinates", "Velocities")] != [(n, 3), (n, 3)]:
                raise RenderError(f"snapshot '{path}': Coordinates and Velocities are not N x 3 for its {n} masses")
            yield group, float(f["Header"].attrs["Time"])
    except OSError as e:
        raise RenderError(f"snapshot '{path}' is not a readable HDF5 file (truncated?): {str(e).splitlines()[0]}") from None
    except KeyError as e:
        raise RenderError(f"snapshot '{path}' lacks {e.args[0] if e.args else 'a dataset'} "
                          "(expected GADGET's layout: Header/Time, PartType1/Coordinates, Velocities, Masses)") from None


def read_snapshot(path):
    """One snapshot file, or RenderError saying in one line why it cannot be read."""
    with _opened_snapshot(path) as (group, t):
        return Snapshot(Path(path), t, *(group[name][:].astype(np.float64) for name in ("Coordinates", "Velocities", "Masses")))


def check_snapshot(path):
    """RenderError, in one line, unless `path` opens as a snapshot with the datasets a frame needs."""
    with _opened_snapshot(path):
        pass


def ffmpeg_path():
    """Debian's ffmpeg, which the movies need, or RenderError saying so."""
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        raise RenderError("--mp4 needs ffmpeg (Debian's ffmpeg package, which tools/install-deps.sh installs)")
    return ffmpeg


def snapshot_files(inputs):
    """The snapshot files named by `inputs`: HDF5 files as given, an XDMF series as its files in order."""
    files = []
    for name in inputs:
        path = Path(name)
        if path.suffix == ".xdmf":
            if not path.is_file():
                raise RenderError(f"cannot open series '{path}' (no such file)")
            try:
                root = ET.parse(path).getroot()
            except ET.ParseError as e:
                raise RenderError(f"series '{path}' is not XDMF: {e}") from None
            for grid in root.iter("Grid"):
                item = grid.find("./Geometry/DataItem")
                if item is not None and item.text:
                    files.append(path.parent / item.text.strip().split(":")[0])
            if not files:
                raise RenderError(f"series '{path}' names no snapshot files")
        else:
            files.append(path)
    if not files:
        raise RenderError("give the snapshots to render: NAME_000.hdf5 ... or NAME.xdmf")
    return files


@dataclass
class Camera:
    """Orthographic along an axis (view 'xy', 'xz' or 'yz'), or perspective from `eye` towards
    `centre` with a vertical field of view `fov` in degrees. `extent`: the half-height of the
    orthographic view in the run's length unit."""
    view: str = "xy"
    centre: tuple = (0.0, 0.0, 0.0)
    extent: float = 1.0
    eye: tuple = None
    fov: float = 40.0
    up: tuple = (0.0, 0.0, 1.0)

    def project(self, positions, width, height):
        """Pixel columns and rows (floats) of the positions, and which are in front of the camera."""
        c = np.asarray(self.centre, dtype=np.float64)
        if self.eye is None:
            axes = {"xy": (0, 1), "xz": (0, 2), "yz": (1, 2)}[self.view]
            u = positions[:, axes[0]] - c[axes[0]]
            v = positions[:, axes[1]] - c[axes[1]]
            scale = height / 2 / self.extent
            return width / 2 + u * scale, height / 2 - v * scale, np.ones(len(positions), dtype=bool)
        eye = np.asarray(self.eye, dtype=np.float64)
        forward = c - eye
        forward /= np.linalg.norm(forward)
        up = np.asarray(self.up, dtype=np.float64)
        if abs(np.dot(up, forward)) > 0.999:  # looking along the up axis: take y as up
            up = np.array([0.0, 1.0, 0.0])
        right = np.cross(forward, up)
        right /= np.linalg.norm(right)
        true_up = np.cross(right, forward)
        d = positions - eye
        depth = d @ forward
        front = depth > 1e-12 * np.linalg.norm(c - eye)
        safe = np.where(front, depth, 1.0)
        focal = height / 2 / math.tan(math.radians(self.fov) / 2)
        return width / 2 + (d @ right) / safe * focal, height / 2 - (d @ true_up) / safe * focal, front


@dataclass
class Scales:
    """What stays fixed over the frames of a series: the speed range of the colours and the
    mass per pixel that is drawn at full brightness."""
    speed_range: tuple
    bright_mass: float


def deposit(snap, camera, width, height):
    """Mass and mass times speed per pixel (height x width), each body on its pixel, then spread
    over its 3 x 3 neighbourhood (weights 1-2-1) so that a lone body shows."""
    col, row, front = camera.project(snap.positions, width, height)
    i, j = np.floor(row).astype(np.int64), np.floor(col).astype(np.int64)
    inside = front & (i >= 0) & (i < height) & (j >= 0) & (j < width)
    index = i[inside] * width + j[inside]
    mass = snap.masses[inside]
    speed = np.linalg.norm(snap.velocities[inside], axis=1)
    m = np.bincount(index, weights=mass, minlength=width * height).reshape(height, width)
    mv = np.bincount(index, weights=mass * speed, minlength=width * height).reshape(height, width)
    return smooth(m), smooth(mv)


def smooth(a):
    """The separable 1-2-1 filter, summing to 1, edges padded with zeros."""
    out = a * 2.0
    out[1:] += a[:-1]
    out[:-1] += a[1:]
    tmp = out * 2.0
    tmp[:, 1:] += out[:, :-1]
    tmp[:, :-1] += out[:, 1:]
    return tmp / 16.0


def default_scales(snap, camera, width, height):
    """Scales from one frame: speeds between its 1st and 99th percentiles, full brightness at the
    99.5th percentile of the mass of its lit pixels."""
    speed = np.linalg.norm(snap.velocities, axis=1)
    lo, hi = np.percentile(speed, [1, 99]) if len(speed) > 1 else (0.0, float(speed[0]) or 1.0)
    if not hi > lo:
        hi = lo + max(abs(lo), 1.0) * 1e-3
    m, _ = deposit(snap, camera, width, height)
    lit = m[m > 0]
    bright = float(np.percentile(lit, 99.5)) if len(lit) else 1.0
    return Scales((float(lo), float(hi)), bright)


def colormap():
    """S0's scale for matplotlib (the colour bar): the same linear blend as speed_colours()."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("S0 speed", S0_COLOURS)


def speed_colours(x):
    """S0's colour (RGB, ... x 3) of x in [0, 1]: blended linearly from S0_COLOURS, numpy alone (so
    that frames are coloured where matplotlib is not installed, as on the GPU machine)."""
    stops = np.linspace(0.0, 1.0, len(S0_COLOURS))
    return np.stack([np.interp(x, stops, [c[k] for c in S0_COLOURS]) for k in range(3)], axis=-1)


def render_image(snap, camera, scales, width=1920, height=1080):
    """The picture as an RGB array (height x width x 3, values 0..1), without colour bar or text."""
    return colour_image(*deposit(snap, camera, width, height), scales)


def colour_image(m, mv, scales):
    """The picture of the deposited mass m and mass times speed mv: S0's colour of the mean speed,
    darkened by the log of the mass (full at scales.bright_mass, black DYNAMIC_RANGE times below)."""
    lo, hi = scales.speed_range
    mean_speed = np.divide(mv, m, out=np.zeros_like(m), where=m > 0)
    colour = speed_colours(np.clip((mean_speed - lo) / (hi - lo), 0, 1))
    floor = scales.bright_mass / DYNAMIC_RANGE
    brightness = np.clip(np.log1p(m / floor) / math.log1p(DYNAMIC_RANGE), 0, 1)
    return colour * brightness[..., None]


def write_frame(path, image, snap, scales, label):
    """The picture with the time, the run's name and S0's colour bar, as a PNG written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colorbar import ColorbarBase
    from matplotlib.colors import Normalize

    height, width = image.shape[:2]
    fig = plt.figure(figsize=(width / 100, height / 100), dpi=100, facecolor="black")
    ax = fig.add_axes([0, 0, 1, 1])
    ax.imshow(image, interpolation="nearest", aspect="auto")
    ax.set_axis_off()
    size = height / 54
    fig.text(0.012, 0.975, f"t = {snap.time:.4g}", color="white", fontsize=size, va="top")
    fig.text(0.012, 0.025, label, color="0.7", fontsize=size * 0.6, va="bottom")
    cax = fig.add_axes([0.955, 0.2, 0.01, 0.6])
    bar = ColorbarBase(cax, cmap=colormap(), norm=Normalize(*scales.speed_range))
    bar.set_label("speed |v|", color="white", fontsize=size * 0.7)
    bar.ax.tick_params(colors="white", labelsize=size * 0.55)
    bar.outline.set_edgecolor("0.6")
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}.png")
    try:
        fig.savefig(tmp, dpi=100, facecolor="black")
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        tmp.unlink(missing_ok=True)


def _h264(source, path, crf):
    """ffmpeg with the input arguments `source` to an H.264 MP4 (yuv420p, as players expect; quality
    `crf`, 18 near lossless to the eye, each +6 about half the size), written atomically."""
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}.mp4")
    command = [ffmpeg_path(), "-nostdin", "-loglevel", "error", "-y", *source, "-c:v", "libx264", "-pix_fmt", "yuv420p",
               "-crf", str(crf), "-movflags", "+faststart", str(tmp)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise RuntimeError(f"ffmpeg failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
    os.replace(tmp, path)


def write_mp4(frames, path, fps, crf=18):
    """The frames (PNG files) as an H.264 MP4 of quality `crf` (_h264)."""
    with tempfile.TemporaryDirectory(prefix="nbody_render_") as folder:
        for k, frame in enumerate(frames):
            os.symlink(frame.resolve(), Path(folder) / f"frame_{k:06d}.png")
        _h264(["-framerate", str(fps), "-i", str(Path(folder) / "frame_%06d.png")], path, crf)


def reencode_mp4(movie, path, crf):
    """A movie encoded again at quality `crf` (_h264): smaller, and as good as its source at best."""
    _h264(["-i", str(movie)], path, crf)


@dataclass
class Progress:
    """A line on stderr at most every `every` seconds: frames done, seconds per frame, time left."""
    total: int
    quiet: bool = False
    every: float = 2.0
    start: float = field(default_factory=time.monotonic)
    last: float = field(default_factory=time.monotonic)

    def done(self, k):
        now = time.monotonic()
        if self.quiet or k == self.total or now - self.last < self.every:
            return
        self.last = now
        per = (now - self.start) / k
        print(f"render: frame {k} of {self.total} ({100 * k // self.total} %), {per:.2g} s per frame, "
              f"about {per * (self.total - k):.0f} s left", file=sys.stderr, flush=True)


def parse_triple(text, flag):
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 3 or not all(math.isfinite(v) for v in values):
        raise RenderError(f"{flag} takes three numbers X,Y,Z, got '{text}'")
    return values


def parse_size(text):
    match = re.fullmatch(r"(\d+)x(\d+)", text)
    if not match or not (16 <= int(match[1]) <= 8192 and 16 <= int(match[2]) <= 8192):
        raise RenderError(f"--size takes WIDTHxHEIGHT, each 16 to 8192 pixels, e.g. 1920x1080; got '{text}'")
    return int(match[1]), int(match[2])
