"""Nsight Compute's per-kernel summary (ncu --print-summary per-kernel --csv) of every ncu_*.csv
in a folder, as microseconds per launch: used by the probes beside it. Usage: ncu_summary.py DIR [NOTE]"""
import csv
import glob
import io
import os
import sys

SCALE = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "nsecond": 1e-3, "ms": 1e3, "msecond": 1e3}
note = sys.argv[2] if len(sys.argv) > 2 else ""
for f in sorted(glob.glob(os.path.join(sys.argv[1], "ncu_*.csv"))):
    text = open(f).read()
    start = text.find('"Process ID"')
    if start < 0:
        print(os.path.basename(f), "no table")
        continue
    rows = [r for r in csv.DictReader(io.StringIO(text[start:])) if r["Metric Name"] == "Duration"]
    print(os.path.basename(f), f"(microseconds per launch{note})")
    for r in rows:
        us = float(r["Average"].replace(",", "")) * SCALE.get(r["Metric Unit"], float("nan"))
        print(f"  {r['Kernel Name'][:70]:70} {us:9.1f} x{r['Invocations']}")
