"""experiments/galaxy_scenes.py's measures on bodies whose answer is known: a central body and
three stars, one far out and faster than escape (escaped), one far out and slower (beyond 2 R,
bound), one inside; their radii; and the movie's frames split into tar parts and read back whole,
and a stopped run's parts whole or absent.
Run by CTest with the virtual environment's Python.
"""
import sys
import tarfile
import tempfile
from pathlib import Path

from needs_venv import require
from report import report

require("numpy", "PIL")
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments"))
import galaxy_scenes  # noqa: E402
from nbodylab import render  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def measures():
    M, m, r_far = 100.0, 1e-6, 3 * galaxy_scenes.RADIUS  # r_far beyond 2 R
    escape = np.sqrt(2 * M / r_far)  # G = 1; the stars' own mass is negligible
    positions = np.array([[0, 0, 0], [r_far, 0, 0], [0, r_far, 0], [5, 0, 0]], dtype=float)
    velocities = np.array([[0, 0, 0], [0, 1.01 * escape, 0], [0.99 * escape, 0, 0], [0, 50, 0]], dtype=float)
    snap = render.Snapshot(Path("known"), 0.0, positions, velocities, np.array([M, m, m, m]))
    r10, r50, r90, beyond, escaped, kinetic = galaxy_scenes.measures(snap)
    check(abs(beyond - 2 / 3) < 1e-9, f"beyond 2R: {beyond}, expected 2/3 of the stars")
    check(abs(escaped - 1 / 3) < 1e-9, f"escaped: {escaped}, expected the one star faster than escape")
    check(abs(r10 - 5) < 1e-4 and abs(r50 - r_far) < 1e-3 and abs(r90 - r_far) < 1e-3, f"radii {r10, r50, r90}")
    expected = 0.5 * m * ((1.01 * escape) ** 2 + (0.99 * escape) ** 2 + 50 ** 2)
    check(abs(kinetic - expected) < 1e-3 * expected, f"kinetic {kinetic}, expected {expected}")


def movie_parts():
    frames = [(0.1 * k, np.random.default_rng(k).integers(0, 255, (64, 64, 3), dtype=np.uint8)) for k in range(12)]
    size = len(galaxy_scenes.jpeg(frames[0][1]))
    galaxy_scenes.MOVIE_PART_BYTES = 4 * (size + 1024)  # a few frames a part
    with tempfile.TemporaryDirectory() as tmp:
        galaxy_scenes.write_movie_parts(tmp, "trial", frames)
        parts = sorted(Path(tmp).glob("*.tar"))
        names = [n for p in parts for n in tarfile.open(p).getnames()]
        check(len(parts) >= 3, f"{len(parts)} tar parts for 12 frames of about a quarter of a part each")
        check(all(p.stat().st_size <= galaxy_scenes.MOVIE_PART_BYTES + 10240 for p in parts), "a part over its size")
        check(sorted(names) == names and len(names) == 12 and names[5].endswith("_t0.5.jpg"), f"frames {names}")
    # A run stopped while it encodes the seventh frame (the second part open) leaves the first part
    # whole and nothing else: no partial part, no temporary file.
    def stopped(frames):
        for k, frame in enumerate(frames):
            if k == 6:
                raise KeyboardInterrupt
            yield frame

    with tempfile.TemporaryDirectory() as tmp:
        try:
            galaxy_scenes.write_movie_parts(tmp, "trial", stopped(frames))
            check(False, "the stopped run went on")
        except KeyboardInterrupt:
            pass
        left = sorted(p.name for p in Path(tmp).iterdir())
        check(left == ["E20_galaxy_scenes_trial_movie_1.tar"], f"a stopped run left {left}")
        check(len(tarfile.open(Path(tmp) / left[0]).getnames()) == 4 if left else False, "the first part not whole")


def main():
    measures()
    movie_parts()
    return report(failures, "escape and radii of known stars, the movie's tar parts")


if __name__ == "__main__":
    sys.exit(main())
