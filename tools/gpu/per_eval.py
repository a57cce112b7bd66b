#!/usr/bin/env python3
"""Cost per force evaluation of the timing runs of `h100_batch.sh resident`: each case ran at two
lengths (LABEL_short.json, LABEL_long.json: `nbody run --summary`); the difference of the wall
times over that of the force evaluations leaves out the start-up (CUDA context, initial state).

    python3 tools/gpu/per_eval.py TIMING_DIR > per_eval.csv
"""
import csv
import json
import sys
from pathlib import Path

runs = {p.stem: json.loads(p.read_text()) for p in Path(sys.argv[1]).glob("*.json")}
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(["case", "us_per_eval", "fevals_short", "fevals_long", "wall_short_s", "wall_long_s", "device"])
for label in sorted({k.rsplit("_", 1)[0] for k in runs}):
    s, l = runs.get(label + "_short"), runs.get(label + "_long")
    if s and l and l["fevals"] > s["fevals"]:
        per = 1e6 * (l["wall_s"] - s["wall_s"]) / (l["fevals"] - s["fevals"])
        w.writerow([label, f"{per:.2f}", s["fevals"], l["fevals"], s["wall_s"], l["wall_s"], l.get("device", "")])
