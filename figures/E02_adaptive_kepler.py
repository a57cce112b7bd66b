"""E02 figure and tables: adaptive methods on the Kepler problem, position error after 10 periods
against the tolerance and against the number of force evaluations.

Reads results/E02_adaptive_kepler.csv (+ .meta.json); writes
  figures/E02_adaptive_kepler.pdf, .png
  paper/generated/E02_cost.tex     booktabs table: cost to reach given errors, per method and e
  paper/generated/E02_numbers.tex  \\newcommand macros for every number the text quotes
"""
import sys

import matplotlib.pyplot as plt
import numpy as np

import style
from nbodylab import methods, paper

EXP = "E02_adaptive_kepler"
TARGETS = (1e-6, 1e-10)   # position errors whose cost the table reports
ROUNDOFF = 1e-13          # below this the error is round-off, not truncation: no slope fitted
# Methods whose --tol is not the atol/rtol error norm of the others (`nbody list integrators`).
OWN_TOL = {"gauss-radau15": "IAS15's epsilon"}
E_SUFFIX = {0.5: "EHalf", 0.9: "ENineTenths"}





def load():
    rows, meta = paper.load_results(EXP)
    rows, failed = paper.split_failures(rows)
    d = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    num = {k: v.astype(float) for k, v in d.items() if k != "integrator"}
    num["integrator"] = d["integrator"]
    periods = num["t"] / num["period"]
    if not np.allclose(periods, 10, rtol=1e-12):
        raise SystemExit(f"{EXP}: runs did not end at t = 10 P (t/P = {sorted(set(periods))})")
    return num, meta, failed


def series(d, m, e):
    sel = (d["integrator"] == m) & (d["e"] == e)
    order = np.argsort(-d["tol"][sel])
    return {k: v[sel][order] for k, v in d.items()}


def cheapest(s, target):
    """Fewest force evaluations of a run whose position error is at most target (or None)."""
    ok = s["pos_err"] <= target
    return int(s["fevals"][ok].min()) if ok.any() else None


def tol_slope(s):
    """Slope of log(error) against log(tol) on the points above round-off (None if < 3)."""
    ok = s["pos_err"] > ROUNDOFF
    if ok.sum() < 3:
        return None
    return float(np.polyfit(np.log(s["tol"][ok]), np.log(s["pos_err"][ok]), 1)[0])


def plot(d, es, ms):
    fig, axes = style.figure(len(es), 2, height=2.0 * len(es) + 0.7, squeeze=False)
    for row, e in zip(axes, es):
        ax_t, ax_f = row
        for m in ms:
            s = series(d, m, e)
            if not len(s["tol"]):
                continue
            colour, mk, _ = methods.style(m)
            kw = dict(color=colour, marker=mk, ms=3.5, lw=1.0, ls="--" if m in OWN_TOL else "-")
            ax_t.plot(s["tol"], s["pos_err"], **kw)
            ax_f.plot(s["fevals"], s["pos_err"], **kw)
        lo, hi = d["tol"].min(), d["tol"].max()
        ax_t.plot([lo, hi], [lo, hi], color="0.6", lw=0.8, ls=":", zorder=0)
        mid = np.sqrt(lo * hi)
        ax_t.annotate("error = tol", (mid, mid), xytext=(4, -10), textcoords="offset points",
                      fontsize=7.5, color="0.4")
        for ax in row:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_ylabel(r"position error at $t = 10P$  [$a$]")
        ax_t.set_xlabel("tolerance (atol = rtol)")
        ax_f.set_xlabel("force evaluations")
        ax_t.invert_xaxis()
        ax_t.set_title(f"(a) error against the tolerance, $e = {e}$")
        ax_f.set_title(f"(b) error against the cost, $e = {e}$")
        for ax in row:
            style.log_ticks(ax)
    handles = [plt.Line2D([], [], color=methods.style(m)[0], marker=methods.style(m)[1], ms=4,
                          ls="--" if m in OWN_TOL else "-",
                          label=m + (f" (tol = {OWN_TOL[m]})" if m in OWN_TOL else ""))
               for m in ms]
    style.legend_below(fig, handles, ncol=4)
    style.save(fig, EXP)


