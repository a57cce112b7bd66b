#!/usr/bin/env python3
"""Runs that used to freeze t: does every adaptive method finish or stop in one line?

A close encounter or a collision makes an adaptive step shrink without bound. The step control
must then stop the run (exit 3, one line "step size underflow at t = ...") instead of going on
for ever with t frozen. This runs the cases that froze before the step control had its floor:

  - a head-on collision of two bodies at rest (t = pi), every adaptive method, tol 1e-6/1e-9/1e-12;
  - unsoftened Plummer spheres, N = 64 and 128, seeds 1-5, tol 1e-8 .. 1e-11, t-end 10, with
    gauss-radau15, dopri5, dop853 and bulirsch-stoer;

each under a 60 s limit on one thread (OMP_NUM_THREADS=1: the limit does not depend on the
other load of the machine's cores, which OpenMP's barriers are sensitive to), and writes one CSV row per run (outcome: completed, failed (exit 3 with
one stderr line), or anything else, which is a fault) plus a .meta.json with the binary's
provenance. Usage: step_collapse.py NBODY OUT_DIR
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ADAPTIVE = ["cash-karp", "dopri5", "verner65", "fehlberg78", "dop853", "feagin10", "bulirsch-stoer", "gauss-radau15"]
LIMIT_S = 60


def cases():
    for method in ADAPTIVE:
        for tol in ["1e-6", "1e-9", "1e-12"]:
            yield {"case": "head-on", "integrator": method, "n": 2, "seed": "", "tol": tol, "t_end": "5"}
    for n in [64, 128]:
        for seed in range(1, 6):
            for tol in ["1e-8", "1e-9", "1e-10", "1e-11"]:
                for method in ["gauss-radau15", "dopri5", "dop853", "bulirsch-stoer"]:
                    yield {"case": "plummer", "integrator": method, "n": n, "seed": seed, "tol": tol, "t_end": "10"}


def run(nbody, c, folder):
    if c["case"] == "head-on":
        ic = folder / "headon.csv"
        ic.write_text("id,mass,x,y,z,vx,vy,vz\n0,0.5,-1,0,0,0,0,0\n1,0.5,1,0,0,0,0,0\n")
        flags = ["--ic", f"file:{ic}"]
    else:
        flags = ["--ic", "plummer", "--n", str(c["n"]), "--seed", str(c["seed"])]
    summary = folder / "summary.json"
    cmd = [nbody, "run", *flags, "--integrator", c["integrator"], "--tol", c["tol"], "--t-end", c["t_end"],
           "--summary", str(summary)]
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT_S, env=dict(os.environ, OMP_NUM_THREADS="1"))
        code, stderr = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        code, stderr = "timeout", ""
    wall = time.monotonic() - start
    # Notes and the progress lines of a long run ("nbody: t = ... of ...") are not the outcome.
    lines = [l for l in stderr.splitlines() if not l.startswith(("nbody: note:", "nbody: t = "))]
    row = dict(c, exit=code, wall_s=f"{wall:.2f}", t="", fevals="", stderr=" | ".join(lines))
    if code == 0 and summary.exists():
        s = json.loads(summary.read_text())
        row.update(outcome="completed", t=s["t"], fevals=s["fevals"])
    elif code == 3 and len(lines) == 1:
        m = re.search(r"at t = ([-0-9.e+]+)", lines[0])
        row.update(outcome="failed", t=m.group(1) if m else "")
    else:
        row.update(outcome="FAULT")
    return row


def main():
    nbody, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    build = json.loads(subprocess.run([nbody, "--build-info"], capture_output=True, text=True, check=True).stdout)
    rows = []
    for c in cases():
        with tempfile.TemporaryDirectory() as d:
            rows.append(run(nbody, c, Path(d)))
        r = rows[-1]
        print(f"{r['case']} {r['integrator']} n={r['n']} seed={r['seed']} tol={r['tol']}: {r['outcome']} "
              f"t={r['t']} {r['wall_s']} s", file=sys.stderr, flush=True)
    commit = build["build"].get("git_commit", "unknown")[:7]
    path = out / f"step_collapse_{commit}.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    meta = {"producer": "tools/robustness/step_collapse.py", "limit_s": LIMIT_S, "omp_num_threads": 1, "nbody": build,
            "cpus": os.cpu_count(), "load_note": "other processes may have shared the cores"}
    path.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    faults = [r for r in rows if r["outcome"] == "FAULT"]
    print(f"{len(rows)} runs: {sum(r['outcome'] == 'completed' for r in rows)} completed, "
          f"{sum(r['outcome'] == 'failed' for r in rows)} stopped in one line, {len(faults)} faults; wrote {path}")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
