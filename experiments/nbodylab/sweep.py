"""Running one experiment: its points in parallel, each finished point stored at once
(nbodylab/points.py) so that an interrupted sweep resumes, then results/<ID>.csv and its
provenance (and, for an experiment with `timeseries = true`, results/<ID>_timeseries.csv.gz with the
same provenance).

A point's record (results/.points/<ID>/<hash>.json) holds: record_format, params (its column
values), errors (pos_err, vel_err against the reference, or {}), summary (the whole
`nbody run --summary` JSON), timeseries ({"columns": [...], "rows": [[text, ...], ...]}: the
`--diagnostics` CSV as nbody wrote it, or null when the experiment has no timeseries), cmd,
reference_cmd, nbody_sha256, finished_utc, and for a run in parts (`part_length`,
nbodylab/parts.py, its unfinished parts in <hash>.parts/) parts: each part's end time,
evaluations, wall time, device and command line; its summary's `parts` counts them and its wall_s
adds theirs up. The hash covers the nbody arguments, the reference arguments, whether a
timeseries is recorded, the nbody binary's sha256 and RECORD_FORMAT (and, for a point with
`ranks` or an `env` bundle, its launch: OMP_NUM_THREADS=T mpiexec -n P ..., nbodylab/mpi.py, or
NAME=value ...), so a record is reused only for the very same run.

An experiment with points under mpiexec runs its points one at a time (each takes P x T cores),
each with OMP_NUM_THREADS=T."""
import concurrent.futures as cf
import csv
import decimal
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from . import RESULTS_DIR, files, gpu_share, mpi, parts, provenance, write_timeseries
from .points import PointStore
from .provenance import display
from .spec import fmt

# Version of the stored point records: bump it when their layout changes.
#   1  params, errors, summary, cmd, reference_cmd, nbody_sha256, finished_utc
#   2  + record_format, timeseries (the --diagnostics rows, or null)
RECORD_FORMAT = 2
# Shown instead of the per-run temporary directory in recorded commands (and hashed so).
TMP = "<tmp>"


class PointFailed(Exception):
    def __init__(self, cmd, message, exit_code=None):
        super().__init__(message)
        self.cmd, self.message, self.exit_code = cmd, message, exit_code


# nbody's exit code for a run that started but could not be carried through (a non-finite
# state, a step-size underflow, an implicit solve that does not converge at that step). Such a
# point is a result, not a fault of the experiment: it is recorded with the reason (CSV column
# `failure`, its metrics empty), so that a sweep may go beyond where a method works.
RUN_FAILED = 3


_children = set()  # nbody processes now running, killed if the runner is interrupted
_children_lock = threading.Lock()


