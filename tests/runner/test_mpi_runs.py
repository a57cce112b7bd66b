"""`nbody run` under mpiexec (solver/mpi/ranks.hpp, solver/engines/mpi.hpp), against a built
`nbody`:

- runs on 2 ranks with mpi:<engine> and mpi-ring:<engine> write the same files, byte for byte,
  as the 1-process run with <engine>: a fixed-step integrator (leapfrog, with CSV snapshots and
  a checkpoint) and an adaptive one whose controller rejects steps (dopri5);
- the distributed tree, mpi-octree, on 2 and 3 ranks, whose ranks hold a block of the bodies
  each: the accelerations of `nbody bench` (monopoles and quadrupoles, leaves of 1 and 8 bodies,
  double and float) and leapfrog runs (one of a cluster far from the origin; RK4 in float) byte for
  byte those of the 1-process octree: diagnostics (sums carried over the ranks), CSV and HDF5
  snapshots and final state (gathered by rank 0), and the summary's body count and the tree
  potential's error; the bench's force error, its direct sums carried over the ranks in turn, the
  one process's; a two-body run whose samples are kept within a budget (the ranks agree on each); what
  a rank's block cannot do (adaptive steps, --energy exact) refused;
- the bytes a rank sends in an evaluation (`nbody bench`'s exchange_bytes): all pairs move each
  rank's block of 3 N numbers to the P - 1 others (and one number for the balance), exactly; the
  tree sends some, none on one rank, and its run's summary counts them;
- a 2-rank run stopped part way resumes on 1 process to the uninterrupted run's bits, with no note that it would not;
  the distributed tree's (leapfrog; Adams-Bashforth with compensated updates) on 3 ranks and on 1 process;
  one stopped by SIGTERM to mpiexec (a batch system's time limit) writes its checkpoint and nothing
  else, and resumes on 3 ranks to the one-process octree run's bits;
- a rank that fails (bad input on one rank only; a GPU missing there) ends every rank, with one
  line on stderr, exit 2, and no file written, within the timeout (never a hang); so do a local
  engine under several ranks and a subcommand that is not distributed.

Open MPI refuses to run as root unless told: the variables are set here, for these runs only.

    test_mpi_runs.py NBODY MPIEXEC [--timeout 120]
"""
import argparse
import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from needs_venv import VENV  # noqa: E402
from report import report  # noqa: E402

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")

FIXED = ["--ic", "plummer", "--n", "300", "--seed", "3", "--integrator", "leapfrog", "--dt", "0.01", "--t-end", "0.5",
         "--eps", "0.01", "--diag-every", "0.1"]
BAD_DT = [("-1" if FIXED[k - 1] == "--dt" else a) for k, a in enumerate(FIXED)]
# A cold Plummer sphere with close pairs, a loose tolerance and a large first step: the PI
# controller rejects steps.
ADAPTIVE = ["--ic", "plummer", "--n", "97", "--seed", "11", "--integrator", "dopri5", "--tol", "1e-9", "--dt", "0.5",
            "--t-end", "0.4", "--diag-every", "0.1"]
# Bodies 0 and 1 of 200 closer than double's pair terms can take (their acceleration overflows):
# the state becomes non-finite in the first step, on the rank that holds them.
CLOSE_PAIR = "id,mass,x,y,z,vx,vy,vz\n" + "".join(
    f"{i},0.005,{(i % 7) / 7 + 0.1},{(i % 11) / 11},{(i % 13) / 13},0,0,0\n" if i > 1 else f"{i},0.005,0,{i * 1e-160},0,0,0,0\n"
    for i in range(200))


def h5py_here():
    """Whether h5py imports; without it, the test runs again under the virtual environment's Python
    where there is one (the HDF5 comparisons need it; the rest do not)."""
    try:
        import h5py  # noqa: F401
        return True
    except ImportError:
        python = VENV / "bin" / "python"
        if Path(sys.prefix).resolve() != VENV.resolve() and python.exists():
            os.execv(python, [str(python), *sys.argv])
        print("note: no h5py (make .venv/.stamp): the HDF5 outputs under mpiexec are not compared")
        return False


