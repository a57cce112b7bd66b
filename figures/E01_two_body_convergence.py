"""E01 figure and tables: error after 10 Kepler periods vs steps per period, fitted orders, for
every fixed-step method.

Reads results/E01_two_body_convergence.csv (+ .meta.json), and the orders fitted to it,
results/E01_two_body_orders.csv and _measured.csv (+ .meta.json: the fit's parameters), which
experiments/two_body_orders.py computes (runner experiment E01_two_body_orders); writes
  figures/E01_two_body_convergence.pdf, .png
  paper/generated/E01_orders.tex   table of fitted vs theoretical orders
  paper/generated/E01_numbers.tex  \\newcommand macros for every number the text quotes
"""
import sys

import matplotlib.patches
import matplotlib.pyplot as plt
import numpy as np

import style
from nbodylab import RESULTS_DIR, files, methods, paper, provenance
from two_body_orders import series, series_keys, theory  # the runs as the orders were fitted to them

EXP = "E01_two_body_convergence"
ORDERS = "E01_two_body_orders"  # the orders fitted to EXP's errors (experiments/two_body_orders.py)
E_VALUES = {0.5: "EHalf", 0.9: "ENineTenths"}  # eccentricity -> macro suffix
MEASURES = ["position", "energy"]  # the error measures of the fits, as the table shows them
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
    return d, meta, failed


def load_orders():
    """The orders fitted to E01's errors: fits[error, key, e] = (fitted or None, points used,
    points in the window, finest local slope or None); primary[key, e], the fit that stands for
    the method; measured[key], (order or None, how) at e = 0.5; and the fit's parameters. They
    must have been computed from the E01 results present."""
    rows, meta = paper.load_results(ORDERS)
    source = RESULTS_DIR / f"{EXP}.csv"
    if meta.get("inputs", {}).get(provenance.display(source)) != provenance.sha256_file(source):
        raise SystemExit(f"results/{ORDERS}.csv was computed from other results of {EXP}: run "
                         f"`python experiments/runner.py run {ORDERS}`")

    def number(text):
        return float(text) if text else None
    fits, primary = {}, {}
    for r in rows:
        key, e = (r["method"], r["order_flag"], r["precision"]), float(r["e"])
        fits[r["error"], key, e] = (number(r["fitted"]), int(r["n_used"]), int(r["n_window"]),
                                    number(r["finest_slope"]))
        if r["primary"] == "true":
            primary[key, e] = fits[r["error"], key, e]
    measured = {(r["method"], r["order_flag"], "double"): (number(r["measured"]), r["how"])
                for r in files.read_csv(RESULTS_DIR / f"{ORDERS}_measured.csv")}
    return fits, primary, measured, meta["parameters"]


def label(key):
    m, o, p = key
    return (f"{m} {o}" if o else m) + ("" if p == "double" else f" {p}")


def plot(d, keys, es, window):
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
        ax.axhspan(*window, color="0.92", zorder=0)
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


