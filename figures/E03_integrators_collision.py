"""E03 figure and tables: seed S0's Fig. 2a/2b, every integrator on two colliding galaxies:
relative change of energy, momentum and angular momentum at T_max against force evaluations
with S0's clamp, and of energy with Plummer softening, the methods in rows by group.

Reads results/E03_integrators_collision.csv (+ .meta.json); writes
  figures/E03_integrators_collision.pdf, .png
  paper/generated/E03_cost.tex         cheapest run per method reaching max|dE/E0| <= targets
  paper/generated/E03_numbers.tex      \\newcommand macros for every number the text quotes
  paper/generated/integrators_zoo.tex  the method table, from `nbody list integrators --json`
                                       as recorded with these results (the binary that ran them),
                                       with the orders E01 measured
                                       (results/E01_two_body_orders_measured.csv)
"""
import sys

import numpy as np

import style
from nbodylab import files, methods, paper

EXP = "E03_integrators_collision"
E01_MEASURED = "E01_two_body_orders_measured"  # the order E01 measured per method (the method table's column)
TARGETS = (1e-8, 1e-12)  # max|dE/E0| thresholds of the cost table
FLOOR = 1e-18            # exact zeros are drawn here (log axes)
QUANTITIES = [("dE_rel", r"(a) $|\Delta E / E_0|$"),
              ("P_rel", r"(b) $|\Delta \mathbf{P}|\,/\sum_i m_i|\mathbf{v}_i|$"),
              ("L_rel", r"(c) $|\Delta \mathbf{L}|\,/\sum_i m_i|\mathbf{r}_i\times\mathbf{v}_i|$")]
LAW_SHORT = {"softening": "softened"}  # the column title of a law's energy panel
LAW_TEXT = {"clamp": r"S0's clamp $r_{\min} = 10^{-4}$", "softening": r"Plummer softening $\varepsilon = 10^{-2}$"}
NUMERIC = ("dt", "order", "tol", "steps", "fevals", "rejected", "dE_rel", "dE_rel_max", "P_rel",
           "L_rel", "min_pair_dist_min", "t", "wall_s")





def load():
    rows, meta = paper.load_results(EXP)
    rows, failed = paper.split_failures(rows)
    d = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    for k in NUMERIC:
        if k in d:
            d[k] = np.array([float(x) if x != "" else np.nan for x in d[k]])
    t_end = float(paper.fixed_flags(meta)["t-end"])
    if not np.allclose(d["t"], t_end, rtol=1e-12):
        raise SystemExit(f"{EXP}: runs did not end at T_max = {t_end}")
    return d, meta, failed


def series_keys(d):
    """(method, order) pairs: one curve each (order only for the Adams methods)."""
    keys = set()
    for m, o in zip(d["integrator"], d.get("order", [np.nan] * len(d["integrator"]))):
        keys.add((m, None if np.isnan(o) else int(o)))
    return sorted(keys, key=lambda k: (methods.sort_key(k[0]), k[1] or 0))


def select(d, law, method, order=None):
    sel = (d["law"] == law) & (d["integrator"] == method)
    if order is not None:
        sel &= d["order"] == order
    idx = np.where(sel)[0]
    return idx[np.argsort(d["fevals"][idx])]


def plot(d, laws, keys):
    """The three quantities with the first force law (S0's clamp), then the energy error with
    each other law (Plummer softening) on the same axis; the methods in rows by group."""
    columns = [(laws[0], q, t) for q, t in QUANTITIES] + \
        [(law, QUANTITIES[0][0], f"({'abcdefg'[len(QUANTITIES) + i]}) $|\\Delta E / E_0|$, {LAW_SHORT.get(law, law)}")
         for i, law in enumerate(laws[1:])]
    fig, rows, draw = style.method_grid(keys, [t for _, _, t in columns],
                                        same_y={len(QUANTITIES) + i: 0 for i in range(len(laws) - 1)})
    for key in keys:
        for col, (law, q, _) in enumerate(columns):
            idx = select(d, law, *key)
            draw(key, col, d["fevals"][idx], np.maximum(np.abs(d[q][idx]), FLOOR))
    for row in rows.values():
        for ax in row:
            style.log_ticks(ax, most=4)
    for ax in list(rows.values())[-1]:
        ax.set_xlabel("force evaluations")
    style.save(fig, EXP)


