"""Running a script experiment (`kind = "script"` in its TOML file): instead of points, the runner
runs one program of the repository,

    python SCRIPT --nbody NBODY --out FOLDER ARGS...

(ARGS: the file's `args`, or its profile's), with the runner's Python, in a scratch folder of
results/.points/ID/. The program writes its results there: results/ID.csv, and any ID_PART.csv or
ID_PART.csv.gz (a bulk table, compressed: nbodylab/files.py), each with its .meta.json in the
common schema (provenance.results_meta), and any other file it makes (pictures, arrays). Once it
has ended well, the runner stamps every meta as its own (producer: the
runner, the script and its command, the profile, the experiment file, the nbody binary with its
build) so that the next run decides to reuse or run as for any experiment, then moves every file
into results/, each replacing its old version at once. A program that fails leaves results/ as
it was.

A derived experiment's reducer (`kind = "derived"` with `script`) runs the same way as
`python SCRIPT --out FOLDER`: it reads the results of the experiments it is derived from, and its
metas record them with their checksums (`inputs`), so that it runs again when they change.
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import RESULTS_DIR, ROOT, files, provenance
from .provenance import display


def inputs(exp):
    """{repository path: sha256} of the results a derived experiment is computed from (its
    derived_from experiments' CSV and .meta.json); a file that is missing has None."""
    paths = [RESULTS_DIR / f"{d}{suffix}" for d in exp.derived_from for suffix in (".csv", ".meta.json")]
    return {display(p): provenance.sha256_file(p) if p.is_file() else None for p in paths}


def run(exp, nbody, build_info):
    """Run the script (or reducer) of experiment `exp` and take in its results. Returns the exit
    status."""
    tag = exp.id.split("_", 1)[0]
    scratch_root = RESULTS_DIR / ".points" / exp.id
    scratch_root.mkdir(parents=True, exist_ok=True)
    reducer = exp.kind == "derived"
    with tempfile.TemporaryDirectory(prefix="script-", dir=scratch_root) as scratch:
        given = [] if reducer else ["--nbody", str(nbody)]
        cmd = [sys.executable, str(ROOT / exp.script), *given, "--out", scratch, *exp.script_args]
        shown = shlex.join(["python3", exp.script, *(given and ["--nbody", display(nbody)]), "--out", "FOLDER",
                            *exp.script_args])
        print(f"[{tag}] {exp.title}: {shown} (profile {exp.profile})", file=sys.stderr)
        start = time.monotonic()
        status = subprocess.run(cmd, cwd=ROOT).returncode
        seconds = round(time.monotonic() - start, 1)
        if status != 0:
            print(f"[{tag}] {exp.script} failed (exit {status}); results/ unchanged", file=sys.stderr)
            return 1
        made = sorted(p for p in Path(scratch).iterdir() if p.is_file())
        tables = [p for p in made if p.name.endswith((".csv", ".csv.gz"))]
        wrong = [p.name for p in tables if not (files.sidecar(p).name == f"{exp.id}.meta.json"
                                                or files.sidecar(p).name.startswith(exp.id + "_"))
                 or not files.sidecar(p).is_file()]
        if f"{exp.id}.csv" not in {p.name for p in tables} or wrong:
            print(f"[{tag}] {exp.script} must write {exp.id}.csv (and any {exp.id}_PART.csv or .csv.gz), each with its "
                  f".meta.json; it wrote {[p.name for p in made] or 'nothing'}; results/ unchanged", file=sys.stderr)
            return 1
        stamp = {"producer": provenance.RUNNER, "script": exp.script, "kind": exp.kind, "profile": exp.profile,
                 "experiment_toml": exp.text, "runner": {"argv": sys.argv, "command": shown, "seconds": seconds}}
        if reducer:
            stamp["inputs"] = inputs(exp)
        else:
            binary = {"path": display(nbody), "sha256": provenance.sha256_file(nbody), "build_info": build_info}
        for table in tables:
            meta = {**files.read_json(files.sidecar(table)), **stamp}
            if not reducer:
                meta["nbody"] = {**meta.get("nbody", {}), **binary}
            files.write_json(files.sidecar(table), meta)
        for path in made:
            os.replace(path, RESULTS_DIR / path.name)
            if path.suffix == ".gz":  # the table as written before bulk tables were compressed
                (RESULTS_DIR / path.stem).unlink(missing_ok=True)
    shutil.rmtree(scratch_root, ignore_errors=True)
    print(f"[{tag}] wrote {', '.join(display(RESULTS_DIR / p.name) for p in made)} in {seconds} s", file=sys.stderr)
    return 0
