"""Every byte of files nbody writes, flipped (XOR 0xFF) one at a time, read by nbody in the ordinary
build (replay_READER --flip-every-byte, tests/fuzz/replay.cpp): a 16-body HDF5 initial condition,
a CSV one, and a checkpoint of each model (run with leapfrog and gauss-radau15, dpd, sph; also read by
`nbody ic --ic file:`). A checkpoint's checksum would refuse every flip at once; the replay sets it
to match, so that each flip reaches the checks of the content. Each flip must end in exit 0 or 2
with one line (130: a resumed run stopped at its first step), never a crash, an unexpected error,
a file left behind or a hang (CTest's timeout).

    python3 flip_every_byte.py NBODY REPLAY_FOLDER
"""
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import seeds  # noqa: E402


def main():
    nbody, replays = sys.argv[1], pathlib.Path(sys.argv[2])
    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        for reader, paths in seeds.write_seeds(nbody, folder).items():
            if reader == "run_checkpoint":  # the integrators with the least and the most state (the fuzzers take all)
                paths = [p for p in paths if p.name in ("leapfrog.ck", "gauss-radau15.ck")]
            start = time.monotonic()
            done = subprocess.run([replays / f"replay_{reader}", "--flip-every-byte", *map(str, paths)],
                                  capture_output=True, text=True)
            sizes = " + ".join(str(p.stat().st_size) for p in paths)
            print(f"{reader}: {sizes} bytes, {time.monotonic() - start:.1f} s: exit {done.returncode} "
                  f"{done.stdout.strip().splitlines()[-1:] if done.stdout.strip() else ''}")
            if done.returncode != 0:
                failures += 1
                print(done.stderr[-4000:])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
