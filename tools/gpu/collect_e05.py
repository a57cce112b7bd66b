#!/usr/bin/env python3
"""Joins the parts of E05's full run on the GPU (tools/gpu/e05_parts.sh, state and records in
results/E05_gpu/METHOD/part_NNN.*) into results in the experiment runner's form, each with its
provenance:

    results/E05_long_run_gpu.csv             one row per method, columns of E05_long_run.csv
                                             (+ parts, gpu_seconds, us_per_eval, complete)
    results/E05_long_run_gpu_timeseries.csv.gz  the parts' diagnostics, joined (as the runner's)
    results/E05_long_run_gpu_parts.csv       one row per part: interval, evaluations, seconds,
                                             launch shape, GPU, driver, commit

    python3 tools/gpu/collect_e05.py [PARTS_DIR [NAME]]   (default results/E05_gpu, E05_long_run_gpu)

PARTS_DIR = results/E05_gpu_mps is the run of tools/gpu/e05_mps.sh, its three methods at once on
the one GPU under MPS: its batches.csv holds each batch's wall time, and the GPU time of the
whole E05 (meta gpu_seconds_in_all) is their sum, not the sum of the methods' times (which overlap).
NAME replaces E05_long_run_gpu in the three file names: the paper quotes the MPS run as
E05_long_run_gpu and the first run (results/E05_gpu, one method after another) as
E05_long_run_gpu_serial.

Every number is copied or summed from what nbody wrote on the GPU (its --summary, --diagnostics
and their .meta.json, `nbody --build-info`, nvidia-smi); nothing is typed in. A method whose last
part did not reach t_end is written with complete = false.
"""
import csv
import json
import sys
from pathlib import Path

from collect_logs import RESULTS, ROOT, files, provenance
from nbodylab import write_timeseries  # noqa: E402  (the path collect_logs put on sys.path)

PARTS = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else RESULTS / "E05_gpu"
EXP = sys.argv[2] if len(sys.argv) > 2 else "E05_long_run_gpu"
TITLE = "Long run of the galaxy collision on the GPU (E05's full profile, in parts)"
METHODS = ("dopri5", "verner65", "adams-bashforth")
POINT = ["integrator", "tol", "h-min", "h-max", "controller", "order", "dt"]  # as E05_long_run.csv
METRICS = ["steps", "fevals", "rejected", "dE_rel", "dE_rel_max", "P_rel", "L_rel", "min_pair_dist_min", "t",
           "wall_s"]


def flag_values(argv):
    """The flags of an `nbody run` command line, {name without --: value or True}."""
    flags, i = {}, 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                flags[a[2:]] = argv[i + 1]
                i += 1
            else:
                flags[a[2:]] = True
        i += 1
    return flags


def gpu_of(path):
    """name, driver and maximum SM clock from the part's nvidia-smi query."""
    rows = list(csv.reader(path.read_text().splitlines()))
    head = [h.strip() for h in rows[0]]
    vals = [v.strip() for v in rows[1]]
    get = dict(zip(head, vals)).get
    stamp = (get("timestamp") or "").replace("/", "-").split(".")[0]  # nvidia-smi's, at the part's start (UTC)
    return {"gpu": get("name"), "driver": get("driver_version"), "sm_clock_max": get("clocks.max.sm [MHz]"),
            "started_utc": stamp.replace(" ", "T") + "+00:00" if stamp else None}


def parts_of(method):
    out, t_prev = [], 0.0
    for summary_path in sorted((PARTS / method).glob("part_*.summary.json")):
        name = summary_path.name.split(".")[0]
        s = json.loads(summary_path.read_text())
        meta = json.loads((PARTS / method / f"{name}.diagnostics.meta.json").read_text())
        build = meta["build"]
        flags = flag_values(meta["parameters"]["command_line"][2:])
        part = {"integrator": method, "part": name, "t_from": t_prev, "t_to": s["t"], "completed": s["completed"],
                "summary": s, "flags": flags, "diagnostics": PARTS / method / f"{name}.diagnostics.csv",
                "git_commit": build["git_commit"], "git_dirty": build["git_dirty"], "device": s.get("device", ""),
                **gpu_of(PARTS / method / f"{name}.gpu.csv")}
        out.append(part)
        t_prev = s["t"]
    return out


