"""nbody-lab experiment tooling: the runner core (standard library only) and small
helpers shared by the figure scripts.

Modules:
  files       atomic writes, CSV reading/writing, the X.csv -> X.meta.json sidecar rule
  spec        experiment TOML files: schema, profiles, sweep expansion
  provenance  host description and `nbody --build-info`
  sweep       running the points of one experiment (parallel, resumable)
  bench       running a timing experiment (kind = "bench" or "tune": `nbody bench` or `nbody tune`
              points, one at a time)
  paper       helpers for figure scripts: load results, write generated LaTeX
"""
from pathlib import Path

# Repository root: experiments/nbodylab/__init__.py -> ../..
ROOT = Path(__file__).resolve().parents[2]
