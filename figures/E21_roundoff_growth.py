"""E21 figure and numbers: growth of the round-off error of leapfrog (h = P/100) on the Kepler
orbit in float, double and dd, plain and with compensated state updates, against Brouwer's law.

The round-off error of a run in precision p is |E_p(t) - E_quad(t)| / |E0| at the same sample
(same method, same step: the truncation error is the same and cancels). The energies are read as
the exact decimal text nbody wrote (Decimal, 60 digits), never through binary64.

Reads results/E21_roundoff_growth.csv and _timeseries.csv.gz (+ .meta.json); writes
  figures/E21_roundoff_growth.pdf, .png
  paper/generated/E21_table.tex    growth exponent and final error per precision and orbit
  paper/generated/E21_numbers.tex  \\newcommand macros for the numbers the text quotes
"""
import sys
from decimal import Decimal, getcontext

import matplotlib.pyplot as plt
import numpy as np

import style
from nbodylab import paper

EXP = "E21_roundoff_growth"
getcontext().prec = 60
PRECISIONS = ["float", "double", "dd"]
EPS = {"float": 2.0 ** -24, "double": 2.0 ** -53, "dd": 2.0 ** -106}  # unit round-off
COLOUR = {"float": "#d62728", "double": "#1f77b4", "dd": "#2ca02c"}
BINS_PER_DECADE = 4
FIT_FROM = 1e3  # steps: the growth exponent is fitted from here on


def load():
    rows, meta = paper.load_results(EXP)
    rows, failed = paper.split_failures(rows)
    series = {}
    for s in paper.load_timeseries(EXP):
        key = (s["e"], s["precision"], s["compensated"])
        series.setdefault(key, []).append((int(s["steps"]), Decimal(s["E"])))
    return rows, series, meta, failed


def roundoff(series, e, p, comp):
    """(steps, |E_p - E_quad| / |E0|) at the samples both runs have, steps > 0."""
    run, ref = series.get((e, p, comp)), series.get((e, "quad", "none"))
    if not run or not ref:
        return None
    ref_at = dict(ref)
    e0 = abs(ref[0][1])
    steps, err = [], []
    for n, energy in run:
        if n > 0 and n in ref_at:
            steps.append(n)
            err.append(float(abs(energy - ref_at[n]) / e0))
    return np.array(steps, float), np.array(err)


def binned_median(steps, err):
    """Median of the error in logarithmic bins of the step count (robust to the spikes where the
    phase error meets a steep part of the truncation error)."""
    edges = 10 ** np.arange(np.floor(np.log10(steps.min())), np.log10(steps.max()) + 1e-9,
                            1 / BINS_PER_DECADE)
    xs, ys = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (steps >= lo) & (steps < hi) & (err > 0)
        if sel.sum() >= 3:
            xs.append(np.sqrt(lo * hi))
            ys.append(np.median(err[sel]))
    return np.array(xs), np.array(ys)


def growth(xs, ys):
    keep = xs >= FIT_FROM
    if keep.sum() < 3:
        return None
    return float(np.polyfit(np.log(xs[keep]), np.log(ys[keep]), 1)[0])


def main():
    rows, series, meta, failed = load()
    orbits = sorted({r["e"] for r in rows}, key=float, reverse=True)
    fig, axes = style.figure(1, len(orbits), height=2.8, sharey=True, squeeze=False)
    axes = axes[0]
    fits = {}
    for ax, e in zip(axes, orbits):
        for p in PRECISIONS:
            for comp, ls in (("none", "-"), ("state", "--")):
                got = roundoff(series, e, p, comp)
                if got is None:
                    continue
                steps, err = got
                xs, ys = binned_median(steps, err)
                fits[(e, p, comp)] = (growth(xs, ys), ys[-1] if len(ys) else None, steps.max())
                ax.plot(steps, np.maximum(err, 1e-40), color=COLOUR[p], lw=0, marker=".", ms=0.8,
                        alpha=0.15)
                ax.plot(xs, ys, color=COLOUR[p], ls=ls, lw=1.3)
            # Brouwer: eps sqrt(n), anchored at the plain run's first binned median
            got = roundoff(series, e, p, "none")
            if got is not None:
                xs, ys = binned_median(*got)
                if len(xs):
                    ax.plot(xs, ys[0] * np.sqrt(xs / xs[0]), color=COLOUR[p], lw=0.6, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"Kepler $e = {e}$, leapfrog $h = P/100$")
        ax.set_xlabel("steps")
    axes[0].set_ylabel(r"$|E_p - E_{\mathrm{quad}}| / |E_0|$")
    handles = [plt.Line2D([], [], color=COLOUR[p], lw=1.3, label=p) for p in PRECISIONS]
    handles += [plt.Line2D([], [], color="k", lw=1.3, ls="-", label="plain updates"),
                plt.Line2D([], [], color="k", lw=1.3, ls="--", label="compensated updates"),
                plt.Line2D([], [], color="k", lw=0.6, ls=":", label=r"Brouwer: $\propto\sqrt{n}$")]
    for ax in axes:
        style.log_ticks(ax)
    style.legend_below(fig, handles, ncol=6, handlelength=2.6)
    style.save(fig, EXP)

    lines = [r"\begin{tabular}{ll" + "rr" * len(orbits) + "}", r"\toprule",
             " & & " + " & ".join(rf"\multicolumn{{2}}{{c}}{{$e = {e}$}}" for e in orbits) + r" \\",
             " ".join(rf"\cmidrule(lr){{{3 + 2 * i}-{4 + 2 * i}}}" for i in range(len(orbits))),
             r"precision & updates & " + " & ".join([r"growth & final error"] * len(orbits)) + r" \\",
             r"\midrule"]
    macros = {}
    for p in PRECISIONS:
        for comp in ("none", "state"):
            cells = [p, "plain" if comp == "none" else "compensated"]
            for e in orbits:
                g, last, _ = fits.get((e, p, comp), (None, None, None))
                cells += ["---" if g is None else f"{g:.2f}",
                          "---" if last is None else paper.tex_sci(last)]
                tag = f"ETwentyOne{paper.macro_part(p)}{'Plain' if comp == 'none' else 'Comp'}E{paper.macro_part(str(e).replace('.', 'p'))}"
                macros[f"{tag}Growth"] = "---" if g is None else f"{g:.2f}"
                macros[f"{tag}Final"] = "---" if last is None else paper.tex_sci(last)
            lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv", paper.timeseries_file(EXP)]
    paper.write_tex("E21_table.tex", "\n".join(lines), __file__, sources)
    r0 = rows[0]
    macros.update({
        **paper.run_macros("ETwentyOne", meta),
        "ETwentyOnePeriods": f"{float(r0['t']) / float(r0['period']):.0f}",
        "ETwentyOneSteps": paper.tex_sci(max(float(r["steps"]) for r in rows), 1),
        "ETwentyOneFitFrom": paper.tex_sci(FIT_FROM, 1),
        "ETwentyOneFailedText": paper.failed_text(failed, lambda r: f"{r['precision']} e={r['e']} {r['compensated']}"),
        "ETwentyOneWallTotal": f"{sum(float(r['wall_s']) for r in rows):.0f}",
    })
    paper.write_macros("E21_numbers.tex", macros, __file__, sources)
    print(f"[E21] wrote figures/{EXP}.pdf/.png, paper/generated/E21_table.tex, E21_numbers.tex",
          file=sys.stderr)


if __name__ == "__main__":
    main()
