"""E01 figure and tables: error after 10 Kepler periods vs steps per period, fitted orders, for
every fixed-step method.

Reads results/E01_two_body_convergence.csv (+ .meta.json); writes
  figures/E01_two_body_convergence.pdf, .png
  results/E01_two_body_convergence_orders.csv (+ .meta.json, the parent's provenance)
  paper/generated/E01_orders.tex   table of fitted vs theoretical orders
  paper/generated/E01_numbers.tex  \\newcommand macros for every number the text quotes
"""
import sys

import matplotlib.patches
import matplotlib.pyplot as plt
import numpy as np

import style
from nbodylab import methods, paper

EXP = "E01_two_body_convergence"
E_VALUES = {0.5: "EHalf", 0.9: "ENineTenths"}  # eccentricity -> macro suffix
WINDOW = (1e-12, 1e-3)  # the fit window (docs/experiments.md, E01): 1e-12 < error < 1e-3
# Runs in double-double reach ~1e-30 here: their window stops 3 decades above, at 1e-27 (as
# double's 1e-12 stops 3 decades above its ~1e-15).
WINDOWS = {"double": WINDOW, "dd": (1e-27, 1e-3)}
MIN_POINTS = 3          # fewest points a slope is fitted to
SLOPE_SPREAD = 0.5      # local slopes of a power-law run agree within this (see fit_order)
TOLERANCE = 0.3         # a fit agrees with theory when |fitted - theory| <= TOLERANCE (docs/experiments.md)
MEASURES = {"pos_err": "position", "dE_rel_max": "energy"}  # CSV column -> name in the table
GROUPS = [("orders 1 and 2", 1, 2), ("orders 3 and 4", 3, 4), ("orders 5 and 6", 5, 6), ("orders 7 to 15", 7, 99)]
LINESTYLES = {0.5: "-", 0.9: "--"}  # eccentricity -> line style


def load():
    rows, meta = paper.load_results(EXP)
    # Runs that failed (an implicit solve that cannot converge at a coarse step) are results
    # too: they are counted and named in the text, and have no errors to plot.
    rows, failed = paper.split_failures(rows)
    d = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    for k in ("e", "pos_err", "dE_rel_max", "t", "period", "method_order", "wall_s", "fevals"):
        d[k] = d[k].astype(float)
    d["precision"] = np.array([p or "double" for p in d.get("precision", [""] * len(rows))])
    d["n"] = np.array([float(s.split("/")[1]) for s in d["dt"]])  # dt = "P/N": N steps a period
    # Every error is measured at t = 10 P against the reference at 10 P: check that the runs
    # really ended there (a solver that overshoots or stops short would fake the order).
    periods = d["t"] / d["period"]
    if not np.allclose(periods, 10, rtol=1e-12):
        raise SystemExit(f"{EXP}: runs did not end at t = 10 P (t/P = {sorted(set(periods))})")
    return d, meta, failed


def series_keys(d):
    """(integrator, Adams order or '', precision) in the order the experiment lists them."""
    keys = []
    for m, o, p in zip(d["integrator"], d["order"], d["precision"]):
        if (m, o, p) not in keys:
            keys.append((m, o, p))
    return keys


def label(key):
    m, o, p = key
    return (f"{m} {o}" if o else m) + ("" if p == "double" else f" {p}")


def series(d, key, e):
    sel = (d["integrator"] == key[0]) & (d["order"] == key[1]) & (d["precision"] == key[2]) & (d["e"] == e)
    idx = np.argsort(d["n"][sel])
    return {k: v[sel][idx] for k, v in d.items()}


def theory(d, key):
    return int(d["method_order"][(d["integrator"] == key[0]) & (d["order"] == key[1])][0])


def fit_order(h, err, window=WINDOW):
    """Convergence order from error against step size h.

    The points inside WINDOW still include points outside the power-law regime
    err ~ C h^p: at the coarse end, steps where the leading error terms have not yet taken over
    (DOPRI5 at e = 0.5 dips there), at the fine end, the round-off plateau of double precision,
    whose noise can mimic any slope. So the fit uses the window's points from the coarsest down
    to the round-off knee (the last point before the error first stops falling as h shrinks),
    and among those the longest run of at least MIN_POINTS consecutive points whose local slopes
    d log(err) / d log(h) agree within SLOPE_SPREAD (of equally long runs, the finest).
    Returns (order or None, points used, points in the window)."""
    inside = (err > window[0]) & (err < window[1])
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


