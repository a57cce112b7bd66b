"""Experiment files (experiments/<ID>.toml): loading, profiles, sweep expansion.

The schema is documented for users in experiments/runner.py (its docstring is the --help
text) and by example in experiments/E01_two_body_convergence.toml (plain sweeps) and
E03_integrators_collision.toml ([[cases]], bundles).

A point is a dict {column: value} whose keys are, in order, the [sweep] names, the keys of the
case it comes from, and the [sweep_vars] names (a case may set a [sweep_vars] name for its own
points). A value is a scalar or a Bundle (a named set of flags); its column value (what the CSV
shows and {templates} see) is the scalar or the bundle's name.

Two parameters are not nbody flags: `ranks` and `threads_per_rank` (nbodylab/mpi.py) choose how
the point's nbody command is launched (under mpiexec); they may be set in [fixed], [sweep] and
[[cases]] like flags, and are columns like them where swept. A third, `env`, is the point's
environment: bundles of variables (`env = [{name = "1 thread", OMP_NUM_THREADS = 1}, ...]`), set
before nbody as NAME=value words of the launch (its column: the bundle's name).
"""
import itertools
import math
import re
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import ROOT, mpi, requirements
from .gpu_share import KINDS as gpu_share_kinds

PROFILES = ("smoke", "default", "full")
# `kind = "bench"`: points are `nbody bench` timings (nbodylab/bench.py); "tune": each point is one
# `nbody tune`, a sweep of GPU launch shapes giving one row per shape (nbodylab/bench.py too);
# "convergence": a Brutus-style ladder of ever more precise runs and the [[cases]] compared with
# its converged trajectory (nbodylab/convergence.py, table [ladder]); "derived": no runs of its
# own, its results computed from those of other experiments (`derived_from`) by a reducer the
# runner runs again whenever they change (`script`, nbodylab/script.py); "script": a program of the
# repository the runner runs in place of points (nbodylab/script.py), whose results it stamps as
# its own.
KINDS = ("run", "bench", "tune", "convergence", "derived", "script")
TIMING_KINDS = ("bench", "tune")
SECTIONS = ("fixed", "sweep", "sweep_vars", "reference", "ladder")
# The top-level keys of an experiment file, each with the TOML type it takes.
# The nbody subcommands a run experiment can run (its points' first argument; [fixed] and the
# swept flags are that subcommand's).
COMMANDS = ("run", "dpd", "sph", "cells")
TOP_KEYS = {"title": str, "description": str, "kind": str, "command": str, "requires": (str, list),
            "metrics": list, "timeseries": bool, "serial": bool, "cases": list, "profile": dict, "tune_cache": str,
            "gpu_share": str,
            "part_length": (int, float),
            **{s: dict for s in SECTIONS}}
# The keys of a derived experiment: what it is, and what its reducer (script) computes it from.
DERIVED_KEYS = {"title": str, "description": str, "kind": str, "script": str, "derived_from": list}
# The keys of a script experiment, and what its [profile.NAME] tables may override.
SCRIPT_KEYS = {"title": str, "description": str, "kind": str, "script": str, "args": list,
               "requires": (str, list), "profile": dict}
SCRIPT_PROFILE_KEYS = {"args": list, "requires": (str, list)}
# What a [profile.NAME] table may override.
PROFILE_KEYS = {"requires": (str, list), "cases": list, "part_length": (int, float), **{s: dict for s in SECTIONS}}
TYPE_NAMES = {str: "a string", list: "a list", bool: "true or false", dict: "a table", int: "a number",
              float: "a number"}
# Summary fields (nbody run --summary) copied into the results CSV unless `metrics` says otherwise.
DEFAULT_METRICS = ["steps", "fevals", "rejected", "dE_rel", "dE_rel_max", "P_rel", "L_rel",
                   "t", "wall_s"]
# Columns of the `nbody bench` CSV row copied into the results of a bench experiment by default.
DEFAULT_BENCH_METRICS = ["threads", "repeats", "seconds_per_eval", "interactions_per_s", "gflops",
                         "simd", "cpu_model"]
