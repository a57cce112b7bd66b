"""E06 figure and table: the cost of precision. Time of one force evaluation and of one rk4 step
in float, double, dd, qd, quad and mp50 with the same engine (`openmp`), and float and double with
the fastest double engine (`openmp-simd`), as ratios to `openmp` in double at the same N, all
measured in the same run.

Reads results/E06_precision_cost.csv (+ .meta.json); writes
  figures/E06_precision_cost.pdf, .png   time relative to double, per evaluation and per step
  paper/generated/E06_table.tex          seconds and ratios at every N
  paper/generated/E06_numbers.tex        \\newcommand macros for every number the text quotes
"""
import sys

import matplotlib.pyplot as plt

import style
from nbodylab import paper

EXP = "E06_precision_cost"
BASE = ("openmp", "double")          # every ratio is to this (engine, precision) at the same N
FAST = "openmp-simd"                 # the fastest double engine (E07)
PRECISIONS = ["float", "double", "dd", "qd", "quad", "mp50"]
# Rows of the table and bars of the figure, in order: (engine, precision).
SERIES = [("openmp", p) for p in PRECISIONS] + [(FAST, "float"), (FAST, "double")]
# The targets at N = 4096 (docs/experiments.md, E06): dd at most 5 times double with `openmp`, at most
# 20 times the fastest double engine. Seed S0: __float128 about 100 times double.
MUST_N, MAX_DD_OVER_DOUBLE, MAX_DD_OVER_FASTEST, S0_QUAD = 4096, 5.0, 20.0, 100