def finest_slope(h, err, window):
    """The local slope d log(err) / d log(h) between the two finest points of the window above
    the round-off knee: where a pre-asymptotic fit ends up as h shrinks (None: < 2 points)."""
    inside = (err > window[0]) & (err < window[1])
    coarse_first = np.argsort(-h[inside])
    x, y = np.log(h[inside])[coarse_first], np.log(err[inside])[coarse_first]
    knee = 1
    while knee < len(x) and y[knee] < y[knee - 1]:
        knee += 1
    if knee < 2:
        return None
    return float((y[knee - 1] - y[knee - 2]) / (x[knee - 1] - x[knee - 2]))


def plot(d, keys, es):
    """Position (top) and energy error (bottom) against steps per period, one column per group of
    orders, each method in its colour and marker (nbodylab.methods) with its legend under its
    column; e = 0.5 solid, e = 0.9 dashed; the runs in dd thin, in the colour of their method."""
    legend_rows = max(len({k[:2] for k in keys if lo <= theory(d, k) <= hi}) for _, lo, hi in GROUPS)
    fig, axes = style.figure(2, len(GROUPS), height=3.9 + 0.13 * legend_rows, sharex="col", sharey="row")
    for col, (title, lo, hi) in enumerate(GROUPS):
        group = [k for k in keys if lo <= theory(d, k) <= hi]
        for key in group:
            colour, marker = methods.style(key[0])[0], methods.marker(key[0], key[1])
            for e in es:
                s = series(d, key, e)
                kw = dict(color=colour, ls=LINESTYLES.get(e, ":"), marker=marker if e == es[0] else None,
                          ms=5 if key[1] else 2.5, lw=(1.0 if e == es[0] else 0.8) if key[2] == "double" else 0.5)
                axes[0, col].plot(s["n"], s["pos_err"], **kw)
                axes[1, col].plot(s["n"], np.abs(s["dE_rel_max"]), **kw)
        handles = [plt.Line2D([], [], color=methods.style(m)[0], marker=methods.marker(m, o),
                              ms=5 if o else 3, label=f"{label((m, o, 'double'))} ({theory(d, (m, o))})")
                   for m, o in dict.fromkeys(k[:2] for k in group)]  # a method in dd only too
        axes[1, col].legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.3),
                            handlelength=1.8)
        axes[0, col].set_title(title)
        axes[1, col].set_xlabel(r"steps per period $N = P/h$")
    for ax in axes.flat:
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.axhspan(*WINDOW, color="0.92", zorder=0)
        ax.grid(True, which="major")
        ax.set_ylim(1e-33 if "dd" in d["precision"] else 1e-17, 1e3)
        style.log_ticks(ax, most=4)
    axes[0, 0].set_ylabel(r"position error at $t = 10P$  [$a$]")
    axes[1, 0].set_ylabel(r"$\max_{t \leq 10P} |\Delta E / E_0|$")
    keys_shown = [plt.Line2D([], [], color="0.3", ls=LINESTYLES.get(e, ":"), marker="o" if e == es[0] else None,
                             ms=2.5, label=f"$e = {e}$") for e in es]
    if "dd" in d["precision"]:
        keys_shown.append(plt.Line2D([], [], color="0.3", lw=0.5, label="double-double (dd)"))
    keys_shown.append(matplotlib.patches.Patch(color="0.92", label="fit window (double)"))
    style.legend_below(fig, keys_shown, ncol=len(keys_shown))
    style.save(fig, EXP)


def fit_all(d, keys, es):
    """fits[measure, key, e] = (order or None, points used, points in window)."""
    return {(q, k, e): fit_order(1.0 / s["n"], np.abs(s[q]), WINDOWS[k[2]])
            for q in MEASURES for k in keys for e in es for s in [series(d, k, e)]}


def agrees(d, fit, key):
    return fit[0] is not None and abs(fit[0] - theory(d, key)) <= TOLERANCE


def best_at(fits, k, e):
    """The position-error fit, or the energy one where the position error has no fit."""
    f = fits["pos_err", k, e]
    return f if f[0] is not None else fits["dE_rel_max", k, e]


