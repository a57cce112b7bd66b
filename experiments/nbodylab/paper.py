"""Helpers for figure scripts: read a results CSV with its provenance, write generated LaTeX
(tables, \\newcommand macros) for the paper. Standard library only."""
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from . import MACHINES_DIR, RESULTS_DIR, ROOT, files, provenance, timeseries_name

GENERATED_DIR = ROOT / "paper" / "generated"
DIGITS = "Zero One Two Three Four Five Six Seven Eight Nine".split()


class MissingResults(SystemExit):
    pass


def load_results(exp_id):
    """(rows as dicts of strings, provenance) of results/<exp_id>.csv."""
    path = RESULTS_DIR / f"{exp_id}.csv"
    if not path.is_file():
        raise MissingResults(f"{path.relative_to(ROOT)} is missing: run "
                             f"`python experiments/runner.py run {exp_id}` first")
    return files.read_csv(path), files.read_json(files.sidecar(path))


def results_files(exp_id):
    """results/<exp_id>.csv and the same experiment's results of every other class of machine,
    results/machines/NAME/<exp_id>.csv, as repository paths."""
    paths = [RESULTS_DIR / f"{exp_id}.csv", *sorted(MACHINES_DIR.glob(f"*/{exp_id}.csv"))]
    return [str(p.relative_to(ROOT)) for p in paths if p.is_file()]


def results_per_machine(exp_id):
    """[(label, rows, meta)]: results/<exp_id>.csv first, then those of every other class of
    machine (results_files); the label names the CPU, its cores and its operating system."""
    rows, meta = load_results(exp_id)
    out = [(rows, meta)]
    for path in results_files(exp_id)[1:]:
        out.append((files.read_csv(ROOT / path), files.read_json(files.sidecar(ROOT / path))))
    return [(f"{r[0]['cpu_model']}, {m['host'].get('cpu_count')} cores, {m['host'].get('os', '')}".rstrip(", "), r, m)
            for r, m in out]


def bulk_file(name):
    """The repository path of results/<name>.csv.gz, a bulk table (nbodylab/files.py), or of
    results/<name>.csv where it was written before bulk tables were compressed."""
    path = RESULTS_DIR / f"{name}.csv.gz"
    if not path.is_file() and path.with_suffix("").is_file():
        path = path.with_suffix("")
    return str(path.relative_to(ROOT))


def load_bulk(name, exp_id):
    """Rows (dicts of strings) of bulk_file(name), a table of experiment `exp_id`."""
    path = ROOT / bulk_file(name)
    if not path.is_file():
        raise MissingResults(f"{path.relative_to(ROOT)} is missing: run "
                             f"`python experiments/runner.py run {exp_id}` first")
    return files.read_csv(path)


def timeseries_file(exp_id):
    """The repository path of an experiment's timeseries (bulk_file)."""
    return bulk_file(timeseries_name(exp_id))


def load_timeseries(exp_id):
    """Rows (dicts of strings, the text nbody wrote) of timeseries_file(exp_id)."""
    return load_bulk(timeseries_name(exp_id), exp_id)


def tex_escape(text):
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}
    return "".join(repl.get(c, c) for c in str(text))


def tex_count(n):
    """12345 -> 12\\,345: a count with thin spaces between its groups of three digits."""
    return f"{int(n):,}".replace(",", "\\,")


