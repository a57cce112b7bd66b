"""E05 figure: seed S0's Figs. 4-7, a long run of the galaxy collision: dE/E0, dP, dL against
time, force evaluations per interval dT = 0.3 and in total, for DOPRI5, Verner 6(5) (tolerance
1e-12, h in [1e-9, 1e-5]) and Adams-Bashforth 5 (h = 1e-6).

Reads results/E05_long_run.csv and results/E05_long_run_timeseries.csv.gz (+ .meta.json), the
runner's run at the chosen profile, and, when present, results/E05_long_run_gpu*.csv, the full run
(N = 512, T_max = 300) on the GPU in parts, and
results/E05_long_run_gpu_probe.csv (what the three runs cost at once on one GPU); writes
  figures/E05_long_run.pdf, .png, figures/E05_long_run_gpu.pdf, .png
  figures/E05_long_run_gpu_two_runs.pdf, .png   (with results/E05_long_run_gpu_serial*.csv, the
                                                 first GPU run: both runs' energy error)
  paper/generated/E05_numbers.tex  \\newcommand macros for every number the text quotes
"""
import sys

import matplotlib.pyplot as plt
import numpy as np

import style
from nbodylab import methods, paper

EXP = "E05_long_run"
GPU_EXP = "E05_long_run_gpu"
SERIAL_EXP = "E05_long_run_gpu_serial"  # the first full GPU run: one method after another, whole GPU each
PROBE = "E05_long_run_gpu_probe"  # E05's three runs alone, at once, and at once under MPS
APART = 1e-6      # two runs' |dE/E0| "part" at the first sample where they differ by more than this
GPU_HOUR_TARGET = 3600.0  # the target: E05's full run in at most one GPU-hour (docs/experiments.md)
AB_STEP = 1e-6            # Adams-Bashforth 5's fixed step in E05 (experiments/E05_long_run.toml)
DT_WINDOW = 0.3   # S0's interval for counting force evaluations
FLOOR = 1e-18     # exact zeros drawn here (log axes)
S0_METHODS = ("dopri5", "verner65", "adams-bashforth")  # quoted in the paper's text
# The macros of the GPU runs this script writes: the paper quotes them whether or not the GPU
# results are there (the per-method ones for each of S0_METHODS).
GPU_MACROS = [
    *(f"EFiveGpu{k}" for k in ("Commits", "Complete", "Device", "EmbeddedOverAdams", "HoursTotal", "MinPairDist",
                               "Missing", "SecondsTotal", "Shared", "StepText", "TargetVerdict", "UsPerEvalAll",
                               "VerdictTotal")),
    *(f"EFiveGpu{paper.macro_part(m)}{k}" for m in S0_METHODS
      for k in ("EnergyMax", "Fevals", "Parts", "Seconds", "UsPerEval")),
    *(f"EFiveGpuRuns{k}" for k in ("PartAt", "PartFrom", "AgreeTo", "JumpMps", "JumpSerial", "AfterMax")),
    *(f"EFiveGpuSerial{k}" for k in ("Commits", "HoursTotal", "SecondsTotal", "UsPerEvalAll")),
    *(f"EFiveGpuSerial{paper.macro_part(m)}EnergyMax" for m in S0_METHODS),
    *(f"EFiveGpuProbe{k}" for k in ("Alone", "Together", "Mps")),
]





def thousands(x):
    """12\\,345\\,678 (TeX thin spaces between groups of three digits)."""
    return f"{x:,.0f}".replace(",", r"\,")


def label(row):
    m = row["integrator"]
    if row.get("order"):
        return f"{m} {row['order']}, h = {row['dt']}"
    return f"{m}, tol = {row['tol']}, h in [{row['h-min']}, {row['h-max']}]"


def load(exp):
    rows, meta = paper.load_results(exp)
    rows, failed = paper.split_failures(rows)
    ts = paper.load_timeseries(exp)
    point_cols = [c for c in meta["columns"] if c in rows[0] and c in ts[0]
                  and c not in ("steps", "fevals", "rejected", "dE_rel", "dE_rel_max", "P_rel",
                                "L_rel", "min_pair_dist", "t", "wall_s")]
    runs = []
    for r in rows:
        key = tuple(r[c] for c in point_cols)
        sel = [s for s in ts if tuple(s[c] for c in point_cols) == key]
        series = {k: np.array([float(s[k]) for s in sel])
                  for k in ("t", "fevals", "dE_rel", "dE_rel_max", "P_rel", "L_rel", "steps",
                            "min_pair_dist")}
        runs.append((r, series))
    return runs, meta, failed