def verdicts(d, keys, es, fits):
    """The measured order of every double-precision method at e = 0.5, {key: (order or None, how)}:
    its double-precision fit when that agrees with the theory, else its double-double fit, else
    the finest local slope in double-double (pre-asymptotic fits); and those finest slopes,
    {dd key: slope or None}."""
    dd_keys = [k for k in keys if k[2] == "dd"]
    dd_finest = {k: finest_slope(1.0 / series(d, k, 0.5)["n"], np.abs(series(d, k, 0.5)["pos_err"]), WINDOWS["dd"])
                 for k in dd_keys if 0.5 in es}

    def measured(k):
        for cand in (k, (k[0], k[1], "dd")):
            if cand in keys and agrees(d, best_at(fits, cand, 0.5), cand):
                return best_at(fits, cand, 0.5)[0], "fit" + (" in dd" if cand[2] == "dd" else "")
        if (k[0], k[1], "dd") in dd_finest and dd_finest[k[0], k[1], "dd"] is not None:
            return dd_finest[k[0], k[1], "dd"], "finest slope in dd"
        return best_at(fits, k, 0.5)[0], "fit"
    verdict = {k: measured(k) for k in keys if k[2] == "double"} if 0.5 in es else {}
    return verdict, dd_finest


def measured_text(verdict):
    """{(method, order flag): (measured order as the paper shows it, or "", how)}."""
    return {(k[0], k[1]): ("" if v is None else f"{v:.2f}", how) for k, (v, how) in verdict.items()}


def measured_orders():
    """The measured order per method at e = 0.5, computed from results/E01_two_body_convergence.csv
    alone, as measured_text gives it: the column of the paper's method table
    (figures/E03_integrators_collision.py), and results/E01_two_body_convergence_measured.csv."""
    d, _, _ = load()
    es = sorted(float(e) for e in set(d["e"]))
    keys = series_keys(d)
    return measured_text(verdicts(d, keys, es, fit_all(d, keys, es))[0])


