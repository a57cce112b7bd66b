"""E24's reducer: every GPU rate of E09 against the arithmetic limit of the pipe its inner loop
runs on, on the GPU E09 ran on: SMs x lanes of that pipe per SM x SM clock / issue slots per
interaction. The SMs and the compute capability come from E09's build record of the device, the
clock from the row (the runner's sample under load) or else from nvidia-smi at E09's start, the
slots per interaction from the compiled inner loops (SASS; the paper's GPU section counts them).
Writes E24_roofline.csv and its .meta.json into --out.

Usage: python3 experiments/roofline.py --out FOLDER      (the runner runs it: kind "derived")
Standard library only. Standard output: one line.
"""
import argparse
import sys
from pathlib import Path

from nbodylab import RESULTS_DIR, files, provenance

NAME = "E24_roofline"
SOURCE = "E09_gpu_time_vs_n"
PRODUCER = "experiments/roofline.py"
TITLE = "GPU engines against the GPU's FP32/FP64 limits (roofline)"
# FP32 and FP64 lanes per SM by compute capability (NVIDIA's CUDA C++ Programming Guide,
# "Arithmetic Instructions" throughput table: results per clock per SM).
LANES = {"7.0": (64, 32), "7.5": (64, 2), "8.0": (64, 32), "8.6": (128, 2), "8.7": (128, 2), "8.9": (128, 2),
         "9.0": (128, 64)}
# Issue slots per interaction in the compiled inner loops. float: 3 FADD + 6 FFMA + 3 FMUL + 1
# MUFU.RSQ; double: 3 DADD + 9 DFMA + 4 DMUL (+ MUFU.RSQ64H on the XU pipe); dd: about 270 FP64
# operations (PTX of the tiled kernel). cuda-pairs evaluates each pair once for two interactions:
# 16 FP32 + 1 MUFU in float, 20 FP64 in double per pair (its lane exchange not counted).
OPS = {"float": ("fp32", 13), "double": ("fp64", 16), "dd": ("fp64", 270)}
PAIRS_OPS = {"float": ("fp32", 8.5), "double": ("fp64", 10)}
COLUMNS = ["engine", "precision", "n", "interactions_per_s", "pipe", "ops_per_interaction", "sm_clock_mhz",
           "pipe_limit_interactions_per_s", "fraction_of_limit", "gflops_20"]


def start_clock_mhz(meta):
    """The SM clock nvidia-smi reported when E09 started ("1980 MHz"), else None."""
    for gpu in meta.get("host", {}).get("nvidia_smi") or []:
        text = str(gpu.get("clocks.sm", "")).split()
        if text and text[0].replace(".", "", 1).isdigit():
            return float(text[0])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    out = Path(ap.parse_args().out)
    rows, meta = files.read_csv(RESULTS_DIR / f"{SOURCE}.csv"), files.read_json(RESULTS_DIR / f"{SOURCE}.meta.json")
    device = meta["nbody"]["build_info"]["host"].get("cuda") or {}
    capability = str(device.get("compute_capability", ""))
    if capability not in LANES or not device.get("multiprocessors"):
        print(f"{PRODUCER}: results/{SOURCE}.meta.json names no CUDA device this knows the lanes of "
              f"(compute capability {capability or 'none'}; known: {', '.join(LANES)})", file=sys.stderr)
        return 2
    sms, (fp32, fp64) = int(device["multiprocessors"]), LANES[capability]
    fallback = start_clock_mhz(meta) or device["max_sm_clock_khz"] / 1000
    table = []
    for r in rows:
        if not r["engine"].startswith(("cuda-", "opencl-")) or r["precision"] not in OPS:
            continue
        pipe, ops = (PAIRS_OPS if r["engine"] == "cuda-pairs" else OPS)[r["precision"]]
        mhz = float(r.get("gpu_sm_clock_mhz") or fallback)
        limit = sms * (fp32 if pipe == "fp32" else fp64) * mhz * 1e6 / ops
        rate = float(r["interactions_per_s"])
        table.append([r["engine"], r["precision"], r["n"], repr(rate), pipe, f"{ops:g}", f"{mhz:g}", f"{limit:.6g}",
                      f"{rate / limit:.6g}", f"{rate * 20 / 1e9:.6g}"])
    parameters = {"device": device.get("device"), "compute_capability": capability, "multiprocessors": sms,
                  "lanes_per_sm": {"fp32": fp32, "fp64": fp64},
                  "limit": "interactions/s = SMs x lanes x SM clock / issue slots per interaction",
                  "ops_per_interaction": OPS, "ops_per_interaction_cuda_pairs": PAIRS_OPS,
                  "sm_clock_mhz": f"per row: E09's gpu_sm_clock_mhz where sampled under load, else {fallback:g} "
                                  "(nvidia-smi at E09's start)"}
    files.write_csv(out / f"{NAME}.csv", COLUMNS, table, provenance.results_meta(
        NAME, TITLE, PRODUCER, COLUMNS, [f"results/{SOURCE}.csv", PRODUCER], parameters=parameters))
    print(f"{NAME}: {len(table)} GPU rows of {SOURCE} on {device.get('device')} ({sms} SMs, sm_{capability})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
