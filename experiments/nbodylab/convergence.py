"""A convergence study in the manner of Brutus (Boekholt & Portegies Zwart 2015), `kind =
"convergence"` in an experiment file (see experiments/E22_brutus_convergence.toml).

For every point of [sweep] (e.g. each N), the runs of the ladder

  [ladder]
  agree-digits = 30        two successive runs have converged when they agree to this
  leave = 1e-6             a compared run has left the converged one when delta exceeds this
  integrator = ...         flags shared by every ladder run (with [fixed])
  steps = [{precision = "dd", tol = 1e-20}, ..., {precision = "mp50", tol = 1e-38, when = {n = [64]}}]
  part-length = 12.5       optional: each ladder run goes in parts that stop at multiples of this
                           simulated time, each resumed from the previous one's checkpoint, so that
                           an interrupted run (a job's time limit) loses at most one part

go one after the other, each with every core, tolerance tightening and precision rising, until
two successive ones agree to `agree-digits` at every output time; the second of that pair is the
converged trajectory (when the ladder ends first, its last run is the reference, and the tables
say how many digits it reached). A step with `when` runs only at the points whose columns take
one of the listed values. Then every point of [sweep] x [[cases]] (the methods under test) runs,
in parallel, and is compared with its point's reference.

Every run writes `nbody run --snapshots` at --snapshot-every (a [fixed] flag): the whole state
at exact output times. The distance of two runs at an output time is

  delta = max( max_i |r_i - r'_i| / R, max_i |v_i - v'_i| / V ),

R and V the root mean square of |r_i| and |v_i| in the second run, computed in Decimal
arithmetic at 80 digits from the digits nbody wrote (mp50 files carry 50 and more).

Outputs: results/<ID>.csv (the ladder: one row per run with its agreement with the previous
run, `digits_min` over the output times and `digits_end` at the last, and `converged`),
results/<ID>_methods.csv (each compared run: delta at the end, `t_leave`, the first output time
with delta > leave, empty when it never leaves, and the reference's own digits), and
results/<ID>_timeseries.csv.gz (delta against the reference at every output time, for every run),
each with its .meta.json. Runs are stored in results/.points/<ID>/<hash>.json
(nbodylab/points.py) with their snapshots beside them (<hash>.snapshots.csv), so an interrupted
study resumes; a run in parts keeps its finished parts (summary, snapshots, checkpoint) in
<hash>.parts/ until the last one is done, and its record lists them.
"""
import concurrent.futures as cf
import decimal
import itertools
import json
import math
import os
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

from . import RESULTS_DIR, files, parts, provenance, write_timeseries
from .points import PointStore
from .provenance import display
from .spec import SpecError, fmt
from .sweep import RUN_FAILED, PointFailed, _call, _kill_children

# Version of the stored run records: bump it when their layout changes.
#   1  kind, params, summary, failure, cmd, nbody_sha256, finished_utc (+ <hash>.snapshots.csv)
RECORD_FORMAT = 1
DIGITS = 80  # Decimal precision of the comparisons
STATE_COLUMNS = ("x", "y", "z", "vx", "vy", "vz")


class Ladder:
    """The [ladder] table, checked."""

    def __init__(self, exp):
        table = dict(exp.ladder)
        where = f"{exp.id} [ladder]"
        def positive(key, what):
            value = table.pop(key, None)
            if value is not None and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                                          and math.isfinite(value) and value > 0):
                raise SpecError(f"{where}: {key} must be {what}, got {value!r}")
            return value

        if not {"agree-digits", "leave", "steps"} <= set(table):
            raise SpecError(f"{where} needs agree-digits, leave and steps")
        self.digits = float(positive("agree-digits", "a positive number of digits"))
        self.leave = float(positive("leave", "a positive distance"))
        steps = table.pop("steps")
        self.part_length = positive("part-length", "a positive time")
        if self.part_length is not None and not isinstance(exp.fixed.get("t-end"), (int, float)):
            raise SpecError(f"{where}: part-length needs a number for t-end in [fixed], got "
                            f"{exp.fixed.get('t-end')!r}")
        if not isinstance(steps, list) or not steps or not all(isinstance(s, dict) for s in steps):
            raise SpecError(f"{where}: steps must be a non-empty list of tables of flags")
        self.shared = table  # flags of every ladder run
        self.steps = []
        for s in steps:
            s = dict(s)
            when = s.pop("when", {})
            if not isinstance(when, dict):
                raise SpecError(f"{where}: a step's when must be a table of columns and values, got {when!r}")
            clash = set(s) & set(self.shared)
            if clash:
                raise SpecError(f"{where}: {sorted(clash)} set both in a step and for all steps")
            self.steps.append((s, {k: v if isinstance(v, list) else [v] for k, v in when.items()}))
        if "snapshot-every" not in exp.fixed:
            raise SpecError(f"{exp.id}: a convergence study needs snapshot-every in [fixed]")

    def steps_for(self, columns):
        return [{**self.shared, **s} for s, when in self.steps
                if all(columns.get(k) in values for k, values in when.items())]