def main():
    d, meta, failed = load()
    es = sorted(float(e) for e in set(d["e"]))
    keys = series_keys(d)
    fits = fit_all(d, keys, es)
    plot(d, keys, es)

    # A fitted order to six digits: its last ones come from the least-squares solver (BLAS) and
    # differ between machines, where the file must not.
    rows = [[k[0], k[1], k[2], repr(e), MEASURES[q], theory(d, k), "" if f is None else f"{f:.6g}", used, window]
            for q in MEASURES for k in keys for e in es for f, used, window in [fits[q, k, e]]]
    paper.write_derived_csv(f"{EXP}_orders", "E01: fitted convergence order per method, precision, "
                            "eccentricity and error measure",
                            ["method", "order_flag", "precision", "e", "error", "theory", "fitted", "n_used",
                             "n_window"], rows, EXP, __file__)

    # Table: one row per method; per eccentricity and error measure the fitted order with the
    # points used / in the window, marked when it misses the theory by more than TOLERANCE.
    def cell(q, k, e):
        if e not in es:
            return "not run"
        fitted, used, window = fits[q, k, e]
        if fitted is None:  # explained in the caption
            return f"--- (0/{window})"
        mark = "" if agrees(d, fits[q, k, e], k) else r" \textbf{(off)}"
        finest = finest_slope(1.0 / series(d, k, e)["n"], np.abs(series(d, k, e)[q]), WINDOWS[k[2]])
        tail = "" if agrees(d, fits[q, k, e], k) or finest is None else rf", {finest:.2f}"
        return rf"{fitted:.2f} ({used}/{window}){mark}{tail}"

    cols = [(e, q) for e in E_VALUES for q in MEASURES]
    head = " & ".join(rf"\multicolumn{{2}}{{c}}{{$e = {e}$}}" for e in E_VALUES)
    rules = " ".join(rf"\cmidrule(lr){{{3 + 2 * i}-{4 + 2 * i}}}" for i in range(len(E_VALUES)))
    lines = [r"\begin{tabular}{ll" + "c" * len(cols) + "}", r"\toprule",
             rf"method & theory & {head} \\", rules,
             " & & " + " & ".join(MEASURES[q] for _, q in cols) + r" \\", r"\midrule"]
    for k in sorted(keys, key=lambda k: (theory(d, k), label(k))):
        lines.append(rf"\texttt{{{label(k)}}} & {theory(d, k)} & "
                     + " & ".join(cell(q, k, e) for e, q in cols) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv"]
    paper.write_tex("E01_orders.tex", "\n".join(lines), __file__, sources)

    # Every number the text quotes.
    info, host = paper.build(meta), meta["host"]
    n = d["n"]
    fitted_all = [(q, k, e) for (q, k, e), (f, _, _) in fits.items() if f is not None]
    double_keys = [k for k in keys if k[2] == "double"]
    dd_keys = [k for k in keys if k[2] == "dd"]
    verdict, dd_finest = verdicts(d, keys, es, fits)
    within = [k for k, (v, _) in verdict.items() if v is not None and abs(v - theory(d, k)) <= TOLERANCE]
    paper.write_derived_csv(f"{EXP}_measured", "E01: the measured order per method at e = 0.5 "
                            "(the method table's column)", ["method", "order_flag", "theory", "measured", "how"],
                            [[m, flag, theory(d, (m, flag, "double")), value, how]
                             for (m, flag), (value, how) in measured_text(verdict).items()], EXP, __file__)
    macros = {
        "EOneAllMethods": str(len(verdict)),
        "EOneAllWithin": str(len(within)),
        "EOneAllOff": ", ".join(rf"\texttt{{{label(k)}}} ({'---' if v is None else f'{v:.2f}'}, {how})"
                                for k, (v, how) in verdict.items() if k not in within) or "none",
        "EOneByFinest": ", ".join(rf"\texttt{{{label(k)}}} {v:.2f}" for k, (v, how) in verdict.items()
                                  if how == "finest slope in dd") or "none",
        "EOneDdMethods": str(len(dd_keys)),
        "EOneDdWindowLow": paper.tex_sci(WINDOWS["dd"][0], 1),
        "EOneDdHalfAgree": str(sum(agrees(d, best_at(fits, k, 0.5), k) for k in dd_keys if 0.5 in es)),
        "EOneDdHalfOff": ", ".join(rf"\texttt{{{label(k)}}} ({best_at(fits, k, 0.5)[0]:.2f} against {theory(d, k)})"
                                   for k in dd_keys if 0.5 in es and best_at(fits, k, 0.5)[0] is not None
                                   and not agrees(d, best_at(fits, k, 0.5), k)) or "none",
        "EOneDdFinest": ", ".join(rf"\texttt{{{k[0]}}} {s:.2f}" for k, s in dd_finest.items() if s is not None) or "none",
        "EOneDdFinestWithin": str(sum(1 for k, s in dd_finest.items() if s is not None and abs(s - theory(d, k)) <= TOLERANCE)),
        **paper.run_macros("EOne", meta),
        "EOneCPU": paper.tex_escape(host["cpu_model"]),
        "EOneCores": str(host["cpu_count"]),
        "EOneCompiler": paper.tex_escape(info.get("compiler", "unknown")),
        "EOneBuildType": paper.tex_escape(info.get("build_type", "unknown")),
        "EOnePoints": str(len(n) + len(failed)),
        "EOneFailed": str(len(failed)),
        "EOneFailedRuns": ", ".join(rf"\texttt{{{r['integrator']}}} at $e = {r['e']}$, $h = {r['dt']}$"
                                    for r in failed) or "none",
        "EOneMethods": str(len(double_keys)),
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
        "EOneFitsPassed": str(sum(agrees(d, fits[f], f[1]) for f in fitted_all)),
        "EOneHalfAgree": str(sum(agrees(d, best_at(fits, k, 0.5), k) for k in double_keys if 0.5 in es)),
        "EOneHalfOff": ", ".join(rf"\texttt{{{label(k)}}}" for k in double_keys
                                 if 0.5 in es and best_at(fits, k, 0.5)[0] is not None
                                 and not agrees(d, best_at(fits, k, 0.5), k)) or "none",
        "EOneHalfNoFit": ", ".join(rf"\texttt{{{label(k)}}}" for k in double_keys
                                   if 0.5 in es and best_at(fits, k, 0.5)[0] is None) or "none",
    }
    for k in keys:
        for e, suffix in E_VALUES.items():
            name = f"EOne{paper.macro_part(label(k))}"
            s = series(d, k, e) if e in es else None
            for q, qname in (("pos_err", ""), ("dE_rel_max", "Energy")):
                fitted, used, _ = fits.get((q, k, e), (None, 0, 0))
                macros[f"{name}{qname}Order{suffix}"] = "---" if fitted is None else f"{fitted:.2f}"
                macros[f"{name}{qname}Points{suffix}"] = str(used)
            macros[f"{name}MinPosErr{suffix}"] = \
                "---" if s is None else paper.tex_sci(s["pos_err"].min())
            macros[f"{name}BestEnergyErr{suffix}"] = \
                "---" if s is None else paper.tex_sci(np.abs(s["dE_rel_max"]).min())
    paper.write_macros("E01_numbers.tex", macros, __file__, sources)
    print(f"[E01] wrote figures/{EXP}.pdf/.png, results/{EXP}_orders.csv, _measured.csv, "
          f"paper/generated/E01_orders.tex, E01_numbers.tex", file=sys.stderr)


if __name__ == "__main__":
    main()
