"""Experiment files (experiments/<ID>.toml): loading, profiles, sweep expansion.

The schema is documented for users in experiments/runner.py (its docstring is the --help
text) and by example in experiments/E01_two_body_convergence.toml.
"""
import itertools
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import ROOT

PROFILES = ("smoke", "default", "full")
SECTIONS = ("fixed", "sweep", "sweep_vars", "reference")
TOP_KEYS = {"title", "description", "requires", "metrics", "profile", *SECTIONS}
# Summary fields (nbody run --summary) copied into the results CSV unless `metrics` says otherwise.
DEFAULT_METRICS = ["steps", "fevals", "rejected", "dE_rel", "dE_rel_max", "P_rel", "L_rel",
                   "t", "wall_s"]
EXPERIMENTS_DIR = ROOT / "experiments"


class SpecError(Exception):
    """A problem with an experiment file or its use; the message is one line for the user."""


def experiment_ids():
    return sorted(p.stem for p in EXPERIMENTS_DIR.glob("E*.toml"))


def fmt(value):
    """A parameter value as it appears on the nbody command line and in the CSV."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)  # shortest string that round-trips the double
    return str(value)


def expand(name, value):
    """A sweep entry as a list: a list as is, or an inclusive range written as a table
    {start, stop, step} (arithmetic, step 1 if omitted) or {start, stop, factor} (geometric)."""
    if isinstance(value, list):
        if not value:
            raise SpecError(f"sweep '{name}' is an empty list")
        return value
    if not isinstance(value, dict):
        return [value]  # a single value: a sweep of one point
    keys = set(value)
    if not ({"start", "stop"} <= keys <= {"start", "stop", "step", "factor"}) or \
            {"step", "factor"} <= keys:
        raise SpecError(f"sweep '{name}': a range is {{start, stop, step}} or "
                        f"{{start, stop, factor}}, got {sorted(keys)}")
    start, stop = value["start"], value["stop"]
    if "factor" in value:
        factor = value["factor"]
        if factor <= 1 or start <= 0:
            raise SpecError(f"sweep '{name}': a geometric range needs start > 0 and factor > 1")
        out, x = [], start
        while x <= stop * (1 + 1e-12):  # tolerance: float factors must still reach stop
            out.append(x)
            x *= factor
        return out
    step = value.get("step", 1)
    if step <= 0 or stop < start:
        raise SpecError(f"sweep '{name}': an arithmetic range needs step > 0 and stop >= start")
    count = int(round((stop - start) / step)) + 1  # counted, not accumulated: no float drift
    return [start + i * step for i in range(count)]


def render(value, params, where):
    """Substitute {name} templates in a string value with swept parameters."""
    if not isinstance(value, str) or "{" not in value:
        return value
    names = [f for _, f, _, _ in string.Formatter().parse(value) if f is not None]
    missing = [n for n in names if n not in params]
    if missing:
        raise SpecError(f"{where}: template {value!r} names {missing}, "
                        f"which are not swept (swept: {sorted(params)})")
    if len(names) == 1 and value == "{" + names[0] + "}":
        return params[names[0]]  # a bare reference keeps the parameter's type
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
    sweep: dict        # nbody run flags -> list of values
    sweep_vars: dict   # swept variables that are not flags (used in templates) -> list
    reference: dict    # nbody ic flags of the reference state, or {} for none
    metrics: list      # summary fields copied into the CSV

    @property
    def params(self):
        """The swept names, in file order: the first columns of the results CSV."""
        return list(self.sweep) + list(self.sweep_vars)

    def points(self):
        """The cartesian product of the sweeps, as a list of {name: value}."""
        lists = [self.sweep[n] if n in self.sweep else self.sweep_vars[n] for n in self.params]
        return [dict(zip(self.params, combo)) for combo in itertools.product(*lists)]

    def _flags(self, section, point, where):
        return {k: render(v, point, f"{self.id} [{where}] {k}") for k, v in section.items()}

    def run_args(self, point):
        """Arguments of `nbody run` for one point (output-file flags excluded)."""
        flags = self._flags(self.fixed, point, "fixed")
        flags.update({k: point[k] for k in self.sweep})
        return ["run"] + to_args(flags)

    def reference_args(self, point):
        """Arguments of `nbody ic` writing this point's reference state (without --out)."""
        if not self.reference:
            return None
        return ["ic"] + to_args(self._flags(self.reference, point, "reference"))


def load(exp_id, profile):
    """Read experiments/<exp_id>.toml and apply the profile's overrides."""
    if profile not in PROFILES:
        raise SpecError(f"unknown profile '{profile}' (valid: {', '.join(PROFILES)})")
    path = EXPERIMENTS_DIR / f"{exp_id}.toml"
    if not path.is_file():
        raise SpecError(f"unknown experiment '{exp_id}' (no {path.relative_to(ROOT)}; "
                        f"known: {', '.join(experiment_ids()) or 'none'})")
    text = path.read_text(encoding="utf-8")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path.relative_to(ROOT)}: {e}") from None
    where = path.relative_to(ROOT)
    unknown = set(doc) - TOP_KEYS
    if unknown:
        raise SpecError(f"{where}: unknown keys {sorted(unknown)} (valid: {sorted(TOP_KEYS)})")

    sections = {s: dict(doc.get(s, {})) for s in SECTIONS}
    if not sections["sweep"] and not sections["sweep_vars"]:
        raise SpecError(f"{where}: [sweep] is empty: nothing to run")
    overrides = doc.get("profile", {})
    if set(overrides) - set(PROFILES):
        raise SpecError(f"{where}: unknown profiles {sorted(set(overrides) - set(PROFILES))} "
                        f"(valid: {', '.join(PROFILES)})")
    for section, values in overrides.get(profile, {}).items():
        if section not in SECTIONS:
            raise SpecError(f"{where}: [profile.{profile}.{section}] is not one of {SECTIONS}")
        if section in ("sweep", "sweep_vars"):
            # The CSV columns must not depend on the profile.
            extra = set(values) - set(sections[section])
            if extra:
                raise SpecError(f"{where}: [profile.{profile}.{section}] sweeps {sorted(extra)}, "
                                f"which [{section}] does not")
        sections[section].update(values)

    for s in ("sweep", "sweep_vars"):
        sections[s] = {k: expand(k, v) for k, v in sections[s].items()}
    both = set(sections["sweep"]) & set(sections["sweep_vars"]) | \
        set(sections["sweep"]) & set(sections["fixed"])
    if both:
        raise SpecError(f"{where}: {sorted(both)} both swept and fixed/duplicated")
    requires = doc.get("requires", [])
    return Experiment(
        id=exp_id, path=path, text=text, profile=profile,
        title=doc.get("title", exp_id),
        requires=[requires] if isinstance(requires, str) else list(requires),
        metrics=list(doc.get("metrics", DEFAULT_METRICS)),
        **sections)