def main():
    d, meta, failed = load()
    fits, primary, verdict, fit = load_orders()
    window, windows, tolerance = fit["windows"]["double"], fit["windows"], fit["tolerance"]
    es = sorted(float(e) for e in set(d["e"]))
    keys = series_keys(d)
    plot(d, keys, es, window)

    def agrees(order, key):
        return order is not None and abs(order - theory(d, key)) <= tolerance

    # Table: one row per method; per eccentricity and error measure the fitted order with the
    # points used / in the window, marked when it misses the theory by more than the tolerance,
    # then the finest local slope.
    def cell(q, k, e):
        if e not in es:
            return "not run"
        fitted, used, n_window, finest = fits[q, k, e]
        if fitted is None:  # explained in the caption
            return f"--- (0/{n_window})"
        mark = "" if agrees(fitted, k) else r" \textbf{(off)}"
        tail = "" if agrees(fitted, k) or finest is None else f", {paper.decimals(finest)}"
        return rf"{paper.decimals(fitted)} ({used}/{n_window}){mark}{tail}"

    cols = [(e, q) for e in E_VALUES for q in MEASURES]
    head = " & ".join(rf"\multicolumn{{2}}{{c}}{{$e = {e}$}}" for e in E_VALUES)
    rules = " ".join(rf"\cmidrule(lr){{{3 + 2 * i}-{4 + 2 * i}}}" for i in range(len(E_VALUES)))
    lines = [r"\begin{tabular}{ll" + "c" * len(cols) + "}", r"\toprule",
             rf"method & theory & {head} \\", rules,
             " & & " + " & ".join(q for _, q in cols) + r" \\", r"\midrule"]
    for k in sorted(keys, key=lambda k: (theory(d, k), label(k))):
        lines.append(rf"\texttt{{{label(k)}}} & {theory(d, k)} & "
                     + " & ".join(cell(q, k, e) for e, q in cols) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv", f"results/{ORDERS}.csv", f"results/{ORDERS}_measured.csv"]
    paper.write_tex("E01_orders.tex", "\n".join(lines), __file__, sources)

    # Every number the text quotes.
    info, host = paper.build(meta), meta["host"]
    n = d["n"]
    fitted_all = [(f, k) for (_, k, _), (f, _, _, _) in fits.items() if f is not None]
    double_keys = [k for k in keys if k[2] == "double"]
    dd_keys = [k for k in keys if k[2] == "dd"]
    half = {k: primary[k, 0.5][0] for k in keys if 0.5 in es}  # the order standing for each at e = 0.5
    dd_finest = {k: fits["position", k, 0.5][3] for k in dd_keys if 0.5 in es}
    within = [k for k, (v, _) in verdict.items() if agrees(v, k)]
    macros = {
        "EOneAllMethods": str(len(verdict)),
        "EOneAllWithin": str(len(within)),
        "EOneAllOff": ", ".join(rf"\texttt{{{label(k)}}} ({'---' if v is None else paper.decimals(v)}, {how})"
                                for k, (v, how) in verdict.items() if k not in within) or "none",
        "EOneByFinest": ", ".join(rf"\texttt{{{label(k)}}} {paper.decimals(v)}" for k, (v, how) in verdict.items()
                                  if how == "finest slope in dd") or "none",
        "EOneDdMethods": str(len(dd_keys)),
        "EOneDdWindowLow": paper.tex_sci(windows["dd"][0], 1),
        "EOneDdHalfAgree": str(sum(agrees(half[k], k) for k in dd_keys if 0.5 in es)),
        "EOneDdHalfOff": ", ".join(rf"\texttt{{{label(k)}}} ({paper.decimals(half[k])} against {theory(d, k)})"
                                   for k in dd_keys if 0.5 in es and half[k] is not None
                                   and not agrees(half[k], k)) or "none",
        "EOneDdFinest": ", ".join(rf"\texttt{{{k[0]}}} {paper.decimals(s)}" for k, s in dd_finest.items()
                                  if s is not None) or "none",
        "EOneDdFinestWithin": str(sum(1 for k, s in dd_finest.items() if s is not None and agrees(s, k))),
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
        "EOneWindowLow": paper.tex_sci(window[0], 1),
        "EOneWindowHigh": paper.tex_sci(window[1], 1),
        "EOneTolerance": f"{tolerance}",
        "EOneSlopeSpread": f"{fit['slope_spread']}",
        "EOneMinPoints": str(fit["min_points"]),
        "EOneFitsTotal": str(len(fitted_all)),
        "EOneFitsPassed": str(sum(agrees(f, k) for f, k in fitted_all)),
        "EOneHalfAgree": str(sum(agrees(half[k], k) for k in double_keys if 0.5 in es)),
        "EOneHalfOff": ", ".join(rf"\texttt{{{label(k)}}}" for k in double_keys
                                 if 0.5 in es and half[k] is not None and not agrees(half[k], k)) or "none",
        "EOneHalfNoFit": ", ".join(rf"\texttt{{{label(k)}}}" for k in double_keys
                                   if 0.5 in es and half[k] is None) or "none",
    }
    for k in keys:
        for e, suffix in E_VALUES.items():
            name = f"EOne{paper.macro_part(label(k))}"
            s = series(d, k, e) if e in es else None
            for q, qname in (("position", ""), ("energy", "Energy")):
                fitted, used, _, _ = fits.get((q, k, e), (None, 0, 0, None))
                macros[f"{name}{qname}Order{suffix}"] = "---" if fitted is None else paper.decimals(fitted)
                macros[f"{name}{qname}Points{suffix}"] = str(used)
            macros[f"{name}MinPosErr{suffix}"] = \
                "---" if s is None else paper.tex_sci(s["pos_err"].min())
            macros[f"{name}BestEnergyErr{suffix}"] = \
                "---" if s is None else paper.tex_sci(np.abs(s["dE_rel_max"]).min())
    paper.write_macros("E01_numbers.tex", macros, __file__, sources)
    print(f"[E01] wrote figures/{EXP}.pdf/.png, paper/generated/E01_orders.tex, E01_numbers.tex", file=sys.stderr)


if __name__ == "__main__":
    main()
