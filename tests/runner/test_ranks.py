"""Points under mpiexec (experiments/nbodylab/mpi.py): the point parameters `ranks` and
`threads_per_rank` are not nbody flags but the launch, checked without running MPI:

- a point with ranks = 4, threads_per_rank = 2 runs `OMP_NUM_THREADS=2 mpiexec -n 4 --bind-to
  core --map-by slot:PE=2 nbody bench ...` (no --ranks flag), its columns carry both, its hash
  differs from the same arguments on other ranks or threads and from a point without ranks (whose
  hash is unchanged); threads_per_rank defaults to cores // ranks; P x T beyond the cores
  oversubscribes;
- what is executed: a stand-in mpiexec on PATH records its arguments and environment
  (OMP_NUM_THREADS, Open MPI's run-as-root permission only when root);
- a case may set a [sweep_vars] variable (the `scaling` column of E25_mpi_scaling.toml);
- bad values (ranks = 0, "two", 2.5, true; in [sweep_vars] or a bundle; threads_per_rank without
  ranks; a convergence experiment with ranks) are refused with one line naming the file;
- requires = "mpi" is provided only by an nbody built with MPI and mpiexec on PATH; `runner.py run`
  of an experiment with ranks on an nbody without MPI ends with exit 2 and one line;
- the other launch parameter, env (bundles of environment variables): env = [{name = "1 thread",
  OMP_NUM_THREADS = 1}, {name = "all threads"}] gives the column `env` (the bundle's name), the
  launch words OMP_NUM_THREADS=1 (none for the second), no flag, hashes that differ by the
  environment, and a run whose environment has the variables (a stand-in nbody records it);
  [fixed] env sets it for every point; experiments/E07_small_n.toml's three environments; bad
  uses (in [sweep_vars], a plain value, a name that is no variable, beside ranks, in a
  convergence experiment) are refused with one line.

Run by CTest (tests/CMakeLists.txt):  test_ranks.py
"""
import contextlib
import io
import json
import os
import stat
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
import runner  # noqa: E402
from nbodylab import bench, mpi, points, requirements, spec  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import report  # noqa: E402

EXP = """title = "ranks"
kind = "bench"
[fixed]
engine = "mpi:openmp-simd"
precision = "double"
threads_per_rank = 2
[sweep]
n = [1024]
ranks = [4, 2]
"""
SCALING = """title = "strong and weak"
kind = "bench"
[fixed]
engine = "mpi:openmp-simd"
threads_per_rank = 1
[sweep_vars]
scaling = ["strong", "weak"]
[[cases]]
scaling = "strong"
n = 8192
ranks = [1, 2]
[[cases]]
scaling = "weak"
n = 4096
ranks = 1
[[cases]]
scaling = "weak"
n = 8192
ranks = 2
"""
PLAIN = """title = "no ranks"
kind = "bench"
[fixed]
engine = "openmp-simd"
[sweep]
n = [1024]
"""
# (what is wrong, the file, words the one-line message must contain)
BAD = [
    ("ranks = 0", EXP.replace("ranks = [4, 2]", "ranks = [4, 0]"), ["ranks must be a whole number >= 1", "0"]),
    ('ranks = "two"', EXP.replace("ranks = [4, 2]", 'ranks = "two"'), ["ranks must be a whole number >= 1", "'two'"]),
    ("ranks = 2.5", EXP.replace("ranks = [4, 2]", "ranks = [2.5]"), ["ranks must be a whole number"]),
    ("ranks = true", EXP.replace("ranks = [4, 2]", "ranks = true"), ["ranks must be a whole number"]),
    ("threads_per_rank = 0", EXP.replace("threads_per_rank = 2", "threads_per_rank = 0"),
     ["[fixed]", "threads_per_rank must be a whole number >= 1"]),
    ("ranks in [sweep_vars]", EXP.replace("[sweep]\nn = [1024]\nranks", "[sweep]\nn = [1024]\n[sweep_vars]\nranks"),
     ["ranks chooses the launch", "[sweep_vars]"]),
    ("ranks in a bundle", EXP.replace("ranks = [4, 2]", 'size = [{name = "a", n = 8, ranks = 2}]').replace("n = [1024]\n", ""),
     ["ranks chooses the launch", "bundle"]),
    ("threads_per_rank without ranks", EXP.replace("ranks = [4, 2]", "seed = [1]"),
     ["sets threads_per_rank but not ranks"]),
    ("ranks in a convergence experiment", 'title = "c"\nkind = "convergence"\n[ladder]\nleave = 1\n'
     '[fixed]\nranks = 2\n[sweep]\nn = [4]\n', ["only kind run, bench and tune", "'convergence'"]),
]
ENV = """title = "threads"
kind = "bench"
[fixed]
engine = "openmp-simd"
[sweep]
n = [2, 256]
env = [{name = "1 thread", OMP_NUM_THREADS = 1}, {name = "all threads"}]
"""
ENV_FIXED = """title = "one environment"
kind = "bench"
[fixed]
engine = "openmp"
env = {name = "team", NBODY_PARALLEL_FROM = 1, OMP_NUM_THREADS = 2}
[sweep]
n = [8]
"""
ENV_BUNDLES = 'env = [{name = "1 thread", OMP_NUM_THREADS = 1}, {name = "all threads"}]'
BAD += [
    ("env in [sweep_vars]", ENV.replace("[sweep]\nn = [2, 256]\nenv", "[sweep]\nn = [2, 256]\n[sweep_vars]\nenv"),
     ["env", "[sweep_vars]"]),
    ("env a plain value", ENV.replace(ENV_BUNDLES, 'env = ["OMP_NUM_THREADS=1"]'), ["env must be bundles of variables"]),
    ("an env name that is no variable", ENV.replace("OMP_NUM_THREADS = 1", '"OMP THREADS" = 1'),
     ["'1 thread'", "not names of environment variables"]),
    ("env beside ranks", ENV.replace('engine = "openmp-simd"', 'engine = "mpi:openmp-simd"\nranks = 2'), ["env and ranks"]),
    ("env in a convergence experiment", 'title = "c"\nkind = "convergence"\n[ladder]\nleave = 1\n'
     '[sweep]\nn = [4]\nenv = [{name = "a", OMP_NUM_THREADS = 1}]\n', ["only kind run, bench and tune", "'convergence'"]),
]
EXPECTED = ["OMP_NUM_THREADS=2", "mpiexec", "-n", "4", "--bind-to", "core", "--map-by", "slot:PE=2"]


