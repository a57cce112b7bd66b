#!/usr/bin/env python3
"""Helpers of tests/gpu/check.sh (`make gpu-check`).

  check.py cases NBODY [--quick] [--families allpairs,resident,tree,shortrange,potential,mpi]
      the compute-sanitizer cases, one a line: family TAB tool TAB label TAB nbody's arguments
      (family mpi: to be run under `mpiexec -n 2`).
      Read from the binary itself (`nbody list engines --json [--precision P]`, `nbody tune --help`,
      `nbody dpd --help`, `nbody cells --help`), so that a new CUDA engine, knob or cell-list
      builder is covered without editing this file.
  check.py device NAME < BUILD_INFO_JSON
      what `nbody --build-info` says is missing for the GPU checks ("CUDA device for NAME (...)"),
      or nothing: its build.cuda_compiler_found and host.features (the GPU back ends with a device).
  check.py norms TEST_LOG
      the worst norm per engine and tolerance of nbody_tests' engine comparisons (CSV).
  check.py ranks NBODY MPIEXEC DIR
      every CUDA engine that MPI ranks split (mpi:ENGINE, and mpi-ring:ENGINE where it splits by
      blocks of bodies), float and double: a short run on two ranks sharing the GPU against the
      same run in one process, bit for bit; a line per comparison, rows in DIR/ranks_results.tsv.
  check.py summary DIR
      DIR/summary.txt from DIR/tests_result_*.txt, DIR/sanitizer_results.tsv and
      DIR/ranks_results.tsv; exits 1 when a test failed, a sanitizer reported an error, ranks
      and one process differ or a run failed.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
from nbodylab import norms as worst_norms  # noqa: E402  (the one reading of the norms, E09's too)

TOOLS = ("memcheck", "racecheck", "synccheck")
FAMILIES = ("allpairs", "resident", "tree", "shortrange", "potential", "mpi")
RANKS = ["-n", "2", "--oversubscribe"]  # two ranks sharing the one GPU; mpiexec runs them
RANKS_RUN = ["run", "--ic", "plummer", "--n", "5000", "--seed", "4", "--integrator", "rk4", "--dt", "0.001",
             "--t-end", "0.02", "--eps", "0.01", "--stepping", "host", "--quiet"]  # N a multiple of no block
CLAMP = ["--r-min", "0.05"]  # seed S0's minimum-distance clamp: its branch of every force kernel
N = "333"  # bodies: several blocks of every size tried, the last one partial


def nbody_out(nbody, *args):
    return subprocess.run([nbody, *args], check=True, capture_output=True, text=True).stdout


def engines(nbody, precision=None):
    extra = ["--precision", precision] if precision else []
    return json.loads(nbody_out(nbody, "list", "engines", "--json", *extra))


def dedupe(values):
    return list(dict.fromkeys(str(v) for v in values))


def two_values(key, valid):
    """The two values of a launch knob the sanitizers run, from the kernel's spec as `nbody list
    engines` gives it: a block of one warp and of three (not a power of two); split 1 and 3 (a
    remainder); of an explicit list its first and last entry (the compiled variants' ends)."""
    v = valid.replace(" ", "")
    low = re.match(r"\d+", v)
    if "..." in v:  # an arithmetic list, "32,64,...,256": its first and third term
        terms = v.split(",")
        a, b, last = int(terms[0]), int(terms[1]), int(terms[-1])
        return dedupe([a, min(a + 2 * (b - a), last)])
    if low and (".." in v or "ormore" in v):  # a range from a lower bound
        lo = int(low.group())
        return dedupe([max(lo, 32), max(lo, 96)]) if key == "block" else dedupe([lo, lo + 2])
    terms = v.split(",")
    return dedupe([terms[0], terms[-1]])


def split_engines(registry):
    """The CUDA engines MPI ranks split: by blocks of bodies (block_forces) or by passes (cuda-pairs'
    pass_forces)."""
    return [e for e in registry if e["device"] == "cuda" and (e["block_forces"] or e["pass_forces"])]


def builders(help_text, flag):
    """The cell-list builders a subcommand's help names for FLAG ("one of a, b, c ...")."""
    m = re.search(re.escape(flag) + r"\b.*?one of ([a-z0-9, -]+)", help_text, re.S)
    return [b for b in (x.strip() for x in m.group(1).split(",")) if b and b != "cpu"] if m else []


def cases(nbody, quick, families):
    out = []

    def add(family, label, args, tools=TOOLS):
        if family in families:
            out.extend((family, t, label, args) for t in tools)

    registry = [e for e in engines(nbody) if e["device"] == "cuda"]
    precisions = dedupe(p for e in registry for p in e["precisions"])
    spec = {p: {e["name"]: e for e in engines(nbody, p)} for p in precisions}  # knob values differ per precision
    tune_help = nbody_out(nbody, "tune", "--help")

    # All-pairs engines: `nbody tune` runs every combination of two values of each knob in one
    # process, with and without the clamp (quick: the first precision, one value, the clamp on).
    for e in (e for e in registry if e["tree"] == "none"):
        for p in e["precisions"][:1] if quick else e["precisions"]:
            knobs = [(k["key"], two_values(k["key"], k["valid"])) for k in spec[p][e["name"]]["launch"]]
            knobs = [(k, vals[-1:] if quick else vals) for k, vals in knobs]
            base = ["--engine", e["name"], "--precision", p, "--n", N, "--repeats", "1"]
            if all(f"--{k}s " in tune_help for k, _ in knobs):
                args = ["tune", *base, "--no-store"]
                for k, vals in knobs:
                    args += [f"--{k}s", ",".join(vals)]
                label = " ".join([e["name"], p] + [f"{k}s={','.join(v)}" for k, v in knobs])
                for clamp in ([True] if quick else [False, True]):
                    add("allpairs", label + (" clamp" if clamp else ""), args + (CLAMP if clamp else []))
            else:  # a knob `nbody tune` cannot sweep: `nbody bench` with each end of every knob
                for i in ([-1] if quick else [0, -1]):
                    shape = ",".join(f"{k}={vals[i]}" for k, vals in knobs)
                    clamp = i == -1
                    add("allpairs", f"{e['name']} {p} {shape}" + (" clamp" if clamp else ""),
                        ["bench", *base, *(["--launch", shape] if shape else []), *(CLAMP if clamp else [])])

    # Device-resident steps of the all-pairs engines: the stages and the step-size controller in
    # float and double, fixed steps, the clamp; the cluster barrier (clusters of 8) under a
    # controller and under Adams-Bashforth of two orders; one pass per block and many.
    allpairs = [e["name"] for e in registry if e["tree"] == "none"]
    if allpairs:
        engine = "cuda-split" if "cuda-split" in allpairs else allpairs[0]
        small = ["run", "--ic", "plummer", "--n", "97", "--seed", "3", "--eps", "0.01", "--engine", engine,
                 "--stepping", "device", "--t-end", "0.02", "--diag-every", "0.01"]
        resident = [("float dopri5", ["--precision", "float", "--integrator", "dopri5", "--tol", "1e-8"]),
                    ("double dop853 clamp", ["--precision", "double", "--integrator", "dop853", "--tol", "1e-8", *CLAMP]),
                    ("double adams-bashforth cluster=8",
                     ["--precision", "double", "--integrator", "adams-bashforth", "--dt", "1e-3", "--launch", "cluster=8"]),
                    ("float rk4", ["--precision", "float", "--integrator", "rk4", "--dt", "1e-3"]),
                    ("double dopri5 cluster=8",
                     ["--precision", "double", "--integrator", "dopri5", "--tol", "1e-8", "--launch", "cluster=8"]),
                    ("double adams-bashforth order 4 cluster=8",
                     ["--precision", "double", "--integrator", "adams-bashforth", "--order", "4", "--dt", "1e-3",
                      "--launch", "cluster=8"]),
                    ("double rk4 block=32,split=1",
                     ["--precision", "double", "--integrator", "rk4", "--dt", "1e-3", "--launch", "block=32,split=1"]),
                    ("double adams-bashforth block=64,split=64",
                     ["--precision", "double", "--integrator", "adams-bashforth", "--dt", "1e-3",
                      "--launch", "block=64,split=64"])]
        for label, extra in resident[:1] if quick else resident:
            add("resident", f"{engine} {label}", small + extra)

    # Tree engines: two shapes in each precision, every knob at
    # its low end with leaves of 1, then at its high end with leaves of 8, the other tree
    # parameters' second choice and the clamp; the tree built on the host once per engine that can;
    # device-resident leapfrog steps on the octree engines.
    tree_values = {"--lambda-crit": ("2", "2"), "--theta": ("0.5", "0.5"), "--moments": ("monopole", "quadrupole"),
                   "--leaf-size": ("1", "8"), "--split-axis": ("cycle", "longest")}
    for e in (e for e in registry if e["tree"] != "none"):
        base = ["bench", "--engine", e["name"], "--n", N, "--repeats", "1", "--ic", "two-galaxies"]
        flags = [t["flag"] for t in e["tree_parameters"] if t["flag"] in tree_values]
        for p in e["precisions"][:1] if quick else e["precisions"]:
            knobs = [(k["key"], two_values(k["key"], k["valid"])) for k in spec[p][e["name"]]["launch"]]
            for i in ([1] if quick else [0, 1]):
                # host_build stays 0: the GPU's own build is the code under test
                shape = ",".join(f"{k}={'0' if k == 'host_build' else vals[-1 if i else 0]}" for k, vals in knobs)
                params = [x for f in flags for x in (f, tree_values[f][i])]
                add("tree", f"{e['name']} {p} {shape} {' '.join(params)}" + (" clamp" if i else ""),
                    base + ["--precision", p] + (["--launch", shape] if shape else []) + params + (CLAMP if i else []))
        if not quick and any(k["key"] == "host_build" for k in e["launch"]):
            p = e["precisions"][-1]
            params = [x for f in flags for x in (f, tree_values[f][0])]
            add("tree", f"{e['name']} {p} block=64,host_build=1 {' '.join(params)}",
                base + ["--precision", p, "--launch", "block=64,host_build=1"] + params)
        if e["tree"] == "octree":
            add("tree", f"{e['name']} float leapfrog on the device",
                ["run", "--engine", e["name"], "--precision", "float", "--ic", "plummer", "--n", N, "--integrator",
                 "leapfrog", "--dt", "0.01", "--t-end", "0.05", "--stepping", "device"])

    # Short-range methods: DPD on the GPU with every cell-list builder (boxes
    # of 1 and of 4-5 cells a side, two species), each builder alone in `nbody cells` (random order
    # and a step's moves), SPH's three cases on the GPU.
    if "shortrange" in families:
        for b in builders(nbody_out(nbody, "dpd", "--help"), "--cell-list"):
            dpd = ["dpd", "--engine", "cuda", "--cell-list", b, "--steps", "3", "--species", "2", "--a", "25,40,40,25"]
            runs = [("memcheck", "float", "1"), ("memcheck", "float", "4,4.5,5"), ("memcheck", "double", "1"),
                    ("memcheck", "double", "4,4.5,5"), ("racecheck", "float", "4,4.5,5"), ("synccheck", "float", "4,4.5,5")]
            for tool, p, box in (r for r in runs if not quick or (r[1], r[2]) == ("float", "4,4.5,5")):
                add("shortrange", f"dpd {b} {p} box {box}", dpd + ["--precision", p, "--box", box], [tool])
        for b in builders(nbody_out(nbody, "cells", "--help"), "--builder"):
            runs = [("memcheck", "random"), ("memcheck", "step"), ("racecheck", "random"), ("synccheck", "step")]
            for tool, order in runs[1:2] if quick else runs:
                add("shortrange", f"cells {b} {order}", ["cells", "--builder", b, "--n", "5000", "--order", order,
                                                         "--repeats", "1"], [tool])
        sph = [("memcheck", "float", "dam-break", "0.1", "2e-3"), ("memcheck", "double", "dam-break", "0.1", "2e-3"),
               ("memcheck", "float", "dam-break-3d", "0.1", "2e-3"), ("memcheck", "double", "poiseuille", "5e-5", "5e-3"),
               ("racecheck", "float", "dam-break-3d", "0.1", "2e-3"), ("synccheck", "float", "dam-break-3d", "0.1", "2e-3")]
        for tool, p, case, dx, t_end in (r for r in sph if not quick or r[2:3] == ("dam-break-3d",)):
            add("shortrange", f"sph {case} {p}", ["sph", "--engine", "cuda", "--precision", p, "--case", case,
                                                 "--dx", dx, "--t-end", t_end], [tool])

    # Potentials on the GPU (`nbody potential`): one node, part of a tile, many tiles.
    direct = [e for e in registry if e["body_potentials"] == "direct_device"]
    if direct:
        e = direct[0]
        runs = [("memcheck", "float", "2", "1000"), ("memcheck", "double", "30", "129"), ("memcheck", "dd", "9", "300"),
                ("racecheck", "float", "30", "1000"), ("racecheck", "double", "9", "129"),
                ("synccheck", "float", "30", "1000"), ("synccheck", "dd", "9", "300")]
        runs = [r for r in runs if r[1] in e["precisions"] and (not quick or r[1] == "float")]
        for i, (tool, p, nodes, n) in enumerate(runs):
            add("potential", f"{e['name']} {p} {nodes}x{nodes} nodes n={n}",
                ["potential", "--engine", e["name"], "--precision", p, "--ic", "plummer", "--n", n, "--eps", "0.01",
                 "--resolution", nodes, "--out", f"potential_{i}.csv"], [tool])

    # MPI ranks sharing the GPU, each computing its block of bodies (or cuda-pairs its passes):
    # the kernels on a body range that is not the whole.
    for e in split_engines(registry):
        p = "double" if "double" in e["precisions"] else e["precisions"][0]
        add("mpi", f"2 ranks mpi:{e['name']} {p}",
            ["bench", "--engine", f"mpi:{e['name']}", "--precision", p, "--n", "3000", "--repeats", "1",
             *(["--launch", "split=4"] if e["pass_forces"] else [])], TOOLS[:1] if quick else TOOLS)
    return out


def bounded(cmd, seconds=300):
    """A run of at most `seconds` (an mpiexec that never answers is a failed run, rc 124)."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired as e:
        said = [x.decode(errors="replace") if isinstance(x, bytes) else (x or "") for x in (e.stdout, e.stderr)]
        return subprocess.CompletedProcess(cmd, 124, said[0], said[1] + f"\nstopped after {seconds} s\n")


def ranks(nbody, mpiexec, folder):
    """Two ranks against one process, bit for bit (the final states' CSV), for every engine MPI
    splits, float and double; rows engine, precision, same|DIFFERENT|failed, rc of the ranks' run."""
    d = Path(folder)
    (d / "scratch").mkdir(exist_ok=True)
    rows, bad = [], 0
    for e in split_engines(engines(nbody)):
        for p in (p for p in ("float", "double") if p in e["precisions"]):
            one = d / "scratch" / "one.csv"
            base = bounded([nbody, *RANKS_RUN, "--engine", e["name"], "--precision", p, "--final-state", str(one)])
            for split in ["mpi", *(["mpi-ring"] if e["block_forces"] else [])]:
                many = d / "scratch" / "many.csv"
                run = bounded([mpiexec, *RANKS, nbody, *RANKS_RUN, "--engine", f"{split}:{e['name']}", "--precision", p,
                               "--final-state", str(many)])
                log = d / "logs" / f"ranks-{split}-{e['name']}-{p}.log"
                log.write_text(base.stdout + base.stderr + run.stdout + run.stderr)
                if base.returncode or run.returncode or not many.is_file():
                    result = "failed"
                else:
                    result = "same" if many.read_bytes() == one.read_bytes() else "DIFFERENT"
                bad += result != "same"
                rows.append([f"{split}:{e['name']}", p, result, str(run.returncode), log.name])
                print(f"gpu-check ranks: 2 ranks {split}:{e['name']} {p} against one process: {result}", flush=True)
                many.unlink(missing_ok=True)
    (d / "ranks_results.tsv").write_text("".join("\t".join(r) + "\n" for r in rows))
    return 1 if bad else 0


def device(name, info):
    host = info.get("host", {})
    if not info.get("build", {}).get("cuda_compiler_found"):
        return f"CUDA in {name} (built without nvcc)"
    if "cuda" not in host.get("features", []):
        cuda = host.get("cuda")
        why = f"host.cuda.reason: {cuda['reason']}" if cuda and cuda.get("reason") else "host.cuda: null"
        return f"CUDA device for {name} (--build-info host.features: {','.join(host.get('features', [])) or 'none'}, {why})"
    return ""


def norms(log):
    """The worst norm per engine and tolerance of a test log, as CSV (experiments/nbodylab/norms.py)."""
    with open(log, errors="replace") as f:
        table = worst_norms.rows(worst_norms.worst(f))
    print(",".join(worst_norms.HEADER))
    for row in table:
        print(",".join(row))


def summary(folder):
    d = Path(folder)
    lines, bad = [], []
    for t in sorted(d.glob("tests_result_*.txt")):
        r = dict(x.split("=", 1) for x in t.read_text().splitlines() if "=" in x)
        lines.append(f"tests {r['spec']}: {r['total']} test cases, {r['passed']} passed, {r['failed']} failed, "
                     f"{r['skips']} skip messages, nbody_tests rc={r['rc']} (logs/{r['log']})")
        if r["rc"] != "0":
            bad.append(f"{r['failed']} test cases failed" if r["failed"] not in ("0", "?")
                       else f"nbody_tests ended with rc={r['rc']}")
    if (d / "tests_worst_norms.csv").exists():
        lines.append("worst norm per engine and tolerance: tests_worst_norms.csv")
    s = d / "sanitizer_results.tsv"
    if s.exists():
        rows = [x.split("\t") for x in s.read_text().splitlines() if x]
        for tool in TOOLS:
            mine = [r for r in rows if r[2] == tool]
            if not mine:
                continue
            errors = [r for r in mine if r[5] == "errors"]
            failed = [r for r in mine if r[5] == "failed"]
            lines.append(f"{tool}: {len(mine)} runs, {len(errors)} with errors "
                         f"({sum(int(r[6]) for r in errors if r[6].isdigit())} reported), {len(failed)} failed to run")
            if errors:
                bad.append(f"{tool} reported errors")
            if failed:
                bad.append(f"{tool} runs failed")
        for r in rows:
            if r[5] != "ok":
                lines.append(f"  {r[5]}: {r[2]} {r[3]} (rc={r[4]}; logs/{r[7]})")
    r = d / "ranks_results.tsv"
    if r.exists():
        rows = [x.split("\t") for x in r.read_text().splitlines() if x]
        off = [x for x in rows if x[2] != "same"]
        lines.append(f"ranks: {len(rows)} runs on 2 MPI ranks against one process, {len(off)} not the same")
        lines += [f"  {x[2]}: {x[0]} {x[1]} (rc={x[3]}; logs/{x[4]})" for x in off]
        if off:
            bad.append("ranks and one process differ or failed")
    lines.append("result: " + ("FAILED: " + ", ".join(bad) if bad else "passed"))
    (d / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "cases":
        quick = "--quick" in argv
        families = FAMILIES
        if "--families" in argv:
            families = argv[argv.index("--families") + 1].split(",")
        for family, tool, label, args in cases(argv[1], quick, families):
            print("\t".join([family, tool, label, " ".join(args)]))
        return 0
    if len(argv) == 2 and argv[0] == "device":
        print(device(argv[1], json.load(sys.stdin)))
        return 0
    if len(argv) == 2 and argv[0] == "norms":
        norms(argv[1])
        return 0
    if len(argv) == 4 and argv[0] == "ranks":
        return ranks(*argv[1:])
    if len(argv) == 2 and argv[0] == "summary":
        return summary(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
