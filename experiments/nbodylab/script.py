"""Running a script experiment (`kind = "script"` in its TOML file): instead of points, the runner
runs one program of the repository,

    python SCRIPT --nbody NBODY --out FOLDER ARGS...

(ARGS: the file's `args`, or its profile's), with the runner's Python, in a scratch folder of
results/.points/ID/. The program writes its results there: results/ID.csv, or ID_PART.csv, each
with its .meta.json in the common schema (provenance.results_meta), and any other file it makes
(pictures, arrays). Once it has ended well, the runner stamps every meta as its own (producer: the
runner, the script and its command, the profile, the experiment file, the nbody binary with its
build) so that the next run decides to reuse or run as for any experiment, then moves every file
into results/, each replacing its old version at once. A program that fails leaves results/ as
it was.
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


def run(exp, nbody, build_info):
    """Run the script of experiment `exp` and take in its results. Returns the exit status."""
    tag = exp.id.split("_", 1)[0]
    scratch_root = RESULTS_DIR / ".points" / exp.id
    scratch_root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="script-", dir=scratch_root) as scratch:
        cmd = [sys.executable, str(ROOT / exp.script), "--nbody", str(nbody), "--out", scratch, *exp.script_args]
        shown = shlex.join(["python3", exp.script, "--nbody", display(nbody), "--out", "FOLDER", *exp.script_args])
        print(f"[{tag}] {exp.title}: {shown} (profile {exp.profile})", file=sys.stderr)
        start = time.monotonic()
        status = subprocess.run(cmd, cwd=ROOT).returncode
        seconds = round(time.monotonic() - start, 1)
        if status != 0:
            print(f"[{tag}] {exp.script} failed (exit {status}); results/ unchanged", file=sys.stderr)
            return 1
        made = sorted(p for p in Path(scratch).iterdir() if p.is_file())
        tables = [p for p in made if p.suffix == ".csv"]
        wrong = [p.name for p in tables if not (p.stem == exp.id or p.stem.startswith(exp.id + "_"))
                 or not files.sidecar(p).is_file()]
        if f"{exp.id}.csv" not in {p.name for p in tables} or wrong:
            print(f"[{tag}] {exp.script} must write {exp.id}.csv (and any {exp.id}_PART.csv), each with its "
                  f".meta.json; it wrote {[p.name for p in made] or 'nothing'}; results/ unchanged", file=sys.stderr)
            return 1
        sha = provenance.sha256_file(nbody)
        for table in tables:
            meta = files.read_json(files.sidecar(table))
            meta.update(producer=provenance.RUNNER, script=exp.script, kind="script", profile=exp.profile,
                        experiment_toml=exp.text,
                        nbody={**meta.get("nbody", {}), "path": display(nbody), "sha256": sha, "build_info": build_info},
                        runner={"argv": sys.argv, "command": shown, "seconds": seconds})
            files.write_json(files.sidecar(table), meta)
        for path in made:
            os.replace(path, RESULTS_DIR / path.name)
    shutil.rmtree(scratch_root, ignore_errors=True)
    print(f"[{tag}] wrote {', '.join(f'results/{p.name}' for p in made)} in {seconds} s", file=sys.stderr)
    return 0
