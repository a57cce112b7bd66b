"""E23 figure and table: long-term energy error on the Kepler problem (e = 0.5, 10^4 periods) of
symplectic and non-symplectic methods at equal cost (force evaluations per period).

Reads results/E23_symplectic_long_term.csv and _timeseries.csv.gz (+ .meta.json); writes
  figures/E23_symplectic_long_term.pdf, .png
  paper/generated/E23_table.tex    max |dE/E0| and its growth exponent per method and cost
  paper/generated/E23_numbers.tex  \\newcommand macros for every number the text quotes
"""
import sys

import matplotlib.pyplot as plt
import numpy as np

import style
from nbodylab import methods, paper

EXP = "E23_symplectic_long_term"
SYMPLECTIC = {"leapfrog", "yoshida4", "yoshida6", "gauss-legendre6"}
FLOOR = 1e-17      # exact zeros drawn here (log axes)
FIT_FROM = 100.0   # growth exponent of the running max |dE/E0| fitted for t >= FIT_FROM periods




def load():
    rows, meta = paper.load_results(EXP)
    rows, failed = paper.split_failures(rows)
    ts = paper.load_timeseries(EXP)
    by_point = {}
    for s in ts:
        by_point.setdefault((s["integrator"], s.get("order", ""), s["cost"]), []).append(s)
    runs = []
    for r in rows:
        sel = by_point[(r["integrator"], r.get("order", ""), r["cost"])]
        period = float(r["period"])
        series = {"periods": np.array([float(s["t"]) for s in sel]) / period,
                  "dE": np.abs(np.array([float(s["dE_rel"]) for s in sel])),
                  "dE_max": np.array([float(s["dE_rel_max"]) for s in sel])}
        runs.append((r, series))
    return runs, meta, failed


def two_decimals(x):
    """x to two decimals; a small negative exponent prints as 0.00, not -0.00."""
    text = f"{x:.2f}"
    return "0.00" if text == "-0.00" else text


def growth(series):
    """Log-log slope of the running max |dE/E0| against time over t >= FIT_FROM periods: about 0
    for a bounded error, 1 for a linear drift, 1/2 for a random walk of round-off."""
    keep = (series["periods"] >= FIT_FROM) & (series["dE_max"] > 0)
    if keep.sum() < 3:
        return None
    return float(np.polyfit(np.log(series["periods"][keep]), np.log(series["dE_max"][keep]), 1)[0])


