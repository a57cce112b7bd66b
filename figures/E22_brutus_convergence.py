"""E22 figure and numbers: the Brutus-style convergence ladder of the galaxy collision and, for
each double-precision method, the time its trajectory leaves 1e-6 of the converged one.

Reads results/E22_brutus_convergence.csv (the ladder), _methods.csv (the compared runs) and
_timeseries.csv.gz (delta against the reference at every output time), with their .meta.json;
writes
  figures/E22_brutus_convergence.pdf, .png
  paper/generated/E22_ladder.tex    the ladder: runs, cost, agreement with the previous run
  paper/generated/E22_methods.tex   t_leave per method, setting and N
  paper/generated/E22_numbers.tex   \\newcommand macros for the numbers the text quotes
E22_brutus_convergence_gpu.py calls main() for the GPU ladder at N = 512 with its own names.
"""
import math
import re
import sys

import matplotlib.pyplot as plt

import style
from nbodylab import files, paper

EXP = "E22_brutus_convergence"
COLOUR = {"dd": "#2ca02c", "qd": "#ff7f0e", "quad": "#9467bd", "mp50": "#d62728", "double": "#1f77b4"}
N_COLOURS = ["#1f77b4", "0.2"]  # right panel: the first N, the second


def setting(row):
    """A compared run's step setting, as the tables show it."""
    if row.get("tol"):
        return f"tol {row['tol']}"
    return f"dt {row['dt']}"


def failed_at(row):
    """The time at which a failed run stopped, from nbody's message (`... (t = 24.1, h = ...)`)."""
    m = re.search(r"\bt = ([0-9.eE+-]+)", row["failure"])
    return float(m.group(1)) if m else None


def method_name(row):
    return row["integrator"] + (f" {row['order']}" if row.get("order") else "")


