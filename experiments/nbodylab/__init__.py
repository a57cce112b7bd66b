"""nbody-lab experiment tooling: the runner core (standard library only) and small
helpers shared by the figure scripts.

Modules:
  files        atomic writes, CSV reading/writing (X.csv.gz compressed), the X.csv -> X.meta.json
               sidecar rule
  spec         experiment TOML files: schema, kinds, profiles, sweep expansion
  provenance   host description, `nbody --build-info`, the one .meta.json schema of results/
  points       the store of finished points (results/.points/), which makes every kind resumable
  sweep        running the points of one experiment (kind "run": parallel, resumable)
  bench        running a timing experiment (kind = "bench" or "tune": `nbody bench` or `nbody tune`
               points, one at a time)
  convergence  a Brutus-style convergence study (kind "convergence")
  paper        helpers for figure scripts: load results, write generated LaTeX
  methods      the integrators as the figures show them (colours, markers, the method table)
"""
import os
from pathlib import Path

from . import files

# Repository root: experiments/nbodylab/__init__.py -> ../..
ROOT = Path(__file__).resolve().parents[2]
# The results every experiment writes and every figure reads; NBODYLAB_RESULTS names another
# folder of the repository (make all PROFILE=gpu-smoke: build/gpu-smoke/results), which leaves
# the committed ones alone.
RESULTS_DIR = Path(os.environ.get("NBODYLAB_RESULTS") or ROOT / "results").resolve()
# The results of other classes of machine, a folder each (results/machines/NAME/ID.csv, written
# by the runner there: make run-ID MACHINE=NAME), which figures draw beside these.
MACHINES_DIR = RESULTS_DIR / "machines"


def timeseries_name(exp_id):
    """<exp_id>_timeseries: the table of every output time of every run of an experiment."""
    return f"{exp_id}_timeseries"


def timeseries_path(exp_id):
    """results/<exp_id>_timeseries.csv.gz: a bulk table, and so compressed (nbodylab/files.py)."""
    return RESULTS_DIR / f"{timeseries_name(exp_id)}.csv.gz"


def write_timeseries(exp_id, header, rows, meta):
    """Write timeseries_path(exp_id) and its .meta.json; the uncompressed table results written
    before the timeseries were compressed had goes. Returns the path."""
    path = timeseries_path(exp_id)
    files.write_csv(path, header, rows, meta)
    path.with_suffix("").unlink(missing_ok=True)
    return path