def main():
    d, meta, failed = load()
    es = sorted(set(float(e) for e in d["e"]))
    ms = sorted(set(d["integrator"]), key=methods.sort_key)
    plot(d, es, ms)

    # Table: per method and e, the cheapest run reaching each target, the smallest error, and
    # the slope of error against tolerance.
    orders = {e["name"]: e.get("order") for e in (meta["nbody"].get("integrators") or [])}
    cols = len(TARGETS) + 2
    head = " & ".join(rf"\multicolumn{{{cols}}}{{c}}{{$e = {e}$}}" for e in es)
    rules = " ".join(rf"\cmidrule(lr){{{3 + cols * i}-{2 + cols * (i + 1)}}}"
                     for i in range(len(es)))
    sub = " & ".join([rf"$\le$ {paper.tex_sci(t, 1)}" for t in TARGETS] +
                     ["min.\\ error", "slope"])
    lines = [r"\begin{tabular}{lc" + "r" * (cols * len(es)) + "}", r"\toprule",
             rf"method & order & {head} \\", rules,
             " & & " + " & ".join([sub] * len(es)) + r" \\", r"\midrule"]
    for m in ms:
        cells = [rf"\code{{{paper.tex_escape(m)}}}", paper.tex_escape(orders.get(m, ""))]
        for e in es:
            s = series(d, m, e)
            for t in TARGETS:
                c = cheapest(s, t) if len(s["tol"]) else None
                cells.append("---" if c is None else f"{c:,}".replace(",", r"\,"))
            cells.append(paper.tex_sci(s["pos_err"].min()) if len(s["tol"]) else "---")
            sl = tol_slope(s) if len(s["tol"]) else None
            cells.append("---" if sl is None else f"{sl:.2f}")
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv"]
    paper.write_tex("E02_cost.tex", "\n".join(lines), __file__, sources)

    # Numbers the text quotes.
    host = meta["host"]
    macros = {
        **paper.run_macros("ETwo", meta),
        "ETwoPoints": str(len(d["tol"])),
        "ETwoMethods": str(len(ms)),
        "ETwoWallTotal": f"{d['wall_s'].sum():.1f}",
        "ETwoEccentricities": " and ".join(f"{e}" for e in es),
        "ETwoTolMin": paper.tex_sci(d["tol"].min(), 1),
        "ETwoTolMax": paper.tex_sci(d["tol"].max(), 1),
        "ETwoRoundoff": paper.tex_sci(ROUNDOFF, 1),
        "ETwoTargetLow": paper.tex_sci(TARGETS[-1], 1),
        "ETwoTargetHigh": paper.tex_sci(TARGETS[0], 1),
        "ETwoCores": str(host["cpu_count"]),
        "ETwoFailedText": paper.failed_text(failed, lambda r: f"{r['integrator']}, e = {r['e']}, tol = {r['tol']}"),
    }
    radau = d["integrator"] == "gauss-radau15"
    macros["ETwoRadauTolMin"] = paper.tex_sci(d["tol"][radau].min(), 1) if radau.any() else "---"
    for e in es:
        sfx = E_SUFFIX.get(e, paper.macro_part(str(e).replace(".", "p")))
        # the cheapest method to reach the tighter target
        best = [(cheapest(series(d, m, e), TARGETS[-1]), m) for m in ms]
        best = sorted((c, m) for c, m in best if c is not None)
        macros[f"ETwoReached{sfx}"] = str(len(best))
        for k, (_, m) in enumerate(best):
            macros[f"ETwo{paper.macro_part(m)}Rank{sfx}"] = str(k + 1)
        for m in ms:
            macros.setdefault(f"ETwo{paper.macro_part(m)}Rank{sfx}", "---")
        macros[f"ETwoBestMethod{sfx}"] = rf"\code{{{paper.tex_escape(best[0][1])}}}" if best else "---"
        macros[f"ETwoBestCost{sfx}"] = f"{best[0][0]:,}".replace(",", r"\,") if best else "---"
        macros[f"ETwoSecondMethod{sfx}"] = rf"\code{{{paper.tex_escape(best[1][1])}}}" if len(best) > 1 else "---"
        macros[f"ETwoSecondCost{sfx}"] = f"{best[1][0]:,}".replace(",", r"\,") if len(best) > 1 else "---"
        for m in ms:
            s = series(d, m, e)
            name = f"ETwo{paper.macro_part(m)}"
            sl = tol_slope(s)
            macros[f"{name}Slope{sfx}"] = "---" if sl is None else f"{sl:.2f}"
            macros[f"{name}MinErr{sfx}"] = paper.tex_sci(s["pos_err"].min())
            c = cheapest(s, TARGETS[-1])
            macros[f"{name}Cost{sfx}"] = "---" if c is None else f"{c:,}".replace(",", r"\,")
            macros[f"{name}MaxRejected{sfx}"] = str(int(s["rejected"].max()))
            ok = s["pos_err"] > ROUNDOFF
            macros[f"{name}Ratio{sfx}"] = \
                paper.tex_sci(float(np.median(s["pos_err"][ok] / s["tol"][ok])), 1) if ok.any() else "---"
    paper.fill_missing(macros, list(E_SUFFIX.values()))
    paper.write_macros("E02_numbers.tex", macros, __file__, sources)
    print(f"[E02] wrote figures/{EXP}.pdf/.png, paper/generated/E02_cost.tex, E02_numbers.tex",
          file=sys.stderr)


if __name__ == "__main__":
    main()
