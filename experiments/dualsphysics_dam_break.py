"""DualSPHysics's own result for E19's dam break, a reference for the computation (not for the
experiments): DualSPHysics's 2-D validation case CaseDambreakVal2D run as shipped (its
parameters, its Verlet integrator, its boundary, its speed of sound), the front measured by the
case's own gauge Swl_z003 (where the fluid's kernel-summed volume fraction along the line 3 cm
above the floor first falls below 0.4). Writes FOLDER/E19_sph_dam_break_dualsphysics.csv (dp, t,
front) and its .meta.json (the DualSPHysics commit and version, the build, the runs).

The runner runs it (experiments/E19_sph_dam_break_dualsphysics.toml, kind = "script", requires =
"reference:dualsphysics") where DualSPHysics is built from its source in build/reference/dualsphysics/
(`make reference-dualsphysics DUALSPHYSICS_GIT=DIR`: tools/reference/dualsphysics/build.sh, with
mkcase in place of DualSPHysics's binary-only case generator GenCase); it reads the solver, mkcase,
the source tree and its commit from there. --nbody is taken for the runner's contract only: nbody
plays no part.

Usage: python3 experiments/dualsphysics_dam_break.py [--nbody NBODY] --out FOLDER [--dp DP ...]
Needs numpy. About 30 s at dp = 0.02, 4 minutes at 0.01 and half an hour at 0.005 on 2 cores.
Standard output: one line per spacing.
"""
import argparse
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from nbodylab import files, provenance, requirements

PRODUCER = "experiments/dualsphysics_dam_break.py"
NAME = "E19_sph_dam_break_dualsphysics"
TITLE = "DualSPHysics's own run of its 2-D dam-break validation case: the front against time"
CASE = "CaseDambreakVal2D"
DEF = f"examples/main/01_DamBreak/{CASE}_Def.xml"
GAUGE = "GaugesSWL_Swl_z003.csv"
T_MAX = 0.7  # past Koshizuka and Oka's last time before the far wall (0.565 s)


def version(source):
    """DualSPHysics's version as its main.cpp declares it (JAppInfo AppInfo("name","vX","date"))."""
    m = re.search(r'^JAppInfo AppInfo\("([^"]+)","([^"]+)","([^"]+)"\)', (source / "src/source/main.cpp").read_text(),
                  re.M)
    return {"name": m[1], "version": m[2], "date": m[3]} if m else None


def run(solver, mkcase, source, dp, tmp):
    case = tmp / CASE
    subprocess.run([str(mkcase), str(source / DEF), f"{dp:g}", str(case)], check=True, stdout=subprocess.PIPE)
    cmd = [str(solver), str(case), str(tmp / "out"), f"-tmax:{T_MAX}", "-sv:none"]
    start = time.monotonic()
    log = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    wall = time.monotonic() - start
    steps = re.search(r"Steps of simulation\.*: ([\d,]+)", log)
    excluded = re.search(r"Excluded particles\.*: ([\d,]+)", log)
    particles = re.search(r"CaseNp=([\d,]+)", log)
    gauge = np.loadtxt(tmp / "out" / GAUGE, delimiter=";", skiprows=1)
    info = {"dp": dp, "particles": int(particles[1].replace(",", "")) if particles else None,
            "steps": int(steps[1].replace(",", "")) if steps else None,
            "excluded": int(excluded[1].replace(",", "")) if excluded else None, "wall_s": round(wall, 1),
            "command": shlex.join([solver.name, CASE, "out", *cmd[3:]])}
    return gauge[:, 0], gauge[:, 1], info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nbody", help="not used (the runner's contract)")
    ap.add_argument("--out", required=True, help="the folder to write the results into")
    ap.add_argument("--dp", type=float, nargs="+", default=[0.01], help="particle spacings, m (each divides 1 m)")
    a = ap.parse_args()
    build = requirements.reference_build("dualsphysics")
    if build is None:
        print(f"{NAME}: {requirements.lacking_reference('dualsphysics')}", file=sys.stderr)
        return 2
    folder = requirements.reference_dir("dualsphysics")
    solver, mkcase, source = (folder / build["files"][k] for k in ("solver", "mkcase", "source"))
    rows, runs = [], []
    for dp in a.dp:
        with tempfile.TemporaryDirectory(prefix=f"{NAME}-") as tmp:
            t, front, info = run(solver, mkcase, source, dp, Path(tmp))
        rows += [[f"{dp:g}", f"{ti:.6g}", f"{xi:.6g}"] for ti, xi in zip(t, front)]
        runs.append(info)
        print(f"{NAME}: dp {dp:g}, {info['particles']} particles, {info['steps']} steps in {info['wall_s']} s, "
              f"{info['excluded']} excluded", flush=True)
    header = ["dp", "t", "front"]
    sections = {"dualsphysics": {"repository": "https://github.com/DualSPHysics/DualSPHysics",
                                 "commit": build.get("commit"),
                                 **(version(source) or {}),
                                 "build": {"recipe": "tools/reference/dualsphysics/build.sh",
                                           **{k: build.get(k) for k in ("options", "compiler", "built_utc")}},
                                 "case": DEF, "case_sha256": provenance.sha256_file(source / DEF),
                                 "front": "the case's gauge Swl_z003: x where the fluid's volume fraction on the "
                                          "line z = 0.03 m first falls below 0.4 (DualSPHysics's frame: its left "
                                          "wall's particles at x = 0, half a spacing behind the wall face)"},
                "parameters": {"t_max": T_MAX, "runs": runs},
                "host": provenance.host()}
    files.write_csv(Path(a.out) / f"{NAME}.csv", header, rows,
                    provenance.results_meta(NAME, TITLE, PRODUCER, header,
                                            [PRODUCER, f"experiments/{NAME}.toml", "tools/reference/dualsphysics/build.sh",
                                             "tools/reference/dualsphysics/mkcase.cpp"],
                                            **sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
