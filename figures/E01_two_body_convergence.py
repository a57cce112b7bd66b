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
SLOPE_SPREAD = 0.5      # local slopes of a power-law run agree within this (see fit_order)
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
    """Convergence order from error against step size h.

    The points inside WINDOW (REPRODUCE.md) still include points outside the power-law regime
    err ~ C h^p: at the coarse end, steps where the leading error terms have not yet taken over
    (DOPRI5 at e = 0.5 dips there), at the fine end, the round-off plateau of double precision,
    whose noise can mimic any slope. So the fit uses the window's points from the coarsest down
    to the round-off knee (the last point before the error first stops falling as h shrinks),
    and among those the longest run of at least MIN_POINTS consecutive points whose local slopes
    d log(err) / d log(h) agree within SLOPE_SPREAD (of equally long runs, the finest).
    Returns (order or None, points used, points in the window)."""
    inside = (err > WINDOW[0]) & (err < WINDOW[1])
    coarse_first = np.argsort(-h[inside])
    x, y = np.log(h[inside])[coarse_first], np.log(err[inside])[coarse_first]
    n_window = len(x)
    knee = 1
    while knee < n_window and y[knee] < y[knee - 1]:
        knee += 1
    x, y = x[:knee], y[:knee]
    local = np.diff(y) / np.diff(x)
    best = None  # (first, last) indices of the run
    for first in range(len(x)):
        for last in range(len(x) - 1, first + MIN_POINTS - 2, -1):
            slopes = local[first:last]
            if slopes.max() - slopes.min() <= SLOPE_SPREAD:
                if best is None or last - first >= best[1] - best[0]:
                    best = (first, last)
                break
    if best is None:
        return None, 0, n_window
    first, last = best
    slope, _ = np.polyfit(x[first:last + 1], y[first:last + 1], 1)
    return float(slope), last - first + 1, n_window


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
    for ax in (ax_r, ax_e):
        ax.axhspan(*WINDOW, color="0.92", zorder=0)
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


MEASURES = {"pos_err": "position", "dE_rel_max": "energy"}  # CSV column -> name in the table


def main():
    d, meta = load()
    es = sorted(float(e) for e in set(d["e"]))
    # fits[measure, method, e] = (order or None, points used, points in window)
    fits = {(q, m, e): fit_order(s["period"] / s["steps_per_period"], np.abs(s[q]))
            for q in MEASURES for m in METHODS for e in es for s in [series(d, m, e)]}
    plot(d, {(m, e): fits["pos_err", m, e][:2] for m in METHODS for e in es})

    def passed(key):
        return fits[key][0] is not None and abs(fits[key][0] - METHODS[key[1]][1]) <= TOLERANCE

    # Machine-readable orders, with the parent's provenance.
    rows = [[m, repr(e), MEASURES[q], METHODS[m][1], "" if f is None else repr(f), used, window]
            for q in MEASURES for m in METHODS for e in es for f, used, window in [fits[q, m, e]]]
    paper.write_derived_csv(ROOT / "results" / f"{EXP}_orders.csv",
                            ["method", "e", "error", "theory", "fitted", "n_used", "n_window"],
                            rows, EXP, __file__)

    # Table: one row per method; per eccentricity and error measure the fitted order with the
    # points used / in the window, marked when it misses the theory by more than TOLERANCE.
    def cell(q, m, e):
        if e not in es:
            return "not run"
        fitted, used, window = fits[q, m, e]
        if fitted is None:  # explained in the caption
            return f"--- (0/{window})"
        mark = "" if passed((q, m, e)) else r" \textbf{(off)}"
        return rf"{fitted:.2f} ({used}/{window}){mark}"

    cols = [(e, q) for e in E_VALUES for q in MEASURES]
    head = " & ".join(rf"\multicolumn{{2}}{{c}}{{$e = {e}$}}" for e in E_VALUES)
    rules = " ".join(rf"\cmidrule(lr){{{3 + 2 * i}-{4 + 2 * i}}}" for i in range(len(E_VALUES)))
    lines = [r"\begin{tabular}{ll" + "c" * len(cols) + "}", r"\toprule",
             rf"method & theory & {head} \\", rules,
             " & & " + " & ".join(MEASURES[q] for _, q in cols) + r" \\", r"\midrule"]
    for m, (label, p) in METHODS.items():
        lines.append(f"{label} & {p} & " + " & ".join(cell(q, m, e) for e, q in cols) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv"]
    paper.write_tex("E01_orders.tex", "\n".join(lines), __file__, sources)

    # Every number the text quotes.
    info, host = paper.build(meta), meta["host"]
    n = d["steps_per_period"]
    fitted_all = [k for k, (f, _, _) in fits.items() if f is not None]
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
        "EOneSlopeSpread": f"{SLOPE_SPREAD}",
        "EOneMinPoints": str(MIN_POINTS),
        "EOneFitsTotal": str(len(fitted_all)),
        "EOneFitsPassed": str(sum(passed(k) for k in fitted_all)),
    }
    for m in METHODS:
        for e, suffix in E_VALUES.items():
            name = f"EOne{paper.macro_part(m)}"
            s = series(d, m, e) if e in es else None
            for q, qname in (("pos_err", ""), ("dE_rel_max", "Energy")):
                fitted, used, _ = fits.get((q, m, e), (None, 0, 0))
                macros[f"{name}{qname}Order{suffix}"] = "---" if fitted is None else f"{fitted:.2f}"
                macros[f"{name}{qname}Points{suffix}"] = str(used)
            macros[f"{name}MinPosErr{suffix}"] = \
                "---" if s is None else paper.tex_sci(s["pos_err"].min())
            macros[f"{name}BestEnergyErr{suffix}"] = \
                "---" if s is None else paper.tex_sci(np.abs(s["dE_rel_max"]).min())
    paper.write_macros("E01_numbers.tex", macros, __file__, sources)
    print(f"[E01] wrote figures/{EXP}.pdf/.png, results/{EXP}_orders.csv, "
          f"paper/generated/E01_orders.tex, E01_numbers.tex", file=sys.stderr)


if __name__ == "__main__":
    main()
