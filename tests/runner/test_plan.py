"""`runner.py plan` says, without running anything, what `runner.py all` would do on this machine
with each experiment: run it, reuse its committed results, or skip it, with the reason. On the
machine CI runs on, no experiment may be skipped (a skip is a hand step: results nobody can make
here and none committed). An experiment whose results are missing and cannot be made here is
said to be skipped, and why; `runner.py run` refuses it in one line. --force never replaces the
results of a larger profile; --requiring cuda takes the GPU experiments alone. The requirements an
experiment may name are checked against a
machine's `nbody --build-info`. Run by CTest
(tests/CMakeLists.txt) with the built nbody."""
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
import runner  # noqa: E402
from nbodylab import requirements, spec  # noqa: E402


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    return ok


def plan(nbody, *flags):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = runner.main(["plan", "--nbody", nbody, *flags])
    return rc, out.getvalue().splitlines(), err.getvalue()


def main():
    nbody = sys.argv[1]
    ok = True
    ids = spec.experiment_ids()
    rc, lines, err = plan(nbody)
    actions = {line.split()[0]: line.split()[1] for line in lines[:-1] if line.strip()}
    ok &= check(f"plan exits 0 with one line per experiment ({len(ids)}) and a count",
                rc == 0 and sorted(actions) == ids and lines[-1].startswith("default profile on this machine:"))
    order = list(actions)
    ok &= check("in dependency order: E13's tuning before E09, which reads its cache, and E09 before E24, "
                "derived from it", order.index("E13_tuned_launch") < order.index("E09_gpu_time_vs_n")
                < order.index("E24_roofline"))
    skipped = [i for i, a in actions.items() if a == "skip"]
    ok &= check(f"every experiment is run or reused here, none skipped (skipped: {skipped})",
                set(actions.values()) <= {"run", "reuse"} and not skipped)

    rc, lines, err = plan(nbody, "--force")
    forced = {line.split()[0]: line.split()[1] for line in lines[:-1] if line.strip()}
    metas = {i: spec.ROOT / "results" / f"{i}.meta.json" for i in ids}
    larger = [i for i, m in metas.items() if m.is_file() and json.loads(m.read_text()).get("profile") == "full"]
    ok &= check(f"--force reuses, never replaces, the results of the larger profile full ({larger})",
                rc == 0 and larger and all(forced[i] == "reuse" for i in larger))

    rc, lines, err = plan(nbody, "--requiring", "cuda")
    chosen = [line.split()[0] for line in lines[:-1] if line.strip()]
    need = [i for i in ids if "cuda" in spec.load(i, "default").requires]
    ok &= check(f"--requiring cuda: the {len(need)} experiments that need CUDA and E24, derived from E09 alone",
                rc == 0 and sorted(chosen) == sorted(need + ["E24_roofline"]) and "E01_two_body_convergence" not in chosen)

    h100 = {"build": {"mpi": None}, "host": {"features": ["cuda"], "cuda": {"compute_capability": "9.0"}}}
    cpu = {"build": {"mpi": None}, "host": {"features": []}}
    ok &= check("requirements: sm>=90 and sm>=80 met by compute capability 9.0, sm>=100 not, saying why",
                requirements.lacking(h100, "sm>=90") is None and requirements.lacking(h100, "sm>=80") is None
                and "10.0 or later is needed, this one is 9.0" in requirements.lacking(h100, "sm>=100"))
    ok &= check("requirements: a build without a CUDA device lacks cuda and sm>=70; gpus>=1 as nvidia-smi counts",
                all(requirements.lacking(cpu, r) for r in ("cuda", "sm>=70"))
                and (requirements.cuda_devices(cpu) > 0) == (requirements.lacking(cpu, "gpus>=1") is None))
    ok &= check("requirements: an unknown one is refused at load, naming the known ones",
                "known: cuda, opencl, mpi, ncu, gpus>=N, sm>=XY" in requirements.check("gpus>4")
                and requirements.check("gpus>=4") is None and requirements.check("sm>=8") is not None)

    with tempfile.TemporaryDirectory() as tmp:
        spec.EXPERIMENTS_DIR = Path(tmp)
        (Path(tmp) / "E90_plan.toml").write_text('title = "computed from E89_plan"\nkind = "derived"\n'
                                                 'derived_from = ["E89_plan"]\nscript = "experiments/roofline.py"\n')
        (Path(tmp) / "E89_plan.toml").write_text('title = "what E90_plan reads"\nrequires = "gpus>=64"\n'
                                                 '[fixed]\nic = "kepler"\nt-end = "1P"\n[sweep]\ndt = ["P/64"]\n')
        (Path(tmp) / "E91_plan.toml").write_text('title = "runs"\n[fixed]\nic = "kepler"\nt-end = "1P"\n'
                                                 '[sweep]\ndt = ["P/64"]\n')
        rc, lines, err = plan(nbody)
        ok &= check("a derived experiment whose inputs cannot be made here: skipped, saying which",
                    rc == 0 and lines[1].split()[:2] == ["E90_plan", "skip"] and "results/E89_plan.csv" in lines[1])
        ok &= check("an experiment without committed results: run",
                    lines[2].split()[:2] == ["E91_plan", "run"] and "no committed results" in lines[2])
        ok &= check("nothing written", not list(spec.ROOT.joinpath("results").glob("E[89][901]_plan*")))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
