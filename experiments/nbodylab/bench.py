"""Running a timing experiment (`kind = "bench"` or `"tune"` in its TOML file): every point is one
`nbody bench ...` or `nbody tune ...` (its flags built from [fixed], [sweep] and [[cases]] exactly
as for `nbody run` points). A bench point gives one CSV row, a tune point one row per launch
shape tried (its `launch` split into block, split, unroll, ipt; an invalid shape is a row with
status=invalid and the reason, never a time). results/<ID>.csv has, per row, the point columns,
then the `metrics` (columns of nbody's rows, default spec.DEFAULT_BENCH_METRICS or
DEFAULT_TUNE_METRICS), then, for a bench row, the fastest and slowest of its timed evaluations (seconds_per_eval_min,
seconds_per_eval_max: the spread about the median seconds_per_eval), the 1-minute load average
of the machine just before and just after the point (load_before, load_after), the cores other
work kept busy while it ran (other_cores) and, where nvidia-smi is present, the GPU's SM clock
under load during the point (gpu_sm_clock_mhz).

The timing protocol: outside the smoke profile a bench point times at least 5 evaluations
(spec.MIN_TIMED_REPEATS). A timing is taken on a quiet machine or not at all: the CPU time the
whole machine spent busy during the point (/proc/stat), less that of the point itself, is the
other work; where it kept more cores busy than the point left free (the cores it could use less
its threads and ranks) by more than BUSY_MARGIN, the timing is refused and taken again after
BUSY_WAIT_S, up to BUSY_TRIES times, then the point fails saying so. The CPU model is recorded
before and after the experiment (runner.cpu_model_before/after in the .meta.json); a change fails
it.

Points run one at a time whatever --jobs says (timings must not share the machine), with the
environment as given plus the point's env bundle (OpenMP uses every core unless OMP_NUM_THREADS
says otherwise), in file order: with n swept before engine, the engines of one size are measured
back to back, so a change of machine load affects them alike. On a machine shared with other work,
`chrt -f 10 python experiments/runner.py run ID --force` (root) holds that work off the cores
while the timings run; the policy is recorded (runner.sched_policy in the .meta.json). A finished
point is stored at once (nbodylab/points.py: hash over the nbody arguments, the nbody binary's
sha256 and RECORD_FORMAT), so an interrupted run resumes; `--force` measures everything again (do
that for final numbers on a quiet machine).

The launch shapes `nbody tune` finds best are a result (`tune_cache` in the file): a tune
experiment naming itself runs each point with its own NBODY_TUNE_CACHE, keeps what the point
stored in its record, and writes them together as results/<ID>_tune_cache.json; a bench experiment
naming that experiment runs its points with NBODY_TUNE_CACHE set to that file, whose sha256 is part
of each point's hash and of the meta (the runner runs the bench again when the cache changes).

A point with `ranks` (and `threads_per_rank`; nbodylab/mpi.py) runs as
`OMP_NUM_THREADS=T mpiexec -n P --bind-to core --map-by slot:PE=T nbody bench ...`: its launch is
part of its hash and of its recorded command. Rank 0 writes the row (with nbody's own columns
ranks, compute_seconds, exchange_seconds, kernel_seconds).
"""
import csv
import io
import os
import pathlib
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from . import RESULTS_DIR, files, mpi, provenance
from .points import PointStore
from .provenance import display
from .spec import fmt
from .sweep import PointFailed, last_line

# Version of the stored bench records: bump it when their layout changes.
#   1  kind, params, bench (the CSV row as strings), load_before, load_after, cmd, nbody_sha256,
#      finished_utc
#   2  rows (the CSV rows) instead of bench; kind "bench" or "tune"
#   3  other_cores; bench rows with seconds_per_eval_min and _max
RECORD_FORMAT = 3
# The spread of a bench row's timed evaluations, always in its results (the timing protocol).
SPREAD = ["seconds_per_eval_min", "seconds_per_eval_max"]


def _sched_policy():
    """The scheduling policy the timings ran under (inherited by nbody): SCHED_OTHER normally;
    SCHED_FIFO when the runner was started with `chrt -f`, which holds other work off the cores
    during the measurement on a shared machine (the load average then still counts that work)."""
    try:
        policy = os.sched_getscheduler(0)
    except (AttributeError, OSError):
        return None
    names = {getattr(os, k): k for k in ("SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH",
                                          "SCHED_IDLE") if hasattr(os, k)}
    return names.get(policy, str(policy))


def _load1():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


# Cores of other work a timing tolerates beyond those it leaves free (a machine's own daemons),
# and how often, how far apart, a refused timing is taken again.
BUSY_MARGIN = 0.25
BUSY_TRIES, BUSY_WAIT_S = 10, 30