def read_snapshots(path):
    """[(t, [(x, y, z, vx, vy, vz), ...]), ...] in time order, every number a Decimal."""
    out = []
    for row in files.read_csv(path):
        t = decimal.Decimal(row["t"])
        if not out or out[-1][0] != t:
            out.append((t, []))
        out[-1][1].append(tuple(decimal.Decimal(row[k]) for k in STATE_COLUMNS))
    return out


def distance(a, b):
    """delta between two states (lists of 6-tuples), relative to the scales of b."""
    n = len(b)
    r2 = sum(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] for s in b) / n
    v2 = sum(s[3] * s[3] + s[4] * s[4] + s[5] * s[5] for s in b) / n
    dr2 = max(sum((p[k] - q[k]) ** 2 for k in range(3)) for p, q in zip(a, b))
    dv2 = max(sum((p[k] - q[k]) ** 2 for k in range(3, 6)) for p, q in zip(a, b))
    return max(dr2 / r2, dv2 / v2).sqrt()


def distances(run, ref):
    """[(t, delta)] at the output times of two snapshot files' contents."""
    if len(run) != len(ref) or any(len(a) != len(b) for (_, a), (_, b) in zip(run, ref)):
        raise ValueError("the runs' snapshots differ in number of times or bodies")
    out = []
    with decimal.localcontext(prec=DIGITS):
        for (t, a), (t_ref, b) in zip(run, ref):
            if abs(t - t_ref) > decimal.Decimal("1e-12") * max(1, abs(t_ref)):
                raise ValueError(f"output times differ: {t} and {t_ref}")
            out.append((float(t_ref), distance(a, b)))
    return out


def digits(delta):
    """Agreement in decimal digits: -log10(delta) (a float; inf when identical)."""
    with decimal.localcontext(prec=DIGITS):
        return float("inf") if delta == 0 else float(-delta.log10())


class Runs:
    """Runs `nbody run ... --snapshots`, each stored once under results/.points/<ID>/."""

    def __init__(self, exp, nbody, force):
        self.exp, self.nbody, self.force = exp, nbody, force
        self.sha = provenance.sha256_file(nbody)
        self.store = PointStore(exp.id, provenance.program_sha256(nbody), RECORD_FORMAT, force)
        self.ran = self.reused = 0

    def snapshots_path(self, record):
        return self.store.path(record["hash"], ".snapshots.csv")

    def run(self, params, args, env, part_length=None):
        """The record of one run (cached); a run nbody could not carry through (exit 3) is a
        record with `failure` set. With part_length, the run goes in parts (run_in_parts)."""
        h = self.store.key(run=args)
        cmd = shlex.join([display(self.nbody), *args, "--summary", "<tmp>/summary.json",
                          "--snapshots", f"<points>/{h}.snapshots.csv"])
        record = self.store.load(h, lambda r: r.get("failure") or self.snapshots_path(r).is_file())
        if record is not None:
            self.reused += 1
            return record
        record = {"kind": "convergence", "hash": h, "params": params, "summary": None,
                  "failure": "", "cmd": cmd}
        try:
            if part_length:
                record["summary"], record["parts"] = self.run_in_parts(h, args, env, part_length)
            else:
                with tempfile.TemporaryDirectory(prefix=f"nbodylab-{self.exp.id[:3]}-") as tmp:
                    tmp = Path(tmp)
                    _call(self.nbody, [*args, "--summary", str(tmp / "summary.json"),
                                       "--snapshots", str(tmp / "snapshots.csv")], env, cmd)
                    record["summary"] = files.read_json(tmp / "summary.json")
                    self.store.dir.mkdir(parents=True, exist_ok=True)
                    shutil.move(tmp / "snapshots.csv", self.snapshots_path(record))
        except PointFailed as e:
            if e.exit_code != RUN_FAILED:
                raise
            record["failure"] = e.message.split("run failed: ", 1)[-1]
        self.ran += 1
        return self.store.store(h, record)

    def run_in_parts(self, h, args, env, part_length):
        """The run in parts (nbodylab/parts.py) in <hash>.parts/; the parts' snapshots joined
        into <hash>.snapshots.csv. Returns the whole run's summary and its parts."""
        summary, run_parts, written = parts.run_in_parts(
            _call, self.nbody, args, env, part_length, self.store.path(h, ".parts"),
            [("--snapshots", "snapshots.csv")], self.exp.id.split("_", 1)[0], self.force)
        files.write_text(self.store.path(h, ".snapshots.csv"), parts.joined_csv(written["snapshots.csv"]))
        return summary, run_parts


