"""HDF5 snapshots as the tools of the field read them: `nbody run --snapshots X.hdf5` against the
CSV snapshots of the same run, through h5py, yt and pynbody (the versions pinned in
requirements.txt), in double (bit for bit), float (the same float32 values) and double-double
(the standard datasets are the leading terms of the expansions); and the XDMF sidecar, whose every
data item must name a dataset of that shape and type, with the Header's time. Run by CTest with
the virtual environment's Python (tests/CMakeLists.txt); without it the test is skipped (exit 77).

    test_hdf5_snapshots.py NBODY
"""
import os
import subprocess
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

from needs_venv import require
from report import report

require("h5py", "numpy", "pynbody", "yt")
import h5py  # noqa: E402
import numpy as np  # noqa: E402
import pynbody  # noqa: E402
import yt  # noqa: E402

warnings.filterwarnings("ignore")  # pynbody: "no unit information" (the run's units are G = 1)
yt.set_log_level(50)

HEADER_KEYS = ["NumPart_ThisFile", "NumPart_Total", "NumPart_Total_HighWord", "MassTable", "Time", "Redshift",
               "BoxSize", "NumFilesPerSnapshot", "Omega0", "OmegaLambda", "HubbleParam", "Precision", "Provenance"]
RUN = "run --ic two-galaxies --n 300 --seed 5 --integrator rk4 --dt 0.01 --t-end 0.04 --snapshot-every 0.02"


def nbody(binary, folder, args):
    subprocess.run([binary, *args.split()], cwd=folder, check=True, capture_output=True)


def csv_snapshots(path):
    """{t text: rows of (id, mass, x, y, z, vx, vy, vz) as text}, in file order."""
    times = {}
    for line in path.read_text().splitlines()[1:]:
        t, *row = line.split(",")
        times.setdefault(t, []).append(row)
    return times


def same_values(values, texts, precision):
    """Values of a dataset against the CSV's text: bit for bit (double: the text parses to the
    value; float: the value prints as the text, both with 9 significant digits)."""
    values = np.asarray(values).ravel()
    if precision == "float":
        return values.dtype == np.float32 and all(f"{float(v):.9g}" == t for v, t in zip(values, texts))
    return values.dtype == np.float64 and np.array_equal(values, np.array([float(t) for t in texts]))


