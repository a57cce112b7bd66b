"""nbody-lab experiment tooling: the runner core (standard library only) and small
helpers shared by the figure scripts.

Modules:
  files        atomic writes, CSV reading/writing, the X.csv -> X.meta.json sidecar rule
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
from pathlib import Path

# Repository root: experiments/nbodylab/__init__.py -> ../..
ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = ROOT / "results"