def cost_to_reach(d, idx, target):
    """(force evaluations, upper bound only?) at which a series (run indices sorted by cost)
    first has max|dE/E0| <= target: log-linear interpolation between the last run above the
    target and the first at or below it; the first run's cost (an upper bound) when already the
    cheapest run is below it; None when no run reaches it."""
    fe, err = d["fevals"][idx], np.maximum(np.abs(d["dE_rel_max"][idx]), FLOOR)
    below = np.where(err <= target)[0]
    if not len(below):
        return None
    i = below[0]
    if i == 0:
        return float(fe[0]), True
    x0, x1, y0, y1 = np.log(fe[i - 1]), np.log(fe[i]), np.log(err[i - 1]), np.log(err[i])
    return float(np.exp(x0 + (np.log(target) - y0) * (x1 - x0) / (y1 - y0))), False


def e01_measured():
    """{method: (measured order as the paper shows it, how)} at e = 0.5 from E01's results (Adams
    methods: their default order 5), or None while there are none."""
    path = paper.RESULTS_DIR / f"{E01_MEASURED}.csv"
    if not path.is_file():
        return None
    return {r["method"]: (r["measured"] and paper.decimals(r["measured"]), r["how"])
            for r in files.read_csv(path) if r["order_flag"] in ("", "5")}


def fmt_int(x):
    return f"{int(x):,}".replace(",", r"\,")


