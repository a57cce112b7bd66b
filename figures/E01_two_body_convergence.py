"""E01 figure and tables: error after 10 Kepler periods vs steps per period, fitted orders.

Reads results/E01_two_body_convergence.csv (+ .meta.json); writes
  figures/E01_two_body_convergence.pdf, .png
  results/E01_two_body_convergence_orders.csv (+ .meta.json, the parent's provenance)
  paper/generated/E01_orders.tex   booktabs table of fitted vs theoretical orders
  paper/generated/E01_numbers.tex  \\newcommand macros for every number the text quotes
"""
import sys
from pathlib import Path

import matplotlib
import matplotlib.patches

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
from nbodylab import ROOT, paper  # noqa: E402

EXP = "E01_two_body_convergence"
METHODS = {"euler": ("Euler", 1), "leapfrog": ("Leapfrog (KDK)", 2), "rk4": ("RK4", 4),
           "dopri5": ("DOPRI5 (fixed step)", 5)}  # name -> (label, theoretical order)
E_VALUES = {0.5: "EHalf", 0.9: "ENineTenths"}  # eccentricity -> macro suffix
WINDOW = (1e-12, 1e-3)  # asymptotic window of the fit (REPRODUCE.md): 1e-12 < error < 1e-3
MIN_POINTS = 3          # fewest points a slope is fitted to
TOLERANCE = 0.25        # a fit passes when |fitted - theory| <= TOLERANCE
COLORS = {"euler": "#d62728", "leapfrog": "#1f77b4", "rk4": "#2ca02c", "dopri5": "#9467bd"}
LINESTYLES = {0.5: ("-", "o"), 0.9: ("--", "s")}


def load():
    rows, meta = paper.load_results(EXP)
    cols = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    num = {k: v.astype(float) for k, v in cols.items() if k != "integrator"}
    num["integrator"] = cols["integrator"]
    # Every error is measured at t = 10 P against the reference at 10 P: check that the run
    # really ended there (a solver that overshoots or stops short would fake the order).
    periods = num["t"] / num["period"]
    if not np.allclose(periods, periods[0], rtol=1e-12) or abs(periods[0] - 10) > 1e-9:
        raise SystemExit(f"{EXP}: runs did not end at t = 10 P (t/P = {sorted(set(periods))})")
    return num, meta


def fit_order(h, err):
    """Least-squares slope of log(err) vs log(h) over the points inside WINDOW.
    Returns (order or None, number of points in the window)."""
    inside = (err > WINDOW[0]) & (err < WINDOW[1])
    n = int(inside.sum())
    if n < MIN_POINTS:
        return None, n
    slope, _ = np.polyfit(np.log(h[inside]), np.log(err[inside]), 1)
    return float(slope), n


def series(d, method, e):
    sel = (d["integrator"] == method) & (d["e"] == e)
    order = np.argsort(d["steps_per_period"][sel])
    return {k: v[sel][order] for k, v in d.items()}


def plot(d, fits):
    plt.rcParams.update({"font.size": 8, "axes.titlesize": 8.5, "axes.labelsize": 8,
                         "legend.fontsize": 7.5, "xtick.labelsize": 7.5, "ytick.labelsize": 7.5})
    # Sized for the paper's text width (about 6.3 in), so the fonts print at their size.
    fig, (ax_r, ax_e) = plt.subplots(1, 2, figsize=(7.2, 3.7), sharex=True)
    es = sorted(float(e) for e in set(d["e"]))
    for method, (label, p) in METHODS.items():
        for e in es:
            s = series(d, method, e)
            if not len(s["e"]):
                continue
            ls, marker = LINESTYLES.get(e, (":", "^"))
            style = dict(color=COLORS[method], ls=ls, marker=marker, ms=3, lw=1.1)
            n = s["steps_per_period"]
            ax_r.plot(n, s["pos_err"], **style)
            ax_e.plot(n, s["dE_rel_max"], **style)
            # Reference slope N^-p, a decade below the first fitted point, drawn down to the
            # bottom of the fit window only (below it round-off takes over).
            fitted, _ = fits[method, e]
            if e == es[0] and fitted is not None:
                inside = (s["pos_err"] > WINDOW[0]) & (s["pos_err"] < WINDOW[1])
                n0, err0 = n[inside][0], s["pos_err"][inside][0]
                ref = err0 / 10 * (n / n0) ** (-p)
                shown = (n >= n0) & (ref >= WINDOW[0])
                ax_r.plot(n[shown], ref[shown], color=COLORS[method], ls=":", lw=1.0)
                ax_r.annotate(rf"$N^{{-{p}}}$", (n[shown][-1], ref[shown][-1]), fontsize=7,
                              color=COLORS[method], xytext=(2, -8), textcoords="offset points")
    ax_r.axhspan(*WINDOW, color="0.92", zorder=0)
    for ax in (ax_r, ax_e):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.grid(True, which="major", alpha=0.4)
        ax.set_xlabel(r"steps per period $N = P/h$")
    ax_r.set_ylabel(r"$\max_i |\mathbf{r}_i - \mathbf{r}_i^{\rm Kepler}|$ at $t = 10P$  [$a$]")
    ax_e.set_ylabel(r"$\max_{t \leq 10P}\, |\Delta E / E_0|$")
    ax_r.set_title("(a) position error against the analytic orbit")
    ax_e.set_title("(b) largest relative energy error during the run")
    # Two legends below the panels: colour = method, line style = eccentricity.
    handles = [plt.Line2D([], [], color=COLORS[m], lw=2, label=f"{lab} (order {p})")
               for m, (lab, p) in METHODS.items()]
    handles += [plt.Line2D([], [], color="0.3", ls=LINESTYLES.get(e, (":", "^"))[0],
                           marker=LINESTYLES.get(e, (":", "^"))[1], ms=4, label=f"e = {e}")
                for e in es]
    handles += [plt.Line2D([], [], color="0.3", ls=":", label=r"slope $N^{-p}$"),
                matplotlib.patches.Patch(color="0.92", label="fit window")]
    fig.legend(handles=handles, loc="lower center", ncol=4,
               frameon=False, columnspacing=1.2, handlelength=2.2)
    fig.tight_layout(rect=(0, 0.1, 1, 1), w_pad=2.0)
    for ext in ("pdf", "png"):
        fig.savefig(ROOT / "figures" / f"{EXP}.{ext}", dpi=200)


