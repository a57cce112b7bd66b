"""E09's check of the GPU engines against `simple`: nbody_tests on the tests tagged [gpu], every
assertion reported (-s), reduced to the worst norm of each GPU engine per tolerance (that is, per
precision; nbodylab/norms.py reads the comparisons). Writes FOLDER/E09_gpu_time_vs_n_test_norms.csv
(engine, tolerance, worst_norm) and its .meta.json (the command, the tests' summary, what they
skipped). A test that fails fails the script: its norms are no result.

nbody_tests is the test binary of nbody's build: tests/nbody_tests beside nbody (build/), or
nbody_tests itself beside it (a carried build, tools/gpu/prepare_carry.sh).

The runner runs it (experiments/E09_gpu_time_vs_n_test_norms.toml: kind = "script", requires =
"cuda").

Usage: python3 experiments/gpu_test_norms.py --nbody NBODY --out FOLDER [--tests SPEC]
Standard output: one line.
"""
import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from nbodylab import files, norms, provenance

PRODUCER = "experiments/gpu_test_norms.py"
NAME = "E09_gpu_time_vs_n_test_norms"
TITLE = "The worst norm of each GPU engine against `simple` in nbody_tests' GPU tests"


def test_binary(nbody):
    """nbody_tests of nbody's build (build/tests/), or beside nbody (a carried build); None if neither."""
    here = Path(nbody).parent
    # Absolute: the tests run in a folder of their own.
    return next((p.resolve() for p in (here / "tests" / "nbody_tests", here / "nbody_tests") if p.is_file()), None)


def gpu_engines(nbody):
    """The engines of this build that run on a GPU (`nbody list engines --json`)."""
    out = subprocess.run([nbody, "list", "engines", "--json"], check=True, capture_output=True, text=True).stdout
    return {e["name"] for e in json.loads(out) if e["device"] != "cpu"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nbody", required=True)
    ap.add_argument("--out", required=True, help="the folder to write the results into")
    ap.add_argument("--tests", default="[gpu]", help="nbody_tests' test spec (default: the tag [gpu])")
    a = ap.parse_args()
    tests = test_binary(a.nbody)
    if tests is None:
        print(f"{NAME}: no nbody_tests in {Path(a.nbody).parent}/tests/ or beside {a.nbody} (make build)",
              file=sys.stderr)
        return 2
    # The compact reporter puts each assertion on one line with its messages: the engine and its
    # norm together (nbodylab/norms.py). Its output is read as it comes: the tree tests alone make
    # hundreds of thousands of lines.
    cmd = [str(tests), a.tests, "-s", "-r", "compact"]
    summary, skipped = [], set()

    def watched(stream):
        for line in stream:
            if line.startswith(("Passed", "Failed", "No tests")):
                summary.append(line.strip())
            if "SKIPPED" in line:  # a device or back end a test did not find
                skipped.add(line[line.index("SKIPPED"):].strip().rstrip("'"))
            yield line

    with tempfile.TemporaryDirectory(prefix=f"{NAME}-") as tmp:  # whatever the tests write
        with subprocess.Popen(cmd, cwd=tmp, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace") as run:
            worst = norms.worst(watched(run.stdout))
    shown = shlex.join(["nbody_tests", *cmd[1:]])
    if run.returncode != 0:
        print(f"{NAME}: {shown} failed (exit {run.returncode}): {summary[-1] if summary else 'no summary'}",
              file=sys.stderr)
        return 1
    gpu = gpu_engines(a.nbody)
    rows = norms.rows({key: v for key, v in worst.items() if key[0] in gpu})
    if not rows:
        print(f"{NAME}: {shown} compared no GPU engine with `simple` ({'; '.join(sorted(skipped)) or 'no skips'})",
              file=sys.stderr)
        return 1
    sections = {"parameters": {"command": shown, "summary": summary, "skipped": sorted(skipped),
                               "norm": "max_i |a_i - a_i,ref| / sum_j |a_ij| against the `simple` engine in the "
                                       "same precision, the worst over the run's comparisons of the engine"},
                "nbody": {"build_info": provenance.build_info(a.nbody),
                          "tests": {"path": provenance.display(tests), "sha256": provenance.sha256_file(tests)}},
                "host": provenance.host()}
    files.write_csv(Path(a.out) / f"{NAME}.csv", norms.HEADER, rows,
                    provenance.results_meta(NAME, TITLE, PRODUCER, norms.HEADER,
                                            [PRODUCER, f"experiments/{NAME}.toml"], **sections))
    print(f"{NAME}: {len(rows)} engine and tolerance pairs of {len({r[0] for r in rows})} GPU engines; "
          f"{summary[-1] if summary else ''}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
