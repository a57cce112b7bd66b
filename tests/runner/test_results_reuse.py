"""When `make all` may reuse committed results instead of running an experiment again
(experiments/nbodylab/provenance.py, committed_results_state): results made by a larger profile
stand; results of the same profile stand only while the experiment file (up to comments) and the
solver source (CMakeLists.txt, cmake/, solver/, kernels/) are those of the clean build that made
them (a reference experiment's: while the reference code's commit is). Checked on a scratch git repository. A derived experiment's reduced results stand while the
results they were computed from are those its meta records, and a bench's while the tuning cache
its points read is the one its meta records. Run by CTest (tests/CMakeLists.txt)."""
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
from nbodylab import bench, files, provenance, script, spec  # noqa: E402
import runner  # noqa: E402

PROFILES = ("smoke", "default", "full")
TOML = 'title = "t"\n[fixed]\nn = 4\n'


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    return ok


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def commit_all(repo, message):
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def meta(commit, profile="default", toml=TOML, dirty=False):
    return {"profile": profile, "experiment_toml": toml,
            "nbody": {"build_info": {"build": {"git_commit": commit, "git_dirty": dirty}}}}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        git(repo, "init", "-q")
        for name in ("solver/a.cpp", "kernels/k.hpp", "results/E99.csv"):
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text("1\n")
        made = commit_all(repo, "source and results")
        provenance.ROOT = repo

        def state(m, profile="default", toml=TOML):
            return provenance.committed_results_state(m, toml, profile, PROFILES)

        ok = check("results of the same profile, experiment file and clean source stand",
                   state(meta(made))[0])
        ok &= check("and so do they when only the experiment file's comments changed",
                    state(meta(made), toml="# a comment\n" + TOML)[0])
        ok &= check("not when the experiment file changed", not state(meta(made), toml=TOML + "m = 1\n")[0])
        ok &= check("results of a larger profile stand", state(meta(made, "full"), "default")[0])
        ok &= check("results of a smaller profile do not", not state(meta(made, "smoke"), "default")[0])
        ok &= check("nor those of a build from uncommitted source", not state(meta(made, dirty=True))[0])
        ok &= check("nor those of a commit this history lacks", not state(meta("f" * 40))[0])

        (repo / "results/E99.csv").write_text("2\n")
        commit_all(repo, "new results only")
        ok &= check("a later commit that leaves the solver source alone keeps them current",
                    state(meta(made))[0])
        (repo / "solver/a.cpp").write_text("2\n")
        ok &= check("an uncommitted change to the solver source makes them out of date",
                    not state(meta(made))[0])
        commit_all(repo, "solver change")
        ok &= check("and so does a committed one", not state(meta(made))[0])
        reference = {**meta(made), "dualsphysics": {"commit": "a" * 40}}
        ok &= check("but not those of a reference experiment, made by its reference code's commit",
                    provenance.committed_results_state(reference, TOML, "default", PROFILES,
                                                       {"dualsphysics": {"commit": "a" * 40}})[0])
        ok &= check("which another commit of that code makes out of date",
                    not provenance.committed_results_state(reference, TOML, "default", PROFILES,
                                                           {"dualsphysics": {"commit": "b" * 40}})[0])
        now = git(repo, "rev-parse", "HEAD")
        ok &= check("results made by the new commit stand", state(meta(now))[0])
        (repo / "kernels/new.hpp").write_text("1\n")
        ok &= check("a new untracked file in the solver source makes them out of date",
                    not state(meta(now))[0])
        provenance.ROOT = spec.ROOT
    return (0 if ok else 1) | reducer() | tuning_cache()


def reducer():
    """E24, computed by its reducer from E09's results: reused while E09's files are the ones its
    meta records, run again once one of them differs."""
    exp = spec.load("E24_roofline", "default")
    action, why = runner.decide(exp, None)
    ok = check(f"a reducer's results stand while its inputs are unchanged: {action}: {why}", action == "reuse")
    recorded = script.inputs(exp)
    script.inputs = lambda e: {**recorded, "results/E09_gpu_time_vs_n.csv": "0" * 64}
    action, why = runner.decide(exp, None)
    ok &= check(f"and are computed again once an input changed: {action}: {why}",
                action == "run" and "results/E09_gpu_time_vs_n.csv has changed" in why)
    return 0 if ok else 1


def tuning_cache():
    """E09 reads the launch shapes E13 tuned: its results stand while that cache is the one its meta
    records; the tune points' caches merge into one, by n, the later point's entry winning."""
    exp = spec.load("E09_gpu_time_vs_n", "default")
    current = provenance.committed_results_state
    provenance.committed_results_state = lambda *args: (True, "experiment file and solver as they were")
    with tempfile.TemporaryDirectory() as tmp:
        bench.RESULTS_DIR = Path(tmp)
        cache = bench.tune_cache_path(exp.tune_cache)
        cache.write_text('{"gpu | cuda-split | float": [{"n": 4096, "launch": "block=64", "seconds": 1}]}\n')
        csv_path = Path(tmp) / f"{exp.id}.csv"
        csv_path.write_text("n\n1\n")
        files.write_json(files.sidecar(csv_path), {
            "producer": provenance.RUNNER, "profile": "default",
            "tune_cache": {"experiment": exp.tune_cache, "sha256": provenance.sha256_file(cache)}})
        action, why = runner._reuse_or_run(exp, csv_path, False)
        ok = check(f"a bench's results stand while the tuning cache it read is unchanged: {action}: {why}",
                   action == "reuse")
        cache.write_text(cache.read_text().replace("block=64", "block=128"))
        action, why = runner._reuse_or_run(exp, csv_path, False)
        ok &= check(f"and run again once it changed: {action}: {why}", action == "run" and "has changed" in why)
        bench.RESULTS_DIR = spec.ROOT / "results"
    provenance.committed_results_state = current
    key = "gpu | cuda-split | float"
    merged = bench.merged_caches([{key: [{"n": 65536, "launch": "a"}, {"n": 4096, "launch": "b"}]},
                                  {key: [{"n": 4096, "launch": "c"}], "gpu | cuda-pairs | float": []}])
    ok &= check(f"the points' caches merge by n, the later entry for one n kept: {merged}",
                merged == {"gpu | cuda-pairs | float": [],
                           key: [{"n": 4096, "launch": "c"}, {"n": 65536, "launch": "a"}]})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
