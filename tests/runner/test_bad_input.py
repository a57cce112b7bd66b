"""The bad-input corpus (tests/bad_input/corpus.txt) against a built `nbody`: every case must exit
with its code, write exactly one printable line on stderr that contains its phrase, nothing on
stdout, and leave its folder as it found it (the fixtures its arguments name, nothing else).
Each case runs in a fresh folder; two cases run at a time. Run by CTest (tests/CMakeLists.txt),
and by .ci/run against the AddressSanitizer/UBSan build, where any report fails its case.

    test_bad_input.py NBODY [--jobs 2] [--timeout 60] [--corpus FILE]
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "bad_input" / "corpus.txt"
HEADER = b"id,mass,x,y,z,vx,vy,vz\n"
TWO_BODIES = b"0,0.5,-0.5,0,0,0,-0.5,0\n1,0.5,0.5,0,0,0,0.5,0\n"


def binary_bytes(count):
    """Bytes that are not text, NUL included, the same on every run."""
    return bytes((i * 167 + 13) % 256 for i in range(count))


# The files a case may name (by the file name anywhere in an argument); None is a directory.
FIXTURES = {
    "folder.csv": None,
    "empty.csv": b"",
    "header_only.csv": HEADER,
    "wrong_header.csv": b"x,y,z\n1,2,3\n",
    "bom.csv": b"\xef\xbb\xbf" + HEADER + TWO_BODIES,
    "binary.csv": binary_bytes(4096),
    "binary_row.csv": HEADER + b"0,1,0,0,0,0,0,0\n" + binary_bytes(64) + b"\n",
    "long_header.csv": HEADER.rstrip(b"\n") + b"," + b"x" * 300_000 + b"\n" + TWO_BODIES,
    "long_line.csv": HEADER + b"0," + b"1" * 300_000 + b",0,0,0,0,0,0\n",
    "trailing_comma.csv": HEADER + b"0,0.5,-0.5,0,0,0,-0.5,0,\n1,0.5,0.5,0,0,0,0.5,0,\n",
    "seven_fields.csv": HEADER + b"0,1,0,0,0,0,0\n",
    "nine_fields.csv": HEADER + b"0,1,0,0,0,0,0,0,0\n",
    "non_numeric.csv": HEADER + b"0,one,0,0,0,0,0,0\n",
    "empty_field.csv": HEADER + b"0,1,0,,0,0,0,0\n",
    "spaces.csv": HEADER + b"0, 1, 0, 0, 0, 0, 0, 0\n",
    "fraction.csv": HEADER + b"0,1/2,0,0,0,0,0,0\n",
    "nan.csv": HEADER + b"0,1,0,0,0,0,0,0\n1,1,nan,0,0,0,1,0\n",
    "inf.csv": HEADER + b"0,1,0,0,0,0,0,0\n1,1,1,0,0,0,-inf,0\n",
    "negative_mass.csv": HEADER + b"0,1,0,0,0,0,0,0\n1,-2,1,0,0,0,1,0\n",
    "zero_mass.csv": HEADER + b"0,0,0,0,0,0,0,0\n",
    "duplicate_id.csv": HEADER + b"0,1,0,0,0,0,0,0\n0,1,1,0,0,0,1,0\n",
    "ids_from_one.csv": HEADER + b"1,1,0,0,0,0,0,0\n2,1,1,0,0,0,1,0\n",
    "two_body.csv": HEADER + TWO_BODIES,
    "three_body.csv": HEADER + TWO_BODIES + b"2,0.5,0,3,0,0,0,0\n",
    "unbound.csv": HEADER + b"0,0.5,-0.5,0,0,0,-5,0\n1,0.5,0.5,0,0,0,5,0\n",
    "collision.csv": HEADER + b"0,1,0,0,0,0,0,0\n1,1,0,0,0,0,0,0\n",
    "head_on.csv": HEADER + b"0,0.5,-0.5,0,0,0,0,0\n1,0.5,0.5,0,0,0,0,0\n",
    "empty.bin": b"",
    "folder.hdf5": None,
    "text.hdf5": HEADER + TWO_BODIES,
}

# Files that nbody itself writes, made once per corpus run (name: the arguments that write it).
RUN_TO_CHECKPOINT = ["run", "--ic", "two-galaxies", "--n", "32", "--seed", "4", "--integrator", "dopri5", "--tol", "1e-9",
                     "--t-end", "1.5", "--r-min", "1e-4", "--stop-at", "0.5", "--checkpoint"]
MADE = {
    "start.csv": ["ic", "--ic", "kepler", "--out", "start.csv"],
    "start.hdf5": ["ic", "--ic", "kepler", "--out", "start.hdf5"],
    "c.bin": RUN_TO_CHECKPOINT + ["c.bin"],
    "float.bin": RUN_TO_CHECKPOINT + ["float.bin", "--precision", "float"],
}
# ... and files cut from them.
CUT = {"cut_half.hdf5": ("start.hdf5", 0.5), "cut17.bin": ("c.bin", 17), "cut_half.bin": ("c.bin", 0.5), "cut_last_byte.bin": ("c.bin", -1)}


def make_fixtures(nbody, env):
    """FIXTURES plus the files of MADE and CUT, as {name: bytes}."""
    made = dict(FIXTURES)
    with tempfile.TemporaryDirectory(prefix="nbody_bad_input_made_") as tmp:
        for name, args in MADE.items():
            subprocess.run([nbody, *args], cwd=tmp, env=env, capture_output=True, check=True)
            made[name] = (Path(tmp) / name).read_bytes()
    for name, (source, length) in CUT.items():
        whole = made[source]
        made[name] = whole[:length] if isinstance(length, int) else whole[:int(len(whole) * length)]
    return made


@dataclass
class Case:
    line: int
    section: str
    code: int
    phrase: str
    args: list
    needs: str


def read_corpus(path):
    """The cases of the table: `EXIT | PHRASE | ARGUMENTS [| needs=WHAT]`, `## section` headings."""
    cases, section = [], ""
    for number, text in enumerate(path.read_text().splitlines(), 1):
        if text.startswith("## "):
            section = text[3:].strip()
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in text.split("|")]
        if len(parts) not in (3, 4) or not parts[0].isdigit() or not parts[1]:
            sys.exit(f"{path}:{number}: not `EXIT | PHRASE | ARGUMENTS [| needs=WHAT]`: {text}")
        needs = parts[3].removeprefix("needs=") if len(parts) == 4 else ""
        if needs not in ("", *REQUIREMENTS):
            sys.exit(f"{path}:{number}: unknown needs={needs} (valid: {', '.join(REQUIREMENTS)})")
        cases.append(Case(number, section, int(parts[0]), parts[1], shlex.split(parts[2]), needs))
    return cases


# What a case may need of the build and this machine, from `nbody --build-info`.
REQUIREMENTS = {
    "opencl": lambda b, h: "opencl-tiled" in b["gpu_engines"] and "opencl" in h["features"],
    "cuda-without-device": lambda b, h: any(e.startswith("cuda-") for e in b["gpu_engines"]) and "cuda" not in h["features"],
}


def listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def run_case(nbody, case, timeout, env, fixtures):
    """The problems of one case's outcome; empty when it behaved as the table says."""
    with tempfile.TemporaryDirectory(prefix="nbody_bad_input_") as tmp:
        folder = Path(tmp) / "case"
        folder.mkdir()
        for name, content in fixtures.items():
            if any(name in arg for arg in case.args):
                if content is None:
                    (folder / name).mkdir()
                else:
                    (folder / name).write_bytes(content)
        before = listing(folder)
        case_env = dict(env, XDG_CACHE_HOME=str(Path(tmp) / "cache"), NBODY_TUNE_CACHE=str(Path(tmp) / "tune.json"))
        try:
            done = subprocess.run([nbody, *case.args], cwd=folder, env=case_env, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [f"still running after {timeout} s"]
        problems = []
        if done.returncode != case.code:
            problems.append(f"exit code {done.returncode}, expected {case.code}")
        err = done.stderr
        printable = all(32 <= c < 127 or c == 9 for c in err[:-1])
        if err.count(b"\n") != 1 or not err.endswith(b"\n") or not printable or len(err) > 1000:
            problems.append("stderr is not one short printable line")
        if case.phrase.encode() not in err:
            problems.append(f"stderr does not contain {case.phrase!r}")
        if done.stdout:
            problems.append(f"stdout is not empty: {done.stdout[:200]!r}")
        after = listing(folder)
        if after != before:
            problems.append(f"left behind: {sorted(set(after) - set(before))}, removed: {sorted(set(before) - set(after))}")
        if problems:
            problems.append(f"stderr: {err[:600]!r}")
        return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nbody")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    opts = parser.parse_args()
    nbody = str(Path(opts.nbody).resolve())
    info = json.loads(subprocess.run([nbody, "--build-info"], capture_output=True, check=True, text=True).stdout)
    cases = read_corpus(opts.corpus)
    runnable = [c for c in cases if not c.needs or REQUIREMENTS[c.needs](info["build"], info["host"])]
    env = dict(os.environ, OMP_NUM_THREADS="1", LC_ALL="C")
    start = time.monotonic()
    fixtures = make_fixtures(nbody, env)
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        outcomes = list(pool.map(lambda c: run_case(nbody, c, opts.timeout, env, fixtures), runnable))
    failed = 0
    for case, problems in zip(runnable, outcomes):
        if problems:
            failed += 1
            print(f"FAIL corpus.txt:{case.line} [{case.section}] nbody {shlex.join(case.args)}")
            for p in problems:
                print(f"    {p}")
    sections = {}
    for case in runnable:
        sections[case.section] = sections.get(case.section, 0) + 1
    for section, count in sections.items():
        print(f"{count:4d}  {section}")
    skipped = len(cases) - len(runnable)
    print(f"bad-input corpus: {len(runnable) - failed} of {len(runnable)} cases as expected"
          f"{f', {skipped} skipped (not for this build or machine)' if skipped else ''}, {time.monotonic() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