def main():
    rows, meta = paper.load_results(EXP)
    t = {}  # (engine, precision) -> {n: row}
    for r in rows:
        t.setdefault((r["engine"], r["precision"]), {})[int(r["n"])] = r
    ns = sorted({int(r["n"]) for r in rows})

    def value(key, n, column):
        r = t.get(key, {}).get(n)
        return float(r[column]) if r and r.get(column) else None

    def ratio(key, n, column, base=BASE):
        a, b = value(key, n, column), value(base, n, column)
        return a / b if a and b else None

    def fastest_double(n):
        """(engine, seconds) of the fastest double engine measured at n."""
        cands = [(float(r["seconds_per_eval"]), e) for (e, p), by_n in t.items()
                 for m, r in by_n.items() if p == "double" and m == n]
        return min(cands)[::-1] if cands else (None, None)

    # Figure: time relative to openmp/double, per evaluation (left) and per step (right).
    fig, axes = style.figure(1, 2, height=2.7, sharey=True)
    series = [s for s in SERIES if s in t]
    width = 0.8 / max(len(ns), 1)
    colours = plt.get_cmap("viridis")
    for ax, column, title in ((axes[0], "seconds_per_eval", "per force evaluation"),
                              (axes[1], "seconds_per_step", "per rk4 step")):
        for k, n in enumerate(ns):
            xs, ys, timed = [], [], []
            for x, s in enumerate(series):
                y = ratio(s, n, column)
                if y:
                    xs.append(x - 0.4 + width * (k + 0.5))
                    ys.append(y)
                    timed.append(t[s][n])
            ax.bar(xs, ys, width, color=colours(0.15 + 0.7 * k / max(len(ns) - 1, 1)), label=f"N = {n}")
            if column == "seconds_per_eval":
                style.timing_spread(ax, xs, timed, lambda r, sec: sec / value(BASE, n, column))
        ax.axhline(1.0, color="black", lw=0.6)
        ax.axhline(S0_QUAD, color="tab:red", lw=0.6, ls="--", label=r"S0: quad $\approx$ 100$\times$ double")
        ax.set_yscale("log")
        ax.set_xticks(range(len(series)))
        ax.set_xticklabels([p if e == "openmp" else f"{p} (simd)" for e, p in series],  # simd: openmp-simd
                           rotation=30, ha="right", rotation_mode="anchor")
        ax.grid(False, axis="x")
        ax.set_title(f"time {title}, relative to double (openmp)")
        style.log_ticks(ax, "y")
    axes[0].set_ylabel("time / time of double")
    handles, _ = axes[0].get_legend_handles_labels()
    style.legend_below(fig, handles, ncol=len(handles))
    style.save(fig, EXP)

    # Table: per N, seconds per evaluation and its ratio to double (openmp), seconds per step
    # and its ratio; the ratio to the fastest double engine in the last column of each N.
    def num(x, digits=3):
        return f"{x:.{digits}g}" if x else "---"

    def times(x):
        return (f"{x:.2g}" if x < 1 else f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}") if x else "---"

    cols = 5
    lines = [r"\begin{tabular}{ll" + "rrrrr" * len(ns) + "}", r"\toprule",
             " & & " + " & ".join(rf"\multicolumn{{{cols}}}{{c}}{{$N = {n}$}}" for n in ns) + r" \\",
             " ".join(rf"\cmidrule(lr){{{3 + cols * k}-{2 + cols * (k + 1)}}}" for k in range(len(ns))),
             r"precision & engine & " + " & ".join(
                 [r"s/eval & $\times$double & $\times$fastest & s/step & $\times$double"] * len(ns)) + r" \\",
             r"\midrule"]
    for s in series:
        cells = [s[1], rf"\code{{{paper.tex_escape(s[0])}}}"]
        for n in ns:
            _, fast = fastest_double(n)
            ev = value(s, n, "seconds_per_eval")
            cells += [num(ev), times(ratio(s, n, "seconds_per_eval")),
                      times(ev / fast) if ev and fast else "---",
                      num(value(s, n, "seconds_per_step")), times(ratio(s, n, "seconds_per_step"))]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv"]
    paper.write_tex("E06_table.tex", "\n".join(lines), __file__, sources)

    # Numbers for the text: at the smallest and the largest N measured (512 and 4096 except in
    # the smoke profile), every type's ratio per evaluation and per step.
    small, large = ns[0], ns[-1]
    loads = [float(r[k]) for r in rows for k in ("load_before", "load_after") if r.get(k)]
    fast_engine, fast_seconds = fastest_double(large)
    macros = {
        **paper.run_macros("ESix", meta),
        "ESixThreads": str(max(int(r["threads"]) for r in rows)),
        "ESixSizes": ", ".join(str(n) for n in ns),
        "ESixNSmall": str(small),
        "ESixNLarge": str(large),
        "ESixLoadMax": f"{max(loads):.2f}" if loads else "---",
        "ESixLoadMin": f"{min(loads):.2f}" if loads else "---",
        "ESixFastestEngine": paper.tex_escape(fast_engine or "---"),
        "ESixSZeroQuad": str(S0_QUAD),
        "ESixMustN": str(MUST_N),
        "ESixMaxDdOverDouble": f"{MAX_DD_OVER_DOUBLE:g}",
        "ESixMaxDdOverFastest": f"{MAX_DD_OVER_FASTEST:g}",
    }
    for p in PRECISIONS:
        for n, size in ((small, "Small"), (large, "Large")):
            key = ("openmp", p)
            macros[f"ESix{paper.macro_part(p)}Eval{size}"] = times(ratio(key, n, "seconds_per_eval"))
            macros[f"ESix{paper.macro_part(p)}Step{size}"] = times(ratio(key, n, "seconds_per_step"))
            macros[f"ESix{paper.macro_part(p)}Seconds{size}"] = num(value(key, n, "seconds_per_eval"))
    for n, size in ((small, "Small"), (large, "Large")):
        macros[f"ESixFastDoubleEval{size}"] = times(ratio((FAST, "double"), n, "seconds_per_eval"))
        macros[f"ESixFastFloatEval{size}"] = times(ratio((FAST, "float"), n, "seconds_per_eval"))
        _, fs = fastest_double(n)
        dd = value(("openmp", "dd"), n, "seconds_per_eval")
        macros[f"ESixDdOverFastest{size}"] = times(dd / fs) if dd and fs else "---"
        quad = value(("openmp", "quad"), n, "seconds_per_eval")
        macros[f"ESixQuadOverDd{size}"] = times(quad / dd) if quad and dd else "---"
    # The largest N at which mp50 ran (the default profile times it at N = 512 only).
    mp_ns = sorted(t.get(("openmp", "mp50"), {}))
    macros["ESixMpN"] = str(mp_ns[-1]) if mp_ns else "---"
    macros["ESixMpEvalAtMpN"] = times(ratio(("openmp", "mp50"), mp_ns[-1], "seconds_per_eval")) if mp_ns else "---"
    # Integrator overhead of a step: seconds per step over fevals_per_step x seconds per eval.
    over = [value(s, n, "seconds_per_step") / (value(s, n, "fevals_per_step") * value(s, n, "seconds_per_eval"))
            for s in series for n in ns
            if value(s, n, "seconds_per_step") and value(s, n, "fevals_per_step") and value(s, n, "seconds_per_eval")]
    macros["ESixStepOverFourEvalsMin"] = f"{min(over):.2f}" if over else "---"
    macros["ESixStepOverFourEvalsMax"] = f"{max(over):.2f}" if over else "---"
    # The targets, judged only where they are stated (N = 4096).
    dd_d = ratio(("openmp", "dd"), MUST_N, "seconds_per_eval")
    dd_f = (value(("openmp", "dd"), MUST_N, "seconds_per_eval") / fastest_double(MUST_N)[1]
            if dd_d and fastest_double(MUST_N)[1] else None)
    macros["ESixVerdict"] = ("---" if dd_d is None or dd_f is None else
                             "met" if dd_d <= MAX_DD_OVER_DOUBLE and dd_f <= MAX_DD_OVER_FASTEST else "not met")
    paper.write_macros("E06_numbers.tex", macros, __file__, sources)
    print(f"[E06] wrote figures/{EXP}.pdf/.png, paper/generated/E06_table.tex, E06_numbers.tex",
          file=sys.stderr)


if __name__ == "__main__":
    main()
