"""ParaView opens the XDMF sidecar of `nbody run --snapshots NAME.hdf5`: every time step, a point and
a vertex cell per body, Velocities, Masses and ParticleIDs as point data, and the points equal to the
CSV snapshots of the same run (bit for bit, double). Not part of CI (ParaView is 440 MB of Debian
packages); run by hand where Debian's paraview is installed, its output kept in evidence/formats/:

    pvpython --force-offscreen-rendering tools/formats/check_xdmf_paraview.py build/nbody [--png FILE]

(--png needs an OpenGL context; Debian's pvpython without a display has none.)
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from paraview import servermanager
from paraview.simple import GetActiveViewOrCreate, OpenDataFile, SaveScreenshot, Show

RUN = ("run --ic two-galaxies --n 2000 --seed 5 --integrator leapfrog --dt 0.005 --t-end 0.4 "
       "--snapshot-every 0.1 --eps 0.05")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("nbody")
    parser.add_argument("--png", help="also render the last time step's points here")
    opts = parser.parse_args()
    nbody = str(Path(opts.nbody).resolve())
    failures = []
    with tempfile.TemporaryDirectory(prefix="nbody_paraview_") as folder:
        for out in ("s.csv", "s.hdf5"):
            subprocess.run([nbody, *RUN.split(), "--snapshots", out], cwd=folder, check=True, capture_output=True)
        times = {}
        for line in (Path(folder) / "s.csv").read_text().splitlines()[1:]:
            t, _, _, x, y, z, *_ = line.split(",")
            times.setdefault(float(t), []).append((float(x), float(y), float(z)))
        reader = OpenDataFile(str(Path(folder) / "s.xdmf"))
        steps = list(reader.TimestepValues)
        print(f"reader {reader.GetXMLName()}: {len(steps)} time steps {steps}")
        if steps != sorted(times):
            failures.append(f"time steps {steps}, CSV {sorted(times)}")
        for t in steps:
            reader.UpdatePipeline(t)
            data = servermanager.Fetch(reader)
            if data.IsA("vtkMultiBlockDataSet"):
                data = data.GetBlock(0)
            arrays = sorted(data.GetPointData().GetArrayName(i) for i in range(data.GetPointData().GetNumberOfArrays()))
            points = [data.GetPoint(i) for i in range(data.GetNumberOfPoints())]
            expected = times.get(t, [])
            print(f"t = {t}: {data.GetClassName()}, {data.GetNumberOfPoints()} points, {data.GetNumberOfCells()} cells, "
                  f"point data {arrays}, points equal to the CSV: {points == expected}")
            if data.GetNumberOfCells() != len(expected) or points != expected or arrays != ["Masses", "ParticleIDs", "Velocities"]:
                failures.append(f"t = {t}")
        if opts.png:
            view = GetActiveViewOrCreate("RenderView")
            view.ViewSize = [800, 600]
            Show(reader, view).SetRepresentationType("Points")
            view.ResetCamera()
            SaveScreenshot(opts.png, view)
            print(f"rendered the last time step to {opts.png}")
    for f in failures:
        print("FAIL", f)
    print("FAILED" if failures else "passed: ParaView reads every time step of the XDMF series as the CSV holds it")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
