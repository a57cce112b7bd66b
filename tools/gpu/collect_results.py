#!/usr/bin/env python3
"""Turns the outputs of tools/gpu/h100_batch.sh (the unpacked <phase>/ folders of the device runs)
into the committed results of experiments E09-E13 (E24 is computed from E09 by the runner), each with its provenance, and keeps the
batches' logs (tests, compute-sanitizer, ncu, clocks) in evidence/gpu/logs/<phase>/.

    python3 tools/gpu/collect_results.py CHECK_DIR SWEEP_DIR FINAL_DIR

The float rows come from the `final` batch (the float kernel changed between `sweep` and `final`:
(m r)(r r) instead of ((m r) r) r); double, dd, OpenCL and CPU rows from `sweep`.
"""
import json
import shutil
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments"))
from nbodylab import RESULTS_DIR as RESULTS, files, provenance, spec  # noqa: E402
from nbodylab.bench import launch_columns  # noqa: E402  (the runner's reading of a tune row)
LOGS = ROOT / "evidence" / "gpu" / "logs"

@dataclass
class Batch:
    """A device run's folder as unpacked here, the recipe that wrote it (e.g.
    "tools/gpu/h100_batch.sh sweep"), and the folder its kept logs go to."""
    path: Path
    recipe: str
    evidence: Path

    @property
    def name(self):
        return self.path.name


def h100_batch(path):
    path = Path(path)
    return Batch(path, f"tools/gpu/h100_batch.sh {path.name}", LOGS / path.name)


def write_results(name, rows, columns, title, batches, parameters, sources=(), producer=__file__):
    """results/<name>.csv (rows: dicts, a column a row lacks left empty) and its .meta.json: the
    device runs it came from (their kept logs are its sources, with `sources`) and `parameters`."""
    meta = provenance.results_meta(
        name_experiment(name), title, producer, columns,
        [*sources, *(f"{provenance.display(b.evidence)}/" for b in batches)],
        device_runs=[device_run(b) for b in batches], parameters=parameters)
    files.write_csv(RESULTS / f"{name}.csv", columns, [[r.get(c, "") for c in columns] for r in rows], meta)


def name_experiment(name):
    """The experiment a results file belongs to: the longest experiment ID its name starts with."""
    return max((i for i in spec.experiment_ids() if name == i or name.startswith(i + "_")), key=len)


def title(exp_id, what=""):
    """The experiment's title (its experiment file's), with what this file holds of it."""
    return spec.load(exp_id, "full").title + (f": {what}" if what else "")


def load_clock(batch):
    """Median SM clock (MHz) while the GPU drew more than 200 W, and the range."""
    mhz = []
    for r in files.read_csv(batch / "clocks.csv"):
        try:
            sm = float(r[" clocks.current.sm [MHz]"].split()[0])
            p = float(r[" power.draw [W]"].split()[0])
        except (KeyError, ValueError, IndexError):
            continue
        if p > 200:
            mhz.append(sm)
    return {"sm_clock_mhz_under_load_median": statistics.median(mhz) if mhz else None,
            "sm_clock_mhz_under_load_min": min(mhz) if mhz else None,
            "sm_clock_mhz_under_load_max": max(mhz) if mhz else None,
            "samples_under_load": len(mhz)}


def device_run(batch):
    """What ran where: the recipe and batch, when, the GPU and driver (nvidia-smi at the start), the
    clocks under load (the clock log) and `nbody --build-info` of the binary."""
    path = batch.path
    text = (path / "provenance.txt").read_text()
    lines = text.splitlines()
    head = dict(zip([h.strip() for h in lines[1].split(",")], [v.strip() for v in lines[2].split(",")]))
    info = json.loads((path / "build_info.json").read_text())
    return {"batch": batch.name, "recipe": batch.recipe, "started_utc": lines[0].strip(),
            "gpu": head.get("name"), "driver": head.get("driver_version"),
            "max_sm_clock": head.get("clocks.max.sm [MHz]"), "max_memory_clock": head.get("clocks.max.memory [MHz]"),
            "power_limit": head.get("power.limit [W]"), "persistence_mode": head.get("persistence_mode"),
            "cuda_version": next((l.split(":")[1].strip() for l in lines if l.strip().startswith("CUDA Version")), None),
            "os": next((l.split("=")[1].strip('"') for l in lines if l.startswith("PRETTY_NAME")), None),
            "clocks": load_clock(path), "build": info["build"], "host": info["host"]}


def tune_rows(paths, batch):
    rows = []
    for p in paths:
        for r in files.read_csv(p):
            r = launch_columns(r)
            r["batch"] = batch
            rows.append(r)
    return rows