def label(columns, keys):
    return " ".join(f"{k}={fmt(columns[k])}" for k in keys if k in columns)


def run(exp, nbody, jobs, force, build_info):
    """The whole study; writes the three result files. Returns the process exit status."""
    tag = exp.id.split("_", 1)[0]
    ladder = Ladder(exp)
    runs = Runs(exp, nbody, force)
    start = time.monotonic()
    sweep_names = list(exp.sweep)
    bases = [dict(zip(sweep_names, combo)) for combo in itertools.product(*exp.sweep.values())]
    methods = exp.points()
    print(f"[{tag}] {exp.title}: ladders at {len(bases)} point(s), {len(methods)} runs compared "
          f"(profile {exp.profile})", file=sys.stderr)

    ladder_rows, series_rows, references = [], [], {}
    try:
        for base in bases:
            cols = exp.columns(base)
            previous, base_rows = None, []
            for step in ladder.steps_for(cols):
                params = {**cols, **step}
                # [fixed] + the point's flags (ladder flags need not be columns)
                record = runs.run(params, exp.run_args({**base, **step}), dict(os.environ),
                                  ladder.part_length)
                if record["failure"]:
                    raise PointFailed(record["cmd"], f"ladder run failed: {record['failure']}")
                snaps = read_snapshots(runs.snapshots_path(record))
                row = {"params": params, "record": record, "snaps": snaps, "step_keys": list(step)[len(ladder.shared):],
                       "digits_min": None, "digits_end": None, "converged": False}
                if previous is not None:
                    d = [digits(x) for _, x in distances(previous["snaps"], snaps)[1:]]
                    row["digits_min"], row["digits_end"] = min(d), d[-1]
                    row["converged"] = row["digits_min"] >= ladder.digits
                s = record["summary"]
                print(f"[{tag}] {label(params, list(cols) + list(step))}: {s['fevals']} force "
                      f"evaluations, {s['wall_s']:.1f} s" + (
                          f", agrees with the previous run to {row['digits_min']:.1f} digits"
                          if previous else ""), file=sys.stderr)
                base_rows.append(row)
                previous = row
                if row["converged"]:
                    break
            reference = references[json.dumps(cols, sort_keys=True)] = previous
            if not reference["converged"]:
                print(f"[{tag}] {label(cols, sweep_names)}: the ladder ended before two runs "
                      f"agreed to {ladder.digits:g} digits (last agreement "
                      f"{reference['digits_min'] or 0:.1f}); its last run is the reference",
                      file=sys.stderr)
            for row in base_rows:
                if row is not reference:
                    for t, x in distances(row["snaps"], reference["snaps"]):
                        series_rows.append((cols, "ladder", label(row["params"], row["step_keys"]), t, x))
            ladder_rows += base_rows

        # The compared runs: side by side, one core each.
        env = dict(os.environ)
        if jobs > 1:
            env["OMP_NUM_THREADS"] = "1"
        with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(runs.run, exp.columns(p), exp.run_args(p), env) for p in methods]
            records = [f.result() for f in futures]
    except KeyboardInterrupt:
        _kill_children()
        print(f"\n[{tag}] interrupted; finished runs are kept, re-run to resume", file=sys.stderr)
        raise
    except PointFailed as e:
        _kill_children()
        print(f"[{tag}] FAILED: {e.cmd}\n        {e.message}\n[{tag}] results not written",
              file=sys.stderr)
        return 1

    method_rows = []
    for point, record in zip(methods, records):
        cols = exp.columns(point)
        base = {k: cols[k] for k in sweep_names}
        reference = references[json.dumps(base, sort_keys=True)]
        row = {"params": cols, "record": record, "delta_end": None, "t_leave": None,
               "reference_digits": reference["digits_min"]}
        if not record["failure"]:
            series = distances(read_snapshots(runs.snapshots_path(record)), reference["snaps"])
            row["delta_end"] = float(series[-1][1])
            row["t_leave"] = next((t for t, x in series if x > ladder.leave), None)
            for t, x in series:
                series_rows.append((base, "method", label(cols, exp.case_columns), t, x))
        method_rows.append(row)

    if provenance.sha256_file(nbody) != runs.sha:
        print(f"[{tag}] error: {display(nbody)} changed during the run; re-run", file=sys.stderr)
        return 1

    host = provenance.host()
    seconds = round(time.monotonic() - start, 1)

    def meta(columns, **extra):
        return provenance.results_meta(
            exp.id, exp.title, provenance.RUNNER, columns, [display(exp.path)],
            profile=exp.profile, kind="convergence",
            nbody={"path": display(nbody), "sha256": runs.sha, "build_info": build_info},
            host=host,
            runner={"argv": sys.argv, "jobs": jobs, "record_format": RECORD_FORMAT,
                    "runs_run": runs.ran, "runs_reused": runs.reused, "seconds": seconds},
            experiment_toml=exp.text,
            definitions={"delta": "max(max_i |r_i - r'_i| / R, max_i |v_i - v'_i| / V), R and V "
                                  "the RMS of |r_i| and |v_i| of the reference, at each output time",
                         "digits": "-log10(delta)", "agree_digits": ladder.digits,
                         "leave": ladder.leave},
            **extra)
    step_keys = list(dict.fromkeys(k for s, _ in ladder.steps for k in s))
    summary_keys = ["fevals", "steps", "rejected", "dE_rel_max", "wall_s"]
    # device: the GPU and launch shape of a GPU engine's run (its last part's), empty on the CPU
    header = sweep_names + list(ladder.shared) + step_keys + summary_keys + [
        "device", "digits_min", "digits_end", "converged"]
    rows = [[fmt(r["params"].get(k)) for k in sweep_names + list(ladder.shared) + step_keys]
            + [fmt(r["record"]["summary"][k]) for k in summary_keys]
            + [r["record"]["summary"].get("device", ""),
               fmt(r["digits_min"]), fmt(r["digits_end"]), fmt(r["converged"])]
            for r in ladder_rows]
    csv_path = RESULTS_DIR / f"{exp.id}.csv"
    files.write_csv(csv_path, header, rows,
                    meta(header, commands=[r["record"]["cmd"] for r in ladder_rows]))

    m_header = exp.params + summary_keys + ["delta_end", "t_leave", "reference_digits", "failure"]
    m_rows = [[fmt(r["params"].get(k)) for k in exp.params]
              + [fmt(r["record"]["summary"][k]) if r["record"]["summary"] else "" for k in summary_keys]
              + [fmt(r["delta_end"]), fmt(r["t_leave"]), fmt(r["reference_digits"]),
                 r["record"]["failure"]] for r in method_rows]
    m_path = RESULTS_DIR / f"{exp.id}_methods.csv"
    files.write_csv(m_path, m_header, m_rows,
                    meta(m_header, commands=[r["record"]["cmd"] for r in method_rows]))

    s_header = sweep_names + ["role", "run", "t", "delta"]
    s_rows = [[fmt(b.get(k)) for k in sweep_names] + [role, name, fmt(t), f"{float(x):.6e}"]
              for b, role, name, t, x in series_rows]
    s_path = write_timeseries(exp.id, s_header, s_rows, meta(s_header))
    for p, n in ((csv_path, len(rows)), (m_path, len(m_rows)), (s_path, len(s_rows))):
        print(f"[{tag}] wrote {display(p)} ({n} rows) and its .meta.json", file=sys.stderr)
    return 0