def _busy_seconds():
    """(CPU seconds all cores were busy since boot, from /proc/stat (user, nice, system, irq,
    softirq and steal: a virtual machine's host taking the cores counts), this process's and its
    finished children's CPU seconds); None where /proc/stat is not."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            ticks = [int(v) for v in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    own = sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for f in ("ru_utime", "ru_stime"))
    busy = sum(ticks) - ticks[3] - ticks[4]  # all but idle and iowait
    return busy / os.sysconf("SC_CLK_TCK"), own


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _other_cores(before, after, wall):
    """The cores other work kept busy on average between two _busy_seconds() readings `wall`
    seconds apart (None where unknown)."""
    if before is None or after is None or wall <= 0:
        return None
    other = (after[0] - before[0]) - (after[1] - before[1])
    return round(max(0.0, other) / wall, 2)


def _too_busy(other, rows, wall):
    """Why a timing whose other work kept `other` cores busy is refused, or None. The point's own
    cores: its rows' threads times ranks (every core where a row does not say)."""
    if other is None:
        return None
    row = rows[0]
    try:
        own = int(row.get("threads") or 0) * max(1, int(row.get("ranks") or 1))
    except ValueError:
        own = 0
    free = max(0, _cores() - (own or _cores()))
    # /proc/stat counts in ticks: two per core of slack, so that short points are not refused for one tick
    slack = BUSY_MARGIN + 2 * _cores() / os.sysconf("SC_CLK_TCK") / wall
    if other <= free + slack:
        return None
    return f"other work kept {other:.2f} cores busy while it ran, {free} of {_cores()} left free for it"


def launch_columns(row):
    """A tune row with its requested shape (`launch`, e.g. "block=64,split=auto") as columns and,
    where the engine reports it at the end of its device text, the resolved one (split=auto
    becomes the split that ran). A key the engine does not take (opencl-tiled: all but block) is
    left empty."""
    out = {"block": "", "split": "", "unroll": "", "ipt": "", **row}
    out.update(item.split("=") for item in row["launch"].split(","))
    resolved = row.get("device", "").rsplit("; ", 1)[-1]
    if resolved.startswith("block="):
        out.update(item.split("=") for item in resolved.split(","))
    return out


class _GpuClock:
    """Samples nvidia-smi's SM clock and power every 100 ms while a GPU point runs (one whose
    arguments name a GPU engine of this nbody, `nbody --build-info`'s build.gpu_engines, when
    nvidia-smi is here): the clock the timing ran at, for the
    gpu_sm_clock_mhz column (the median of the samples at more than 150 W, i.e. under load; empty
    when the point was too short to be sampled so). Never during a CPU point: the sampler's
    wake-ups would stall OpenMP threads that use every core (measured: 0.5 ms -> 8 ms at N = 4096)."""

    def __init__(self, args, gpu_engines):
        self.gpu = any(a.split(":")[-1] in gpu_engines for a in args)  # mpi:cuda-tiled too

    def __enter__(self):
        self.proc = None
        if self.gpu and shutil.which("nvidia-smi"):
            self.proc = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                                          "-lms", "100", "-i", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                         text=True)
        return self

    def __exit__(self, *exc):
        self.mhz = None
        if self.proc is None:
            return False
        self.proc.terminate()
        out, _ = self.proc.communicate()
        loaded = []
        for line in out.splitlines():
            try:
                mhz, watts = (float(v) for v in line.split(","))
            except ValueError:
                continue
            if watts > 150:
                loaded.append(mhz)
        self.mhz = statistics.median(loaded) if loaded else None
        return False


def tune_cache_path(exp_id):
    """The tuning cache tune experiment `exp_id` writes (its `tune_cache`)."""
    return RESULTS_DIR / f"{exp_id}_tune_cache.json"


def merged_caches(caches):
    """One tuning cache of the entries the points stored ({"device | engine | precision": [{"n",
    "launch", "seconds"}, ...]}), each list by n; of two entries for one n the later point's."""
    merged = {}
    for cache in caches:
        for key, entries in cache.items():
            merged.setdefault(key, {}).update({entry["n"]: entry for entry in entries})
    return {key: [by_n[n] for n in sorted(by_n)] for key, by_n in sorted(merged.items())}