def main():
    summaries, series, part_rows, commits, last_part = [], [], [], set(), None
    for method in METHODS:
        parts = parts_of(method)
        if not parts:
            print(f"[E05 gpu] {method}: no parts yet", file=sys.stderr)
            continue
        last_part = parts[-1]
        point = {k: parts[0]["flags"].get(k, "") for k in POINT}
        fevals_before = 0
        for p in parts:
            s = p["summary"]
            evals = s["fevals"] - fevals_before
            fevals_before = s["fevals"]
            part_rows.append({**point, "part": p["part"], "t_from": p["t_from"], "t_to": p["t_to"], "steps": s["steps"],
                              "fevals": s["fevals"], "fevals_part": evals, "wall_s": s["wall_s"],
                              "us_per_eval": f"{1e6 * s['wall_s'] / evals:.3f}", "device": p["device"],
                              "gpu": p["gpu"], "driver": p["driver"], "sm_clock_max": p["sm_clock_max"],
                              "git_commit": p["git_commit"], "git_dirty": p["git_dirty"]})
            commits.add((p["git_commit"], p["git_dirty"]))
            # The diagnostics: a resumed part repeats the sample at its start; keep the first.
            with open(p["diagnostics"], newline="") as f:
                rows = list(csv.DictReader(f))
            if series and series[-1]["integrator"] == method and rows and float(rows[0]["t"]) <= float(series[-1]["t"]):
                rows = rows[1:]
            for r in rows:
                r["diag_dt"] = r.pop("dt")
                series.append({**point, **r})
        last = parts[-1]["summary"]
        wall = sum(p["summary"]["wall_s"] for p in parts)
        row = {**point, **{k: last[k] for k in METRICS if k in last}}
        row.update({"dE_rel_max": max(abs(p["summary"]["dE_rel_max"]) for p in parts),
                    "min_pair_dist_min": min(p["summary"]["min_pair_dist_min"] for p in parts),
                    "wall_s": wall, "failure": "", "parts": len(parts), "gpu_seconds": wall,
                    "us_per_eval": f"{1e6 * wall / last['fevals']:.3f}", "complete": bool(last["completed"])})
        summaries.append(row)

    if not summaries:
        sys.exit(f"[E05 gpu] no parts in {PARTS}: run tools/gpu/e05_parts.sh (or e05_mps.sh) on the device first")
    columns = POINT + METRICS + ["failure", "parts", "gpu_seconds", "us_per_eval", "complete"]
    ts_columns = POINT + [c for c in series[0] if c not in POINT]
    part_columns = POINT + ["part", "t_from", "t_to", "steps", "fevals", "fevals_part", "wall_s", "us_per_eval", "device",
                            "gpu", "driver", "sm_clock_max", "git_commit", "git_dirty"]
    build = json.loads((PARTS / last_part["integrator"] / f"{last_part['part']}.build.json").read_text())
    batches_csv = PARTS / "batches.csv"
    if batches_csv.is_file():  # e05_mps.sh: the methods ran at once, the GPU time is the batches' time
        with open(batches_csv, newline="") as f:
            batches = list(csv.DictReader(f))
        gpu_in_all = {"gpu_seconds_in_all": sum(float(b["seconds"]) for b in batches), "batches": batches,
                      "shared_gpu": "the methods ran at once on the one GPU under MPS, each client limited to "
                                    f"{batches[0]['mps_active_thread_percentage']}% of the multiprocessors; a method's "
                                    "gpu_seconds is the time it ran, overlapping the others'"}
    else:
        gpu_in_all = {"gpu_seconds_in_all": sum(float(r["gpu_seconds"]) for r in summaries)}
    sections = {
        "profile": "full", **gpu_in_all,
        "parts_started_utc": sorted(p["started_utc"] for m in METHODS for p in parts_of(m) if p["started_utc"]),
        "nbody": {"build_info": build, "commits": sorted(f"{c}{'+dirty' if d else ''}" for c, d in commits)},
        "host": {"cpu_model": build["host"]["cpu_model"], "cpu_count": build["host"]["logical_cores"],
                 "os": "the lent GPU machine", "gpu": last_part["gpu"], "driver": last_part["driver"],
                 "sm_clock_max_mhz": last_part["sm_clock_max"]},
        "experiment_toml": (ROOT / "experiments" / "E05_long_run.toml").read_text(),
    }
    for name, rows, cols in ((EXP, summaries, columns), (f"{EXP}_timeseries", series, ts_columns),
                             (f"{EXP}_parts", part_rows, part_columns)):
        meta = provenance.results_meta("E05_long_run", TITLE, __file__, cols,
                                       [f"{provenance.display(PARTS)}/", "experiments/E05_long_run.toml"],
                                       **sections)
        table = [[r.get(c, "") for c in cols] for r in rows]
        if name == f"{EXP}_timeseries":
            path = write_timeseries(EXP, cols, table, meta)
        else:
            path = RESULTS / f"{name}.csv"
            files.write_csv(path, cols, table, meta)
        print(f"[E05 gpu] wrote {path.relative_to(ROOT)} ({len(rows)} rows)", file=sys.stderr)
    for r in summaries:
        print(f"  {r['integrator']}: t = {float(r['t']):g}, {r['fevals']} evaluations in {r['parts']} parts, "
              f"{r['gpu_seconds']:.0f} s ({r['us_per_eval']} us each), dE/E0 max {r['dE_rel_max']:.2e}"
              f"{'' if r['complete'] else ' (not complete)'}", file=sys.stderr)
    print(f"  GPU time in all: {gpu_in_all['gpu_seconds_in_all']:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
