"""The experiment-file parser (experiments/nbodylab/spec.py) refuses a bad file with one clear
line: each case below is a valid file with one thing wrong, and must raise a SpecError whose
message is one line naming the file and the problem; through `runner.py run` such a file, or a
derived experiment (no runs of its own) whose inputs are missing, ends the runner with exit status
2, one line on stderr and no results written. Every experiment file of the repository loads in
every profile; a reference code (requires = "reference:NAME") is there only when its whole build
is, and otherwise the runner says in one line what is missing and the command that builds it.
Run by CTest (tests/CMakeLists.txt)."""
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
import runner  # noqa: E402
from nbodylab import requirements, spec  # noqa: E402

VALID = """title = "a valid experiment"
[fixed]
ic = "kepler"
t-end = "10P"
[sweep]
e = [0.5, 0.9]
dt = ["P/64", "P/128"]
"""
DERIVED = """title = "results a reducer computes from another experiment's"
kind = "derived"
derived_from = ["E89_in"]
script = "experiments/roofline.py"
"""
SCRIPT = """title = "results a program writes"
kind = "script"
script = "experiments/potential_field.py"
[profile.smoke]
args = ["--n", 512]
"""

# (what is wrong, the file, words the message must contain)
BAD = [
    ("an unknown top-level key", VALID.replace("title", "titel"), ["unknown keys ['titel']", "valid:"]),
    ("an unknown kind", 'kind = "benchmark"\n' + VALID,
     ["kind must be one of run, bench, tune, convergence", "'benchmark'"]),
    ("timeseries not a boolean", 'timeseries = "yes"\n' + VALID, ["timeseries must be true or false"]),
    ("metrics not a list", 'metrics = "steps"\n' + VALID, ["metrics must be a list"]),
    ("metrics listing a number", 'metrics = ["steps", 3]\n' + VALID, ["metrics must list strings"]),
    ("requires a number", "requires = 5\n" + VALID, ["requires must be a string or a list"]),
    ("gpu_share of an unknown kind", 'gpu_share = "turns"\nrequires = ["cuda", "mps"]\n' + VALID,
     ["gpu_share runs", "one of mps", "'turns'"]),
    ("gpu_share without requires naming it", 'gpu_share = "mps"\nrequires = "cuda"\n' + VALID,
     ["gpu_share runs", "requires naming it"]),
    ("gpu_share with serial points", 'gpu_share = "mps"\nserial = true\nrequires = ["cuda", "mps"]\n' + VALID,
     ["gpu_share runs", "without serial"]),
    ("[fixed] not a table", VALID.replace('[fixed]\nic = "kepler"\nt-end = "10P"\n', "fixed = 3\n"),
     ["fixed must be a table"]),
    ("an unknown profile", VALID + "[profile.fast.sweep]\ne = [0.5]\n", ["unknown profiles ['fast']", "smoke"]),
    ("an unknown table in a profile", VALID + "[profile.full.sweeps]\ne = [0.5]\n",
     ["[profile.full]", "unknown tables ['sweeps']"]),
    ("a profile sweeping what [sweep] does not (another profile than the one loaded)",
     VALID + "[profile.full.sweep]\nn = [4]\n", ["[profile.full.sweep] sweeps ['n']"]),
    ("a range with both step and factor", VALID.replace('["P/64", "P/128"]', "{start = 1, stop = 4, step = 1, factor = 2}"),
     ["sweep 'dt'", "{start, stop, step}"]),
    ("nothing to run", VALID.split("[sweep]")[0], ["nothing to run"]),
    ("a flag both swept and fixed", VALID.replace('t-end = "10P"', "e = 0.1"), ["['e'] both swept and fixed"]),
    ("[ladder] in a run experiment", VALID + "[ladder]\nleave = 1e-6\n", ['kind = "convergence"']),
    ("a TOML syntax error", VALID + "[sweep\n", ["E90_bad.toml"]),
    ("a derived experiment with runs", DERIVED + "[sweep]\nn = [4]\n",
     ['unknown keys for kind = "derived"', "['sweep']"]),
    ("a derived experiment without a reducer", DERIVED.replace("script", "# script"),
     ["script must name its reducer", "got ''"]),
    ("a derived experiment whose reducer does not exist", DERIVED.replace("roofline", "no_such_reducer"),
     ["script must name its reducer", "no_such_reducer"]),
    ("a derived experiment derived from nothing", DERIVED.replace('["E89_in"]', "[]"), ["derived_from must list"]),
    ("a derived experiment derived from a number", DERIVED.replace('"E89_in"', "9"), ["derived_from must list"]),
    ("a derived experiment derived from an unknown experiment", DERIVED.replace("E89_in", "E88_none"),
     ["derived_from must list", "E88_none"]),
    ("a script experiment with runs", SCRIPT.replace("[profile.smoke]", "[sweep]\nn = [4]\n[profile.smoke]"),
     ['unknown keys for kind = "script"', "['sweep']"]),
    ("a script experiment without a script", SCRIPT.replace("script =", "# script ="), ["script must name a Python program"]),
    ("a script outside the repository", SCRIPT.replace("experiments/potential_field.py", "../../bin/sh.py"),
     ["script must name a Python program", "../../bin/sh.py"]),
    ("a script's arguments not a list", SCRIPT.replace('["--n", 512]', '"--n 512"'), ["args must be a list"]),
    ("a script's argument a table", SCRIPT.replace('["--n", 512]', '[{n = 1}]'), ["args must list strings or numbers"]),
    ("a script experiment's profile table unknown", SCRIPT + "[profile.full.fixed]\nn = 3\n", ["unknown keys ['fixed']"]),
    ("a script experiment needing what the runner does not know", SCRIPT + 'requires = "tpu"\n',
     ["unknown requirement 'tpu'"]),
]


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    return ok