def _measure(nbody, args, cmd, kind, gpu_engines, launch=(), tune_cache=None):
    """Run one `nbody bench` or `nbody tune` (under `launch`, the mpiexec words of a point with
    ranks: nbodylab/mpi.py; with NBODY_TUNE_CACHE=`tune_cache` where given) on a quiet machine (the
    protocol above); return (its CSV rows as dicts, load before, load after, the cores other work
    kept busy, the GPU's SM clock under load or None)."""
    prefix, settings = mpi.split(list(launch))
    env = mpi.environment(os.environ, settings) if launch else dict(os.environ)
    if tune_cache:
        env["NBODY_TUNE_CACHE"] = str(tune_cache)
    for attempt in range(1, BUSY_TRIES + 1):
        before, busy_before, start = _load1(), _busy_seconds(), time.monotonic()
        with _GpuClock(args, gpu_engines) as clock:
            proc = subprocess.run([*prefix, str(nbody), *args], capture_output=True, text=True, env=env)
        other = _other_cores(busy_before, _busy_seconds(), time.monotonic() - start)
        after = _load1()
        if proc.returncode != 0:
            raise PointFailed(cmd, f"exit {proc.returncode}: {last_line(proc.stderr, bool(launch))}",
                              proc.returncode)
        rows = list(csv.DictReader(io.StringIO(proc.stdout)))
        if (kind == "bench" and len(rows) != 1) or not rows:
            raise PointFailed(cmd, f"expected {'one CSV row' if kind == 'bench' else 'CSV rows'} from nbody {kind}, "
                                   f"got {len(rows)}")
        busy = _too_busy(other, rows, time.monotonic() - start)
        if busy is None:
            return (rows if kind == "bench" else [launch_columns(r) for r in rows]), before, after, other, clock.mhz
        if attempt < BUSY_TRIES:
            print(f"  timing refused ({busy}); again in {BUSY_WAIT_S} s ({attempt}/{BUSY_TRIES})", file=sys.stderr)
            time.sleep(BUSY_WAIT_S)
    raise PointFailed(cmd, f"the machine is busy: {busy}, in each of {BUSY_TRIES} tries {BUSY_WAIT_S} s apart "
                           f"(timings need it quiet: stop the other work)")