def main():
    d, meta = load()
    es = sorted(float(e) for e in set(d["e"]))
    fits = {(m, e): fit_order(s["period"] / s["steps_per_period"], s["pos_err"])
            for m in METHODS for e in es for s in [series(d, m, e)]}
    plot(d, fits)

    # Machine-readable orders, with the parent's provenance.
    rows = [[m, repr(e), p, "" if fits[m, e][0] is None else repr(fits[m, e][0]), fits[m, e][1]]
            for m, (_, p) in METHODS.items() for e in es]
    paper.write_derived_csv(ROOT / "results" / f"{EXP}_orders.csv",
                            ["method", "e", "theory", "fitted", "n_points"], rows, EXP, __file__)

    # Table: one row per method, (fitted order, points used, pass mark) per eccentricity.
    def cells(m, e):
        if e not in es:
            return r"\multicolumn{3}{c}{not run}"
        fitted, n = fits[m, e]
        if fitted is None:
            why = "no point in window" if n == 0 else f"only {n} in window"
            return rf"\multicolumn{{3}}{{c}}{{{why}}}"
        mark = "pass" if abs(fitted - METHODS[m][1]) <= TOLERANCE else r"\textbf{fail}"
        return rf"{fitted:.2f} & {n} & {mark}"

    head = " & ".join(rf"\multicolumn{{3}}{{c}}{{$e = {e}$}}" for e in E_VALUES)
    rules = " ".join(rf"\cmidrule(lr){{{3 + 3 * i}-{5 + 3 * i}}}" for i in range(len(E_VALUES)))
    lines = [r"\begin{tabular}{ll" + "rrc" * len(E_VALUES) + "}", r"\toprule",
             rf"method & theory & {head} \\", rules,
             " & & " + " & ".join(["fitted & $n$ & $|\\Delta| \\le " + f"{TOLERANCE}$"]
                                  * len(E_VALUES)) + r" \\",
             r"\midrule"]
    for m, (label, p) in METHODS.items():
        lines.append(f"{label} & {p} & " + " & ".join(cells(m, e) for e in E_VALUES) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv"]
    paper.write_tex("E01_orders.tex", "\n".join(lines), __file__, sources)

    # Every number the text quotes.
    info, host = paper.build(meta), meta["host"]
    n = d["steps_per_period"]
    fitted_all = [(m, e) for (m, e), (f, _) in fits.items() if f is not None]
    macros = {
        "EOneMachine": paper.tex_escape(paper.machine(meta)),
        "EOneCPU": paper.tex_escape(host["cpu_model"]),
        "EOneCores": str(host["cpu_count"]),
        "EOneDate": meta["created_utc"][:10],
        "EOneCommit": paper.tex_escape(paper.commit(meta)),
        "EOneCompiler": paper.tex_escape(info.get("compiler", "unknown")),
        "EOneBuildType": paper.tex_escape(info.get("build_type", "unknown")),
        "EOneProfile": meta["profile"],
        "EOnePoints": str(len(n)),
        "EOneWallTotal": f"{d['wall_s'].sum():.0f}",
        "EOnePeriods": f"{d['t'][0] / d['period'][0]:.0f}",
        "EOneStepsMin": rf"\ensuremath{{2^{{{int(np.log2(n.min()))}}}}}",
        "EOneStepsMax": rf"\ensuremath{{2^{{{int(np.log2(n.max()))}}}}}",
        "EOneEccentricities": " and ".join(f"{e}" for e in es),
        "EOneWindowLow": paper.tex_sci(WINDOW[0], 1),
        "EOneWindowHigh": paper.tex_sci(WINDOW[1], 1),
        "EOneTolerance": f"{TOLERANCE}",
        "EOneFitsTotal": str(len(fitted_all)),
        "EOneFitsPassed": str(sum(abs(fits[k][0] - METHODS[k[0]][1]) <= TOLERANCE
                                  for k in fitted_all)),
    }
    for m in METHODS:
        for e, suffix in E_VALUES.items():
            name = f"EOne{paper.macro_part(m)}"
            s = series(d, m, e) if e in es else None
            fitted, npts = fits.get((m, e), (None, 0))
            macros[f"{name}Order{suffix}"] = "---" if fitted is None else f"{fitted:.2f}"
            macros[f"{name}Points{suffix}"] = str(npts)
            macros[f"{name}MinPosErr{suffix}"] = \
                "---" if s is None else paper.tex_sci(s["pos_err"].min())
            macros[f"{name}BestEnergyErr{suffix}"] = \
                "---" if s is None else paper.tex_sci(np.abs(s["dE_rel_max"]).min())
    paper.write_macros("E01_numbers.tex", macros, __file__, sources)
    print(f"[E01] wrote figures/{EXP}.pdf/.png, results/{EXP}_orders.csv, "
          f"paper/generated/E01_orders.tex, E01_numbers.tex", file=sys.stderr)


if __name__ == "__main__":
    main()