# Columns of the `nbody tune` rows (the launch shape split into its keys) copied by default.
DEFAULT_TUNE_METRICS = ["engine", "precision", "n", "block", "split", "unroll", "ipt", "status",
                        "seconds_per_eval", "interactions_per_s", "wall_seconds_per_eval",
                        "max_diff_vs_first", "best", "note", "device"]
# The timing protocol (nbodylab/bench.py): a timing point times at least this many evaluations
# (`repeats`; where unset, nbody's default of at least as many) outside the smoke profile.
MIN_TIMED_REPEATS = 5
EXPERIMENTS_DIR = ROOT / "experiments"
# The point parameter holding environment bundles (not an nbody flag), and what a variable's name
# may be.
ENV = "env"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The most values a {start, stop, ...} range may have (a typo like stop = 1e30 is refused, not run).
MAX_RANGE = 100_000


class SpecError(Exception):
    """A problem with an experiment file or its use; the message is one line for the user."""


def _shown(path):
    """A path in messages: relative to the repository when inside it."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def experiment_ids():
    return sorted(p.stem for p in EXPERIMENTS_DIR.glob("E*.toml"))


def covering(points):
    """The points that each bring a (name, value) or a set of names not seen in those before:
    together they take every value of every swept name and case, and every case's names, at a
    fraction of the cartesian product (E01: 1788 points). What a point's own values decide (its
    repeats, its launch) is checked on these alike."""
    seen, out = set(), []
    for point in points:
        items = {(k, repr(v)) for k, v in point.items()} | {tuple(sorted(point))}
        if not items <= seen:
            seen |= items
            out.append(point)
    return out


def fmt(value):
    """A parameter value as it appears on the nbody command line and in the CSV."""
    if value is None:
        return ""
    if isinstance(value, Bundle):
        return value.name
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)  # shortest string that round-trips the double
    return str(value)


@dataclass(frozen=True)
class Bundle:
    """One value of a bundle sweep: `law = [{name = "clamp", r-min = 1e-4}, ...]`. The column
    holds `name`; `flags` (a tuple of (flag, value) pairs, in file order) go on the command
    line of the points that take this value."""
    name: str
    flags: tuple

    def __str__(self):
        return self.name


def _bundle(name, table):
    where = f"sweep '{name}': bundle {table!r}"
    if not isinstance(table.get("name"), str) or not table["name"]:
        raise SpecError(f"{where} needs a non-empty string 'name' (the value of the column)")
    for k, v in table.items():
        if isinstance(v, (list, dict)):
            raise SpecError(f"{where}: flag '{k}' must be a single value, not a list or table "
                            f"(sweep it in [sweep] or a case instead)")
        if k in mpi.PARAMS:
            raise SpecError(f"{where}: {k} chooses the launch (mpiexec), not a flag: set it in "
                            f"[fixed], [sweep] or a case, not in a bundle")
    return Bundle(table["name"], tuple((k, v) for k, v in table.items() if k != "name"))


def expand(name, value):
    """A sweep entry as a list: a list as is, or an inclusive range written as a table
    {start, stop, step} (arithmetic, step 1 if omitted) or {start, stop, factor} (geometric).
    A list of tables with a `name` key (or one such table) is a bundle sweep: a list of
    Bundle."""
    if isinstance(value, dict) and "name" in value:
        value = [value]  # a single bundle
    if isinstance(value, list):
        if not value:
            raise SpecError(f"sweep '{name}' is an empty list")
        tables = [isinstance(v, dict) for v in value]
        if any(tables) and not all(tables):
            raise SpecError(f"sweep '{name}' mixes tables (bundles) and plain values")
        if not any(tables):
            return value
        if name in mpi.PARAMS:
            raise SpecError(f"{name} chooses the launch (mpiexec), not a flag: it cannot be a bundle")
        bundles = [_bundle(name, v) for v in value]
        names = [b.name for b in bundles]
        if len(set(names)) != len(names):
            raise SpecError(f"sweep '{name}': bundle names repeat: {names}")
        return bundles
    if not isinstance(value, dict):
        return [value]  # a single value: a sweep of one point
    keys = set(value)
    if not ({"start", "stop"} <= keys <= {"start", "stop", "step", "factor"}) or \
            {"step", "factor"} <= keys:
        raise SpecError(f"sweep '{name}': a range is {{start, stop, step}} or "
                        f"{{start, stop, factor}}, got {sorted(keys)}")
    for k, v in value.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise SpecError(f"sweep '{name}': a range's {k} must be a finite number, got {v!r}")
    start, stop = value["start"], value["stop"]
    too_many = SpecError(f"sweep '{name}': the range {value} has more than {MAX_RANGE} values")
    if "factor" in value:
        factor = value["factor"]
        if factor <= 1 or start <= 0:
            raise SpecError(f"sweep '{name}': a geometric range needs start > 0 and factor > 1")
        out, x = [], start
        while x <= stop * (1 + 1e-12):  # tolerance: float factors must still reach stop
            if len(out) == MAX_RANGE:
                raise too_many
            out.append(x)
            x *= factor
        return out
    step = value.get("step", 1)
    if step <= 0 or stop < start:
        raise SpecError(f"sweep '{name}': an arithmetic range needs step > 0 and stop >= start")
    steps = (stop - start) / step
    if not steps < MAX_RANGE:  # (also where the span overflows)
        raise too_many
    count = int(round(steps)) + 1  # counted, not accumulated: no float drift
    return [start + i * step for i in range(count)]


def render(value, params, where):
    """Substitute {name} templates in a string value with swept parameters (their column
    values: a bundle's name)."""
    if not isinstance(value, str) or "{" not in value:
        return value
    names = [f for _, f, _, _ in string.Formatter().parse(value) if f is not None]
    missing = [n for n in names if n not in params]
    if missing:
        raise SpecError(f"{where}: template {value!r} names {missing}, "
                        f"which are not swept (swept: {sorted(params)})")
    if len(names) == 1 and value == "{" + names[0] + "}":
        v = params[names[0]]  # a bare reference keeps the parameter's type
        return v.name if isinstance(v, Bundle) else v
    return value.format_map({k: fmt(v) for k, v in params.items()})


def to_args(flags):
    """{name: value} -> ['--name', 'value', ...]; true -> bare '--name', false -> omitted."""
    args = []
    for name, value in flags.items():
        if value is True:
            args.append(f"--{name}")
        elif value is not False:
            args += [f"--{name}", fmt(value)]
    return args


@dataclass
class Experiment:
    id: str
    path: Path
    text: str          # the TOML file as written (goes into the provenance)
    profile: str
    title: str
    requires: list
    fixed: dict        # nbody run flags, same for every point (may hold {templates})
    sweep: dict        # nbody run flags -> list of values (scalars or Bundles)
    sweep_vars: dict   # swept variables that are not flags (used in templates) -> list
    reference: dict    # nbody ic flags of the reference state, or {} for none
    ladder: dict       # kind "convergence": the ladder (nbodylab/convergence.py), else {}
    metrics: list      # summary fields copied into the CSV
    cases: list        # [[cases]] of the profile: list of {flag: list of values}; [] = none
    case_columns: list  # union of the case keys of every profile, in order of first appearance
    timeseries: bool   # each point also writes --diagnostics; rows kept in its record
    serial: bool = False  # points one at a time with every core (their wall times are timings)
    gpu_share: str = ""   # "mps": the points at once on the one GPU (nbodylab/gpu_share.py)
    kind: str = "run"  # one of KINDS: how the runner runs it
    command: str = "run"  # kind "run": the nbody subcommand of its points (COMMANDS)
    script: str = ""         # kind "script", or a "derived" one's reducer: the program the runner runs
    script_args: list = ()   # kind "script": its arguments after --nbody NBODY --out FOLDER
    derived_from: list = ()  # kind "derived": the experiments whose results it is computed from
    part_length: float = None  # kind "run": each point's run goes in parts of this time (nbodylab/parts.py)
    tune_cache: str = ""     # kind "tune": its own ID, its points fill results/ID_tune_cache.json;
                             # kind "bench": the tune experiment whose cache its points read

    @property
    def depends_on(self):
        """The experiments whose results this one's runs read: they run first."""
        return [*self.derived_from, *([self.tune_cache] if self.tune_cache not in ("", self.id) else [])]

    @property
    def params(self):
        """The point columns, in order: the first columns of the results CSV."""
        return list(self.sweep) + self.case_columns + list(self.sweep_vars)

    def points(self):
        """The union over cases of the cartesian product of [sweep], the case and
        [sweep_vars] (without cases: the product of [sweep] and [sweep_vars]), as a list of
        {name: value}, duplicates dropped. A point lacks the keys of the other cases."""
        out, seen = [], set()
        for case in self.cases or [{}]:
            # A case may set a [sweep_vars] name: its points take the case's values of it.
            names = (list(self.sweep) + [n for n in case if n not in self.sweep_vars]
                     + list(self.sweep_vars))
            lists = [case[n] if n in case else self.sweep.get(n, self.sweep_vars.get(n))
                     for n in names]
            for combo in itertools.product(*lists):
                point = dict(zip(names, combo))
                key = tuple((k, repr(point[k])) for k in self.params if k in point)
                if key not in seen:
                    seen.add(key)
                    out.append(point)
        return out

    def columns(self, point):
        """{column: column value} of a point (bundles by name, {templates} in swept strings
        filled in: dt = "3P/{cost}" shows as 3P/120); columns it lacks left out."""
        raw = {k: (point[k].name if isinstance(point[k], Bundle) else point[k])
               for k in self.params if k in point}
        return {k: render(v, raw, f"{self.id} swept {k}") for k, v in raw.items()}

    def describe(self, point):
        return ", ".join(f"{k}={fmt(v)}" for k, v in self.columns(point).items())

    def _flags(self, section, point, where):
        cols = self.columns(point)
        return {k: render(v, cols, f"{self.id} [{where}] {k}") for k, v in section.items()}

    def run_args(self, point):
        """Arguments of `nbody run` (or the experiment's command) for one point (output-file
        flags excluded): [fixed], then the point's swept flags in column order, a bundle
        contributing its own flags."""
        flags = self._flags(self.fixed, point, "fixed")
        cols = self.columns(point)

        def put(flag, value, source):
            if flag in flags:
                raise SpecError(f"{self.id}: point ({self.describe(point)}) sets --{flag} twice "
                                f"({source} and an earlier table)")
            flags[flag] = render(value, cols, f"{self.id} {source} {flag}")

        for k in (*mpi.PARAMS, ENV):
            flags.pop(k, None)  # [fixed] ranks = 4: the launch, not a flag
        for k, v in point.items():
            if k in self.sweep_vars or k in mpi.PARAMS or k == ENV:
                continue
            if isinstance(v, Bundle):
                for flag, value in v.flags:
                    put(flag, value, f"bundle {k} = {v.name!r}")
            else:
                put(k, v, f"swept {k}")
        return [self.kind if self.kind in TIMING_KINDS else self.command] + to_args(flags)

    def mpi_params(self, point):
        """{"ranks": P, "threads_per_rank": T or None} of a point that runs under mpiexec (from
        the point, else [fixed]), or None for a point without ranks."""
        values = {k: point[k] if k in point else self.fixed.get(k) for k in mpi.PARAMS}
        return values if values["ranks"] is not None else None

    def launch(self, point, ncores=None):
        """The words before `nbody` in the point's command: its env bundle's NAME=value words,
        or (nbodylab/mpi.py) ["OMP_NUM_THREADS=T", "mpiexec", "-n", "P", ...] for a point with
        ranks, else []."""
        env = point.get(ENV, self.fixed.get(ENV))
        if env is not None:
            return [f"{k}={fmt(v)}" for k, v in env.flags]
        params = self.mpi_params(point)
        return mpi.launch(params["ranks"], params["threads_per_rank"], ncores) if params else []

    def reference_args(self, point):
        """Arguments of `nbody ic` writing this point's reference state (without --out)."""
        if not self.reference:
            return None
        return ["ic"] + to_args(self._flags(self.reference, point, "reference"))


def _cases(raw, where):
    """[[cases]] as a list of {flag: list of values}."""
    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        raise SpecError(f"{where}: cases must be a list of tables ([[cases]])")
    if not raw:
        raise SpecError(f"{where}: cases is an empty list")
    out = []
    for i, case in enumerate(raw):
        if not case:
            raise SpecError(f"{where}: case {i + 1} is empty")
        out.append({k: expand(f"{k} (case {i + 1} of {where})", v)
                    for k, v in case.items()})
    return out


def _check_keys(table, types, where, what):
    """Every key of `table` known (one of `types`) and of its type."""
    unknown = set(table) - set(types)
    if unknown:
        raise SpecError(f"{where}: unknown {what} {sorted(unknown)} (valid: {sorted(types)})")
    for k, v in table.items():
        allowed = types[k] if isinstance(types[k], tuple) else (types[k],)
        if not isinstance(v, allowed):
            raise SpecError(f"{where}: {k} must be {' or '.join(TYPE_NAMES[t] for t in allowed)}, "
                            f"got {v!r}")


def _check_mpi_params(sections, cases, kind, where):
    """ranks and threads_per_rank (nbodylab/mpi.py): whole numbers >= 1, not in [sweep_vars]
    (they are the launch, not template variables) nor in a kind other than run, bench and tune
    (whose points are one nbody command each). That a point sets threads_per_rank only with
    ranks is checked point by point in load()."""
    if any(k in sections["sweep_vars"] for k in mpi.PARAMS):
        raise SpecError(f"{where}: {', '.join(k for k in mpi.PARAMS if k in sections['sweep_vars'])} "
                        f"chooses the launch (mpiexec): set it in [fixed], [sweep] or a case, not in [sweep_vars]")
    tables = [("[fixed]", {k: [v] for k, v in sections["fixed"].items()}), ("[sweep]", sections["sweep"])]
    tables += [(f"case {i + 1}", c) for i, c in enumerate(cases)]
    used = set()
    for name, table in tables:
        for k in mpi.PARAMS:
            for v in table.get(k, []):
                used.add(k)
                bad = mpi.check_value(k, v)
                if bad:
                    raise SpecError(f"{where}: {name}: {bad}")
    if used and kind not in ("run", "bench", "tune"):
        raise SpecError(f"{where}: {' and '.join(sorted(used))}: only kind run, bench and tune points "
                        f"run under mpiexec, not kind {kind!r}")


def _check_env(sections, cases, kind, where):
    """env (the point's environment): bundles of variables with valid names, set in [fixed] (one
    bundle), [sweep] or a case, never in [sweep_vars]; only for kinds run, bench and tune (one
    nbody command a point) and not beside ranks (whose launch sets the environment itself)."""
    tables = [("[fixed]", {k: [v] for k, v in sections["fixed"].items()}), ("[sweep]", sections["sweep"]),
              *((f"case {i + 1}", c) for i, c in enumerate(cases))]
    if ENV in sections["sweep_vars"]:
        raise SpecError(f"{where}: env is the points' environment: set it in [fixed], [sweep] or a case, "
                        f"not in [sweep_vars]")
    used = False
    for name, table in tables:
        for bundle in table.get(ENV, []):
            used = True
            if not isinstance(bundle, Bundle):
                raise SpecError(f"{where}: {name}: env must be bundles of variables, "
                                f"e.g. env = [{{name = \"1 thread\", OMP_NUM_THREADS = 1}}], got {bundle!r}")
            bad = [k for k, _ in bundle.flags if not ENV_NAME.fullmatch(k)]
            if bad:
                raise SpecError(f"{where}: {name}: env {bundle.name!r}: {bad} are not names of environment variables")
    if used and kind not in ("run", "bench", "tune"):
        raise SpecError(f"{where}: env: only kind run, bench and tune points take an environment, not kind {kind!r}")
    if used and any(k in table for _, table in tables for k in mpi.PARAMS):
        raise SpecError(f"{where}: env and ranks: a point under mpiexec takes its environment from its launch "
                        f"(threads_per_rank sets OMP_NUM_THREADS)")


def _derived(exp_id, path, text, profile, doc, where):
    """A derived experiment: no runs; a reducer (script) the runner runs on the results of the
    experiments it is derived from."""
    _check_keys(doc, DERIVED_KEYS, where, 'keys for kind = "derived" (it has no runs of its own)')
    derived_from = doc.get("derived_from", [])
    if not derived_from or not all(isinstance(d, str) and (EXPERIMENTS_DIR / f"{d}.toml").is_file()
                                   for d in derived_from):
        raise SpecError(f"{where}: derived_from must list the experiment IDs it is computed from "
                        f"(experiments/ID.toml), got {derived_from!r}")
    script = doc.get("script", "")
    if not script.endswith(".py") or not (ROOT / script).is_file() or ".." in Path(script).parts:
        raise SpecError(f"{where}: script must name its reducer, a Python program of the repository (e.g. "
                        f"experiments/roofline.py), got {script!r}")
    return Experiment(id=exp_id, path=path, text=text, profile=profile, title=doc.get("title", exp_id),
                      requires=[], fixed={}, sweep={}, sweep_vars={}, reference={}, ladder={}, metrics=[],
                      cases=[], case_columns=[], timeseries=False, kind="derived", derived_from=derived_from,
                      script=script)


def _profile_tables(doc, keys, where, what):
    """The file's [profile.NAME] tables, each of a known profile and holding only `keys`."""
    overrides = doc.get("profile", {})
    if set(overrides) - set(PROFILES):
        raise SpecError(f"{where}: unknown profiles {sorted(set(overrides) - set(PROFILES))} "
                        f"(valid: {', '.join(PROFILES)})")
    for name, table in overrides.items():
        _check_keys(table, keys, f"{where} [profile.{name}]", what)
    return overrides


def _script(exp_id, path, text, profile, doc, where):
    """A script experiment: a program run with --nbody and --out and the profile's arguments."""
    _check_keys(doc, SCRIPT_KEYS, where, 'keys for kind = "script"')
    overrides = _profile_tables(doc, SCRIPT_PROFILE_KEYS, where, "keys")
    script = doc.get("script", "")
    if not script.endswith(".py") or not (ROOT / script).is_file() or ".." in Path(script).parts:
        raise SpecError(f"{where}: script must name a Python program of the repository (e.g. "
                        f"experiments/potential_field.py), got {script!r}")
    table = {**doc, **overrides.get(profile, {})}
    args = table.get("args", [])
    if not all(isinstance(a, (str, int, float)) and not isinstance(a, bool) for a in args):
        raise SpecError(f"{where}: args must list strings or numbers, got {args!r}")
    requires = table.get("requires", [])
    requires = [requires] if isinstance(requires, str) else requires
    if not all(isinstance(r, str) for r in requires):
        raise SpecError(f"{where}: requires must list strings, got {requires!r}")
    for reason in filter(None, map(requirements.check, requires)):
        raise SpecError(f"{where}: requires: {reason}")
    return Experiment(id=exp_id, path=path, text=text, profile=profile, title=doc.get("title", exp_id),
                      requires=list(requires), fixed={}, sweep={}, sweep_vars={}, reference={}, ladder={},
                      metrics=[], cases=[], case_columns=[], timeseries=False, kind="script", script=script,
                      script_args=[a if isinstance(a, str) else fmt(a) for a in args])


def load(exp_id, profile):
    """Read experiments/<exp_id>.toml and apply the profile's overrides."""
    if profile not in PROFILES:
        raise SpecError(f"unknown profile '{profile}' (valid: {', '.join(PROFILES)})")
    path = EXPERIMENTS_DIR / f"{exp_id}.toml"
    if not path.is_file():
        raise SpecError(f"unknown experiment '{exp_id}' (no {_shown(path)}; "
                        f"known: {', '.join(experiment_ids()) or 'none'})")
    text = path.read_text(encoding="utf-8")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{_shown(path)}: {e}") from None
    where = _shown(path)
    kind = doc.get("kind", "run")
    if kind not in KINDS:
        raise SpecError(f"{where}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if kind == "derived":
        return _derived(exp_id, path, text, profile, doc, where)
    if kind == "script":
        return _script(exp_id, path, text, profile, doc, where)
    _check_keys(doc, TOP_KEYS, where, "keys")
    overrides = _profile_tables(doc, PROFILE_KEYS, where, "tables")
    for name, table in overrides.items():
        for section in ("sweep", "sweep_vars"):
            # The CSV columns must not depend on the profile.
            extra = set(table.get(section, {})) - set(doc.get(section, {}))
            if extra:
                raise SpecError(f"{where}: [profile.{name}.{section}] sweeps {sorted(extra)}, "
                                f"which [{section}] does not")
    for table in [doc, *overrides.values()]:
        for k in ("requires", "metrics"):
            if isinstance(table.get(k), list) and not all(isinstance(v, str) for v in table[k]):
                raise SpecError(f"{where}: {k} must list strings, got {table[k]!r}")
        needs = table.get("requires", [])
        for reason in filter(None, map(requirements.check, [needs] if isinstance(needs, str) else needs)):
            raise SpecError(f"{where}: requires: {reason}")
    sections = {s: dict(doc.get(s, {})) for s in SECTIONS}
    # [[cases]] and every profile's [[profile.NAME.cases]] (which replaces the whole list):
    # the case columns are the union over all of them, so that they do not depend on the
    # profile either.
    cases = {None: _cases(doc["cases"], f"{where} [[cases]]") if "cases" in doc else []}
    for name in PROFILES:
        if "cases" in overrides.get(name, {}):
            cases[name] = _cases(overrides[name]["cases"], f"{where} [[profile.{name}.cases]]")
    # A case key named in [sweep_vars] sets that variable for the case's points: not a column of
    # its own (nor a flag).
    case_columns = list(dict.fromkeys(k for lst in cases.values() for c in lst for k in c
                                      if k not in doc.get("sweep_vars", {})))
    active_cases = cases.get(profile, cases[None])

    if not sections["sweep"] and not sections["sweep_vars"] and not active_cases:
        raise SpecError(f"{where}: [sweep] and [[cases]] are empty: nothing to run")
    for section, values in overrides.get(profile, {}).items():
        if section in SECTIONS:
            sections[section].update(values)

    try:
        for s in ("sweep", "sweep_vars"):
            sections[s] = {k: expand(k, v) for k, v in sections[s].items()}
        if isinstance(sections["fixed"].get(ENV), dict):  # one bundle for every point
            sections["fixed"][ENV] = expand(ENV, sections["fixed"][ENV])[0]
    except SpecError as e:
        raise SpecError(f"{where}: {e}") from None
    for k, values in sections["sweep_vars"].items():
        if any(isinstance(v, Bundle) for v in values):
            raise SpecError(f"{where}: [sweep_vars] {k} is a bundle sweep; bundles hold flags, "
                            f"so they belong in [sweep] or [[cases]]")
    both = set(sections["sweep"]) & set(sections["sweep_vars"]) | \
        set(sections["sweep"]) & set(sections["fixed"])
    if both:
        raise SpecError(f"{where}: {sorted(both)} both swept and fixed/duplicated")
    clash = set(case_columns) & (set(sections["sweep"]) | set(sections["sweep_vars"]) |
                                 set(sections["fixed"]))
    if clash:
        raise SpecError(f"{where}: {sorted(clash)} set both in [[cases]] and in "
                        f"[sweep]/[sweep_vars]/[fixed]")
    command = doc.get("command", "run")
    if command not in COMMANDS or (command != "run" and kind != "run"):
        raise SpecError(f"{where}: command must be one of {', '.join(COMMANDS)} (kind \"run\" only), got {command!r}")
    timeseries = doc.get("timeseries", False)
    if kind in TIMING_KINDS and (timeseries or sections["reference"]):
        raise SpecError(f"{where}: a {kind} experiment has no timeseries or [reference]")
    if (kind == "convergence") != bool(sections["ladder"]):
        raise SpecError(f"{where}: [ladder] belongs to, and is needed by, kind = \"convergence\"")
    # A profile may need hardware the others do not ([profile.full] requires = "cuda").
    requires = overrides.get(profile, {}).get("requires", doc.get("requires", []))
    requires = [requires] if isinstance(requires, str) else list(requires)
    _check_mpi_params(sections, active_cases, kind, where)
    _check_env(sections, active_cases, kind, where)
    part_length = overrides.get(profile, {}).get("part_length", doc.get("part_length"))
    if part_length is not None and not (not isinstance(part_length, bool) and math.isfinite(part_length)
                                        and part_length > 0 and kind == "run" and command == "run"
                                        and isinstance(sections["fixed"].get("t-end"), (int, float))):
        raise SpecError(f"{where}: part_length runs each point's `nbody run` in parts of that time: a positive "
                        f"number, in a kind run experiment with a number for t-end in [fixed], got "
                        f"{part_length!r} (t-end {sections['fixed'].get('t-end')!r})")
    tune_cache = doc.get("tune_cache", "")
    if tune_cache and not (kind == "tune" and tune_cache == exp_id or kind == "bench" and tune_cache != exp_id
                           and (EXPERIMENTS_DIR / f"{tune_cache}.toml").is_file()):
        raise SpecError(f"{where}: tune_cache names the tune experiment whose cache of launch shapes the points "
                        f"use: a kind tune experiment's own ID (its points fill it), or in a kind bench one the ID "
                        f"of such an experiment (experiments/ID.toml), got {tune_cache!r}")
    gpu_share = doc.get("gpu_share", "")
    if gpu_share and not (gpu_share in gpu_share_kinds and kind == "run" and not doc.get("serial")
                          and "mps" in requires):
        raise SpecError(f"{where}: gpu_share runs a kind run experiment's points at once on the one GPU: one of "
                        f"{', '.join(gpu_share_kinds)}, with requires naming it and without serial, got {gpu_share!r}")
    exp = Experiment(
        id=exp_id, path=path, text=text, profile=profile,
        title=doc.get("title", exp_id),
        requires=requires,
        metrics=list(doc.get("metrics", {"bench": DEFAULT_BENCH_METRICS, "tune": DEFAULT_TUNE_METRICS}.get(
            kind, DEFAULT_METRICS))),
        cases=active_cases, case_columns=case_columns, timeseries=timeseries,
        serial=doc.get("serial", False), gpu_share=gpu_share, kind=kind, command=command, tune_cache=tune_cache,
        part_length=part_length, **sections)
    if kind in TIMING_KINDS and profile != "smoke":  # the timing protocol
        for point in covering(exp.points()):
            args = exp.run_args(point)
            repeats = args[args.index("--repeats") + 1] if "--repeats" in args[:-1] else str(MIN_TIMED_REPEATS)
            try:
                too_few = float(repeats) < MIN_TIMED_REPEATS
            except ValueError:
                too_few = False  # not a number: nbody refuses it
            if too_few:
                raise SpecError(f"{where}: point ({exp.describe(point)}) has repeats = {repeats}: a timing repeats "
                                f"at least {MIN_TIMED_REPEATS} times (its median and spread), except in the smoke profile")
    if any(k in t for k in mpi.PARAMS for t in (exp.fixed, exp.sweep, *exp.cases)):
        for point in covering(exp.points()):
            params = exp.mpi_params(point)
            if params is None and (point.get("threads_per_rank") or exp.fixed.get("threads_per_rank")):
                raise SpecError(f"{where}: point ({exp.describe(point)}) sets threads_per_rank but not "
                                f"ranks (the threads of each MPI rank: ranks = P runs a point under mpiexec)")
    return exp