def main(exp=EXP, tag="E22", macro="ETwentyTwo"):
    """The figure figures/<exp>.pdf, paper/generated/<tag>_{ladder,methods,numbers}.tex, the
    macros named <macro>...."""
    ladder, meta = paper.load_results(exp)
    compared = files.read_csv(paper.RESULTS_DIR / f"{exp}_methods.csv")
    series = paper.load_timeseries(exp)
    leave = float(meta["definitions"]["leave"])
    agree = float(meta["definitions"]["agree_digits"])
    t_end = float(paper.fixed_flags(meta)["t-end"])
    ns = sorted({r["n"] for r in ladder}, key=int)

    order = list(dict.fromkeys(method_name(r) for r in compared))
    # Left, one panel per N: every ladder run and every compared run against the reference.
    # Right, one panel: the time each method leaves 1e-6 at each N, for both of its settings.
    fig = plt.figure(figsize=(style.TEXT_WIDTH, max(2.05 * len(ns) + 0.45, 3.2)))  # room for every method's name
    grid = fig.add_gridspec(len(ns), 2, width_ratios=[1.6, 1])
    ax_r = fig.add_subplot(grid[:, 1])
    for k, n in enumerate(ns):
        ax_l = fig.add_subplot(grid[k, 0])
        for s_run in dict.fromkeys(s["run"] for s in series if s["n"] == n and s["role"] == "method"):
            pts = [(float(s["t"]), float(s["delta"])) for s in series
                   if s["n"] == n and s["run"] == s_run and float(s["delta"]) > 0]
            ax_l.plot(*zip(*pts), color=COLOUR["double"], lw=0.5, alpha=0.35)
        seen = {}  # runs of each precision so far: their line styles differ
        for r in ladder:
            if r["n"] != n:
                continue
            j = seen[r["precision"]] = seen.get(r["precision"], -1) + 1
            ls = ["-", "--", "-.", ":"][j % 4]
            name = f"precision={r['precision']} tol={r['tol']}"
            pts = [(float(s["t"]), float(s["delta"])) for s in series
                   if s["n"] == n and s["role"] == "ladder" and s["run"] == name and float(s["delta"]) > 0]
            if pts:
                ax_l.plot(*zip(*pts), color=COLOUR[r["precision"]], lw=1.2, ls=ls,
                          label=f"{r['precision']} tol {r['tol']}")
        ax_l.axhline(leave, color="k", lw=0.8, ls="--")
        ax_l.axhline(10 ** -agree, color="k", lw=0.8, ls=":")
        ax_l.set_yscale("log")
        ax_l.set_ylim(bottom=min(ax_l.get_ylim()[0], 10 ** -agree / 10))  # the dotted line in view
        ax_l.set_xlabel("t")
        ax_l.set_ylabel(r"$\delta$ from the reference")
        ax_l.set_title(f"$N = {n}$: ladder (thick), double-precision runs (thin)")
        style.log_ticks(ax_l, "y", most=5)
        style.legend_right(ax_l, title="ladder", handlelength=2.6)
        rows = [r for r in compared if r["n"] == n]
        dy = (k - (len(ns) - 1) / 2) * 0.3  # the N side by side on a method's line
        for r in rows:
            y = order.index(method_name(r)) + dy
            if r["failure"]:  # nbody could not carry the run through: a cross where it stopped
                ax_r.plot([failed_at(r) or t_end], [y], marker="x", ms=5, color="#d62728")
                continue
            settings = sorted({setting(q) for q in rows if method_name(q) == method_name(r)},
                              key=lambda s: float(s.split()[1]))
            tight = setting(r) == settings[0]
            t = float(r["t_leave"]) if r["t_leave"] else t_end
            ax_r.plot([t], [y], marker=">" if not r["t_leave"] else "o", ms=4.5,
                      color=N_COLOURS[k], mfc=N_COLOURS[k] if tight else "white")
    ax_r.set_yticks(range(len(order)), order)
    ax_r.invert_yaxis()
    ax_r.set_xlim(0, t_end * 1.04)
    ax_r.set_xlabel(rf"t at which $\delta > 10^{{{round(math.log10(leave))}}}$")
    ax_r.set_title(rf"time to leave $10^{{{round(math.log10(leave))}}}$")
    ax_r.grid(False, axis="y")
    if len(ns) > 1:
        style.legend_below(fig, [plt.Line2D([], [], color=N_COLOURS[k], marker="o", ls="", label=f"$N = {n}$")
                                 for k, n in enumerate(ns)], ncol=len(ns))
    style.save(fig, exp)

    # Table: the ladder.
    lines = [r"\begin{tabular}{rllrrr}", r"\toprule",
             r"$N$ & precision & tol & force evaluations & time [s] & agreement [digits] \\",
             r"\midrule"]
    for r in ladder:
        digits = f"{float(r['digits_min']):.1f}" if r["digits_min"] else "---"
        if r["converged"] == "true":
            digits = rf"\textbf{{{digits}}}"
        lines.append(f"{r['n']} & {r['precision']} & {paper.tex_sci(float(r['tol']), 1)} & "
                     f"{int(r['fevals']):,} & {float(r['wall_s']):.1f} & {digits} \\\\".replace(",", "\\,"))
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{exp}.csv", f"results/{exp}_methods.csv", paper.timeseries_file(exp)]
    paper.write_tex(f"{tag}_ladder.tex", "\n".join(lines), __file__, sources)

    # Table: t_leave per method, setting and N; one row per method, its larger step or tolerance
    # first, then its smaller one.
    width = 1 + len(ns)  # columns per setting
    head = " & ".join(["setting"] + [f"$N = {n}$" for n in ns])
    lines = [r"\begin{tabular}{l" + ("l" + "r" * len(ns)) * 2 + "}", r"\toprule",
             rf" & \multicolumn{{{width}}}{{c}}{{larger step or tolerance}} & "
             rf"\multicolumn{{{width}}}{{c}}{{smaller step or tolerance}} \\",
             rf"\cmidrule(lr){{2-{1 + width}}} \cmidrule(lr){{{2 + width}-{1 + 2 * width}}}",
             rf"method & {head} & {head} \\", r"\midrule"]
    for name in order:
        cells = []
        for s in sorted({setting(r) for r in compared if method_name(r) == name}, key=lambda s: -float(s.split()[1])):
            cells.append(s)
            for n in ns:
                r = next((q for q in compared if q["n"] == n and method_name(q) == name and setting(q) == s), None)
                cells.append("---" if r is None else f"failed at {failed_at(r):.4g}" if r["failure"]
                             else f"{float(r['t_leave']):g}" if r["t_leave"] else "stays")
        lines.append(f"{paper.tex_escape(name)} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    paper.write_tex(f"{tag}_methods.tex", "\n".join(lines), __file__, sources)

    macros = {
        **paper.run_macros("", meta),
        "Agree": f"{agree:g}",
        "Leave": paper.tex_sci(leave, 1),
        "TEnd": f"{t_end:g}",
        "Ns": ", ".join(ns[:-1]) + (" and " if len(ns) > 1 else "") + ns[-1],
        "WallLadder": f"{sum(float(r['wall_s']) for r in ladder):.0f}",
    }
    verdicts = []
    for n in ns:
        runs = [r for r in ladder if r["n"] == n]
        last = runs[-1]
        got = float(last["digits_min"]) if last["digits_min"] else 0.0
        rows = [r for r in compared if r["n"] == n and not r["failure"]]
        failed = [r for r in compared if r["n"] == n and r["failure"]]
        stay = [r for r in rows if not r["t_leave"]]
        first = min((r for r in rows if r["t_leave"]), key=lambda r: float(r["t_leave"]), default=None)
        verdicts.append(
            f"At $N = {n}$ " + (
                ("its two runs" if len(runs) == 2 else f"the last two of its {len(runs)} runs") +
                f" ({runs[-2]['precision']} at "
                f"{paper.tex_sci(float(runs[-2]['tol']), 1)}, {last['precision']} at "
                f"{paper.tex_sci(float(last['tol']), 1)}) agree to {got:.1f} digits at every output time: "
                f"the reference is converged to {agree:g} digits"
                if last["converged"] == "true" else
                f"the ladder ended before two runs agreed to {agree:g} digits: its last two runs "
                f"({runs[-2]['precision']} at {paper.tex_sci(float(runs[-2]['tol']), 1)} and {last['precision']} at "
                f"{paper.tex_sci(float(last['tol']), 1)}) agree to {got:.1f} digits, which is the "
                f"accuracy of the reference there (far below the {paper.tex_sci(leave, 1)} the methods are "
                f"measured against)")
            + f". {len(stay)} of {len(rows)} double-precision runs stay within {paper.tex_sci(leave, 1)} to "
            f"$t = {t_end:g}$" + (
                f"; the first to leave is {paper.tex_escape(method_name(first))} at {setting(first)}, "
                f"at $t = {float(first['t_leave']):g}$." if first else ".")
            + (f" {len(failed)} run{'s' if len(failed) > 1 else ''} stopped before the end, nbody "
               f"reporting why (column \\code{{failure}} of the methods CSV): "
               + "; ".join(f"{paper.tex_escape(method_name(r))} at {setting(r)} at $t = {failed_at(r):.4g}$"
                           for r in failed) + "." if failed else ""))
    macros["Verdicts"] = " ".join(verdicts)
    paper.write_macros(f"{tag}_numbers.tex", {macro + k: v for k, v in macros.items()}, __file__, sources)
    print(f"[E22] wrote figures/{exp}.pdf/.png, paper/generated/{tag}_ladder.tex, {tag}_methods.tex, "
          f"{tag}_numbers.tex", file=sys.stderr)


if __name__ == "__main__":
    main()
