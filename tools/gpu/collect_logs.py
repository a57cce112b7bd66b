#!/usr/bin/env python3
"""Copies into results/ the numbers that figures and the paper quote from the kept logs of past
device runs (evidence/gpu/logs/), each file with its provenance, so that figures/ reads results/
and nothing else:

    python3 tools/gpu/collect_logs.py

    results/E09_gpu_time_vs_n_test_norms.csv  the worst norm against `simple` per engine and
                                              tolerance of each GPU test run (<batch>/tests_worst_norms.csv)
    results/E24_roofline_nsight_counts.csv    Nsight Compute at N = 2^20: instructions per interaction
                                              (per pair for cuda-pairs) and issue slots busy, float
    results/E05_long_run_gpu_probe.csv        E05's three runs alone, at once, at once under MPS: the
                                              cost per force evaluation (e05_concurrent/per_eval.csv)

Run it again after a collector has kept new logs there (a new tests_worst_norms.csv joins E09's).
"""
from collect_results import LOGS, RESULTS, files, provenance, title

# The Nsight Compute reports behind E24's macros: (engine, launch, what an instruction count is
# per, the report with the issue slots, the instruction count by opcode).
NSIGHT = [("cuda-tiled", "block=512,ipt=2 (the register-cap probe's kernel)", "interaction",
           "regcap_probe/ncu_float_2p20_i2_b512_details.txt",
           "regcap_probe/ncu_float_2p20_i2_b512_by_opcode.txt"),
          ("cuda-pairs", "block=256,ipt=8", "pair",
           "pairs_final/ncu_details_float.txt", "pairs_final/ncu_by_opcode.txt")]


def write(name, exp_id, what, columns, rows, sources, **parameters):
    """results/<name>.csv and its .meta.json (unless they hold these already); `sources`: the log
    files the rows come from."""
    meta = provenance.results_meta(exp_id, title(exp_id, what), __file__, columns, sources,
                                   parameters=parameters)
    written = provenance.write_unless_same(RESULTS / f"{name}.csv", columns, rows, meta)
    print(f"{'wrote' if written else 'unchanged:'} results/{name}.csv ({len(rows)} rows)")


def test_norms():
    paths = sorted(LOGS.glob("*/tests_worst_norms.csv"))
    rows = [[p.parent.name, r["engine"], r["tolerance"], r["worst_norm"]]
            for p in paths for r in files.read_csv(p)]
    write("E09_gpu_time_vs_n_test_norms", "E09_gpu_time_vs_n",
          "the worst norm of each GPU engine against `simple` in the GPU test runs",
          ["batch", "engine", "tolerance", "worst_norm"], rows, paths,
          norm="max_i |a_i - a_i,ref| / sum_j |a_ij| against the `simple` engine in the same precision, "
               "the worst over a test run's comparisons (nbody_tests \"[gpu]\")")


def nsight_counts():
    def first(path, text):
        return next(line for line in (LOGS / path).read_text().splitlines() if text in line)

    rows = [[engine, "float", 1048576, launch, first(details, "Issue Slots Busy").split()[-1],
             first(counts, f"per {per}").split(":")[1].split()[0], per]
            for engine, launch, per, details, counts in NSIGHT]
    write("E24_roofline_nsight_counts", "E24_roofline", "Nsight Compute of the float kernels at N = 2^20",
          ["engine", "precision", "n", "launch", "issue_slots_busy_percent", "instructions", "per"], rows,
          [LOGS / p for _, _, _, *reports in NSIGHT for p in reports],
          instructions="executed thread instructions per interaction (per pair of bodies for cuda-pairs, "
                       "which evaluates each pair once)")


def mps_probe():
    path = LOGS / "e05_concurrent" / "per_eval.csv"
    rows = files.read_csv(path)
    columns = list(rows[0])
    write("E05_long_run_gpu_probe", "E05_long_run", "the probe of running the three methods at once on one "
          "GPU: cost per force evaluation", columns, [[r[c] for c in columns] for r in rows], [path],
          probe="evidence/gpu/probes/e05_concurrent.sh: each case at two lengths; us_per_eval = "
                "(wall_long - wall_short) / (fevals_long - fevals_short)")


if __name__ == "__main__":
    test_norms()
    nsight_counts()
    mps_probe()