def per_window(t, fevals, window):
    """Force evaluations per interval of length `window`: differences of the cumulative count at
    the samples closest to (at or after) each multiple of the window. Returns (window ends,
    counts)."""
    ends = np.arange(window, t[-1] + window * 1e-9, window)
    counts, prev = [], 0.0
    for end in ends:
        i = np.searchsorted(t, end - window * 1e-9)  # first sample at or after `end`
        i = min(i, len(t) - 1)
        counts.append(fevals[i] - prev)
        prev = fevals[i]
    return ends, np.array(counts)


def render(exp, prefix):
    """The figure of results/<exp>*.csv and its macros (names start with `prefix`)."""
    runs, meta, failed = load(exp)
    fixed = paper.fixed_flags(meta)
    t_end = float(fixed["t-end"])
    window = DT_WINDOW if t_end >= 2 * DT_WINDOW else t_end / 5  # smoke: tiny runs
    fig, axes = style.figure(2, 3, height=4.3, sharex=True)
    quantities = [("dE_rel", r"$|\Delta E/E_0|$", "(a) energy"),
                  ("P_rel", r"$|\Delta\mathbf{P}|\,/\sum_i m_i|\mathbf{v}_i|$", "(b) momentum"),
                  ("L_rel", r"$|\Delta\mathbf{L}|\,/\sum_i m_i|\mathbf{r}_i\times\mathbf{v}_i|$",
                   "(c) angular momentum")]
    macros = {}
    for r, s in runs:
        m = r["integrator"]
        colour = methods.style(m)[0]
        ls = "--" if r.get("order") else "-"
        kw = dict(color=colour, lw=1.0, ls=ls)
        keep = s["t"] > 0
        for ax, (q, ylab, title) in zip(axes[0], quantities):
            ax.plot(s["t"][keep], np.maximum(np.abs(s[q][keep]), FLOOR), **kw)
        ends, counts = per_window(s["t"], s["fevals"], window)
        axes[1][0].stairs(counts, np.concatenate([[ends[0] - window], ends]), baseline=None, **kw)
        axes[1][1].plot(s["t"], s["fevals"], **kw)
        axes[1][2].plot(s["t"][keep], s["min_pair_dist"][keep], **kw)
        mp = paper.macro_part(m)
        macros[f"{prefix}{mp}Fevals"] = f"{int(float(r['fevals'])):,}".replace(",", r"\,")
        macros[f"{prefix}{mp}EnergyMax"] = paper.tex_sci(max(abs(float(r["dE_rel_max"])), FLOOR))
        macros[f"{prefix}{mp}Momentum"] = paper.tex_sci(max(abs(float(r["P_rel"])), FLOOR))
        macros[f"{prefix}{mp}AngMomentum"] = paper.tex_sci(max(abs(float(r["L_rel"])), FLOOR))
        macros[f"{prefix}{mp}Steps"] = f"{int(float(r['steps'])):,}".replace(",", r"\,")
        macros[f"{prefix}{mp}Rejected"] = str(int(float(r["rejected"])))
        macros[f"{prefix}{mp}PerWindowMin"] = f"{int(counts.min()):,}".replace(",", r"\,")
        macros[f"{prefix}{mp}PerWindowMax"] = f"{int(counts.max()):,}".replace(",", r"\,")
        macros[f"{prefix}{mp}Wall"] = f"{float(r['wall_s']):.0f}"
    for ax, (q, ylab, title) in zip(axes[0], quantities):
        ax.set_yscale("log")
        ax.set_ylabel(ylab)
        ax.set_title(title)
    axes[1][0].set_ylabel(f"force evaluations per $\\Delta T = {window:g}$")
    axes[1][0].set_title("(d) cost per interval")
    axes[1][0].set_ylim(bottom=0)
    style.scaled_axis(axes[1][1], "force evaluations since $t = 0$")
    axes[1][1].set_title("(e) cumulative cost")
    axes[1][2].set_ylabel("closest pair distance")
    axes[1][2].set_yscale("log")
    axes[1][2].set_title("(f) closest encounter")
    for ax in axes.flat:
        style.log_ticks(ax, "y")
    for ax in axes[1]:
        ax.set_xlabel("time $t$")
    handles = [plt.Line2D([], [], color=methods.style(r["integrator"])[0],
                          ls="--" if r.get("order") else "-", lw=1.2, label=label(r))
               for r, _ in runs]
    style.legend_below(fig, handles, ncol=2)
    style.save(fig, exp)

    # S0's Fig. 7: the embedded methods need fewer force evaluations over the whole run than
    # Adams-Bashforth 5. Rule: every embedded run's total below the Adams-Bashforth run's;
    # tested only by a run that reaches the collision (S0: after t = 25), and only once every run
    # has reached T_max (the GPU run goes in parts).
    fe = {r["integrator"]: float(r["fevals"]) for r, _ in runs}
    ab = fe.get("adams-bashforth")
    embedded = [v for k, v in fe.items() if k != "adams-bashforth"]
    if any(float(r["t"]) < t_end * (1 - 1e-9) for r, _ in runs):
        macros[prefix + "VerdictTotal"] = "is not tested yet: not every run has reached $T_{\\max}$"
    elif ab and embedded:
        macros[prefix + "EmbeddedOverAdams"] = f"{max(embedded) / ab:.2f}"
        ok = max(embedded) < ab
        macros[prefix + "VerdictTotal"] = ("holds" if ok else "does not hold") if t_end > 25 else \
            "is not tested by this run, which ends before the galaxies meet"
    # Did the embedded methods ever shorten the step below h_max? (more steps than t/h_max + 1,
    # t the time each run reached)
    emb_rows = [r for r, _ in runs if r.get("h-max")]
    at_cap = [float(r["steps"]) <= float(r["t"]) / float(r["h-max"]) + 1.5 for r in emb_rows]
    if emb_rows and all(at_cap):
        macros[prefix + "StepText"] = ("the embedded methods took every step at $h_{\\max}$ "
                                       "($t/h_{\\max}$ steps), so their cost ranks with "
                                       "their force evaluations per step")
    elif emb_rows:
        macros[prefix + "StepText"] = ("the embedded methods shortened their steps below "
                                       "$h_{\\max}$ where needed (" + "; ".join(
                                           f"{paper.tex_escape(r['integrator'])}: "
                                           f"{thousands(float(r['steps']))} steps to $t = {float(r['t']):g}$, "
                                           f"$t/h_{{\\max}} = {thousands(float(r['t']) / float(r['h-max']))}$"
                                           for r in emb_rows) + ")")
    total = sum(float(r["fevals"]) for r, _ in runs)
    macros.update({
        **paper.run_macros(prefix, meta),
        f"{prefix}FailedText": paper.failed_text(failed, lambda r: r["integrator"]),
        f"{prefix}N": str(fixed["n"]),
        f"{prefix}Tmax": f"{t_end:g}",
        f"{prefix}DiagEvery": f"{float(fixed['diag-every']):g}",
        f"{prefix}Window": f"{window:g}",
        f"{prefix}FevalsTotal": paper.tex_sci(total),
        f"{prefix}WallTotal": f"{sum(float(r['wall_s']) for r, _ in runs):.0f}",
        f"{prefix}MinPairDist": f"{min(s['min_pair_dist'].min() for _, s in runs):.3g}",
    })
    paper.fill_missing(macros, [prefix + paper.macro_part(m) for m in S0_METHODS])
    for k in ("EmbeddedOverAdams", "VerdictTotal", "StepText"):
        macros.setdefault(prefix + k, "---")
    return macros, runs, meta


