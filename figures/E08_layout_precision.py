"""E08 figure and table: array of structures (AoS) against structure of arrays (SoA), float
against double, for the cache-tiled compiler-vectorised engine (openmp-block) and the explicit
SIMD engine (openmp-simd).

Reads results/E08_layout_precision.csv (+ .meta.json); writes
  figures/E08_layout_precision.pdf, .png   interactions/s against N, one panel per precision
  paper/generated/E08_table.tex            interactions/s, AoS/SoA and float/double ratios
  paper/generated/E08_numbers.tex          \\newcommand macros for every number the text quotes
"""
import sys

import style
from nbodylab import paper

EXP = "E08_layout_precision"
BASES = ["openmp-block", "openmp-simd"]
COLOURS = {"openmp-block": "tab:green", "openmp-simd": "tab:red"}
PRECISIONS = ["double", "float"]
TARGET_FLOAT_OVER_DOUBLE = 2.0  # the target: openmp-simd in float at least twice its double rate


def main():
    rows, meta = paper.load_results(EXP)
    rate, timed = {}, {}  # (base, layout, precision) -> {n: interactions/s}, {n: row}
    for r in rows:
        e = r["engine"]
        base, layout = (e[:-4], "AoS") if e.endswith("-aos") else (e, "SoA")
        rate.setdefault((base, layout, r["precision"]), {})[int(r["n"])] = float(r["interactions_per_s"])
        timed.setdefault((base, layout, r["precision"]), {})[int(r["n"])] = r
    ns = sorted({int(r["n"]) for r in rows})
    nmax = 32768 if 32768 in ns else ns[-1]  # the N of the float/double target

    fig, axes = style.figure(1, 2, height=2.6, sharey=True)
    for ax, p in zip(axes, PRECISIONS):
        for base in BASES:
            for layout, fmt in (("SoA", "o-"), ("AoS", "s--")):
                d = rate.get((base, layout, p))
                if d:
                    x = sorted(d)
                    ax.plot(x, [d[n] for n in x], fmt, ms=3.5, color=COLOURS[base],
                            label=f"{base} ({layout})")
                    style.timing_spread(ax, x, [timed[(base, layout, p)][n] for n in x],
                                        lambda r, sec: int(r["n"]) * (int(r["n"]) - 1) / sec, COLOURS[base])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(p)
        ax.set_xlabel("N")
    for ax in axes:
        style.log_ticks(ax)
    axes[0].set_ylabel("interactions / s")
    handles, _ = axes[0].get_legend_handles_labels()
    style.legend_below(fig, handles, ncol=4)
    style.save(fig, EXP)

    def at(base, layout, p, n=nmax):
        return rate.get((base, layout, p), {}).get(n)

    def ratio(a, b):
        return f"{a / b:.2f}" if a and b else "---"

    lines = [r"\begin{tabular}{lll" + "r" * len(ns) + "rr}", r"\toprule",
             r"engine & layout & precision & \multicolumn{" + str(len(ns)) +
             r"}{c}{interactions/s at $N =$} & \multicolumn{2}{c}{at $N = " + str(nmax) + r"$} \\",
             rf"\cmidrule(lr){{4-{3 + len(ns)}}} \cmidrule(lr){{{4 + len(ns)}-{5 + len(ns)}}}",
             " & & & " + " & ".join(str(n) for n in ns) + r" & AoS/SoA & float/double \\", r"\midrule"]
    for base in BASES:
        for p in PRECISIONS:
            for layout in ("SoA", "AoS"):
                d = rate.get((base, layout, p), {})
                cells = [rf"\code{{{base}}}", layout, p]
                cells += [paper.tex_sci(d[n]) if n in d else "---" for n in ns]
                cells.append(ratio(at(base, layout, p), at(base, "SoA", p)) if layout == "AoS" else "")
                cells.append(ratio(at(base, layout, p), at(base, layout, "double")) if p == "float" else "")
                lines.append(" & ".join(cells) + r" \\")
        if base != BASES[-1]:
            lines.append(r"\midrule")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv"]
    paper.write_tex("E08_table.tex", "\n".join(lines), __file__, sources)

    loads = [float(r[k]) for r in rows for k in ("load_before", "load_after") if r.get(k)]
    simd_fd = (at("openmp-simd", "SoA", "float") or 0) / (at("openmp-simd", "SoA", "double") or float("inf"))
    macros = {
        **paper.run_macros("EEight", meta),
        "EEightSizes": ", ".join(str(n) for n in ns),
        "EEightN": str(nmax),
        "EEightThreads": rows[0]["threads"],
        "EEightSimdIsa": paper.tex_escape(next((r["simd"] for r in rows if r["simd"]), "---")),
        "EEightLoadMax": f"{max(loads):.2f}" if loads else "---",
        "EEightSched": paper.sched_text(meta),
        "EEightTargetFloatOverDouble": f"{TARGET_FLOAT_OVER_DOUBLE:.0f}",
        "EEightVerdict": "met" if simd_fd >= TARGET_FLOAT_OVER_DOUBLE else "not met",
    }
    for base in BASES:
        b = paper.macro_part(base)
        for p in PRECISIONS:
            pp = paper.macro_part(p)
            macros[f"EEight{b}{pp}Rate"] = paper.tex_sci(at(base, "SoA", p)) if at(base, "SoA", p) else "---"
            macros[f"EEight{b}{pp}AosOverSoa"] = ratio(at(base, "AoS", p), at(base, "SoA", p))
        macros[f"EEight{b}FloatOverDouble"] = ratio(at(base, "SoA", "float"), at(base, "SoA", "double"))
    macros["EEightSimdOverBlockDouble"] = ratio(at("openmp-simd", "SoA", "double"), at("openmp-block", "SoA", "double"))
    macros["EEightSimdOverBlockFloat"] = ratio(at("openmp-simd", "SoA", "float"), at("openmp-block", "SoA", "float"))
    paper.write_macros("E08_numbers.tex", macros, __file__, sources)
    print(f"[E08] wrote figures/{EXP}.pdf/.png, paper/generated/E08_table.tex, E08_numbers.tex",
          file=sys.stderr)


if __name__ == "__main__":
    main()