def decimals(x, places=2):
    """x to `places` decimals, rounded half up on the decimal digits a results file writes rather
    than on its binary value: 3.835 gives '3.84', where f"{3.835:.2f}" gives '3.83' (the float
    lies just below 3.835)."""
    return str(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def tex_sci(x, digits=2):
    """1.234e-13 -> \\ensuremath{1.2\\times10^{-13}} (usable in text and math)."""
    mantissa, exp = f"{x:.{digits - 1}e}".split("e")
    return rf"\ensuremath{{{mantissa}\times10^{{{int(exp)}}}}}"


def macro_part(name):
    """'rk4' -> 'RkFour', 'dopri5' -> 'DopriFive': TeX macro names are letters only."""
    words = re.split(r"[^A-Za-z0-9]+", str(name))
    out = "".join(w[:1].upper() + w[1:] for w in words)
    return re.sub(r"\d", lambda m: DIGITS[int(m.group())], out)


def fixed_flags(meta):
    """The [fixed] table of the experiment file as it ran (its profile's overrides applied)."""
    import tomllib
    doc = tomllib.loads(meta["experiment_toml"])
    fixed = dict(doc.get("fixed", {}))
    fixed.update(doc.get("profile", {}).get(meta["profile"], {}).get("fixed", {}))
    return fixed


def sched_text(meta):
    """How the timings shared the machine, for captions: under SCHED_FIFO (`chrt -f`) other work
    was held off the cores, so the load average counts work that did not run meanwhile."""
    policy = meta.get("runner", {}).get("sched_policy")
    return ("; run under SCHED\\_FIFO, which held that other work off the cores"
            if policy == "SCHED_FIFO" else "")


def machine(meta):
    """Where a results CSV was measured, in words (for captions)."""
    h = meta["host"]
    return f"{h['cpu_model']}, {h['cpu_count']} cores, {h['os']}"


def gpu_name(meta):
    """The CUDA device a runner's results were measured on, as the text names it ("H100", "H200",
    "RTX 4090": the device nbody recorded, less the vendor and the memory), or MISSING."""
    device = ((meta.get("nbody", {}).get("build_info", {}).get("host") or {}).get("cuda") or {}).get("device")
    if not device:
        return MISSING
    words = device.removeprefix("NVIDIA ").split()
    return tex_escape(" ".join(w for w in words if not re.fullmatch(r"[0-9]+GB|HBM[0-9e]*|PCIe|SXM[0-9]*", w)))


def build(meta):
    """The "build" part of `nbody --build-info` recorded with a results CSV."""
    return meta["nbody"]["build_info"].get("build", {})


def commit(meta):
    """Short git commit of the nbody that produced a results CSV, '+dirty' when modified."""
    info = build(meta)
    return str(info.get("git_commit", "unknown"))[:12] + ("+dirty" if info.get("git_dirty") else "")


def run_macros(prefix, meta):
    """The macros every figure script gives the text about its run: <prefix>Machine, Date, Commit
    and Profile."""
    return {f"{prefix}Machine": tex_escape(machine(meta)), f"{prefix}Date": meta["created_utc"][:10],
            f"{prefix}Commit": tex_escape(commit(meta)), f"{prefix}Profile": meta["profile"]}


def _header(script, sources):
    return (f"% Generated by {Path(script).resolve().relative_to(ROOT)} from "
            f"{', '.join(sources)}. Do not edit: `make figures` rewrites it.\n")


def write_tex(name, text, script, sources):
    """paper/generated/<name>, with a header naming its generator and sources."""
    files.write_text(GENERATED_DIR / name, _header(script, sources) + text)


MISSING = "---"  # what a script writes for a value its results do not hold


def write_macros(name, macros, script, sources):
    """paper/generated/<name>: one \\newcommand per entry of `macros` (name -> TeX text). A value
    the results do not hold (MISSING) becomes \\missingvalue{name}, which the paper
    turns into an error where the text quotes it, except in a smoke-profile draft (paper.tex)."""
    bad = [m for m in macros if not re.fullmatch(r"[A-Za-z]+", m)]
    if bad:
        raise ValueError(f"TeX macro names must be letters only: {bad}")
    def value(k, v):
        return f"\\missingvalue{{{k}}}" if v == MISSING else v
    body = "".join(f"\\newcommand{{\\{k}}}{{{value(k, v)}}}\n" for k, v in macros.items())
    write_tex(name, body, script, sources)


def fill_missing(macros, variants):
    """Macros the paper quotes for every variant (an eccentricity, a force law, a method) also
    when a profile ran only some of them: a missing variant's macros are MISSING."""
    for key in list(macros):
        for a in variants:
            if a in key:
                for b in variants:
                    macros.setdefault(key.replace(a, b), MISSING)


def split_failures(rows):
    """(rows of the runs that completed, without the `failure` column; rows of those that
    failed). A run that nbody could not carry through (exit 3: non-finite state, step-size
    underflow, implicit solve not converging) is recorded by the runner with its reason."""
    ok = [{k: v for k, v in r.items() if k != "failure"} for r in rows if not r.get("failure")]
    return ok, [r for r in rows if r.get("failure")]


def failed_text(failed, describe):
    """A sentence for the paper about the failed runs (describe: row -> short label)."""
    if not failed:
        return "All runs completed."
    items = "; ".join(f"{tex_escape(describe(r))}: \\code{{{tex_escape(r['failure'])}}}"  # nbody's words, flags as typed
                      for r in failed[:4])
    more = f"; and {len(failed) - 4} more" if len(failed) > 4 else ""
    return f"{len(failed)} run{'s' if len(failed) > 1 else ''} failed and {'are' if len(failed) > 1 else 'is'} left out ({items}{more})."


def _measured_text(m):
    where = f"{m['gpu']} (host {m['machine']})" if m["gpu"] else m["machine"]
    return tex_escape(f"{where}, {' and '.join(m['dates'])}")


def write_provenance(script):
    """The paper's provenance of every measurement: paper/generated/provenance_table.tex, one row
    per results file, with its machine, solver commit, dates and profile; and
    paper/generated/measured.tex, \\measured{NAME} for each of them (results/NAME.csv), "GPU (host
    CPU), date", for captions, and how many files, commits and machines the table holds, over
    which dates."""
    rows, measured, commits, machines, dates = [], {}, set(), set(), set()
    for meta_path in [*sorted(RESULTS_DIR.glob("*.meta.json")), *sorted(MACHINES_DIR.glob("*/*.meta.json"))]:
        meta = files.read_json(meta_path)
        # another class of machine's: NAME/ID (\measured{NAME/ID})
        stem = str(meta_path.relative_to(RESULTS_DIR).parent / meta_path.name.removesuffix(".meta.json"))
        stem = stem.removeprefix("machines/")
        m = provenance.measurement(meta)
        measured[stem] = _measured_text(m)
        gpu = f"{m['gpu']}; " if m["gpu"] else ""
        commits |= set(m["commits"])
        machines.add(m["machine"])  # the host: its CPU and cores
        dates |= set(m["dates"])
        rows.append(" & ".join([
            f"\\code{{{tex_escape(stem)}}}", tex_escape(gpu + m["machine"]),
            tex_escape(", ".join(m["commits"]) or "not recorded"), ", ".join(m["dates"]),
            tex_escape(m["profile"])]) + r" \\")
    sources = ["results/*.meta.json", "results/machines/*/*.meta.json"]
    write_tex("provenance_table.tex", "\\begin{tabular}{@{}p{0.355\\linewidth}p{0.245\\linewidth}p{0.1\\linewidth}lp{0.11\\linewidth}@{}}\n\\toprule\n"
              "results file & machine & commit & measured & profile \\\\\n\\midrule\n"
              + "\n".join(rows) + "\n\\bottomrule\n\\end{tabular}\n", script, sources)
    summary = {"ProvenanceFiles": len(rows), "ProvenanceCommits": len(commits),
               "ProvenanceMachines": len(machines), "ProvenanceFirstDate": min(dates),
               "ProvenanceLastDate": max(dates)}
    write_tex("measured.tex", "".join(
        f"\\expandafter\\def\\csname measured@{k}\\endcsname{{{v}}}\n" for k, v in measured.items())
        + "".join(f"\\newcommand{{\\{k}}}{{{v}}}\n" for k, v in summary.items()), script, sources)