def gpu_time(prefix, runs, meta):
    """The GPU time E05 is charged (collect_e05.py's gpu_seconds_in_all: the methods' times summed,
    or, when they ran at once on the one GPU, the batches' time) and the force evaluations of a
    collected GPU run, with their macros <prefix>SecondsTotal, HoursTotal, UsPerEvalAll, Commits."""
    seconds = float(meta["gpu_seconds_in_all"])
    evals = sum(float(r["fevals"]) for r, _ in runs)
    return seconds, evals, {
        f"{prefix}SecondsTotal": f"{seconds:.0f}",
        f"{prefix}HoursTotal": f"{seconds / 3600:.2f}",
        f"{prefix}UsPerEvalAll": f"{1e6 * seconds / evals:.2f}",
        f"{prefix}Commits": paper.tex_escape(", ".join(c[:12] for c in meta["nbody"]["commits"])),
    }


def gpu_macros(runs, meta):
    """What E05's run on the GPU took: per method the parts, GPU seconds and cost per force
    evaluation, in all against the one-GPU-hour target, and the GPU it ran on."""
    seconds, evals, macros = gpu_time("EFiveGpu", runs, meta)
    done = []
    for r, _ in runs:
        mp = paper.macro_part(r["integrator"])
        macros[f"EFiveGpu{mp}Parts"] = r["parts"]
        macros[f"EFiveGpu{mp}Seconds"] = f"{float(r['gpu_seconds']):.0f}"
        macros[f"EFiveGpu{mp}UsPerEval"] = f"{float(r['us_per_eval']):.2f}"
        macros[f"EFiveGpu{mp}Reached"] = f"{float(r['t']):.0f}"
        if r["complete"] == "True":
            done.append(r["integrator"])
    missing = [m for m in S0_METHODS if m not in done]
    # Projection to T_max: what is done, plus an unfinished run's remaining evaluations (at its
    # evaluations per unit time so far) at its own cost per evaluation, as if it ran alone; a
    # missing Adams-Bashforth run at one evaluation per step at the mean cost so far.
    t_end = float(paper.fixed_flags(meta)["t-end"])
    projected, remaining_s = evals, 0.0
    for m in S0_METHODS:
        row = next((r for r, _ in runs if r["integrator"] == m), None)
        if row is not None and row["complete"] != "True":
            more = float(row["fevals"]) * (t_end / float(row["t"]) - 1)
            projected += more
            remaining_s += more * float(row["us_per_eval"]) * 1e-6
        elif row is None and m == "adams-bashforth":
            projected += t_end / AB_STEP
            remaining_s += t_end / AB_STEP * seconds / evals
    hours = (seconds + remaining_s) / 3600
    h = meta["host"]
    macros.update({
        "EFiveGpuDevice": paper.tex_escape(f"{h['gpu']} (driver {h['driver']}, SM clock up to {h['sm_clock_max_mhz']})"),
        "EFiveGpuComplete": ", ".join(paper.tex_escape(m) for m in done) or "none",
        "EFiveGpuMissing": ", ".join(paper.tex_escape(m) for m in missing) or "none",
        "EFiveGpuProjectedEvals": paper.tex_sci(projected),
        "EFiveGpuProjectedHours": f"{hours:.2f}",
        "EFiveGpuShared": (f", the three methods at once on the one GPU under MPS in {len(meta['batches'])} batches "
                           f"(each limited to {meta['batches'][0]['mps_active_thread_percentage']}\\% of the "
                           f"multiprocessors, launch \\code{{{meta['batches'][0]['launch']}}}; a method's time "
                           "above overlaps the others')") if "shared_gpu" in meta else "",
        "EFiveGpuTargetVerdict": ("met" if hours <= GPU_HOUR_TARGET / 3600 else "not met") if not missing else
                                 f"not yet decided (projected {hours:.2f} GPU-hours)",
    })
    return macros


