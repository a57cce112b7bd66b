#!/usr/bin/env python3
"""Copies into results/ the numbers that figures and the paper quote from the kept logs of past
device runs (evidence/gpu/logs/), each file with its provenance, so that figures/ reads results/
and nothing else:

    python3 tools/gpu/collect_logs.py

    results/E05_long_run_gpu_probe.csv        E05's three runs alone, at once, at once under MPS: the
                                              cost per force evaluation (e05_concurrent/per_eval.csv)

E09's test norms and E24's Nsight Compute counts are the runner's (experiments/gpu_test_norms.py,
experiments/nsight_counts.py).
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments"))
from nbodylab import RESULTS_DIR as RESULTS, files, provenance, spec  # noqa: E402
LOGS = ROOT / "evidence" / "gpu" / "logs"


def title(exp_id, what=""):
    """The experiment's title (its experiment file's), with what this file holds of it."""
    return spec.load(exp_id, "full").title + (f": {what}" if what else "")


def write(name, exp_id, what, columns, rows, sources, **parameters):
    """results/<name>.csv and its .meta.json (unless they hold these already); `sources`: the log
    files the rows come from."""
    meta = provenance.results_meta(exp_id, title(exp_id, what), __file__, columns, sources,
                                   parameters=parameters)
    written = provenance.write_unless_same(RESULTS / f"{name}.csv", columns, rows, meta)
    print(f"{'wrote' if written else 'unchanged:'} results/{name}.csv ({len(rows)} rows)")


def mps_probe():
    path = LOGS / "e05_concurrent" / "per_eval.csv"
    rows = files.read_csv(path)
    columns = list(rows[0])
    write("E05_long_run_gpu_probe", "E05_long_run", "the probe of running the three methods at once on one "
          "GPU: cost per force evaluation", columns, [[r[c] for c in columns] for r in rows], [path],
          probe="evidence/gpu/probes/e05_concurrent.sh: each case at two lengths; us_per_eval = "
                "(wall_long - wall_short) / (fevals_long - fevals_short)")


if __name__ == "__main__":
    mps_probe()