def main():
    runs, meta, failed = load()
    costs = sorted({int(r["cost"]) for r, _ in runs})
    ms = sorted({r["integrator"] for r, _ in runs}, key=lambda m: (m not in SYMPLECTIC,
                                                                   methods.sort_key(m)))
    fig, axes = style.figure(1, len(costs), height=3.0, sharey=True, squeeze=False)
    axes = axes[0]
    for ax, c in zip(axes, costs):
        for r, s in runs:
            if int(r["cost"]) != c:
                continue
            m = r["integrator"]
            keep = s["periods"] > 0
            colour, ls = methods.style(m)[0], "-" if m in SYMPLECTIC else "--"
            marker = methods.marker(m, r.get("order"))
            # faint: |dE/E0| at each sample; bold: its running maximum (the envelope)
            ax.plot(s["periods"][keep], np.maximum(s["dE"][keep], FLOOR), color=colour,
                    lw=0.4, alpha=0.3, ls="-")
            ax.plot(s["periods"][keep], np.maximum(s["dE_max"][keep], FLOOR), color=colour,
                    lw=1.2, ls=ls, marker=marker, ms=5 if r.get("order") else 3.5, markevery=0.15)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{c} evaluations per period")
        ax.set_xlabel("time  [periods]")
        style.log_ticks(ax)
    axes[0].set_ylabel(r"$|\Delta E / E_0|$")
    labels = {r["integrator"]: r["integrator"] + (f" {r['order']}" if r.get("order") else "")
              for r, _ in runs}
    orders = {r["integrator"]: r.get("order") for r, _ in runs}
    handles = [plt.Line2D([], [], color=methods.style(m)[0], lw=1.2, ls="-" if m in SYMPLECTIC else "--",
                          marker=methods.marker(m, orders[m]), ms=5 if orders[m] else 3.5,
                          label=labels[m] + (" (symplectic)" if m in SYMPLECTIC else ""))
               for m in ms]
    style.legend_below(fig, handles, ncol=4, handlelength=3.0)
    style.save(fig, EXP)

    # Table: per method, measured force evaluations per period (at every cost), and per cost
    # the max |dE/E0| over the run and its growth exponent.
    def find(m, c):
        for r, s in runs:
            if r["integrator"] == m and int(r["cost"]) == c:
                return r, s
        return None, None

    head = " & ".join(rf"\multicolumn{{2}}{{c}}{{{c}/$P$}}" for c in costs)
    rules = " ".join(rf"\cmidrule(lr){{{3 + 2 * i}-{4 + 2 * i}}}" for i in range(len(costs)))
    lines = [r"\begin{tabular}{ll" + "rr" * len(costs) + "}", r"\toprule",
             rf"method & $f$ per period & {head} \\", rules,
             " & & " + " & ".join([r"$\max|\Delta E/E_0|$ & growth"] * len(costs)) + r" \\",
             r"\midrule"]
    macros = {}
    for m in ms:
        per_period = []
        cells = [rf"\code{{{paper.tex_escape(labels[m])}}}" + (r"$^\ast$" if m in SYMPLECTIC else "")]
        for c in costs:
            r, s = find(m, c)
            if r is None:
                cells += ["---", "---"]
                continue
            per_period.append(float(r["fevals"]) / (float(r["t"]) / float(r["period"])))
            g = growth(s)
            cells += [paper.tex_sci(max(abs(float(r["dE_rel_max"])), FLOOR)),
                      "---" if g is None else two_decimals(g)]
            mp = f"ETwentyThree{paper.macro_part(m)}C{paper.macro_part(str(c))}"
            macros[f"{mp}Max"] = paper.tex_sci(max(abs(float(r["dE_rel_max"])), FLOOR))
            macros[f"{mp}Growth"] = "---" if g is None else two_decimals(g)
        cells.insert(1, "--".join(sorted({f"{p:.0f}" for p in per_period}, key=float)))
        lines.append(" & ".join(cells) + r" \\")
        macros[f"ETwentyThree{paper.macro_part(m)}PerPeriod"] = \
            "--".join(sorted({f"{p:.0f}" for p in per_period}, key=float))
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv", paper.timeseries_file(EXP)]
    paper.write_tex("E23_table.tex", "\n".join(lines), __file__, sources)

    top = costs[-1]
    sym = [growth(s) for r, s in runs if r["integrator"] in SYMPLECTIC and int(r["cost"]) == top]
    non = [growth(s) for r, s in runs if r["integrator"] not in SYMPLECTIC and int(r["cost"]) == top]
    sym, non = [g for g in sym if g is not None], [g for g in non if g is not None]

    def best(c, symplectic):
        cand = [(abs(float(r["dE_rel_max"])), r["integrator"]) for r, _ in runs
                if int(r["cost"]) == c and (r["integrator"] in SYMPLECTIC) == symplectic]
        return min(cand) if cand else None

    for c, word in ((costs[0], "Low"), (costs[len(costs) // 2], "Mid"), (top, "Top")):
        macros[f"ETwentyThree{word}Cost"] = str(c)
        for symplectic, kind in ((True, "Sym"), (False, "Non")):
            b = best(c, symplectic)
            macros[f"ETwentyThree{word}Best{kind}Method"] = \
                rf"\code{{{paper.tex_escape(labels[b[1]])}}}" if b else "---"
            macros[f"ETwentyThree{word}Best{kind}Max"] = paper.tex_sci(max(b[0], FLOOR)) if b else "---"
        bs, bn = best(c, True), best(c, False)
        macros[f"ETwentyThree{word}SymVsNon"] = "---" if not (bs and bn) else \
            "more accurate than" if bs[0] < bn[0] else "less accurate than"
        lost = sorted({labels[r["integrator"]] for r, _ in runs
                       if int(r["cost"]) == c and abs(float(r["dE_rel_max"])) > 0.1})
        macros[f"ETwentyThree{word}Lost"] = ", ".join(rf"\code{{{paper.tex_escape(x)}}}" for x in lost) or "none"
    skipped = {m: [c for c in costs if find(m, c)[0] is None] for m in ms}
    macros["ETwentyThreeNotAtLow"] = ", ".join(rf"\code{{{paper.tex_escape(labels[m])}}}"
                                                for m in ms if costs[0] in skipped[m]) or "none"
    macros["ETwentyThreeOnlyAtTop"] = ", ".join(rf"\code{{{paper.tex_escape(labels[m])}}}"
                                                 for m in ms if skipped[m] == costs[:-1]) or "none"
    # Verdict on the prediction (bounded vs drifting), by a stated rule: every symplectic
    # growth exponent below 0.25 and every other one above 0.75 at the highest cost.
    holds = bool(sym) and bool(non) and max(sym) < 0.25 and min(non) > 0.75
    macros["ETwentyThreeVerdict"] = "holds" if holds else "holds only in part"
    r0 = runs[0][0]
    macros.update({
        **paper.run_macros("ETwentyThree", meta),
        "ETwentyThreeFailedText": paper.failed_text(failed, lambda r: f"{r['integrator']} at {r['cost']} per period"),
        "ETwentyThreePeriods": f"{float(r0['t']) / float(r0['period']):.0f}",
        "ETwentyThreeCosts": ", ".join(str(c) for c in costs),
        "ETwentyThreeTopCost": str(top),
        "ETwentyThreeFitFrom": f"{FIT_FROM:.0f}",
        "ETwentyThreeSymGrowthMax": two_decimals(max(sym)) if sym else "---",
        "ETwentyThreeNonGrowthMin": two_decimals(min(non)) if non else "---",
        "ETwentyThreeNonGrowthMax": two_decimals(max(non)) if non else "---",
        "ETwentyThreeNonGrowthText": "---" if not non else
        (f"all {two_decimals(min(non))}" if two_decimals(min(non)) == two_decimals(max(non))
         else f"between {two_decimals(min(non))} and {two_decimals(max(non))}"),
        "ETwentyThreeWallTotal": f"{sum(float(r['wall_s']) for r, _ in runs):.0f}",
        "ETwentyThreeRuns": str(len(runs)),
    })
    paper.write_macros("E23_numbers.tex", macros, __file__, sources)
    print(f"[E23] wrote figures/{EXP}.pdf/.png, paper/generated/E23_table.tex, E23_numbers.tex",
          file=sys.stderr)


if __name__ == "__main__":
    main()