def two_runs(runs, serial_runs, serial_meta):
    """Figure and macros comparing the two full GPU runs (the same flags, other launch shapes and
    so other summation orders; the first one method after another, the second three at once under
    MPS): |dE/E0| of each method against t, and where Adams-Bashforth's two runs part."""
    fig, ax = style.figure(height=2.6)
    macros = {}
    serial = {r["integrator"]: s for r, s in serial_runs}
    for r, s in runs:
        m = r["integrator"]
        colour = methods.style(m)[0]
        ax.plot(s["t"], np.maximum(np.abs(s["dE_rel"]), FLOOR), color=colour, lw=1.0, label=f"{m} (MPS run)")
        if m not in serial:
            continue
        q = serial[m]
        ax.plot(q["t"], np.maximum(np.abs(q["dE_rel"]), FLOOR), color=colour, lw=1.0, ls=":",
                label=f"{m} (first run)")
        if m != "adams-bashforth" or len(q["t"]) != len(s["t"]):
            continue
        diff = np.abs(s["dE_rel"] - q["dE_rel"])
        apart = np.flatnonzero(diff > APART)
        if apart.size and apart[0] > 0:
            i = apart[0]
            ax.axvline(s["t"][i], color="0.5", lw=0.6, ls="--")
            macros.update({
                "EFiveGpuRunsPartAt": f"{s['t'][i]:.1f}",
                "EFiveGpuRunsPartFrom": f"{s['t'][i - 1]:.1f}",
                "EFiveGpuRunsAgreeTo": paper.tex_sci(diff[:i].max()),
                "EFiveGpuRunsJumpMps": paper.tex_sci(s["dE_rel"][i] - s["dE_rel"][i - 1]),
                "EFiveGpuRunsJumpSerial": paper.tex_sci(q["dE_rel"][i] - q["dE_rel"][i - 1]),
                "EFiveGpuRunsAfterMax": paper.tex_sci(max(np.ptp(s["dE_rel"][i:]), np.ptp(q["dE_rel"][i:]))),
            })
    ax.set_yscale("log")
    ax.set_xlabel("time $t$")
    ax.set_ylabel(r"$|\Delta E/E_0|$")
    style.log_ticks(ax, "y")
    handles, labels = ax.get_legend_handles_labels()
    style.legend_below(fig, handles, ncol=3)
    style.save(fig, f"{GPU_EXP}_two_runs")
    macros.update(gpu_time("EFiveGpuSerial", serial_runs, serial_meta)[2])
    for r, _ in serial_runs:
        macros[f"EFiveGpuSerial{paper.macro_part(r['integrator'])}EnergyMax"] = \
            paper.tex_sci(max(abs(float(r["dE_rel_max"])), FLOOR))
    return macros


