"""The memory estimate nbody checks before it allocates (solver/core/memory.hpp) against the peak it
measures (the summary's "memory": the resident peak VmHWM, and on a GPU the most device memory
nbody's own allocations held): within 1.5x either way for CPU engines at three sizes each (and the
integrators with the most state), and, where a CUDA device is present, for GPU engines at three
sizes, host and device. One leapfrog step (two force evaluations) a run; sizes where the program's
own 18-24 MB does not dominate.

    python3 test_memory_estimate.py NBODY [--gpu-only] [--csv FILE]    (exit 77: --gpu-only, no GPU)
"""
import argparse
import csv
import json
import pathlib
import subprocess
import sys
import tempfile

# (engine, integrator, sizes, accuracy flags): the trees at their coarsest opening test, whose
# arrays are those of any other (a run takes a third of the time).
COARSE_OCTREE, COARSE_KDTREE = ["--theta", "1"], ["--lambda-crit", "1"]
CPU = [("openmp-simd", "leapfrog", [10_000, 20_000, 40_000], []),
       ("octree", "leapfrog", [200_000, 600_000, 1_800_000], COARSE_OCTREE),
       ("kdtree-nested-heap", "leapfrog", [20_000, 40_000, 80_000], COARSE_KDTREE),
       ("octree", "gauss-radau15", [30_000, 90_000, 270_000], COARSE_OCTREE),
       ("octree", "rk4", [50_000, 150_000, 450_000], COARSE_OCTREE)]
GPU = [("cuda-tiled", "leapfrog", [250_000, 1_000_000, 4_000_000], []),
       ("cuda-octree-groups", "leapfrog", [1_000_000, 4_000_000, 16_000_000], []),
       ("cuda-kdtree-nested", "leapfrog", [1_000_000, 4_000_000, 16_000_000], [])]
LIMIT = 1.5


def measure(nbody, engine, integrator, n, flags, folder):
    summary = pathlib.Path(folder) / f"{engine}-{integrator}-{n}.json"
    cmd = [nbody, "run", "--ic", "plummer", "--n", str(n), "--engine", engine, "--integrator", integrator, *flags,
           "--dt", "1e-6", "--t-end", "1e-6", "--energy", "off", "--quiet", "--summary", str(summary)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()}")
    return json.loads(summary.read_text())["memory"]


def has_cuda(nbody):
    info = json.loads(subprocess.run([nbody, "--build-info"], capture_output=True, text=True, check=True).stdout)
    return "cuda" in info["host"]["features"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nbody")
    ap.add_argument("--gpu-only", action="store_true")
    ap.add_argument("--csv")
    a = ap.parse_args()
    gpu = has_cuda(a.nbody)
    if a.gpu_only and not gpu:
        print("no CUDA device: skipped")
        return 77
    cases = ([] if a.gpu_only else CPU) + (GPU if gpu else [])
    rows, failures = [], []
    with tempfile.TemporaryDirectory() as folder:
        for engine, integrator, sizes, flags in cases:
            for n in sizes:
                m = measure(a.nbody, engine, integrator, n, flags, folder)
                row = {"engine": engine, "integrator": integrator, "n": n, **m,
                       "host_ratio": m["estimated_host_bytes"] / m["peak_host_bytes"],
                       "device_ratio": (m["estimated_device_bytes"] / m["peak_device_bytes"]
                                        if m["peak_device_bytes"] else None)}
                rows.append(row)
                ratios = [r for r in (row["host_ratio"], row["device_ratio"]) if r is not None]
                bad = [r for r in ratios if not 1 / LIMIT <= r <= LIMIT]
                print(f"{engine:20} {integrator:14} n={n:>9}: host {m['estimated_host_bytes'] / 1e6:9.1f} MB "
                      f"estimated, {m['peak_host_bytes'] / 1e6:9.1f} MB peak ({row['host_ratio']:.2f}x)" +
                      (f"; device {m['estimated_device_bytes'] / 1e6:9.1f} MB estimated, "
                       f"{m['peak_device_bytes'] / 1e6:9.1f} MB peak ({row['device_ratio']:.2f}x)"
                       if row["device_ratio"] is not None else "") + (" OUTSIDE 1.5x" if bad else ""))
                if bad:
                    failures.append(f"{engine} {integrator} n={n}")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    if failures:
        print(f"{len(failures)} of {len(rows)} estimates outside {LIMIT}x of the peak: {', '.join(failures)}")
        return 1
    print(f"all {len(rows)} estimates within {LIMIT}x of the measured peak")
    return 0


if __name__ == "__main__":
    sys.exit(main())
