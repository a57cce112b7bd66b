#!/usr/bin/env python3
"""nbody-lab experiment runner: experiments/<ID>.toml -> nbody -> results/<ID>.csv.

Commands
  run ID        run the sweep of experiments/ID.toml, unless the committed results/ID.csv
                stands for it (made by this profile or a larger one, from the same experiment
                file and a clean build of the same solver source: CMakeLists.txt, cmake/,
                solver/, kernels/; --force runs it anyway, but never in place of results
                of a larger profile); writes results/ID.csv and its provenance
                results/ID.meta.json (nbody --build-info, `nbody list integrators
                --json`, host, profile, the TOML text, the exact nbody command of every point);
                with `timeseries = true` also results/ID_timeseries.csv.gz (+ .meta.json).
  figures [ID]  run figures/ID.py (with .venv/bin/python when it exists): the figure
                (figures/ID.pdf, .png) and the LaTeX it generates in paper/generated/;
                without ID, every figures/E*.py, then the paper's provenance table of every
                results file (paper/generated/provenance_table.tex, measured.tex).
  all           `run` every experiments/E*.toml in order, then every figures/E*.py.
                Figure scripts read only results/, so each runs alone and in any order.
  plan          for every experiment, what `all` would do on this machine and why: run it (no
                committed results, or out of date: which), reuse the committed ones (current,
                made by a larger profile, or needing what this machine lacks) or skip it (it can
                neither run here nor reuse results: `run` refuses it); runs nothing.

Profiles (--profile, default "default")
  smoke    seconds: a few points, for CI
  default  what `make all` runs (everything within the 2-core budget)
  full     the paper's sizes (hours, may need a GPU)
`all` and `plan` take --requiring REQ: only the experiments that require REQ and those derived
from them (no figures, no provenance table; one this machine cannot run is said, not failed).
NBODYLAB_RESULTS=DIR puts every result in DIR instead of results/: `make all PROFILE=gpu-smoke`
is `NBODYLAB_RESULTS=build/gpu-smoke/results runner.py all --profile smoke --requiring cuda`,
every GPU experiment at tiny sizes beside the committed results.

Execution
  Points run in parallel (--jobs, default: the number of cores); with more than one job each
  nbody gets OMP_NUM_THREADS=1. A finished point is stored at once in
  results/.points/ID/<hash>.json (a versioned record: see nbodylab/points.py), the hash
  covering its nbody arguments (and, for a sweep, whether it records a timeseries), the record
  format and the sha256 of the nbody program (the same for the same build made again), so re-running an interrupted experiment of any kind
  only runs what is missing (--force runs everything again). A run that nbody could not carry through (exit code 3: a
  non-finite state, a step-size underflow, an implicit solve that does not converge at that
  step) is a result: it is recorded with nbody's reason in the CSV column `failure`, its metrics
  empty. Any other failed point (bad input, a crash) is reported with its command and the last
  line nbody wrote to stderr; the others still run, then the runner exits non-zero without
  writing results/ID.csv. If the experiment needs what this machine lacks (requires = "cuda")
  and results/ID.csv exists, the committed results are reused, saying so.
  A point with `ranks` (see the schema) runs under mpiexec; an experiment with such points runs
  them one at a time.

Experiment file schema (experiments/ID.toml; see E01_two_body_convergence.toml, and
E03_integrators_collision.toml for [[cases]] and bundles)
  title       = "one line"                   what the experiment measures
  kind        = "run" | "bench" | "tune" | "convergence" | "derived" | "script"  optional: how it runs
                                             (default run: `nbody run` points); "bench" points are timings,
                                             run one at a time with every core, their CSV row the
                                             result (see E07_cpu_engines.toml, nbodylab/bench.py);
                                             "tune": GPU launch-shape sweeps, one row per shape
                                             (see E10_block_size_sweep.toml);
                                             "convergence": a Brutus-style ladder of ever more
                                             precise runs ([ladder]) and the [[cases]] compared
                                             with its converged trajectory (see
                                             E22_brutus_convergence.toml, nbodylab/convergence.py;
                                             [ladder] part-length runs each ladder run in
                                             checkpointed parts, resumed after an interruption);
                                             "derived": no runs of its own; its results are
                                             computed from those of the experiments listed in
                                             derived_from = ["ID", ...] by the reducer
                                             script = "experiments/NAME.py", which the runner
                                             runs as `python SCRIPT --out FOLDER` and again
                                             whenever those results change (their checksums
                                             are in its meta; see E24_roofline.toml). Its
                                             only other keys are title and description;
                                             "script": no points; the runner runs
                                             script = "experiments/NAME.py" as
                                             `python SCRIPT --nbody NBODY --out FOLDER ARGS`
                                             (args = [...], or [profile.NAME] args), takes in
                                             the results/ID*.csv (+ .meta.json) and other files
                                             it writes there and stamps them as its own, so
                                             they are reused or run again as any experiment's
                                             (see E20_potential_field.toml, nbodylab/script.py);
                                             its other keys: title, description, requires.
  requires    = "cuda" | [...]                optional: what the machine must have, of cuda, opencl,
                                             mpi, ncu, gpus>=N, sm>=XY, reference:dualsphysics (another
                                             code built from its source in build/reference/NAME/,
                                             for a reference experiment: see
                                             E19_sph_dam_break_dualsphysics.toml)
                                             (nbodylab/requirements.py; [profile.full] requires =
                                             ...: that profile only)
  metrics     = ["steps", "fevals", ...]     optional: fields of `nbody run --summary` copied to
                                             the CSV (default: steps fevals rejected dE_rel
                                             dE_rel_max P_rel L_rel t wall_s)
  timeseries  = true                         optional: each point also writes --diagnostics
                                             (sampled every --diag-every, a [fixed] flag); the
                                             rows go to results/ID_timeseries.csv.gz: the point
                                             columns, then the diagnostics columns (t, steps,
                                             fevals, ...; one named like a point column is
                                             renamed diag_NAME, e.g. diag_dt)
  command     = "run" | "dpd" | "sph" | "cells"  optional, kind run: the nbody subcommand of the
                                             points (default run; dpd: `nbody dpd`, its flags in
                                             [fixed] and the sweeps, its summary fields as metrics;
                                             see E19_dpd_step_time.toml, E19_sph_dam_break.toml)
  serial      = true                         optional: the points run one at a time with every
                                             core whatever --jobs says (their wall times, such as
                                             step_wall_s, are timings; bench and tune points
                                             always do)
  gpu_share   = "mps"                        optional, kind run: the points all at once on the
                                             one GPU under NVIDIA's Multi-Process Service, each
                                             on an equal share of its multiprocessors (requires
                                             "mps"; for latency-bound runs such as E05's on the
                                             GPU: their GPU time is the longest point's)
  part_length = 10                           optional, kind run (`nbody run` points with a number
                                             for t-end): each point's run goes in parts that stop
                                             at multiples of this time, each resumed from the
                                             previous part's checkpoint; an interrupted runner
                                             loses at most one part (see E05_long_run_gpu.toml,
                                             nbodylab/parts.py); [profile.NAME] may set its own
  tune_cache  = "ID"                         optional, kind tune: its own ID, its points' best launch
                                             shapes go to results/ID_tune_cache.json; kind bench:
                                             such an experiment, whose cache its points read (run
                                             first, and this one again when it changes; see
                                             E13_tuned_launch.toml, E09_gpu_time_vs_n.toml)
  [fixed]       nbody run flags (without --) for every point: ic = "kepler", t-end = "10P";
                true = bare flag, false = omitted; strings may name swept values: "P/{n}"
  [sweep]       swept nbody run flags: name = [values] or an inclusive range
                {start, stop, step} (arithmetic) or {start, stop, factor} (geometric)
  [sweep_vars]  swept variables that are not flags, only used in {templates} and as columns;
                a case may set one for its own points: [sweep_vars] scaling = ["strong", "weak"],
                [[cases]] scaling = "weak" ... (see E25_mpi_scaling.toml)
  [[cases]]     optional, repeated: a table of swept flags (values as in [sweep]) that only
                some points take, e.g. the fixed-step methods over --dt and the embedded ones
                over --tol:   [[cases]]  integrator = ["rk4", "euler"]  dt = [0.1, 0.01]
                              [[cases]]  integrator = "dopri5"  tol = {start=1e-12, stop=1e-4, factor=100}
                The points are the union over the cases of ([sweep] x [sweep_vars] x the
                case's product), duplicates dropped.
  ranks, threads_per_rank
                two point parameters that are not flags (in [fixed], [sweep], [[cases]] and
                profiles, not in [sweep_vars] or bundles; whole numbers >= 1; kinds run, bench
                and tune): a point with ranks = P runs its nbody command as
                  OMP_NUM_THREADS=T mpiexec -n P --bind-to core --map-by slot:PE=T nbody ...
                T = threads_per_rank (default: max(1, cores // P), the physical cores this
                process may use); where P x T exceeds them, --bind-to core:overload-allowed
                and --oversubscribe (timings then share cores). ranks = 1 runs under mpiexec
                too. The engine is a flag as ever (engine = "mpi:openmp-simd"). Swept, both are
                columns; the launch is part of the point's hash and recorded command. As root,
                OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1 are set for these runs only. Without MPI
                (see requires = "mpi") such an experiment stops with one line. nbodylab/mpi.py
  env           the points' environment, not a flag: bundles (see below) of variables, in
                [fixed] (one), [sweep] or [[cases]] (kinds run, bench and tune; not with ranks):
                  env = [{name = "1 thread", OMP_NUM_THREADS = 1}, {name = "all threads"}]
                runs the first point as `OMP_NUM_THREADS=1 nbody ...`; the column `env` holds the
                name, the words are part of the point's hash and recorded command; points with
                variables run one at a time (see E07_small_n.toml).
  bundles       a swept value (in [sweep] or a case) may be a list of tables with a `name`:
                  law = [{name = "clamp", r-min = 1e-4}, {name = "softening", eps = 1e-2}]
                the column `law` holds the name, the other keys are flags of the points
                taking that value ({templates} allowed; a flag may not be set twice).
  [reference]   optional: nbody ic flags of a reference state (templates allowed); each point's
                final state is compared with it: columns pos_err, vel_err (max over bodies of
                |r - r_ref|, |v - v_ref|)
  [profile.smoke.sweep], [profile.full.fixed], ...
                per-profile overrides, key by key, of any of the four tables above (the swept
                names stay the same in every profile: they are the CSV's columns);
                [[profile.full.cases]] replaces the whole [[cases]] list for that profile.
  results/ID.csv has one row per point: the [sweep] names in file order, then the union of
  the case keys of all profiles in order of first appearance, then the [sweep_vars] names
  (a point lacking a column leaves it empty), then pos_err, vel_err (with a reference), then
  metrics.

Examples
  python experiments/runner.py run E01_two_body_convergence --profile smoke
  python experiments/runner.py figures E01_two_body_convergence
  python experiments/runner.py all --profile default
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbodylab import (RESULTS_DIR, ROOT, bench, convergence, files, mpi, paper, provenance, requirements, script,  # noqa: E402
                     spec, sweep)

FIGURES_DIR = ROOT / "figures"
DEFAULT_NBODY = ROOT / "build" / "nbody"


class UserError(Exception):
    """Ends the runner with one line on stderr and exit status 2."""


def decide(exp, info, force=False):
    """What the runner does with an experiment on this machine, and why: ("run", why),
    ("reuse", why) with the committed results standing for it, or ("skip", why) where it can
    neither run here nor reuse results. `info`: `nbody --build-info` (None for a derived one)."""
    csv_path = RESULTS_DIR / f"{exp.id}.csv"
    shown = provenance.display(csv_path)
    committed = csv_path.is_file() and files.sidecar(csv_path).is_file()
    if exp.kind == "derived":  # a reducer of other experiments' results
        return _reduce_or_reuse(exp, csv_path, committed, force)
    missing = {r: why for r in exp.requires if (why := requirements.lacking(info, r))}
    if missing:
        needs = f"it needs {', '.join(missing)}, which this machine/build lacks ({'; '.join(missing.values())})"
        if not csv_path.is_file():
            return "skip", f"{needs}, and there is no committed {shown} to reuse"
        return "reuse", f"{needs}: the committed {shown}"
    action, why = _reuse_or_run(exp, csv_path, force) if committed else ("run", f"no committed {shown}")
    under_mpiexec = [p for p in exp.points() if exp.mpi_params(p)] if exp.kind != "script" else []
    if action == "run" and under_mpiexec and mpi.lacking(info):
        return "skip", (f"{len(under_mpiexec)} of its points run under mpiexec (ranks), but {mpi.lacking(info)} "
                        f"(with requires = \"mpi\" the committed results are reused)")
    return action, why


def _reduce_or_reuse(exp, csv_path, committed, force):
    """decide() for a derived experiment whose reducer the runner runs."""
    shown = provenance.display(csv_path)
    missing = [d for d in exp.derived_from if not (RESULTS_DIR / f"{d}.csv").is_file()]
    if missing:
        return "skip", (f"it is computed from results/{missing[0]}.csv, which is missing: run "
                        f"`runner.py run {missing[0]}` first")
    if not committed:
        return "run", f"no committed {shown}: {exp.script} computes it"
    meta = files.read_json(files.sidecar(csv_path))
    if meta.get("producer") != provenance.RUNNER or meta.get("script") != exp.script:
        return "run", f"{shown} was written by {meta.get('producer')!r}, not the runner with {exp.script}"
    if force:
        return "run", "--force"
    if not provenance.same_toml(meta.get("experiment_toml", ""), exp.text):
        return "run", f"the experiment file has changed since {shown} was computed"
    changed = [p for p, sha in script.inputs(exp).items() if meta.get("inputs", {}).get(p) != sha]
    if changed:
        return "run", f"{changed[0]} has changed since {shown} was computed from it"
    return "reuse", (f"the committed {shown}, computed by {exp.script} from the "
                     + ", ".join(f"results/{d}.csv" for d in exp.derived_from) + " as they are")


def _reuse_or_run(exp, csv_path, force):
    """decide() for committed results of an experiment this machine can run."""
    shown = provenance.display(csv_path)
    meta = files.read_json(files.sidecar(csv_path))
    if meta.get("producer") != provenance.RUNNER:
        return "run", f"{shown} was written by {meta.get('producer')!r}, not the runner"
    made = meta.get("profile")
    if force and made in spec.PROFILES and spec.PROFILES.index(made) > spec.PROFILES.index(exp.profile):
        return "reuse", (f"the committed {shown} of the larger profile {made}: --force does not "
                         f"replace them with the {exp.profile} profile's (--profile {made} --force does)")
    if force:
        return "run", "--force"
    references = {name: requirements.reference_build(name) for r in exp.requires
                  if (name := r.removeprefix("reference:")) != r}
    reuse, why = provenance.committed_results_state(meta, exp.text, exp.profile, spec.PROFILES,
                                                    references or None)
    if not reuse:
        return "run", f"the committed {shown} is out of date: {why}"
    cache = bench.tune_cache_path(exp.tune_cache) if exp.tune_cache and exp.tune_cache != exp.id else None
    current = provenance.sha256_file(cache) if cache and cache.is_file() else None
    if cache and meta.get("tune_cache", {}).get("sha256") != current:
        return "run", (f"the committed {shown} took other launch shapes: {provenance.display(cache)} "
                       f"has changed since")
    return "reuse", f"the committed {shown}: {why}" + (" (--force runs it again)" if made == exp.profile else "")


def build_info_of(nbody):
    if not nbody.is_file():
        raise UserError(f"nbody binary not found: {nbody} (build it with `make build`, "
                        f"or pass --nbody PATH)")
    try:
        return provenance.build_info(nbody)
    except provenance.BuildInfoError as e:
        raise UserError(str(e)) from None


def run_experiment(exp_id, args):
    exp = spec.load(exp_id, args.profile)
    nbody = Path(args.nbody)
    info = None if exp.kind == "derived" else build_info_of(nbody)
    action, why = decide(exp, info, args.force)
    if action == "skip" and getattr(args, "requiring", None):
        # a set of one kind of experiment (gpu-smoke), beside the committed results: one needing
        # more than this machine has, or the results of one that is not run, is said and passed by
        print(f"[{exp.id.split('_')[0]}] not run here: {why}", file=sys.stderr)
        return 0
    if action == "skip":
        raise UserError(f"{exp.id}: {why}")
    print(f"[{exp.id.split('_')[0]}] {'reusing' if action == 'reuse' else 'running'}: {why}", file=sys.stderr)
    if action == "reuse":
        return 0
    if exp.kind in spec.TIMING_KINDS:  # timings: one point at a time (nbodylab/bench.py)
        return bench.run(exp, nbody, args.force, info)
    if exp.kind == "script" or exp.script:  # a program in place of points, or a reducer (nbodylab/script.py)
        return script.run(exp, nbody, info)
    if exp.kind == "convergence":  # a Brutus-style ladder (nbodylab/convergence.py)
        return convergence.run(exp, nbody, args.jobs, args.force, info)
    return sweep.run(exp, nbody, args.jobs, args.force, info)


def in_dependency_order(ids, profile):
    """`ids`, each after the experiments among them whose results its runs read (spec's depends_on:
    a reducer's inputs, the tuning cache a bench reads)."""
    needs = {}
    for exp_id in ids:
        try:
            needs[exp_id] = [d for d in spec.load(exp_id, profile).depends_on if d in ids]
        except spec.SpecError:
            needs[exp_id] = []  # its error shows where it is run
    ordered = []

    def visit(exp_id, path):
        if exp_id not in ordered and exp_id not in path:
            for d in needs[exp_id]:
                visit(d, (*path, exp_id))
            ordered.append(exp_id)
    for exp_id in ids:
        visit(exp_id, ())
    return ordered


def selected(args):
    """The experiment IDs `all` and `plan` take, in dependency order: every one, or with --requiring
    REQ those whose file requires REQ in this profile and the derived ones computed from those alone."""
    ids = spec.experiment_ids()
    if not args.requiring:
        return in_dependency_order(ids, args.profile)
    if requirements.check(args.requiring):
        raise UserError(f"--requiring: {requirements.check(args.requiring)}")
    chosen = []
    for exp_id in ids:
        try:
            exp = spec.load(exp_id, args.profile)
        except spec.SpecError:
            continue  # its error shows where it is named
        if args.requiring in exp.requires or (exp.derived_from and set(exp.derived_from) <= set(chosen)):
            chosen.append(exp_id)
    return in_dependency_order(chosen, args.profile)


def plan(args):
    """One line per experiment: what `runner.py all` would do with it on this machine."""
    info = build_info_of(Path(args.nbody))
    counts = {"run": 0, "reuse": 0, "skip": 0}
    for exp_id in selected(args):
        try:
            exp = spec.load(exp_id, args.profile)
            action, why = decide(exp, info, args.force)
        except spec.SpecError as e:
            action, why = "skip", str(e)
        counts[action] += 1
        print(f"{exp_id:34} {action:5}  {why}")
    print(f"{args.profile} profile on this machine: " + ", ".join(f"{n} {a}" for a, n in counts.items()))
    return 0


def figure_date(exp_id):
    """The date a figure carries: when its results were made (created_utc of results/ID.meta.json),
    as SOURCE_DATE_EPOCH, which matplotlib's PDF writer honours. A figure drawn again from the
    same results is then the same bytes, wherever it is drawn."""
    meta = RESULTS_DIR / f"{exp_id}.meta.json"
    if not meta.is_file():
        return None
    created = json.loads(meta.read_text()).get("created_utc", "")
    try:
        return str(int(datetime.datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()))
    except ValueError:
        return None


def run_figure(exp_id):
    script = FIGURES_DIR / f"{exp_id}.py"
    if not script.is_file():
        raise UserError(f"no figure script {script.relative_to(ROOT)} "
                        f"(known: {', '.join(p.stem for p in figure_scripts()) or 'none'})")
    venv_python = ROOT / ".venv" / "bin" / "python"
    python = str(venv_python) if venv_python.is_file() else sys.executable
    print(f"[{exp_id.split('_')[0]}] {script.relative_to(ROOT)}", file=sys.stderr)
    env = dict(os.environ)
    date = figure_date(exp_id)
    if date:
        env["SOURCE_DATE_EPOCH"] = date
    return subprocess.run([python, str(script)], cwd=ROOT, env=env).returncode


def attempt(fn, *args):
    """fn(*args), with a user error reported and counted as a failure (for `all`)."""
    try:
        return fn(*args)
    except (UserError, spec.SpecError) as e:
        print(f"runner: error: {e}", file=sys.stderr)
        return 2


def figure_scripts():
    return sorted(FIGURES_DIR.glob("E*.py"))


def main(argv=None):
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--profile", default="default",
                        help="smoke | default | full (default: %(default)s)")
    common.add_argument("--nbody", default=str(DEFAULT_NBODY),
                        help="the nbody binary (default: build/nbody)")
    common.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="points run at once (default: number of cores, %(default)s)")
    common.add_argument("--quiet", action="store_true",
                        help="no progress lines (points done, elapsed, ETA) on stderr")
    common.add_argument("--force", action="store_true",
                        help="run again even where the committed results are current (not where "
                             "a larger profile made them), and ignore finished points stored in "
                             "results/.points/")

    parser = argparse.ArgumentParser(
        prog="runner.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="{run,figures,all,plan}")
    p_run = sub.add_parser("run", parents=[common], help="run one experiment's sweep")
    p_run.add_argument("id", metavar="ID", help="experiment ID: the stem of experiments/ID.toml")
    p_fig = sub.add_parser("figures", help="run figures/ID.py (all figure scripts without ID)")
    p_fig.add_argument("id", metavar="ID", nargs="?",
                       help="experiment ID: the stem of figures/ID.py")
    selection = argparse.ArgumentParser(add_help=False)
    selection.add_argument("--requiring", metavar="REQ",
                           help="only the experiments that require REQ (e.g. cuda) and those derived from "
                                "them alone; `all` then draws no figures (a figure may need any "
                                "experiment's results)")
    sub.add_parser("all", parents=[common, selection],
                   help="run every experiment, then every figure script")
    sub.add_parser("plan", parents=[common, selection],
                   help="say, for each experiment, whether `all` would run it here, reuse its committed "
                        "results or skip it, and why (runs nothing)")
    args = parser.parse_args(argv)
    sweep.Progress.quiet = getattr(args, "quiet", False)

    try:
        if args.command in ("run", "all", "plan") and args.profile not in spec.PROFILES:
            raise UserError(f"unknown profile '{args.profile}' "
                            f"(valid: {', '.join(spec.PROFILES)})")
        if args.command in ("run", "all") and args.jobs < 1:
            raise UserError("--jobs must be at least 1")
        if args.command == "run":
            return run_experiment(args.id, args)
        if args.command == "plan":
            return plan(args)
        if args.command == "figures" and args.id:
            return run_figure(args.id)
        if args.command == "figures":
            failed = [s.stem for s in figure_scripts() if run_figure(s.stem) != 0]
        else:  # all: a failed experiment stops neither the others nor the others' figures
            failed = [i for i in selected(args) if attempt(run_experiment, i, args) != 0]
            failed += [s.stem for s in figure_scripts() if not args.requiring
                       and s.stem not in failed and attempt(run_figure, s.stem) != 0]
        if not getattr(args, "requiring", None):  # the paper's table of every results file
            paper.write_provenance(__file__)
        if failed:
            print(f"runner: failed: {', '.join(failed)}", file=sys.stderr)
        return 1 if failed else 0
    except (UserError, spec.SpecError) as e:
        print(f"runner: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