def main():
    failures, checks = [], 0

    def check(what, ok):
        nonlocal checks
        checks += 1
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        spec.EXPERIMENTS_DIR = tmp
        points.POINTS_DIR = tmp / "points"
        path = tmp / "E90_ranks.toml"

        def load(text):
            path.write_text(text)
            return spec.load("E90_ranks", "default")

        # 1. The launch of a point with ranks = 4, threads_per_rank = 2, on a 16-core machine.
        exp = load(EXP)
        pts = exp.points()
        p4, p2 = pts
        launch = exp.launch(p4, ncores=16)
        check(f"ranks = 4, threads_per_rank = 2: launched as {' '.join(EXPECTED)} (got {' '.join(launch)})",
              launch == EXPECTED)
        args = exp.run_args(p4)
        check(f"no --ranks or --threads_per_rank flag: {args}",
              args[0] == "bench" and not any("rank" in a for a in args) and "--engine" in args)
        prefix, env = mpi.split(launch)
        check("the launch splits into mpiexec's argv and OMP_NUM_THREADS=2",
              prefix[0] == "mpiexec" and env == {"OMP_NUM_THREADS": "2"})
        check(f"ranks (swept) is a column, threads_per_rank (fixed) is not: {exp.params}", exp.params == ["n", "ranks"])
        check("the point's columns", exp.columns(p4) == {"n": 1024, "ranks": 4})
        check("ranks = 2 on 16 cores: PE=2, no oversubscription",
              exp.launch(p2, ncores=16) == [*EXPECTED[:3], "2", *EXPECTED[4:]])
        check("ranks = 4 x 2 threads on 2 cores: core:overload-allowed and --oversubscribe",
              exp.launch(p4, ncores=2) == ["OMP_NUM_THREADS=2", "mpiexec", "-n", "4", "--bind-to",
                                           "core:overload-allowed", "--map-by", "slot:PE=2", "--oversubscribe"])
        check("threads_per_rank defaults to cores // ranks (16 // 4 = 4)",
              mpi.launch(4, None, 16)[0] == "OMP_NUM_THREADS=4" and "slot:PE=4" in mpi.launch(4, None, 16))
        check("and at least 1 (3 ranks on 2 cores: 1 thread each, oversubscribed)",
              mpi.launch(3, None, 2)[0] == "OMP_NUM_THREADS=1" and "--oversubscribe" in mpi.launch(3, None, 2))
        check(f"ranks = 1 runs under mpiexec too: {mpi.launch(1, 1, 2)}",
              mpi.launch(1, 1, 2)[1:4] == ["mpiexec", "-n", "1"])
        check(f"this machine's physical cores: {mpi.cores()} (>= 1)", mpi.cores() >= 1)

        # 2. The point store: the launch is part of the hash; a point without ranks hashes as before.
        store = points.PointStore("E90_ranks", "ab" * 32, bench.RECORD_FORMAT)
        keys = {(P, T): store.key(bench=args, launch=mpi.launch(P, T, 16)) for P in (1, 2, 4) for T in (1, 2)}
        check("the same nbody arguments on other ranks or threads per rank are other points",
              len(set(keys.values())) == len(keys) and store.key(bench=args) not in keys.values())
        check("a point without ranks hashes as before the launch was hashed",
              store.key(bench=["bench", "--n", "4"]) ==
              points.PointStore("E90_ranks", "ab" * 32, bench.RECORD_FORMAT).key(bench=["bench", "--n", "4"])
              and points.KEY_ORDER.index("launch") > points.KEY_ORDER.index("record_format"))
        plain = load(PLAIN)
        check("a point without ranks has no launch", plain.launch(plain.points()[0]) == [])

        # 3. What is executed: a stand-in mpiexec records its argv and environment, prints a row.
        bindir = tmp / "bin"
        bindir.mkdir()
        record = tmp / "mpiexec.json"
        fake = bindir / "mpiexec"
        fake.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                        f"json.dump({{'argv': sys.argv[1:], 'env': dict(os.environ)}}, open({str(record)!r}, 'w'))\n"
                        "print('engine,n,seconds_per_eval,interactions_per_s\\nmpi:openmp-simd,1024,0.5,2e6')\n")
        fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
        old_path = os.environ.get("PATH", "")
        os.environ["PATH"] = f"{bindir}{os.pathsep}{old_path}"
        before = dict(os.environ)
        try:
            rows, *_ = bench._measure("build/nbody", args, "cmd", "bench", [], launch)
            seen = json.loads(record.read_text())
            check(f"executed: mpiexec {' '.join(seen['argv'][:6])} build/nbody bench ...",
                  seen["argv"] == [*EXPECTED[2:], "build/nbody", *args] and rows[0]["n"] == "1024")
            check("with OMP_NUM_THREADS=2 in its environment", seen["env"].get("OMP_NUM_THREADS") == "2")
            root = os.geteuid() == 0
            check(f"Open MPI's run-as-root permission {'set (root)' if root else 'not set (not root)'}",
                  all((seen["env"].get(k) == "1") == root for k in mpi.ROOT_ENV))
            check("the runner's own environment untouched", dict(os.environ) == before)
            # requires = "mpi"
            info = {"build": {"mpi": "Open MPI v4.1.4"}, "host": {"features": []}}
            check('requires = "mpi": provided by an MPI build with mpiexec on PATH', requirements.lacking(info, "mpi") is None)
            check('not by a build without MPI (build.mpi null)',
                  requirements.lacking({"build": {"mpi": None}, "host": {"features": ["mpi"]}}, "mpi"))
        finally:
            os.environ["PATH"] = old_path
        os.environ["PATH"] = str(tmp / "nowhere")
        try:
            check("nor without mpiexec on PATH", "mpiexec is not on PATH" in (mpi.lacking(info) or ""))
        finally:
            os.environ["PATH"] = old_path

        # 4. A case may set a [sweep_vars] variable: the scaling column of E25.
        exp = load(SCALING)
        cols = [exp.columns(p) for p in exp.points()]
        check(f"a case sets a [sweep_vars] variable: columns {exp.params}, 4 points",
              exp.params == ["n", "ranks", "scaling"] and cols == [
                  {"n": 8192, "ranks": 1, "scaling": "strong"}, {"n": 8192, "ranks": 2, "scaling": "strong"},
                  {"n": 4096, "ranks": 1, "scaling": "weak"}, {"n": 8192, "ranks": 2, "scaling": "weak"}])
        check("which is no flag", all("--scaling" not in exp.run_args(p) for p in exp.points()))
        hashes = [store.key(bench=exp.run_args(p), launch=exp.launch(p, ncores=2)) for p in exp.points()]
        check("the strong and the weak point of the same run share a hash (measured once)",
              hashes[1] == hashes[3] and len(set(hashes)) == 3)

        # 5. Bad values: one line naming the file.
        for what, text, words in BAD:
            try:
                load(text)
                check(f"{what}: refused", False)
                continue
            except spec.SpecError as e:
                message = str(e)
            check(f"{what}: refused in one line naming the file and {words}: {message}",
                  "\n" not in message and "E90_ranks.toml" in message and all(w in message for w in words))

        # 6. runner.py run on an nbody without MPI: exit 2, one line, nothing written.
        nbody = bindir / "nbody"
        nbody.write_text(f"#!{sys.executable}\nimport json\n"
                         "print(json.dumps({'build': {'mpi': None, 'gpu_engines': []}, 'host': {'features': []}}))\n")
        nbody.chmod(nbody.stat().st_mode | stat.S_IXUSR)
        for what, text, words in [("ranks without requires", EXP, ["run under mpiexec", "built without MPI"]),
                                  ('requires = "mpi", no results to reuse', 'requires = "mpi"\n' + EXP,
                                   ["needs mpi", "built without MPI", "no committed results/E90_ranks.csv"])]:
            path.write_text(text)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = runner.main(["run", "E90_ranks", "--nbody", str(nbody)])
            lines = err.getvalue().splitlines()
            check(f"runner.py run, {what}: exit 2, one line naming {words}: {lines}",
                  rc == 2 and len(lines) == 1 and lines[0].startswith("runner: error: ")
                  and all(w in lines[0] for w in words))
        check("no results written", not list(spec.ROOT.joinpath("results").glob("E90_ranks*"))
              and not (tmp / "points").exists())

        # 7. env: columns, launch words, arguments, hashes, and what is executed.
        exp = load(ENV)
        pts = exp.points()
        check(f"env is a column holding the bundle's name: {[exp.columns(p) for p in pts]}",
              exp.params == ["n", "env"] and [exp.columns(p)["env"] for p in pts] == ["1 thread", "all threads"] * 2)
        launches = [exp.launch(p) for p in pts]
        check(f"env's launch words: {launches}", launches == [["OMP_NUM_THREADS=1"], []] * 2)
        check("no flag from env", all(not any("env" in a or "OMP" in a for a in exp.run_args(p)) for p in pts))
        hashes = [store.key(bench=exp.run_args(p), **({"launch": exp.launch(p)} if exp.launch(p) else {})) for p in pts]
        check("the same arguments in another environment are another point", len(set(hashes)) == 4)
        fixed = load(ENV_FIXED)
        p = fixed.points()[0]
        check(f"[fixed] env: every point's launch {fixed.launch(p)}, no column",
              fixed.launch(p) == ["NBODY_PARALLEL_FROM=1", "OMP_NUM_THREADS=2"] and "env" not in fixed.params)
        recorder = bindir / "nbody-env"
        recorder.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                            f"json.dump(dict(os.environ), open({str(record)!r}, 'w'))\n"
                            "print('engine,n,seconds_per_eval\\nopenmp,8,1e-6')\n")
        recorder.chmod(recorder.stat().st_mode | stat.S_IXUSR)
        before = dict(os.environ)
        rows, *_ = bench._measure(str(recorder), fixed.run_args(p), "cmd", "bench", [], fixed.launch(p))
        seen = json.loads(record.read_text())
        check("executed with NBODY_PARALLEL_FROM=1 and OMP_NUM_THREADS=2 in its environment",
              seen.get("NBODY_PARALLEL_FROM") == "1" and seen.get("OMP_NUM_THREADS") == "2" and rows[0]["n"] == "8")
        check("the runner's own environment untouched", dict(os.environ) == before)
    spec.EXPERIMENTS_DIR = spec.ROOT / "experiments"
    e07 = spec.load("E07_small_n", "default")
    envs = list(dict.fromkeys((e07.columns(p)["env"], tuple(e07.launch(p))) for p in e07.points()))
    check(f"E07_small_n: one thread, all threads, the team forced: {envs}",
          envs == [("1 thread", ("OMP_NUM_THREADS=1",)), ("all threads", ()), ("team at every N", ("NBODY_PARALLEL_FROM=1",))])
    return report(failures, f"{checks} checks of points under mpiexec or in an environment")


if __name__ == "__main__":
    sys.exit(main())