def main():
    d, meta, failed = load()
    laws = [law for law in ("clamp", "softening") if law in set(d["law"])] + \
        sorted(set(d["law"]) - {"clamp", "softening"})
    keys = series_keys(d)
    plot(d, laws, keys)
    sources = [f"results/{EXP}.csv"]
    integrators = meta["nbody"].get("integrators")
    if integrators:
        paper.write_tex("integrators_zoo.tex", methods.zoo_table(integrators, e01_measured()), __file__,
                        sources[:1] + [f"results/{EXP}.meta.json", f"results/{E01_MEASURED}.csv"])
    orders = {e["name"]: e.get("order") for e in (integrators or [])}

    # Cost table: per method (Adams: best order) and law, the force evaluations at which the
    # largest |dE/E0| over the run first falls to each target, interpolated log-linearly
    # between the two runs of a series that bracket it (the sweep's grid is a factor 4 in cost
    # for the fixed-step methods, finer for the adaptive ones: the cheapest run alone would
    # favour the finer grid), and the smallest max|dE/E0| reached.
    ms = sorted(set(d["integrator"]), key=methods.sort_key)
    best = {}  # (method, law, target) -> (fevals, order or None, upper bound only?)
    for m in ms:
        for law in laws:
            for t in TARGETS:
                found = []
                for (km, ko) in keys:
                    if km != m:
                        continue
                    c = cost_to_reach(d, select(d, law, m, ko), t)
                    if c is not None:
                        found.append((c[0], ko, c[1]))
                best[m, law, t] = min(found, key=lambda x: x[0]) if found else None

    def cell(m, law, t):
        b = best[m, law, t]
        if b is None:
            return "---"
        extra = f" ({b[1]})" if b[1] is not None else ""
        return (r"$\le$\," if b[2] else "") + fmt_int(round(b[0])) + extra

    cols = len(TARGETS) + 1
    head = " & ".join(rf"\multicolumn{{{cols}}}{{c}}{{{LAW_TEXT.get(law, law)}}}" for law in laws)
    rules = " ".join(rf"\cmidrule(lr){{{3 + cols * i}-{2 + cols * (i + 1)}}}"
                     for i in range(len(laws)))
    sub = " & ".join([rf"$\le$ {paper.tex_sci(t, 1)}" for t in TARGETS] + ["min."])
    lines = [r"\begin{tabular}{lc" + "r" * (cols * len(laws)) + "}", r"\toprule",
             rf"method & order & {head} \\", rules,
             " & & " + " & ".join([sub] * len(laws)) + r" \\", r"\midrule"]
    for m in ms:
        adams = not np.all(np.isnan(d["order"][d["integrator"] == m]))
        cells = [rf"\code{{{paper.tex_escape(m)}}}",
                 "1--5" if m == "adams-bashforth" and adams else
                 "2--5" if m == "adams-moulton" and adams else paper.tex_escape(orders.get(m, ""))]
        for law in laws:
            idx = select(d, law, m)
            cells += [cell(m, law, t) for t in TARGETS]
            cells.append(paper.tex_sci(max(np.abs(d["dE_rel_max"][idx]).min(), FLOOR))
                         if len(idx) else "---")
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    paper.write_tex("E03_cost.tex", "\n".join(lines), __file__, sources)

    # Numbers the text quotes.
    fixed = paper.fixed_flags(meta)
    macros = {
        **paper.run_macros("EThree", meta),
        "EThreeN": str(fixed["n"]),
        "EThreeTmax": str(fixed["t-end"]),
        "EThreePoints": str(len(d["fevals"]) + len(failed)),
        "EThreeFailedText": paper.failed_text(failed, lambda r: ", ".join(
            f"{k} = {r[k]}" if k != "integrator" else r[k]
            for k in ("law", "integrator", "order", "dt", "tol") if r.get(k))),
        "EThreeMethods": str(len(ms)),
        "EThreeWallTotal": f"{d['wall_s'].sum() / 60:.1f}",
        "EThreeFevalsMin": fmt_int(d["fevals"].min()),
        "EThreeFevalsMax": fmt_int(d["fevals"].max()),
        "EThreeFloor": paper.tex_sci(FLOOR, 1),
        "EThreeZeros": str(int(sum((d[q] == 0).sum() for q, _ in QUANTITIES))),
        "EThreeTargetLow": paper.tex_sci(TARGETS[-1], 1),
        "EThreeTargetHigh": paper.tex_sci(TARGETS[0], 1),
        "EThreeMinPairDist": f"{np.nanmin(d['min_pair_dist_min']):.2g}",
        "EThreeDtMax": f"{np.nanmax(d['dt']):g}" if "dt" in d else "---",
        "EThreeDtMin": paper.tex_sci(np.nanmin(d["dt"]), 3) if "dt" in d else "---",
    }
    if "tol" in d:
        radau = d["integrator"] == "gauss-radau15"
        emb = ~np.isnan(d["tol"]) & ~radau
        macros["EThreeTolMin"] = paper.tex_sci(np.nanmin(d["tol"][emb]), 1) if emb.any() else "---"
        macros["EThreeTolMax"] = paper.tex_sci(np.nanmax(d["tol"][emb]), 1) if emb.any() else "---"
        macros["EThreeRadauTolMin"] = paper.tex_sci(d["tol"][radau].min(), 1) if radau.any() else "---"
        macros["EThreeRadauTolMax"] = paper.tex_sci(d["tol"][radau].max(), 1) if radau.any() else "---"
    for law in laws:
        lp = paper.macro_part(law)
        sel = d["law"] == law
        # ranking at the tighter target: the three cheapest methods
        ranked = sorted((best[m, law, TARGETS[-1]][0], m) for m in ms
                        if best[m, law, TARGETS[-1]] is not None)
        for k, word in enumerate(("First", "Second", "Third")):
            macros[f"EThree{lp}{word}Method"] = \
                rf"\code{{{paper.tex_escape(ranked[k][1])}}}" if len(ranked) > k else "---"
            macros[f"EThree{lp}{word}Cost"] = fmt_int(round(ranked[k][0])) if len(ranked) > k else "---"
        macros[f"EThree{lp}Reached"] = str(len(ranked))
        macros[f"EThree{lp}ReachedLoose"] = str(sum(best[m, law, TARGETS[0]] is not None for m in ms))
        rank = {m: k + 1 for k, (_, m) in enumerate(ranked)}
        for m in ms:
            macros[f"EThree{lp}{paper.macro_part(m)}Rank"] = str(rank[m]) if m in rank else "---"
        macros[f"EThree{lp}BestEnergy"] = paper.tex_sci(max(np.abs(d["dE_rel_max"][sel]).min(), FLOOR))
        # momentum: round-off grows with the number of force evaluations (S0's remark)
        fe = d["fevals"][sel]
        lo, hi = fe <= np.quantile(fe, 0.25), fe >= np.quantile(fe, 0.75)
        p = np.abs(d["P_rel"][sel])
        macros[f"EThree{lp}MomentumLow"] = paper.tex_sci(max(np.median(p[lo]), FLOOR))
        macros[f"EThree{lp}MomentumHigh"] = paper.tex_sci(max(np.median(p[hi]), FLOOR))
        macros[f"EThree{lp}MomentumMax"] = paper.tex_sci(max(p.max(), FLOOR))
        macros[f"EThree{lp}FevalsQuartLow"] = fmt_int(np.quantile(fe, 0.25))
        macros[f"EThree{lp}FevalsQuartHigh"] = fmt_int(np.quantile(fe, 0.75))
        macros[f"EThree{lp}MinPairDist"] = f"{np.nanmin(d['min_pair_dist_min'][sel]):.3g}"
        for m in ms:
            b = best[m, law, TARGETS[-1]]
            macros[f"EThree{lp}{paper.macro_part(m)}Cost"] = "---" if b is None else fmt_int(round(b[0]))
            idx = select(d, law, m)
            macros[f"EThree{lp}{paper.macro_part(m)}BestEnergy"] = \
                paper.tex_sci(max(np.abs(d["dE_rel_max"][idx]).min(), FLOOR)) if len(idx) else "---"
    # Verdicts on S0's conclusions, by stated rules, on S0's force law (the clamp):
    #   economy     "Adams and DOPRI5 (5th order) give the best accuracy per force evaluation":
    #               DOPRI5 and Adams-Bashforth both among the three cheapest to TARGETS[-1]
    #   high order  "methods of the highest order do not pay in double": the cheapest method to
    #               TARGETS[-1] has order <= 6
    #   momentum    "the momentum error grows with the number of force evaluations": the median
    #               over the costliest quarter of runs >= 3x that over the cheapest quarter
    #   few reach   "only a few methods reach |dE/E0| < 1e-12": at most a third of the methods
    #               keep max|dE/E0| <= TARGETS[-1]
    law0 = "clamp" if "clamp" in laws else laws[0]
    ranked0 = sorted((best[m, law0, TARGETS[-1]][0], m) for m in ms
                     if best[m, law0, TARGETS[-1]] is not None)
    top3 = {m for _, m in ranked0[:3]}
    sel0 = d["law"] == law0
    fe0, p0 = d["fevals"][sel0], np.abs(d["P_rel"][sel0])
    lo0, hi0 = p0[fe0 <= np.quantile(fe0, 0.25)], p0[fe0 >= np.quantile(fe0, 0.75)]
    order_of = {e["name"]: e.get("order") for e in (integrators or [])}
    cheapest_order = order_of.get(ranked0[0][1]) if ranked0 else None

    def verdict(ok):
        return "holds" if ok else "does not hold"

    macros["EThreeVerdictEconomy"] = verdict({"dopri5", "adams-bashforth"} <= top3)
    macros["EThreeVerdictHighOrder"] = verdict(cheapest_order is not None and cheapest_order <= 6)
    macros["EThreeVerdictMomentum"] = verdict(np.median(hi0) >= 3 * np.median(lo0))
    macros["EThreeVerdictFewReach"] = verdict(len(ranked0) <= len(ms) / 3)
    macros["EThreeCheapestOrder"] = str(cheapest_order) if cheapest_order is not None else "---"
    # how different the two force laws make the results: largest ratio of max|dE/E0| between
    # the laws over identical runs
    if {"clamp", "softening"} <= set(laws):
        ratios = []
        key_cols = [c for c in ("integrator", "dt", "order", "tol") if c in d]
        index = {}
        for i in range(len(d["fevals"])):
            index.setdefault(tuple(str(d[c][i]) for c in key_cols), {})[d["law"][i]] = i
        for pair in index.values():
            if len(pair) == 2:
                a, b = (abs(d["dE_rel_max"][pair[x]]) for x in ("clamp", "softening"))
                if a > 1e-13 and b > 1e-13:
                    ratios.append(abs(np.log10(a / b)))
        macros["EThreeLawMaxDex"] = f"{max(ratios):.2f}" if ratios else "---"
        macros["EThreeLawMedianDex"] = f"{np.median(ratios):.3f}" if ratios else "---"
    paper.fill_missing(macros, ["EThreeClamp", "EThreeSoftening"])
    for k in ("EThreeLawMaxDex", "EThreeLawMedianDex", "EThreeTolMin", "EThreeTolMax",
              "EThreeRadauTolMin", "EThreeRadauTolMax"):
        macros.setdefault(k, "---")
    paper.write_macros("E03_numbers.tex", macros, __file__, sources)
    print(f"[E03] wrote figures/{EXP}.pdf/.png, paper/generated/E03_cost.tex, E03_numbers.tex, "
          f"integrators_zoo.tex", file=sys.stderr)


if __name__ == "__main__":
    main()
