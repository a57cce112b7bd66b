#!/usr/bin/env python3
"""Brings a batch of tools/gpu/pairs_batch.sh (its unpacked folder) into the committed results,
after cuda-pairs joined the engines:

    python3 tools/gpu/collect_pairs.py BATCH_DIR

- E09: the runner wrote results/E09_gpu_time_vs_n.csv and .meta.json on the device; copied as they are.
- E13 (when the batch tuned): cuda-pairs' tuning rows are added to E13_tuned_launch_all.csv and E13_tuned_launch.csv (the
  other engines' rows stay as tools/gpu/collect_results.py wrote them), and the batch's tuning
  cache (the committed one plus cuda-pairs' entries) replaces results/E13_tune_cache.json.
- E24: the runner computes it again from the new E09 (experiments/roofline.py).
- The batch's provenance, clock log, tuning log and runner log go to evidence/gpu/logs/pairs_<batch folder>/.
"""
import shutil
import sys
from pathlib import Path

from collect_results import (E13_ALL, E13_BEST, LOGS, RESULTS, Batch, best_shapes, device_run, files,
                             provenance, title, tune_rows)


def main(path):
    batch = Batch(Path(path), f"tools/gpu/pairs_batch.sh {Path(path).name}", LOGS / f"pairs_{Path(path).name}")
    for name in ("E09_gpu_time_vs_n.csv", "E09_gpu_time_vs_n.meta.json"):
        shutil.copy(batch.path / name, RESULTS / name)

    if sorted(batch.path.glob("E13_cuda-pairs_*.csv")):
        add_e13(batch)

    batch.evidence.mkdir(parents=True, exist_ok=True)
    for name in ("steps.log", "provenance.txt", "build_info.json", "clocks.csv", "E13.log", "runner.log",
                 "ncu_details_float.txt", "ncu_details_double.txt"):
        if (batch.path / name).is_file():
            shutil.copy(batch.path / name, batch.evidence / name)


def add_e13(batch):
    """cuda-pairs' rows replace those of an earlier batch in both E13 tables; the other engines' rows,
    device runs and parameters stay."""
    pairs = tune_rows(sorted(batch.path.glob("E13_cuda-pairs_*.csv"),
                             key=lambda p: (p.name.split("_")[2], int(p.stem.split("_")[3]))), batch.name)
    for name, what, rows in (("E13_tuned_launch_all", E13_ALL, lambda others: others + pairs),
                             ("E13_tuned_launch", E13_BEST, lambda others: others + best_shapes(pairs))):
        path = RESULTS / f"{name}.csv"
        meta = files.read_json(files.sidecar(path))
        others = [r for r in files.read_csv(path) if r["engine"] != "cuda-pairs"]
        evidence = f"{provenance.display(batch.evidence)}/"
        files.write_csv(path, meta["columns"], [[r.get(c, "") for c in meta["columns"]] for r in rows(others)],
                        provenance.results_meta(
                            "E13_tuned_launch", title("E13_tuned_launch", what), __file__, meta["columns"],
                            [s for s in meta["sources"] if s != evidence] + [evidence],
                            device_runs=[r for r in meta["device_runs"] if r["recipe"] != batch.recipe]
                            + [device_run(batch)],
                            parameters={**meta["parameters"], "cuda_pairs": (
                                f"rows with batch={batch.name}: nbody tune --engine cuda-pairs --precision P --n N "
                                "--blocks 32,64,128,256 --ipts 1,2,4,8 --repeats 3 (N = 2^20: --blocks 64,128,256 "
                                "--ipts 4,8), tools/gpu/pairs_batch.sh experiments")}))
    (RESULTS / "E13_tune_cache.json").write_text((batch.path / "tune_cache.json").read_text())


if __name__ == "__main__":
    main(sys.argv[1])