def repository_files():
    """Every experiments/*.toml loads in every profile; E20_galaxy_scenes and
    E19_sph_dam_break_dualsphysics are script experiments with their requirement and a smoke profile."""
    ok = True
    for profile in spec.PROFILES:
        refused = []
        for exp_id in spec.experiment_ids():
            try:
                spec.load(exp_id, profile)
            except spec.SpecError as e:
                refused.append(str(e))
        ok &= check(f"every experiment file loads in the profile {profile}" + (f": {refused}" if refused else ""),
                    not refused)
    for exp_id, script, needs in [("E20_galaxy_scenes", "experiments/galaxy_scenes.py", ["cuda"]),
                                  ("E19_sph_dam_break_dualsphysics", "experiments/dualsphysics_dam_break.py",
                                   ["reference:dualsphysics"])]:
        smoke, full = spec.load(exp_id, "smoke"), spec.load(exp_id, "full")
        ok &= check(f"{exp_id}: a script experiment ({script}) needing {needs}, its smoke profile smaller",
                    smoke.kind == full.kind == "script" and smoke.script == script and smoke.requires == needs
                    and smoke.script_args and smoke.script_args != full.script_args)
    return ok


def reference_builds():
    """reference:dualsphysics is met by a whole build in build/reference/dualsphysics/ only, and the
    runner reuses the committed results where it is not, saying what is missing and how to build it."""
    ok = check("reference:dualsphysics is a requirement the runner knows, reference:nothing is not",
               requirements.check("reference:dualsphysics") is None
               and "known: " in (requirements.check("reference:nothing") or "")
               and "reference:dualsphysics" in requirements.check("reference:nothing"))
    root = requirements.ROOT
    with tempfile.TemporaryDirectory() as tmp:
        requirements.ROOT = Path(tmp)
        try:
            folder = requirements.reference_dir("dualsphysics")
            why = requirements.lacking({}, "reference:dualsphysics")
            ok &= check(f"without a build, lacking says in one line what and how: {why}",
                        why and "\n" not in why and "build/reference/dualsphysics/" in why
                        and "make reference-dualsphysics DUALSPHYSICS_GIT=" in why)
            exp = spec.load("E19_sph_dam_break_dualsphysics", "smoke")
            action, reason = runner.decide(exp, {"build": {}, "host": {}})
            ok &= check(f"without a build, the runner reuses the committed results: {action}, {reason}",
                        action == "reuse" and "reference:dualsphysics" in reason and "make reference-dualsphysics" in reason)
            (folder / "bin").mkdir(parents=True)
            (folder / "source").mkdir()
            for name in ("DualSPHysics5.4CPU_linux64", "mkcase"):
                (folder / "bin" / name).write_text("")
            (folder / "build.json").write_text(json.dumps(
                {"commit": "ef3721a", "files": {"solver": "bin/DualSPHysics5.4CPU_linux64", "mkcase": "bin/mkcase",
                                                "source": "source"}}))
            ok &= check("a whole build (build.json and the files it names) meets it",
                        requirements.lacking({}, "reference:dualsphysics") is None
                        and requirements.reference_build("dualsphysics")["commit"] == "ef3721a")
            (folder / "bin" / "mkcase").unlink()
            ok &= check("a build missing a file it names does not",
                        requirements.lacking({}, "reference:dualsphysics") is not None)
            (folder / "bin" / "mkcase").write_text("")
            (folder / "build.json").write_text('{"commit": ')
            ok &= check("nor does one whose build.json is cut short (a build that stopped)",
                        requirements.lacking({}, "reference:dualsphysics") is not None)
        finally:
            requirements.ROOT = root
    return ok