def last_line(stderr, under_mpiexec=False):
    """The line a failed point is reported with: the last line of stderr; under mpiexec, whose
    banner follows nbody's words, nbody's last `nbody:` line where there is one."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    ours = [line for line in lines if line.startswith("nbody:")] if under_mpiexec else []
    return (ours or lines or ["(no stderr)"])[-1]


def _call(nbody, args, env, shown, launch=()):
    """Run nbody (under `launch`, the mpiexec words of a point with ranks: nbodylab/mpi.py);
    on failure raise PointFailed with the command as recorded (`shown`) and the last line of
    stderr."""
    prefix, settings = mpi.split(list(launch))
    if launch:
        env = mpi.environment(env if env is not None else os.environ, settings)
    with _children_lock:
        proc = subprocess.Popen([*prefix, str(nbody), *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
        _children.add(proc)
    try:
        _, stderr = proc.communicate()
    finally:
        with _children_lock:
            _children.discard(proc)
    if proc.returncode != 0:
        raise PointFailed(shown, f"exit {proc.returncode}: {last_line(stderr, bool(launch))}",
                          proc.returncode)


def _kill_children():
    with _children_lock:
        for proc in _children:
            proc.kill()


def _read_state(path):
    """{id: (x, y, z, vx, vy, vz)} from a state CSV, as Decimals: the file may carry more
    digits than a double (dd, quad, mp50 runs), and differences must not lose them."""
    rows = files.read_csv(path)
    return {r["id"]: tuple(decimal.Decimal(r[k]) for k in ("x", "y", "z", "vx", "vy", "vz"))
            for r in rows}


def state_errors(final_csv, ref_csv):
    """(max over bodies of |r - r_ref|, the same for v) between two state files."""
    with decimal.localcontext(prec=80):
        final, ref = _read_state(final_csv), _read_state(ref_csv)
        if final.keys() != ref.keys():
            raise ValueError(f"body ids differ between {final_csv} and the reference")
        pos = vel = decimal.Decimal(0)
        for i, s in final.items():
            r = ref[i]
            pos = max(pos, sum((s[k] - r[k]) ** 2 for k in range(3)).sqrt())
            vel = max(vel, sum((s[k] - r[k]) ** 2 for k in range(3, 6)).sqrt())
        return float(pos), float(vel)


class Progress:
    """One status line on stderr: redrawn in place on a terminal, else a plain line at most
    every `every` seconds; none when Progress.quiet (runner.py --quiet)."""

    quiet = False

    def __init__(self, tag, total, already):
        self.tag, self.total, self.already = tag, total, already
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.every = 1.0 if self.tty else 10.0
        self.last = -1e9

    def show(self, finished, running, final=False):
        now = time.monotonic()
        if self.quiet or (not final and now - self.last < self.every):
            return
        self.last = now
        elapsed = now - self.start
        done = self.already + finished
        line = f"[{self.tag}] {done}/{self.total} points, {running} running, elapsed {elapsed:.0f} s"
        if finished and done < self.total:
            # Crude: assumes the remaining points cost the mean of the finished ones.
            line += f", ETA ~{elapsed / finished * (self.total - done):.0f} s"
        if self.tty:
            sys.stderr.write("\r\033[K" + line + ("\n" if final else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _read_diagnostics(path):
    """The --diagnostics CSV as {"columns": [...], "rows": [[text, ...], ...]} (numbers kept
    as nbody wrote them: full precision, no float round trip)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError(f"{path.name} is empty")
    header, body = rows[0], rows[1:]
    bad = [i for i, r in enumerate(body) if len(r) != len(header)]
    if bad:
        raise ValueError(f"{path.name}: row {bad[0] + 2} has a different number of fields "
                         f"than its header")
    return {"columns": header, "rows": body}


def _has_timeseries(record):
    """Whether a stored record serves an experiment with a timeseries: a run that could not be
    carried through has none, any other must have recorded it."""
    return bool(record.get("timeseries") or record.get("failure"))


