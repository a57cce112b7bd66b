"""Files nbody writes, one set per reader of tests/fuzz (the fuzzers' seeds and the inputs whose
every byte flip_every_byte.py flips): initial conditions as CSV and HDF5, and checkpoints of run
(several integrators), dpd and sph, each small enough that flipping each of its bytes stays quick.

    python3 tests/fuzz/seeds.py NBODY FOLDER     writes FOLDER/READER/FILE
"""
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

# reader: [(file name, nbody arguments writing it as {out})]
RUN = ["run", "--ic", "plummer", "--n", "16", "--seed", "3", "--t-end", "0.02", "--quiet"]
SEEDS = {
    "state_csv": [("plummer16.csv", ["ic", "--ic", "plummer", "--n", "16", "--out", "{out}"]),
                  ("kepler.csv", ["ic", "--ic", "kepler", "--e", "0.5", "--out", "{out}"])],
    "hdf5": [("plummer16.hdf5", ["ic", "--ic", "plummer", "--n", "16", "--out", "{out}"])],
    "run_checkpoint": [
        ("leapfrog.ck", [*RUN, "--integrator", "leapfrog", "--dt", "0.005", "--checkpoint", "{out}"]),
        ("gauss-radau15.ck", [*RUN, "--integrator", "gauss-radau15", "--tol", "1e-9", "--checkpoint", "{out}"]),
        ("adams-moulton.ck", [*RUN, "--integrator", "adams-moulton", "--dt", "0.005", "--checkpoint", "{out}"]),
        ("bulirsch-stoer.ck", [*RUN, "--integrator", "bulirsch-stoer", "--tol", "1e-9", "--checkpoint", "{out}"]),
        ("dopri5.ck", [*RUN, "--integrator", "dopri5", "--tol", "1e-9", "--checkpoint", "{out}"]),
        ("gauss-legendre6.ck", [*RUN, "--integrator", "gauss-legendre6", "--dt", "0.005", "--checkpoint", "{out}"]),
        ("dd-leapfrog.ck", [*RUN, "--precision", "dd", "--integrator", "leapfrog", "--dt", "0.005",
                            "--checkpoint", "{out}"]),
    ],
    "dpd_checkpoint": [("box3.ck", ["dpd", "--box", "3", "--steps", "3", "--quiet", "--checkpoint", "{out}"])],
    "sph_checkpoint": [("hydrostatic.ck", ["sph", "--case", "hydrostatic", "--dx", "0.05", "--t-end", "0.005", "--quiet",
                                           "--checkpoint", "{out}"])],
}
SEEDS["gravity_checkpoint_ic"] = SEEDS["run_checkpoint"][:1]
# The tuning cache is written by `nbody tune` on a GPU: this is its form.
TUNING_CACHE = {"device | cuda-tiled | float": [{"n": 4096, "launch": "block=256,split=2", "seconds": 0.001},
                                                {"n": 65536, "launch": "block=128,unroll=4", "seconds": 0.01}]}


def write_seeds(nbody, folder):
    """Writes the seeds under folder/READER/; returns {reader: [paths]}."""
    folder, nbody = pathlib.Path(folder), str(pathlib.Path(nbody).resolve())
    written = {}
    with tempfile.TemporaryDirectory() as scratch:
        for reader, files in SEEDS.items():
            (folder / reader).mkdir(parents=True, exist_ok=True)
            for name, args in files:  # written in the scratch folder (with its record), the file alone kept
                out = pathlib.Path(scratch) / name
                cmd = [nbody] + [a.replace("{out}", str(out)) for a in args]
                done = subprocess.run(cmd, cwd=scratch, capture_output=True, text=True)
                if done.returncode != 0 or not out.is_file():
                    raise SystemExit(f"seeds: {' '.join(cmd)} failed (exit {done.returncode}): {done.stderr.strip()}")
                kept = folder / reader / name
                shutil.copyfile(out, kept)
                written.setdefault(reader, []).append(kept)
    cache = folder / "tuning_cache" / "tune.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(TUNING_CACHE, indent=2) + "\n")
    written["tuning_cache"] = [cache]
    return written


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    for reader, paths in write_seeds(sys.argv[1], sys.argv[2]).items():
        print(f"{reader}: {', '.join(p.name + ' (' + str(p.stat().st_size) + ' bytes)' for p in paths)}")