def run(exp, nbody, force, build_info):
    """Measure every point of the bench or tune experiment `exp` not already stored; write
    results/<ID>.csv and its provenance. Returns the process exit status."""
    tag = exp.id.split("_", 1)[0]
    nbody_sha = provenance.sha256_file(nbody)
    cpu_model_before = provenance.host()["cpu_model"]
    store = PointStore(exp.id, provenance.program_sha256(nbody), RECORD_FORMAT, force)
    filling = exp.tune_cache == exp.id  # a tune experiment whose points fill its cache
    read_cache = tune_cache_path(exp.tune_cache) if exp.tune_cache and not filling else None
    if read_cache and not read_cache.is_file():
        print(f"[{tag}] error: {display(read_cache)}, the launch shapes its points take, is missing: "
              f"`runner.py run {exp.tune_cache}` writes it", file=sys.stderr)
        return 1
    cache_sha = provenance.sha256_file(read_cache) if read_cache else None
    points = []
    for point in exp.points():
        args = exp.run_args(point)
        launch = exp.launch(point)  # [] unless the point has ranks (mpiexec) or an env bundle
        points.append({"params": exp.columns(point), "args": args, "launch": launch,
                       "hash": store.key(**{exp.kind: args}, **({"launch": launch} if launch else {}),
                                         **({"tune_cache": cache_sha} if cache_sha else {})),
                       "cmd": shlex.join([*launch, display(nbody), *args])})
    done = {p["hash"]: r for p in points
            if (r := store.load(p["hash"], lambda r: r.get("kind") == exp.kind
                                and (not filling or "tune_cache" in r))) is not None}
    pending = [p for p in dict((p["hash"], p) for p in points).values() if p["hash"] not in done]
    print(f"[{tag}] {exp.title}: {len(points)} timings (profile {exp.profile}, one at a time, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, {_sched_policy()}, "
          f"load {_load1()})"
          + (f", {len(points) - len(pending)} already done" if done else ""), file=sys.stderr)

    failures = []
    start = time.monotonic()
    try:
        for k, p in enumerate(pending):
            with tempfile.TemporaryDirectory() as scratch:
                point_cache = pathlib.Path(scratch) / "tune.json" if filling else read_cache
                try:
                    rows, before, after, other, mhz = _measure(nbody, p["args"], p["cmd"], exp.kind,
                                                               build_info.get("build", {}).get("gpu_engines", []),
                                                               p["launch"], point_cache)
                except PointFailed as e:
                    failures.append(e)
                    continue
                stored = ({"tune_cache": files.read_json(point_cache) if point_cache.is_file() else {}}
                          if filling else {})
            record = done[p["hash"]] = store.store(p["hash"], {
                "kind": exp.kind, "params": p["params"], "rows": rows, "load_before": before,
                "load_after": after, "other_cores": other, "gpu_sm_clock_mhz": mhz, "cmd": p["cmd"], **stored})
            shown = ", ".join(f"{c}={fmt(v)}" for c, v in p["params"].items())
            timed = [r for r in rows if r.get("status", "ok") == "ok"]
            best = max(timed, key=lambda r: float(r["interactions_per_s"])) if timed else None
            result = (f"{float(best['seconds_per_eval']):.4g} s, {float(best['interactions_per_s']):.3g} "
                      f"interactions/s" if best else "no valid shape")
            if exp.kind == "tune":
                result = f"{len(rows)} shapes, best {result}"
            print(f"[{tag}] {k + 1}/{len(pending)} {shown}: {result} (load {before} -> {after}, other work "
                  f"{other} cores)", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"\n[{tag}] interrupted; finished points are kept, re-run to resume", file=sys.stderr)
        raise
    if failures:
        for e in failures:
            print(f"[{tag}] FAILED: {e.cmd}\n        {e.message}", file=sys.stderr)
        print(f"[{tag}] {len(failures)} of {len(points)} points failed; results/{exp.id}.csv "
              f"not written", file=sys.stderr)
        return 1
    if provenance.sha256_file(nbody) != nbody_sha:
        print(f"[{tag}] error: {display(nbody)} changed during the run; re-run to time the new "
              f"binary", file=sys.stderr)
        return 1

    records = [done[p["hash"]] for p in points]
    missing = sorted({m for r in records for row in r["rows"] for m in exp.metrics if m not in row})
    if missing:
        print(f"[{tag}] error: the nbody {exp.kind} rows lack {missing} (have "
              f"{sorted(records[0]['rows'][0])})", file=sys.stderr)
        return 1
    metrics = [m for m in exp.metrics if m not in exp.params]  # a swept flag nbody also reports
    if exp.kind == "bench":
        metrics += [m for m in SPREAD if m not in metrics]
    clocked = any(r.get("gpu_sm_clock_mhz") for r in records)  # a GPU with nvidia-smi was sampled
    header = exp.params + metrics + ["load_before", "load_after", "other_cores"] + (["gpu_sm_clock_mhz"] if clocked else [])
    rows = [[fmt(p["params"].get(k)) for k in exp.params] + [row[m] for m in metrics]
            + [fmt(r["load_before"]), fmt(r["load_after"]), fmt(r["other_cores"])]
            + ([fmt(r.get("gpu_sm_clock_mhz"))] if clocked else [])
            for p, r in zip(points, records) for row in r["rows"]]
    cache_meta = {}
    if filling:
        cache = merged_caches(r["tune_cache"] for r in records)
        if not cache:
            print(f"[{tag}] error: its points stored no launch shape (no-store?): nothing for "
                  f"{display(tune_cache_path(exp.id))}", file=sys.stderr)
            return 1
        files.write_json(tune_cache_path(exp.id), cache)
    if exp.tune_cache:
        path = tune_cache_path(exp.tune_cache)
        cache_meta = {"tune_cache": {"experiment": exp.tune_cache, "path": display(path),
                                     "sha256": provenance.sha256_file(path)}}
    cpu_model_after = provenance.host()["cpu_model"]
    if cpu_model_after != cpu_model_before:
        print(f"[{tag}] error: the CPU changed during the run ({cpu_model_before} before, {cpu_model_after} "
              f"after); re-run it on one machine", file=sys.stderr)
        return 1
    meta = provenance.results_meta(
        exp.id, exp.title, provenance.RUNNER, header, [display(exp.path)],
        profile=exp.profile, kind=exp.kind,
        nbody={"path": display(nbody), "sha256": nbody_sha, "build_info": build_info},
        host=provenance.host(),
        runner={"argv": sys.argv, "jobs": 1, "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
                "sched_policy": _sched_policy(), "record_format": RECORD_FORMAT,
                "cpu_model_before": cpu_model_before, "cpu_model_after": cpu_model_after,
                "points_run": len(pending), "points_reused": len(points) - len(pending),
                "seconds": round(time.monotonic() - start, 1)},
        experiment_toml=exp.text, **cache_meta,
        points=[{"params": p["params"], "cmd": r["cmd"], "finished_utc": r["finished_utc"],
                 "compiler_flags": r["rows"][0].get("compiler_flags")}
                for p, r in zip(points, records)])
    csv_path = RESULTS_DIR / f"{exp.id}.csv"
    files.write_csv(csv_path, header, rows, meta)
    print(f"[{tag}] wrote {display(csv_path)} ({len(rows)} rows) and its .meta.json",
          file=sys.stderr)
    return 0
