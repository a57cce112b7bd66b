"""The experiment-file reader (experiments/nbodylab/spec.py) against every experiment file with one
value changed: each single-line `key = value` of experiments/E*.toml replaced in turn by each value
of MUTANTS (wrong types, empty, huge, non-finite, ranges that never end, templates naming nothing),
and each line deleted. Each mutant is loaded in every profile and its points, command lines, launches
and ladders are built, as the runner does before it runs anything (for the points that together
take every swept value). Passing: each loads, or raises a SpecError of one line naming the file,
within 3 seconds; never another exception or a hang.
Run by CTest (tests/CMakeLists.txt)."""
import re
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
from nbodylab import convergence, spec  # noqa: E402

MUTANTS = ['"x"', "-1", "0", "nan", "true", "[]", "{}", '[1, "a"]', "[{}]", "{name = 3}", '{start = "a", stop = 4}',
           "{start = 1, stop = 1e300}", "{start = 1, stop = 2, factor = 1.0000000001}", '"{undefined}"', '"{x.y}"']
ASSIGNMENT = re.compile(r"^(\s*[A-Za-z0-9_.\"-]+\s*=\s*)(\S.*)$")


class Hang(Exception):
    pass


def on_alarm(signum, frame):
    raise Hang()


def exercise(exp_id):
    """What the runner does with an experiment before running it: every profile's points (those
    covering every value), their command lines, launches and reference states."""
    seen = []
    for profile in spec.PROFILES:
        exp = spec.load(exp_id, profile)
        what = (exp.fixed, exp.sweep, exp.sweep_vars, exp.cases, exp.reference, exp.ladder, exp.part_length)
        if what in seen:
            continue  # a profile that changes nothing: its points are those exercised already
        seen.append(what)
        ladder = convergence.Ladder(exp) if exp.kind == "convergence" else None
        for point in spec.covering(exp.points()):
            if ladder:
                ladder.steps_for(exp.columns(point))
            exp.columns(point)
            exp.run_args(point)
            exp.launch(point, 2)
            exp.reference_args(point)


def mutants(text):
    """(what, text) for each value replaced by each mutant and each line deleted."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() and not line.lstrip().startswith("#"):
            yield f"line {i + 1} deleted", "".join(lines[:i] + lines[i + 1:])
        m = ASSIGNMENT.match(line.rstrip("\n"))
        if not m or m.group(2).startswith(("[", "{", '"""')) and not m.group(2).rstrip().endswith(("]", "}")):
            continue  # a value over several lines: its lines are deleted in turn above
        for value in MUTANTS:
            yield f"line {i + 1} = {value}", "".join(lines[:i] + [m.group(1) + value + "\n"] + lines[i + 1:])


def main():
    sources = sorted(spec.EXPERIMENTS_DIR.glob("E*.toml"))
    signal.signal(signal.SIGALRM, on_alarm)
    cases = refused = 0
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        spec.EXPERIMENTS_DIR = Path(tmp)
        for source in sources:
            target = Path(tmp) / source.name
            for what, text in mutants(source.read_text(encoding="utf-8")):
                target.write_text(text, encoding="utf-8")
                cases += 1
                signal.alarm(3)
                try:
                    exercise(source.stem)
                except spec.SpecError as e:
                    refused += 1
                    if "\n" in str(e) or source.name not in str(e) and source.stem not in str(e):
                        failures.append(f"{source.name} {what}: refused, but not in one line naming the file: {e}")
                        print("FAIL " + failures[-1], flush=True)
                except Hang:
                    failures.append(f"{source.name} {what}: still reading after 3 seconds")
                    print("FAIL " + failures[-1], flush=True)
                except Exception as e:  # noqa: BLE001: any other exception is the failure looked for
                    failures.append(f"{source.name} {what}: {type(e).__name__}: {e}")
                    print("FAIL " + failures[-1], flush=True)
                finally:
                    signal.alarm(0)
            target.unlink()
    print(f"{cases} mutants of {len(sources)} experiment files: {cases - refused} loaded, {refused} refused "
          f"in one line, {len(failures)} failures")
    return 1 if failures or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