def check_run(binary, folder, precision):
    failures = []
    fail = lambda what: failures.append(f"{precision}: {what}")
    nbody(binary, folder, f"{RUN} --precision {precision} --snapshots s.csv")
    nbody(binary, folder, f"{RUN} --precision {precision} --snapshots s.hdf5")
    csv = csv_snapshots(folder / "s.csv")
    files = sorted(folder.glob("s_*.hdf5"))
    if [f.name for f in files] != [f"s_{k:03d}.hdf5" for k in range(len(csv))]:
        fail(f"files {[f.name for f in files]} for {len(csv)} snapshot times")
    value_precision = "float" if precision == "float" else "double"
    for file, (t_text, rows) in zip(files, csv.items()):
        columns = list(zip(*rows))  # id, mass, x, y, z, vx, vy, vz
        n = len(rows)
        ids = np.array([int(i) for i in columns[0]])
        coordinates = [c for xyz in zip(*columns[2:5]) for c in xyz]
        velocities = [c for xyz in zip(*columns[5:8]) for c in xyz]
        # h5py: the GADGET header and the datasets.
        with h5py.File(file, "r") as f:
            header = f["Header"].attrs
            missing = [k for k in HEADER_KEYS if k not in header]
            if missing:
                fail(f"{file.name}: Header lacks {missing}")
            if list(header["NumPart_ThisFile"]) != [0, n, 0, 0, 0, 0] or list(header["NumPart_Total"]) != [0, n, 0, 0, 0, 0]:
                fail(f"{file.name}: NumPart {list(header['NumPart_ThisFile'])}")
            if not same_values(np.array([header["Time"]], dtype=group_dtype(precision)), [t_text], value_precision):
                fail(f"{file.name}: Time {header['Time']!r}, CSV {t_text}")
            if header["Precision"].decode() != precision or b'"command_line"' not in header["Provenance"]:
                fail(f"{file.name}: Precision or Provenance")
            group = f["PartType1"]
            if not np.array_equal(group["ParticleIDs"][:], ids) or group["ParticleIDs"].dtype != np.uint64:
                fail(f"{file.name}: ParticleIDs")
            for name, texts in [("Masses", columns[1]), ("Coordinates", coordinates), ("Velocities", velocities)]:
                if not same_values(group[name][:], texts, value_precision):
                    fail(f"{file.name}: h5py {name} differs from the CSV")
            if precision == "dd":
                for name in ["Coordinates", "Velocities", "Masses"]:
                    if not np.array_equal(group[name + "Expansion"][..., 0], group[name][:]):
                        fail(f"{file.name}: {name} is not the leading term of {name}Expansion")
                if header["TimeExpansion"][0] != header["Time"]:
                    fail(f"{file.name}: TimeExpansion")
        # yt: its own GADGET frontend, bodies in its own order.
        ds = yt.load(str(file))
        ad = ds.all_data()
        order = np.argsort(ad["PartType1", "ParticleIDs"].d)
        if not np.array_equal(ad["PartType1", "ParticleIDs"].d[order], ids):
            fail(f"{file.name}: yt ParticleIDs")
        if not np.isclose(ds.current_time.d, float(t_text), rtol=1e-6, atol=0):  # through yt's unit system
            fail(f"{file.name}: yt time {ds.current_time.d!r}")
        for name, texts in [("Masses", columns[1]), ("Coordinates", coordinates), ("Velocities", velocities)]:
            if not same_values(ad["PartType1", name].d[order].astype(group_dtype(precision)), texts, value_precision):
                fail(f"{file.name}: yt {name} differs from the CSV")
        # pynbody
        s = pynbody.load(str(file))
        if len(s) != n or not np.array_equal(np.asarray(s["iord"]), ids):
            fail(f"{file.name}: pynbody holds {len(s)} bodies or other ids")
        for name, texts in [("mass", columns[1]), ("pos", coordinates), ("vel", velocities)]:
            if not same_values(np.asarray(s[name]), texts, value_precision):
                fail(f"{file.name}: pynbody {name} differs from the CSV")
    check_xdmf(folder, "s", files, fail)
    return failures


def group_dtype(precision):
    """yt hands float32 datasets back as float64: the stored type, to compare."""
    return np.float32 if precision == "float" else np.float64


def check_xdmf(folder, name, files, fail):
    root = ET.parse(folder / f"{name}.xdmf").getroot()
    grids = root.findall("./Domain/Grid/Grid")
    if len(grids) != len(files):
        fail(f"{name}.xdmf lists {len(grids)} grids for {len(files)} files")
    for grid, file in zip(grids, files):
        with h5py.File(file, "r") as f:
            if float(grid.find("Time").get("Value")) != f["Header"].attrs["Time"]:
                fail(f"{name}.xdmf: time of {file.name}")
            for item in grid.iter("DataItem"):
                target, dataset = item.text.split(":")
                shape = tuple(int(d) for d in item.get("Dimensions").split())
                data = f[dataset] if target == file.name else None
                kind = "u" if item.get("NumberType") == "UInt" else "f"
                if data is None or data.shape != shape or data.dtype.kind != kind or data.dtype.itemsize != int(item.get("Precision")):
                    fail(f"{name}.xdmf: {item.text} does not match {file.name}")


def main():
    binary = os.path.abspath(sys.argv[1])
    failures = []
    for precision in ["double", "float", "dd"]:
        with tempfile.TemporaryDirectory(prefix="nbody_hdf5_") as folder:
            failures += check_run(binary, Path(folder), precision)
    return report(failures, "HDF5 snapshots against the CSV through h5py, yt and pynbody; XDMF sidecar")


if __name__ == "__main__":
    sys.exit(main())