def hdf5_datasets_differ(a, b):
    """'' when the HDF5 files hold the same datasets with the same values, else what differs."""
    import h5py
    import numpy as np
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        names = []
        fa.visit(lambda n: names.append(n) if isinstance(fa[n], h5py.Dataset) else None)
        for name in names:
            if name not in fb:
                return f"{name} missing"
            if not np.array_equal(fa[name][()], fb[name][()]):
                return f"{name} differs"
        return "" if names else "no datasets"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nbody")
    ap.add_argument("mpiexec")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    args.nbody = str(Path(args.nbody).resolve())  # the runs happen in their own folders
    with_hdf5 = h5py_here()
    failures = []
    checks = 0

    def run(cmd, cwd):
        try:
            return subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            failures.append(f"hung for {args.timeout} s: {' '.join(cmd)}")
            return None

    def mpiexec(ranks, argv):
        return [args.mpiexec, "--oversubscribe", "-n", str(ranks), *argv]

    def outputs(folder, stem):
        return [f"--diagnostics={folder}/{stem}_diag.csv", f"--final-state={folder}/{stem}_final.csv",
                f"--summary={folder}/{stem}_summary.json"]

    def same_files(folder, a, b, what, suffixes=("_diag.csv", "_final.csv")):
        nonlocal checks
        for suffix in suffixes:
            checks += 1
            fa, fb = Path(folder, a + suffix), Path(folder, b + suffix)
            if not (fa.exists() and fb.exists()):
                failures.append(f"{what}: {fa.name} or {fb.name} missing")
            elif fa.read_bytes() != fb.read_bytes():
                failures.append(f"{what}: {fb.name} differs from {fa.name}")

    def succeeded(r, what):
        nonlocal checks
        checks += 1
        if r is not None and r.returncode != 0:
            failures.append(f"{what}: exit {r.returncode}: {r.stderr.strip()[-400:]}")
        return r is not None and r.returncode == 0

    with tempfile.TemporaryDirectory() as d:
        # 1. Bit for bit: the fixed-step and the adaptive integrator, 1 process against 2 ranks.
        for name, flags in [("fixed", FIXED), ("adaptive", ADAPTIVE)]:
            snaps = name == "fixed"
            def extra(stem):
                return ([f"--snapshots={d}/{stem}_snaps.csv", "--snapshot-every", "0.25", f"--checkpoint={d}/{stem}.ckpt"]
                        if snaps else [])
            one = run([args.nbody, "run", *flags, "--engine", "openmp-simd", *outputs(d, f"{name}_one"), *extra(f"{name}_one")], d)
            if not succeeded(one, f"{name}, 1 process"):
                continue
            for prefix in ["mpi", "mpi-ring"]:
                stem = f"{name}_{prefix}"
                r = run(mpiexec(2, [args.nbody, "run", *flags, "--engine", f"{prefix}:openmp-simd", *outputs(d, stem),
                                    *extra(stem)]), d)
                if not succeeded(r, f"{name}, 2 ranks, {prefix}:"):
                    continue
                same_files(d, f"{name}_one", stem, f"{name} on 2 ranks ({prefix}:openmp-simd)",
                           ("_diag.csv", "_final.csv", "_snaps.csv") if snaps else ("_diag.csv", "_final.csv"))
                summary = json.loads(Path(d, f"{stem}_summary.json").read_text())
                checks += 1
                if summary.get("mpi", {}).get("ranks") != 2:
                    failures.append(f"{stem}: the summary's mpi.ranks is {summary.get('mpi')}, not 2")
                if name == "adaptive":
                    checks += 1
                    if summary["rejected"] < 1:
                        failures.append(f"{stem}: no step was rejected; the adaptive case must exercise rejections")
            # Only rank 0 wrote: no temporary or stray files of the other rank.
            checks += 1
            stray = [p.name for p in Path(d).iterdir() if ".tmp." in p.name]
            if stray:
                failures.append(f"{name}: temporary files left: {stray}")

        # 1b. The distributed tree: octree's accelerations and run on 2 and 3 ranks.
        for k, tree in enumerate([["--precision", "double"],
                                  ["--precision", "float", "--moments", "quadrupole", "--leaf-size", "8", "--theta", "0.7"]]):
            bench = ["bench", "--n", "3001", "--seed", "5", "--repeats", "1", "--force-error", "--error-bodies", "300", *tree]
            one = run([args.nbody, *bench, "--engine", "octree", f"--accelerations={d}/tree{k}_one_acc.csv"], d)
            if not succeeded(one, f"octree bench {tree}"):
                continue
            for ranks in (2, 3):
                stem = f"tree{k}_{ranks}"
                r = run(mpiexec(ranks, [args.nbody, *bench, "--engine", "mpi-octree", f"--accelerations={d}/{stem}_acc.csv"]), d)
                if succeeded(r, f"mpi-octree bench on {ranks} ranks"):
                    same_files(d, f"tree{k}_one", stem, f"mpi-octree {tree} on {ranks} ranks", ("_acc.csv",))
                    # The force error from the ranks' blocks: the direct sums carried over them in turn.
                    checks += 1
                    errors = [[row[c] for c in ("error_median", "error_p99", "error_max")]
                              for row in (next(csv.DictReader(io.StringIO(x.stdout))) for x in (one, r))]
                    if errors[0] != errors[1]:
                        failures.append(f"mpi-octree {tree} on {ranks} ranks: force error {errors[1]}, one process {errors[0]}")
        # A cluster far from the origin (coordinates about 1e3 its size): the cells' bounds there
        # are rounded far more coarsely than the cells are small.
        far = Path(d, "far.csv")
        if succeeded(run([args.nbody, "ic", "--ic", "plummer", "--n", "2000", "--seed", "9", "--precision", "float",
                          f"--out={d}/near.csv"], d), "nbody ic for the far cluster"):
            lines = Path(d, "near.csv").read_text().splitlines()
            cols = lines[0].split(",")
            rows = [dict(zip(cols, line.split(","))) for line in lines[1:]]
            for r in rows:
                r["x"], r["y"] = repr(float(r["x"]) + 1000.0), repr(float(r["y"]) - 3000.0)
            far.write_text("\n".join([lines[0], *(",".join(r[c] for c in cols) for r in rows)]) + "\n")
            far_run = ["run", "--ic", f"file:{far}", "--precision", "float", "--integrator", "leapfrog", "--dt", "0.01",
                       "--t-end", "0.05", "--eps", "0.01", "--diag-every", "0.01"]
            if succeeded(run([args.nbody, *far_run, "--engine", "octree", *outputs(d, "far_one")], d), "octree run, far"):
                for ranks in (2, 3):
                    stem = f"far_{ranks}"
                    if succeeded(run(mpiexec(ranks, [args.nbody, *far_run, "--engine", "mpi-octree", *outputs(d, stem)]), d),
                                 f"mpi-octree run, far, on {ranks} ranks"):
                        same_files(d, "far_one", stem, f"mpi-octree far from the origin on {ranks} ranks")
        tree_runs = [("tree_run", [*FIXED]),
                     ("tree_rk4", [*FIXED[:FIXED.index("--integrator")], "--integrator", "rk4", "--dt", "0.02", "--t-end", "0.3",
                                   "--eps", "0.01", "--diag-every", "0.1", "--precision", "float"])]
        for name, flags in tree_runs:
            files = lambda stem: [*outputs(d, stem), f"--snapshots={d}/{stem}_snaps.csv", "--snapshot-every", "0.1"]
            if not succeeded(run([args.nbody, "run", *flags, "--engine", "octree", *files(f"{name}_one")], d), f"octree {name}"):
                continue
            for ranks in (2, 3):
                stem = f"{name}_{ranks}"
                if succeeded(run(mpiexec(ranks, [args.nbody, "run", *flags, "--engine", "mpi-octree", *files(stem)]), d),
                             f"mpi-octree {name} on {ranks} ranks"):
                    same_files(d, f"{name}_one", stem, f"mpi-octree {name} on {ranks} ranks", ("_diag.csv", "_final.csv", "_snaps.csv"))
                    one, many = (json.loads(Path(d, f"{x}_summary.json").read_text()) for x in (f"{name}_one", stem))
                    checks += 1
                    if (one["n"], one["potential_error"]) != (many["n"], many["potential_error"]):
                        failures.append(f"mpi-octree {name} on {ranks} ranks: n and potential_error "
                                        f"{many['n']}, {many['potential_error']}; one process {one['n']}, {one['potential_error']}")
        # A two-body run in periods, its samples kept within a budget of its time: the ranks (one of
        # them with no body) agree on each sample and on the period.
        kepler = ["run", "--ic", "kepler", "--e", "0.5", "--integrator", "leapfrog", "--dt", "P/1000", "--t-end", "2P",
                  "--diag-budget", "0.02"]
        if succeeded(run([args.nbody, *kepler, "--engine", "octree", f"--final-state={d}/kepler_one_final.csv"], d),
                     "octree kepler"):
            if succeeded(run(mpiexec(2, [args.nbody, *kepler, "--engine", "mpi-octree", f"--final-state={d}/kepler_2_final.csv"]), d),
                         "mpi-octree kepler on 2 ranks, samples within a budget"):
                same_files(d, "kepler_one", "kepler_2", "mpi-octree kepler on 2 ranks", ("_final.csv",))
        # HDF5 snapshots and final state, gathered by rank 0: the same bytes but for the command line
        # in their provenance, so their datasets are compared.
        h5 = lambda stem: [f"--snapshots={d}/{stem}.hdf5", "--snapshot-every", "0.25", f"--final-state={d}/{stem}_end.h5"]
        if with_hdf5 and succeeded(run([args.nbody, "run", *FIXED, "--engine", "octree", *h5("h5_one")], d), "octree run, HDF5"):
            if succeeded(run(mpiexec(3, [args.nbody, "run", *FIXED, "--engine", "mpi-octree", *h5("h5_3")]), d),
                         "mpi-octree run on 3 ranks, HDF5"):
                for a, b in [(f"h5_one_{k:03d}.hdf5", f"h5_3_{k:03d}.hdf5") for k in range(3)] + [("h5_one_end.h5", "h5_3_end.h5")]:
                    checks += 1
                    diff = hdf5_datasets_differ(Path(d, a), Path(d, b))
                    if diff:
                        failures.append(f"mpi-octree HDF5 on 3 ranks: {b} against {a}: {diff}")

        # 1c. The exchange volume: all pairs exactly 3 N numbers of (P - 1) / P per rank, plus the
        # compute time each rank shares for the balance; the tree's some, and none on one rank.
        def bench_row(r):
            return list(csv.DictReader(io.StringIO(r.stdout)))[-1]
        n, real = 3001, 8
        for engine in ["mpi:openmp-simd", "mpi-ring:openmp-simd", "mpi-octree"]:
            for ranks in (1, 2, 3):
                r = run(mpiexec(ranks, [args.nbody, "bench", "--n", str(n), "--seed", "5", "--repeats", "2",
                                        "--precision", "double", "--engine", engine]), d)
                if not succeeded(r, f"{engine} bench on {ranks} ranks"):
                    continue
                row = bench_row(r)
                mean, most = float(row["exchange_bytes"]), float(row["exchange_bytes_max"])
                checks += 1
                if engine != "mpi-octree":
                    expected = (3 * n * real * (ranks - 1) + 8 * ranks * (ranks - 1)) / ranks
                    if abs(mean - expected) > 0.5:
                        failures.append(f"{engine} on {ranks} ranks: exchange_bytes {mean}, not {expected}")
                elif (ranks == 1) != (mean == 0) or most < mean:
                    failures.append(f"{engine} on {ranks} ranks: exchange_bytes {mean}, most {most}")
        summary = json.loads(Path(d, "tree_run_2_summary.json").read_text()) if Path(d, "tree_run_2_summary.json").exists() else {}
        checks += 1
        if not summary.get("mpi", {}).get("exchange_bytes", 0) > 0:
            failures.append(f"mpi-octree run on 2 ranks: the summary's mpi section counts no bytes: {summary.get('mpi')}")

        # 2. Stopped on 2 ranks, resumed on 1 process: the uninterrupted run's bits.
        r = run(mpiexec(2, [args.nbody, "run", *FIXED, "--engine", "mpi:openmp-simd", f"--checkpoint={d}/part.ckpt",
                            "--stop-at", "0.2"]), d)
        if succeeded(r, "stopped on 2 ranks"):
            r = run([args.nbody, "run", "--resume", f"{d}/part.ckpt", "--engine", "openmp-simd", f"--final-state={d}/resumed_final.csv"], d)
            if succeeded(r, "resumed on 1 process"):
                same_files(d, "fixed_one", "resumed", "stopped on 2 ranks, resumed on 1", ("_final.csv",))
                checks += 1  # and says nothing else: the ranks do not change the bits
                if "not bit for bit" in r.stderr:
                    failures.append(f"resumed on 1 process: a false note: {r.stderr.strip()}")

        # 2b. The distributed tree's checkpoint holds every body (gathered by rank 0): stopped on 2
        # ranks, it resumes on 3 ranks and on 1 process (octree) to the uninterrupted octree run's
        # bits, with no note; so does Adams-Bashforth with compensated updates (its history and
        # carries are per body too).
        adams = [*FIXED[:FIXED.index("--integrator")], "--integrator", "adams-bashforth", "--dt", "0.01", "--t-end", "0.3",
                 "--eps", "0.01", "--compensated", "state"]
        if succeeded(run([args.nbody, "run", *adams, "--engine", "octree", f"--final-state={d}/adams_one_final.csv"], d),
                     "octree adams-bashforth"):
            for name, flags in [("tree_run", FIXED), ("adams", adams)]:
                r = run(mpiexec(2, [args.nbody, "run", *flags, "--engine", "mpi-octree", f"--checkpoint={d}/{name}.ckpt",
                                    "--stop-at", "0.2"]), d)
                if not succeeded(r, f"mpi-octree {name} stopped on 2 ranks"):
                    continue
                for ranks, engine in [(3, []), (1, ["--engine", "octree"])]:
                    stem = f"{name}_resumed_{ranks}"
                    argv = [args.nbody, "run", "--resume", f"{d}/{name}.ckpt", *engine, f"--checkpoint={d}/{stem}.ckpt",
                            f"--final-state={d}/{stem}_final.csv"]
                    r = run(mpiexec(ranks, argv) if ranks > 1 else argv, d)
                    if succeeded(r, f"mpi-octree {name} stopped on 2 ranks, resumed on {ranks}"):
                        same_files(d, f"{name}_one", stem, f"mpi-octree {name} stopped on 2 ranks, resumed on {ranks}",
                                   ("_final.csv",))
                        checks += 1
                        if "not bit for bit" in r.stderr:
                            failures.append(f"mpi-octree {name} resumed on {ranks}: a false note: {r.stderr.strip()}")

        # 2c. A batch system's time limit: SIGTERM to mpiexec (once the run has written a periodic
        # checkpoint) stops every rank after the same step; the checkpoint written there, and no
        # other output, resumes on 3 ranks to the one-process octree run's bits 20 steps later.
        long_run = ["run", "--ic", "plummer", "--n", "1000", "--seed", "3", "--integrator", "leapfrog", "--dt", "0.001",
                    "--t-end", "100", "--eps", "0.01"]
        ckpt = Path(d, "term.ckpt")
        try:
            proc = subprocess.Popen(mpiexec(2, [args.nbody, *long_run, "--engine", "mpi-octree", f"--checkpoint={ckpt}",
                                                "--checkpoint-every", "0.01", f"--final-state={d}/term_final.csv"]),
                                    cwd=d, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + args.timeout
            while not ckpt.exists() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            err = proc.communicate(timeout=args.timeout)[1]
        except subprocess.TimeoutExpired:
            proc.kill()
            failures.append("mpi-octree stopped by SIGTERM: hung")
            err = ""
        stopped = re.search(r"interrupted at t = \S+ \(step (\d+)\); checkpoint \S+ resumes it", err)
        checks += 1
        if not stopped:
            failures.append(f"mpi-octree stopped by SIGTERM: no line saying where it stopped: {err.strip()[-400:]}")
        elif Path(d, "term_final.csv").exists():
            failures.append("mpi-octree stopped by SIGTERM: it wrote its final state")
        else:
            stop_at = f"{(int(stopped.group(1)) + 20) / 1000:g}"
            r = run(mpiexec(3, [args.nbody, "run", "--resume", str(ckpt), "--stop-at", stop_at,
                                f"--final-state={d}/term_resumed_final.csv"]), d)
            one = run([args.nbody, *long_run, "--engine", "octree", "--stop-at", stop_at, f"--checkpoint={d}/term_one.ckpt",
                       f"--final-state={d}/term_one_final.csv"], d)
            if succeeded(r, "mpi-octree stopped by SIGTERM, resumed on 3 ranks") and succeeded(one, "octree to the same time"):
                same_files(d, "term_one", "term_resumed", "mpi-octree stopped by SIGTERM on 2 ranks, resumed on 3", ("_final.csv",))

        # 3. Failures end every rank with one line and no file. Each case: its MPMD parts (ranks,
        # arguments after `nbody`), the exit code and a phrase of the line.
        cases = [
            ("bad input on rank 1 only", [(1, ["run", *FIXED, "--engine", "mpi:openmp-simd"]),
                                          (1, ["run", *BAD_DT, "--engine", "mpi:openmp-simd"])], 2, "--dt"),
            ("no GPU on rank 1", [(1, ["run", *FIXED, "--engine", "mpi:cuda-tiled"]),
                                  (1, ["run", *FIXED, "--engine", "mpi:cuda-tiled"], "CUDA_VISIBLE_DEVICES=")], 2, "CUDA"),
            ("bad input on rank 1 only, the distributed tree", [(1, ["run", *FIXED, "--engine", "mpi-octree"]),
                                                                (1, ["run", *BAD_DT, "--engine", "mpi-octree"])], 2, "--dt"),
            ("adaptive steps on the distributed tree's blocks", [(2, ["run", *ADAPTIVE, "--engine", "mpi-octree"])], 2, "adaptive"),
            ("the exact energy on the distributed tree's blocks",
             [(3, ["run", *FIXED, "--engine", "mpi-octree", "--energy", "exact"])], 2, "--energy exact"),
            ("a state that becomes non-finite on the distributed tree",
             [(3, ["run", "--ic", "file:close_pair.csv", "--integrator", "leapfrog", "--dt", "0.01", "--t-end", "0.05",
                   "--engine", "mpi-octree"])], 3, "not finite"),
            ("a local engine on 2 ranks", [(2, ["run", *FIXED, "--engine", "openmp-simd"])], 2, "--engine mpi:openmp-simd"),
            ("sph on 2 ranks", [(2, ["sph", "--case", "hydrostatic", "--t-end", "0.01"])], 2, "one process"),
        ]
        for k, (what, parts, code, phrase) in enumerate(cases):
            folder = Path(d, f"fail{k}")
            folder.mkdir()
            (folder / "close_pair.csv").write_text(CLOSE_PAIR)
            cmd = [args.mpiexec, "--oversubscribe"]
            for m, (ranks, argv, *env) in enumerate(parts):
                outs = [f"--final-state={folder}/final.csv", f"--diagnostics={folder}/diag.csv"] if argv[0] == "run" else []
                cmd += ([":"] if m else []) + ["-n", str(ranks)] + (["env", *env] if env else []) + [args.nbody, *argv, *outs]
            r = run(cmd, folder)
            if r is None:
                continue
            checks += 1
            lines = [line for line in r.stderr.splitlines() if line.startswith("nbody:")]
            left = sorted(p.name for p in folder.iterdir() if p.name != "close_pair.csv")
            if r.returncode != code:
                failures.append(f"{what}: exit {r.returncode}, expected {code}: {r.stderr.strip()[-400:]}")
            elif len(lines) != 1 or phrase not in lines[0]:
                failures.append(f"{what}: expected one 'nbody:' line naming {phrase!r}, got {lines}")
            elif left:
                failures.append(f"{what}: files left behind: {left}")
    return report(failures, f"{checks} checks of nbody under mpiexec")


if __name__ == "__main__":
    sys.exit(main())