def main():
    ok = repository_files()
    ok &= reference_builds()
    with tempfile.TemporaryDirectory() as tmp:
        spec.EXPERIMENTS_DIR = Path(tmp)
        path = Path(tmp) / "E90_bad.toml"
        path.write_text(VALID)
        (Path(tmp) / "E89_in.toml").write_text(VALID)  # what the derived experiments below read
        ok &= check("the valid file loads (4 points)", len(spec.load("E90_bad", "smoke").points()) == 4)
        for what, text, words in BAD:
            path.write_text(text)
            try:
                spec.load("E90_bad", "smoke")
                ok &= check(f"{what}: refused", False)
                continue
            except spec.SpecError as e:
                message = str(e)
            ok &= check(f"{what}: refused in one line naming the file and {words}",
                        "\n" not in message and "E90_bad.toml" in message and all(w in message for w in words))
        try:
            spec.load("E91_missing", "smoke")
            ok &= check("an unknown experiment: refused", False)
        except spec.SpecError as e:
            ok &= check("an unknown experiment: refused, naming the known ones",
                        "unknown experiment 'E91_missing'" in str(e) and "known: E89_in, E90_bad" in str(e))

        path.write_text(DERIVED)
        derived = spec.load("E90_bad", "smoke")
        ok &= check("a derived experiment loads, with its reducer, its inputs and nothing to run",
                    derived.kind == "derived" and derived.script == "experiments/roofline.py"
                    and derived.derived_from == ["E89_in"] and not derived.sweep and not derived.cases)

        path.write_text(SCRIPT)
        scripted = spec.load("E90_bad", "smoke")
        ok &= check("a script experiment loads, with its script and the profile's arguments as text",
                    scripted.kind == "script" and scripted.script == "experiments/potential_field.py"
                    and scripted.script_args == ["--n", "512"] and spec.load("E90_bad", "default").script_args == [])

        for what, text, words in [("an unknown kind", BAD[1][1], ["kind must be one of"]),
                                  ("a derived experiment whose inputs are missing", DERIVED,
                                   ["results/E89_in.csv", "runner.py run E89_in"])]:
            path.write_text(text)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = runner.main(["run", "E90_bad", "--profile", "smoke", "--nbody", sys.executable])
            lines = err.getvalue().splitlines()
            ok &= check(f"runner.py run, {what}: exit status 2, one line on stderr naming {words}",
                        rc == 2 and len(lines) == 1 and lines[0].startswith("runner: error: ")
                        and all(w in lines[0] for w in words))
            ok &= check(f"runner.py run, {what}: no results written",
                        not list(spec.ROOT.joinpath("results").glob("E90_bad*")))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
