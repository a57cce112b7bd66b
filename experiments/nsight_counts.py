"""E24's Nsight Compute counts of the float all-pairs kernels: for cuda-tiled and cuda-pairs, the
share of the schedulers' issue slots that were busy and the executed instructions per interaction
(per pair for cuda-pairs, which evaluates each pair once), at N = 2^20. Writes
FOLDER/E24_roofline_nsight_counts.csv (engine, precision, n, launch, issue_slots_busy_percent,
instructions, per) and its .meta.json (the ncu commands, its version, each kernel's counts).

Nsight Compute (ncu) profiles the kernel's first launch in `nbody bench --repeats 1`, that of the
warm-up evaluation (for cuda-pairs its first pass over the tile distances, each row's own tile
included). Issue slots busy is the Compute Workload Analysis section's; the instructions come from
the executed warp instructions of every SASS instruction (Source Counters): all of them over those
of opcode MUFU, since an interaction (a pair) takes one reciprocal square root and every lane of a
warp works, so that this is the thread instructions per interaction.

The runner runs it (experiments/E24_roofline_nsight_counts.toml: kind = "script", requires = cuda
and ncu); ncu is found on PATH or in /usr/local/cuda*/bin (nbodylab/requirements.py).

Usage: python3 experiments/nsight_counts.py --nbody NBODY --out FOLDER [--n 1048576]
Standard output: one line per kernel.
"""
import argparse
import csv
import io
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from nbodylab import files, provenance, requirements

PRODUCER = "experiments/nsight_counts.py"
NAME = "E24_roofline_nsight_counts"
TITLE = "Nsight Compute of the float all-pairs kernels: issue slots busy and instructions per interaction"
HEADER = ["engine", "precision", "n", "launch", "issue_slots_busy_percent", "instructions", "per"]
# engine, launch shape, kernel, what one MUFU instruction stands for. cuda-tiled: block 512 with 2
# bodies per thread and the inner loop unrolled 16 times, the kernel of the register-cap probe
# (evidence/gpu/logs/regcap_probe.tar.xz); cuda-pairs: its tuned shape at N = 2^20 (E13).
KERNELS = [("cuda-tiled", "block=512,unroll=16,ipt=2", "tiled_kernel", "interaction"),
           ("cuda-pairs", "block=256,ipt=8", "pairs_kernel", "pair")]
# The sections the two numbers come from, and Instruction Statistics (its total of executed
# instructions, recorded beside the SASS rows' sum); few sections, few replays of a kernel that
# takes half a second at N = 2^20.
SECTIONS = ["ComputeWorkloadAnalysis", "InstructionStats", "SourceCounters"]


class NcuFailed(Exception):
    pass


# Lines of ncu's details page: a metric's name, its unit, its value.
ISSUE_SLOTS_BUSY = re.compile(r"^\s*Issue Slots Busy\s+%\s+([0-9.]+)\s*$", re.M)
EXECUTED = re.compile(r"^\s*Executed Instructions\s+inst\s+([0-9,]+)\s*$", re.M)
LAUNCH = re.compile(r"^\s*(\S.*\), Context \d+.*?)\s*$", re.M)  # the kernel's signature, grid x block, device


def issue_slots_busy(details):
    """Issue Slots Busy (%), as ncu's details page prints it."""
    m = ISSUE_SLOTS_BUSY.search(details)
    if m is None:
        raise NcuFailed("no Issue Slots Busy in ncu's details page")
    return m[1]


def opcode_counts(sass_csv):
    """{opcode without modifiers: executed warp instructions} from ncu's source page (--page source
    --csv --print-source sass): a line naming the kernel, then a row per SASS instruction."""
    lines = sass_csv.splitlines()
    start = next((k for k, line in enumerate(lines) if line.startswith('"Address","Source"')), None)
    if start is None:
        raise NcuFailed("no SASS table in ncu's source page")
    counts = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        words = row["Source"].split()
        if words and words[0].startswith("@"):  # a predicate guard: @P0, @!PT
            words = words[1:]
        if words:
            op = words[0].split(".")[0]
            counts[op] = counts.get(op, 0) + int(row["Instructions Executed"].replace(",", "") or 0)
    return counts


