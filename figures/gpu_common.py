"""Shared helpers of the GPU figure scripts (E09-E13, E24): reading the committed H100 results
and their provenance, and the caption text naming the device run. Standard library + matplotlib."""
import csv
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402,F401

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
from nbodylab import ROOT, paper  # noqa: E402

RESULTS = ROOT / "results"
FIGURES = ROOT / "figures"


def load(name):
    path = RESULTS / f"{name}.csv"
    if not path.is_file():
        raise SystemExit(f"{path.relative_to(ROOT)} is missing (a GPU result: tools/gpu/h100_batch.sh, "
                         f"then tools/gpu/collect_results.py)")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    meta = json.loads((RESULTS / f"{name}.meta.json").read_text())
    return rows, meta


def device_text(meta):
    """'NVIDIA H100 80GB HBM3, driver 580.159.04, SM clock 1980 MHz under load, commit c29b9b34c3d9+dirty'."""
    run = meta["device_runs"][-1]
    clk = run["clocks"].get("sm_clock_mhz_under_load_median")
    b = run["build"]
    commit = str(b.get("git_commit", "?"))[:12] + ("+dirty" if b.get("git_dirty") else "")
    return f"{run['gpu']}, driver {run['driver']}, SM clock {clk:.0f} MHz under load, commit {commit}"


def save(fig, name):
    fig.tight_layout()
    fig.savefig(FIGURES / f"{name}.pdf")
    fig.savefig(FIGURES / f"{name}.png", dpi=150)


def sci(x, digits=2):
    return paper.tex_sci(float(x), digits)


def write_tex(name, text, script, sources):
    paper.write_tex(name, text, script, sources)


def write_macros(name, macros, script, sources):
    paper.write_macros(name, macros, script, sources)
