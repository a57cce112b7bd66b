#!/usr/bin/env python3
"""Brings the `experiments` batch of tools/gpu/pairs_batch.sh (its unpacked folder) into the
committed results, after cuda-pairs joined the engines:

    python3 tools/gpu/collect_pairs.py EXPERIMENTS_DIR

- E09: the runner wrote results/E09_gpu_time_vs_n.csv and .meta.json on the device; copied as they are.
- E13 (when the batch tuned): cuda-pairs' tuning rows are added to E13_tuned_launch_all.csv and E13_tuned_launch.csv (the
  other engines' rows stay as tools/gpu/collect_results.py wrote them), and the batch's tuning
  cache (the committed one plus cuda-pairs' entries) replaces results/E13_tune_cache.json.
- E24: derived again from the new E09 (collect_results.write_e24).
- The batch's provenance, clock log, tuning log and runner log go to evidence/gpu/logs/pairs_<batch folder>/.
"""
import json
import shutil
import sys
from pathlib import Path

from collect_results import (E13_BEST_COLS, LOGS, PRODUCER, RESULTS, best_shapes, load_clock, provenance, read_csv,
                             tune_rows, write_csv, write_e24)

PAIRS_PRODUCER = "tools/gpu/pairs_batch.sh on the lent H100, collected by tools/gpu/collect_pairs.py"


def main(batch):
    batch = Path(batch)
    for name in ("E09_gpu_time_vs_n.csv", "E09_gpu_time_vs_n.meta.json"):
        shutil.copy(batch / name, RESULTS / name)

    if sorted(batch.glob("E13_cuda-pairs_*.csv")):
        add_e13(batch)
    write_e24([batch], load_clock(batch)["sm_clock_mhz_under_load_median"] or 1980.0,
              f"{PAIRS_PRODUCER} (batch {batch.name}), from results/E09_gpu_time_vs_n.csv")

    dest = LOGS / f"pairs_{batch.name}"
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("steps.log", "provenance.txt", "build_info.json", "clocks.csv", "E13.log", "runner.log",
                 "ncu_details_float.txt", "ncu_details_double.txt"):
        if (batch / name).is_file():
            shutil.copy(batch / name, dest / name)


def add_e13(batch):
    all_path = RESULTS / "E13_tuned_launch_all.csv"
    table = read_csv(all_path)
    cols = list(table[0].keys())
    rows = [r for r in table if r["engine"] != "cuda-pairs"]
    pairs = tune_rows(sorted(batch.glob("E13_cuda-pairs_*.csv"),
                             key=lambda p: (p.name.split("_")[2], int(p.stem.split("_")[3]))), batch.name)
    rows += pairs
    write_csv(all_path, rows, cols)
    best_path = RESULTS / "E13_tuned_launch.csv"
    best = [r for r in read_csv(best_path) if r["engine"] != "cuda-pairs"] + best_shapes(pairs)
    write_csv(best_path, best, E13_BEST_COLS)
    for path in (all_path, best_path):
        meta_path = path.with_suffix("").with_suffix(".meta.json")
        meta = json.loads(meta_path.read_text())
        meta["device_runs"] = [r for r in meta["device_runs"] if r["batch"] != batch.name] + [provenance(batch)]
        meta["producer"] = f"{PRODUCER}; the cuda-pairs rows: {PAIRS_PRODUCER} (batch {batch.name})"
        meta["parameters"]["cuda_pairs"] = (
            f"rows with batch={batch.name}: nbody tune --engine cuda-pairs --precision P --n N --blocks 32,64,128,256 "
            "--ipts 1,2,4,8 --repeats 3 (N = 2^20: --blocks 64,128,256 --ipts 4,8), tools/gpu/pairs_batch.sh experiments")
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    (RESULTS / "E13_tune_cache.json").write_text((batch / "tune_cache.json").read_text())


if __name__ == "__main__":
    main(sys.argv[1])