def profile(ncu, nbody, engine, launch, kernel, n, tmp):
    """ncu's details page and SASS table of the kernel's first launch, and the profiling command."""
    report = tmp / f"{engine}.ncu-rep"
    bench = [nbody, "bench", "--engine", engine, "--precision", "float", "--n", str(n), "--repeats", "1",
             "--launch", launch]
    # --clock-control none: the GPU's own clocks, as E09's timings ran (ncu cannot lock them on the
    # lent GPU machines).
    cmd = [ncu, "--clock-control", "none", "--kernel-name", f"regex:{kernel}", "--launch-count", "1",
           *(x for s in SECTIONS for x in ("--section", s)), "-o", str(report.with_suffix("")), "-f", *bench]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0 or not report.is_file():
        said = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
        said = [line for line in said if "==ERROR==" in line] or said or ["no report written"]
        raise NcuFailed(f"ncu on {engine} failed (exit {run.returncode}): {said[-1].strip()}")
    details = subprocess.run([ncu, "-i", str(report), "--page", "details", "--print-details", "all"],
                             check=True, capture_output=True, text=True).stdout
    sass = subprocess.run([ncu, "-i", str(report), "--page", "source", "--csv", "--print-source", "sass"],
                          check=True, capture_output=True, text=True).stdout
    shown = shlex.join(["ncu", *cmd[1:cmd.index("-o") + 1], "REPORT", "-f", "nbody", *bench[1:]])
    return details, sass, shown


def counts(details, sass):
    """(issue slots busy as printed, instructions per MUFU to two decimals, what ncu said of it)."""
    ops = opcode_counts(sass)
    total, mufu = sum(ops.values()), ops.get("MUFU", 0)
    if not mufu:
        raise NcuFailed("no MUFU instruction executed: not a force kernel's counts")
    launch, executed = LAUNCH.search(details), EXECUTED.search(details)
    record = {"kernel": launch and launch[1], "warp_instructions": total, "mufu_warp_instructions": mufu,
              "instruction_statistics_executed": executed and int(executed[1].replace(",", ""))}
    return issue_slots_busy(details), f"{total / mufu:.2f}", record


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nbody", required=True)
    ap.add_argument("--out", required=True, help="the folder to write the results into")
    ap.add_argument("--n", type=int, default=1 << 20, help="bodies (default 2^20)")
    a = ap.parse_args()
    ncu = requirements.ncu()
    if ncu is None:
        print(f"{NAME}: {requirements.lacking({}, 'ncu')}", file=sys.stderr)
        return 2
    version = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    rows, kernels = [], {}
    with tempfile.TemporaryDirectory(prefix=f"{NAME}-") as tmp:
        for engine, launch, kernel, per in KERNELS:
            try:
                details, sass, shown = profile(ncu, a.nbody, engine, launch, kernel, a.n, Path(tmp))
                busy, instructions, record = counts(details, sass)
            except (NcuFailed, subprocess.CalledProcessError) as e:
                print(f"{NAME}: {e}", file=sys.stderr)
                return 1
            rows.append([engine, "float", a.n, launch, busy, instructions, per])
            kernels[engine] = {"command": shown, **record}
            print(f"{NAME}: {engine} {launch}, n = {a.n}: issue slots busy {busy} %, {instructions} instructions "
                  f"per {per}", flush=True)
    sections = {"parameters": {"instructions": "executed warp instructions over those of opcode MUFU (one reciprocal "
                                               "square root per interaction, or per pair of bodies for cuda-pairs): "
                                               "thread instructions per interaction, every lane working",
                               "launch": "the kernel's first launch in `nbody bench --repeats 1` (the warm-up "
                                         "evaluation; cuda-pairs: its first pass over the tile distances)",
                               "sections": SECTIONS, "kernels": kernels},
                "ncu": {"version": version[-1] if version else None},
                "nbody": {"build_info": provenance.build_info(a.nbody)}, "host": provenance.host()}
    files.write_csv(Path(a.out) / f"{NAME}.csv", HEADER, rows,
                    provenance.results_meta(NAME, TITLE, PRODUCER, HEADER, [PRODUCER, f"experiments/{NAME}.toml"],
                                            **sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