E13_ALL, E13_BEST = "every shape tried", "the best shape per point, with the median and worst shape tried"
E13_BEST_COLS = ["engine", "precision", "n", "block", "split", "unroll", "ipt", "seconds_per_eval", "interactions_per_s",
                 "median_shape_interactions_per_s", "worst_shape_interactions_per_s", "shapes_tried", "batch"]
PRECISION_ORDER = {"float": 0, "double": 1, "dd": 2}


def best_shapes(rows):
    """E13's table: per (engine, precision, N) the tuner's best row, with the median and worst
    valid shape beside it."""
    best = []
    for r in rows:
        if r["best"] != "1":
            continue
        same = [x for x in rows if (x["engine"], x["precision"], x["n"]) == (r["engine"], r["precision"], r["n"])
                and x["status"] == "ok"]
        rates = sorted(float(x["interactions_per_s"]) for x in same)
        b = dict(r)
        b["shapes_tried"] = len(same)
        b["median_shape_interactions_per_s"] = statistics.median(rates)
        b["worst_shape_interactions_per_s"] = rates[0]
        best.append(b)
    best.sort(key=lambda r: (r["engine"], PRECISION_ORDER[r["precision"]], int(r["n"])))
    return best


def main(check, sweep, final):
    check, sweep, final = h100_batch(check), h100_batch(sweep), h100_batch(final)
    RESULTS.mkdir(exist_ok=True)
    tune_cols = ["engine", "precision", "n", "block", "split", "unroll", "ipt", "status", "seconds_per_eval",
                 "interactions_per_s", "wall_seconds_per_eval", "max_diff_vs_first", "best", "note", "batch"]

    # E09: time per evaluation against N.
    rows = []
    for r in files.read_csv(sweep.path / "E09_time_vs_n.csv"):
        if r["precision"] == "float" and r["engine"].startswith("cuda-"):
            continue  # replaced by the final batch
        r["batch"] = "sweep"
        rows.append(r)
    for r in files.read_csv(final.path / "E09_float_gpu.csv"):
        r["batch"] = "final"
        rows.append(r)
    dd = files.read_csv(sweep.path / "E09_dd_1048576.csv")[0]
    rows.append({"engine": dd["engine"], "precision": "dd", "n": dd["n"], "repeats": "1",
                 "seconds_per_eval": dd["seconds_per_eval"], "interactions_per_s": dd["interactions_per_s"],
                 "wall_seconds_per_eval": dd["wall_seconds_per_eval"], "timing": "device-events",
                 "device": dd["device"], "batch": "sweep"})
    rows.sort(key=lambda r: (int(r["n"]), PRECISION_ORDER[r["precision"]], r["engine"]))
    cols = ["n", "precision", "engine", "repeats", "threads", "seconds_per_eval", "interactions_per_s", "gflops", "timing",
            "wall_seconds_per_eval", "simd", "device", "cpu_model", "batch"]
    write_results("E09_gpu_time_vs_n", rows, cols, title("E09_gpu_time_vs_n"), [sweep, final], {
        "what": "one force evaluation (Plummer sphere, seed 1, G=1, no softening) per engine, precision and N",
        "command": "nbody bench --engine E --precision P --n N --repeats R (R = 3, 2 from N = 524288); dd at N = 2^20: "
                   "nbody tune --engine cuda-tiled --precision dd --n 1048576 --blocks 128 --unrolls 1 --ipts 2 --repeats 1",
        "timing": "GPU engines: seconds_per_eval = median device time of the kernels (CUDA/OpenCL events), "
                  "wall_seconds_per_eval adds the host<->device copies; CPU engines: wall time",
        "launch_shapes": "cuda-split and cuda-tiled take the shapes `nbody tune` stored (E13) in NBODY_TUNE_CACHE; "
                         "cuda-naive block 256; opencl-tiled block 256",
        "interactions": "N (N - 1) per evaluation"})

    # E10: block-size sweep of cuda-naive (N = 4096).
    rows = tune_rows([sweep.path / "E10_block_sweep_float.csv", sweep.path / "E10_block_sweep_double.csv"], "sweep")
    write_results("E10_block_size_sweep", rows, tune_cols, title("E10_block_size_sweep"), [sweep], {
        "command": "nbody tune --no-store --engine cuda-naive --precision P --n 4096 --blocks "
                   "1,2,3,4,8,16,30,31,32,64,128,256,512,1023,1024,1025 --repeats 5",
        "note": "block=1025 is reported as status=invalid with the reason, never with a time"})

    # E11: block size x split (cuda-split, float).
    rows = tune_rows([sweep.path / "E11_split_sweep_float_4096.csv", sweep.path / "E11_split_sweep_float_32768.csv"],
                     "sweep")
    write_results("E11_block_split_sweep", rows, tune_cols, title("E11_block_split_sweep"), [sweep], {
        "command": "nbody tune --no-store --engine cuda-split --precision float --n N --blocks "
                   "8,16,32,64,128,256,512 --splits 1,2,4,8,16,32,64,128 --unrolls 1 --ipts 1 --repeats 5",
        "n": [4096, 32768]})

    # E12: unroll x bodies per thread (cuda-tiled).
    rows = tune_rows([final.path / "E12_unroll_float.csv"], "final") + \
        tune_rows([sweep.path / "E12_unroll_double.csv", sweep.path / "E12_unroll_dd.csv"], "sweep")
    write_results("E12_unroll_sweep", rows, tune_cols, title("E12_unroll_sweep"), [sweep, final], {
        "command": "nbody tune --no-store --engine cuda-tiled --precision P --n N --blocks B "
                   "--unrolls 1,2,4,8,16,32 --ipts 1,2,4[,8] --repeats 3",
        "float": "N = 262144, block 256 (final batch)", "double": "N = 262144, block 256",
        "dd": "N = 32768, block 128, unroll 1,2,4, ipt 1,2"})

    # E13: the tuner's sweeps and the best shape per (engine, precision, N).
    rows = tune_rows(sorted(final.path.glob("E13_*float*.csv")), "final") + \
        tune_rows(sorted(p for p in sweep.path.glob("E13_*.csv") if "float" not in p.name), "sweep")
    e13 = {"command": "nbody tune --engine E --precision P --n N --blocks ... --unrolls ... --ipts ... --repeats R "
                      "(tools/gpu/h100_batch.sh sweep/final)",
           "cache": "the best shape per (device, driver, engine, precision, N) is stored in NBODY_TUNE_CACHE; "
                    "results/E13_tune_cache.json is the cache the final batch ended with"}
    write_results("E13_tuned_launch_all", rows, tune_cols, title("E13_tuned_launch", E13_ALL), [sweep, final], e13)
    write_results("E13_tuned_launch", best_shapes(rows), E13_BEST_COLS, title("E13_tuned_launch", E13_BEST),
                  [sweep, final], e13)
    cache = json.loads((sweep.path / "tune_cache.json").read_text())
    cache.update({k: v for k, v in json.loads((final.path / "tune_cache.json").read_text()).items()})
    (RESULTS / "E13_tune_cache.json").write_text(json.dumps(cache, indent=2) + "\n")

    # The logs kept as evidence.
    keep = {check: ["steps.log", "provenance.txt", "build_info.json", "tests_gpu.log", "sanitizer_memcheck.log",
                    "sanitizer_racecheck.log", "sanitizer_summary.log", "quick_timings.csv", "clocks.csv"],
            sweep: ["steps.log", "provenance.txt", "build_info.json", "tests_float.log", "sanitizer_memcheck_ipt8.log",
                    "sanitizer_racecheck_ipt8.log", "ncu_float_u8_i4.txt", "ncu_float_u8_i8.txt", "ncu_double_u8_i2.txt",
                    "clocks.csv", "E13.log"],
            final: ["steps.log", "provenance.txt", "build_info.json", "tests_gpu.log", "sanitizer_memcheck.log",
                    "sanitizer_racecheck.log", "ncu_float_full.txt", "clocks.csv"]}
    for batch, names in keep.items():
        dest = batch.evidence
        dest.mkdir(parents=True, exist_ok=True)
        for name in names:
            if (batch.path / name).is_file():
                shutil.copy(batch.path / name, dest / name)
        full = batch.path / "tests_gpu_full.log"
        if full.is_file():  # the achieved norm of every engine check, worst per engine and precision
            worst = {}
            for line in full.read_text().splitlines():
                if "norm = " in line and "--launch" in line:
                    eng = line.split("'")[1].split(" --launch")[0]
                    norm = float(line.split("norm = ")[1].split(",")[0])
                    tol = float(line.split("tolerance ")[1].split("'")[0])
                    key = (eng, tol)
                    worst[key] = max(worst.get(key, 0.0), norm)
            with open(dest / "tests_worst_norms.csv", "w") as f:
                f.write("engine,tolerance,worst_norm\n")
                for (eng, tol), v in sorted(worst.items()):
                    f.write(f"{eng},{tol:g},{v:.3g}\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