def run(exp, nbody, jobs, force, build_info):
    """Run every point of `exp` not already done; write the results on success.
    Returns the process exit status."""
    tag = exp.id.split("_", 1)[0]

    error_columns = ["pos_err", "vel_err"] if exp.reference else []

    def metrics(record, cmd):
        """The CSV's metric columns of one point: reference errors, then exp.metrics from the
        stored summary (all of it is stored, so editing `metrics` needs no re-run), then the
        reason the run failed (empty for a run that succeeded, whose metrics are then empty)."""
        if record.get("failure"):
            return {**{c: None for c in error_columns + exp.metrics}, "failure": record["failure"]}
        missing = [m for m in exp.metrics if m not in record["summary"]]
        if missing:
            raise PointFailed(cmd, f"summary JSON lacks {missing} "
                                   f"(has {sorted(record['summary'])})")
        return {**{c: record["errors"][c] for c in error_columns},
                **{m: record["summary"][m] for m in exp.metrics}, "failure": ""}

    nbody_sha = provenance.sha256_file(nbody)
    store = PointStore(exp.id, provenance.program_sha256(nbody), RECORD_FORMAT, force)
    integrators = provenance.integrator_list(nbody)
    outputs = ["--summary", f"{TMP}/summary.json"]
    if exp.command != "cells":  # `nbody cells` times a build: it has no state to write
        outputs = ["--final-state", f"{TMP}/final.csv", *outputs]
    if exp.timeseries:
        outputs += ["--diagnostics", f"{TMP}/diagnostics.csv"]

    points = []
    for point in exp.points():
        run_args, ref_args = exp.run_args(point), exp.reference_args(point)
        launch = exp.launch(point)  # [] unless the point has ranks (mpiexec) or an env bundle
        points.append({
            "params": exp.columns(point),
            "hash": store.key(run=run_args, reference=ref_args, timeseries=exp.timeseries,
                              **({"launch": launch} if launch else {})),
            "run_args": run_args,
            "ref_args": ref_args,
            "launch": launch,
            "cmd": shlex.join([*launch, display(nbody), *run_args, *outputs]),
            "reference_cmd": ref_args and shlex.join(
                [display(nbody), *ref_args, "--out", f"{TMP}/reference.csv"]),
        })
    usable = _has_timeseries if exp.timeseries else (lambda record: True)
    done = {p["hash"]: r for p in points
            if (r := store.load(p["hash"], usable)) is not None}
    pending = list({p["hash"]: p for p in points if p["hash"] not in done}.values())

    if exp.gpu_share:
        jobs = max(1, len(pending))  # all at once, each on its share of the GPU (nbodylab/gpu_share.py)
    elif exp.serial or any(p["launch"] for p in points):
        jobs = 1  # timings, or points of several cores or of their own environment: one at a time
    env = dict(os.environ)
    if jobs > 1:
        env["OMP_NUM_THREADS"] = "1"  # points run side by side: one core each
    print(f"[{tag}] {exp.title}: {len(points)} points (profile {exp.profile}, {jobs} jobs)"
          + (f", {len(points) - len(pending)} already done" if done else ""), file=sys.stderr)

    failures = []
    with tempfile.TemporaryDirectory(prefix=f"nbodylab-{tag}-") as tmp, \
            gpu_share.shared(exp.gpu_share, env, jobs) as shared, cf.ThreadPoolExecutor(max_workers=jobs) as pool:
        tmp = Path(tmp)

        def make_reference(p):
            out = tmp / f"ref-{p['hash']}.csv"
            _call(nbody, [*p["ref_args"], "--out", str(out)], env, p["reference_cmd"])
            return out

        def run_in_parts(p, work):
            """The point's run in parts (nbodylab/parts.py), its outputs joined in `work` as one
            run would write them; returns its summary (with the count of parts) and the parts."""
            written = [("--final-state", "final.csv")] + ([("--diagnostics", "diagnostics.csv")]
                                                          if exp.timeseries else [])
            summary, run_parts, files_of = parts.run_in_parts(
                lambda *call: _call(*call, p["launch"]), nbody, p["run_args"], env, exp.part_length,
                store.path(p["hash"], ".parts"), written, tag, force)
            shutil.copyfile(files_of["final.csv"][-1], work / "final.csv")
            if exp.timeseries:
                (work / "diagnostics.csv").write_text(parts.joined_csv(files_of["diagnostics.csv"]))
            return {**summary, "parts": len(run_parts)}, run_parts

        def run_point(p, ref_future):
            work = tmp / p["hash"]
            work.mkdir()
            run_parts = None
            try:
                if exp.part_length:
                    summary, run_parts = run_in_parts(p, work)
                else:
                    _call(nbody, [*p["run_args"], *[a.replace(TMP, str(work)) for a in outputs]],
                          env, p["cmd"], p["launch"])
                    summary = files.read_json(work / "summary.json")
            except PointFailed as e:
                if e.exit_code != RUN_FAILED:
                    raise
                record = store.store(p["hash"], {
                    "params": p["params"], "errors": {}, "summary": None, "timeseries": None,
                    "failure": e.message.split("run failed: ", 1)[-1],
                    "cmd": p["cmd"], "reference_cmd": p["reference_cmd"]})
                shutil.rmtree(work)
                shutil.rmtree(store.path(p["hash"], ".parts"), ignore_errors=True)
                return record
            record = {"params": p["params"], "errors": {}, "summary": summary,
                      "timeseries": (_read_diagnostics(work / "diagnostics.csv")
                                     if exp.timeseries else None),
                      "cmd": p["cmd"], "reference_cmd": p["reference_cmd"]}
            if ref_future is not None:
                ref = ref_future.result()  # a failed reference fails its points
                record["errors"] = dict(zip(("pos_err", "vel_err"),
                                            state_errors(work / "final.csv", ref)))
            if run_parts:
                record["parts"] = run_parts
            metrics(record, p["cmd"])  # fail now, with the command, if a metric is missing
            record = store.store(p["hash"], record)
            shutil.rmtree(work)  # final states of large runs would pile up in /tmp otherwise
            shutil.rmtree(store.path(p["hash"], ".parts"), ignore_errors=True)  # the record holds the run now
            return record

        # References (one per distinct `nbody ic` command) run first in the same pool;
        # each point waits for its own.
        refs = {}
        for p in pending:
            if p["ref_args"] is not None and json.dumps(p["ref_args"]) not in refs:
                refs[json.dumps(p["ref_args"])] = pool.submit(make_reference, p)
        futures = {pool.submit(run_point, p, refs.get(json.dumps(p["ref_args"]))): p
                   for p in pending}

        progress = Progress(tag, len(points), len(points) - len(pending))
        left, finished = set(futures), 0
        try:
            while left:
                ready, left = cf.wait(left, timeout=1.0, return_when=cf.FIRST_COMPLETED)
                for f in ready:
                    p = futures[f]
                    try:
                        done[p["hash"]] = f.result()
                    except PointFailed as e:
                        failures.append(e)
                    except Exception as e:  # unreadable output etc.: still the point's fault
                        failures.append(PointFailed(p["cmd"], f"{type(e).__name__}: {e}"))
                    finished += 1
                progress.show(finished, min(jobs, len(left)), final=not left)
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            _kill_children()
            print(f"\n[{tag}] interrupted; finished points are kept, re-run to resume",
                  file=sys.stderr)
            raise
        if not pending:
            progress.show(0, 0, final=True)

    if failures:
        # A failed reference fails all its points with the same message: print it once.
        for cmd, message in dict.fromkeys((e.cmd, e.message) for e in failures):
            print(f"[{tag}] FAILED: {cmd}\n        {message}", file=sys.stderr)
        print(f"[{tag}] {len(failures)} of {len(points)} points failed; "
              f"results/{exp.id}.csv not written", file=sys.stderr)
        return 1

    if provenance.sha256_file(nbody) != nbody_sha:  # rebuilt mid-run: provenance would lie
        print(f"[{tag}] error: {display(nbody)} changed during the run; re-run to redo the "
              f"points of the new binary", file=sys.stderr)
        return 1

    records = [done[p["hash"]] for p in points]
    try:
        values = [metrics(r, r["cmd"]) for r in records]
    except PointFailed as e:  # `metrics` was edited to name a field the summary lacks
        print(f"[{tag}] error: {e.message} (in {e.cmd})", file=sys.stderr)
        return 1
    # The point columns come from the experiment file as it is now (a stored record may
    # carry an older name of the same run, e.g. a renamed bundle).
    header = exp.params + list(values[0])
    rows = [[fmt(p["params"].get(k)) for k in exp.params] + [fmt(v) for v in m.values()]
            for p, m in zip(points, values)]
    meta = provenance.results_meta(
        exp.id, exp.title, provenance.RUNNER, header, [display(exp.path)],
        profile=exp.profile,
        nbody={"path": display(nbody), "sha256": nbody_sha, "build_info": build_info,
               "integrators": integrators},
        host=provenance.host(),
        runner={"argv": sys.argv, "jobs": jobs, "omp_num_threads": env.get("OMP_NUM_THREADS"),
                **({"gpu_share": shared} if shared else {}),
                "record_format": RECORD_FORMAT, "points_run": len(pending) - len(failures),
                "points_reused": len(points) - len(pending)},
        experiment_toml=exp.text,
        points=[{"params": p["params"], "cmd": r["cmd"], "reference_cmd": r["reference_cmd"],
                 "finished_utc": r["finished_utc"], **({"parts": r["parts"]} if r.get("parts") else {})}
                for p, r in zip(points, records)])
    csv_path = RESULTS_DIR / f"{exp.id}.csv"
    failed = [r for r in records if r.get("failure")]
    if failed:
        print(f"[{tag}] {len(failed)} of {len(points)} runs failed and are recorded as such "
              f"(column `failure`), e.g. {failed[0]['failure']}", file=sys.stderr)
    if exp.timeseries:
        ran = [(p, r) for p, r in zip(points, records) if r["timeseries"]]
        ts_columns = ran[0][1]["timeseries"]["columns"]
        odd = [p["cmd"] for p, r in ran if r["timeseries"]["columns"] != ts_columns]
        if odd:
            print(f"[{tag}] error: the diagnostics columns differ between points (e.g. "
                  f"{odd[0]})", file=sys.stderr)
            return 1
        # A diagnostics column named like a point column (dt: the swept step, and the step
        # just taken) is renamed diag_<name>: a CSV header must not repeat a name.
        ts_header = exp.params + [f"diag_{c}" if c in exp.params else c for c in ts_columns]
        ts_rows = [[fmt(p["params"].get(k)) for k in exp.params] + row
                   for p, r in ran for row in r["timeseries"]["rows"]]
        ts_path = write_timeseries(exp.id, ts_header, ts_rows,
                                   {**meta, "columns": ts_header, "timeseries_of": display(csv_path)})
        print(f"[{tag}] wrote {display(ts_path)} ({len(ts_rows)} rows) and its .meta.json",
              file=sys.stderr)
    files.write_csv(csv_path, header, rows, meta)
    print(f"[{tag}] wrote {display(csv_path)} ({len(rows)} rows) and its .meta.json",
          file=sys.stderr)
    return 0