def concurrency_probe_macros():
    """The probe behind the MPS run: the range of the three methods' cost per evaluation alone,
    three at once as plain processes, and under MPS."""
    rows, _ = paper.load_results(PROBE)
    macros = {}
    for case, name in (("alone", "Alone"), ("together", "Together"), ("mps", "Mps")):
        us = [float(r["us_per_eval"]) for r in rows if r["case"] == case]
        macros[f"EFiveGpuProbe{name}"] = f"{min(us):.1f}--{max(us):.1f}"
    return macros


def main():
    macros, _, _ = render(EXP, "EFive")
    sources = [f"results/{EXP}.csv", paper.timeseries_file(EXP)]
    if (paper.RESULTS_DIR / f"{GPU_EXP}.csv").is_file():
        gpu, runs, meta = render(GPU_EXP, "EFiveGpu")
        macros.update(gpu)
        macros.update(gpu_macros(runs, meta))
        sources += [f"results/{GPU_EXP}.csv", paper.timeseries_file(GPU_EXP)]
        if (paper.RESULTS_DIR / f"{SERIAL_EXP}.csv").is_file():
            serial_runs, serial_meta, _ = load(SERIAL_EXP)
            macros.update(two_runs(runs, serial_runs, serial_meta))
            sources += [f"results/{SERIAL_EXP}.csv", paper.timeseries_file(SERIAL_EXP)]
        if (paper.RESULTS_DIR / f"{PROBE}.csv").is_file():
            macros.update(concurrency_probe_macros())
            sources.append(f"results/{PROBE}.csv")
    paper.fill_missing(macros, ["EFiveGpu" + paper.macro_part(m) for m in S0_METHODS])
    for name in GPU_MACROS:  # without the GPU results, each reads "---"
        macros.setdefault(name, "---")
    paper.write_macros("E05_numbers.tex", macros, __file__, sources)
    print(f"[E05] wrote figures/{EXP}*.pdf/.png, paper/generated/E05_numbers.tex", file=sys.stderr)


if __name__ == "__main__":
    main()
