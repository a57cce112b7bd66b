"""E25 figure and table: the MPI-distributed all-pairs engine (one thread per rank) over ranks,
its two exchanges (mpi: MPI_Allgatherv, mpi-ring: a ring of MPI_Sendrecv) side by side.

Reads results/E25_mpi_scaling.csv (this machine, `make all`) and every other
results/E25_mpi_scaling_<machine>.csv (the same experiment run elsewhere, e.g. the full profile on
the GPU host's 16-core CPU, committed with its .meta.json); writes
  figures/E25_mpi_scaling.pdf, .png     one row of panels per machine:
      (a) strong scaling: parallel efficiency T(Pb) Pb / (P T(P)) against P, one line per N and
          exchange; Pb = 1, or the fewest ranks measured at that N (said in the legend);
      (b) the time of one evaluation at the largest strong-scaling N measured on several P, split into rank 0's compute
          and exchange (which includes waiting for slower ranks), a bar per P and exchange;
      (c) weak scaling (n0 bodies per rank, N = n0 P): efficiency per interaction,
          T(1) / T(P) x W(P) / (P W(1)), W = N (N - 1), i.e. each rank's interaction rate
          against one rank's (all-pairs work per rank grows as n0^2 P, so T(1) / T(P) itself
          falls as 1 / P even when the scaling is perfect);
      with the 0.85 target (16 ranks, N = 2^18) and, as text, the published figure of Nitadori, Makino
      & Abe (2007), 57.7 % of peak at 64k particles on 400 CPUs: a fraction of peak, not a
      parallel efficiency.
  paper/generated/E25_table.tex       seconds per evaluation and efficiency at every P, one
                                      block per machine
  paper/generated/E25_numbers.tex     \\newcommand macros for the numbers the text quotes
"""
import sys

import style
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from nbodylab import paper

EXP = "E25_mpi_scaling"
EXCHANGES = {"mpi": ("allgatherv", "-", "o"), "mpi-ring": ("ring", "--", "s")}
COLOURS = ["tab:blue", "tab:red", "tab:green", "tab:purple", "tab:brown", "tab:olive"]
PART_COLOURS = {"compute": "tab:blue", "exchange": "tab:orange"}
# The target (docs/experiments.md, E25): at least 85 % parallel efficiency on 16 CPU ranks at
# N = 2^18, double.
TARGET_EFFICIENCY, TARGET_RANKS, TARGET_N = 0.85, 16, 2 ** 18
NITADORI = ("Nitadori, Makino & Abe (2007):\n57.7 % of peak at 64k particles\non 400 CPUs "
            "(% of peak flops,\nnot a parallel efficiency)")


def machines():
    """[(label, rows, meta)] for every machine this experiment ran on (paper.results_per_machine)."""
    return paper.results_per_machine(EXP)


def exchange(engine):
    """'mpi-ring:openmp-simd' -> 'mpi-ring'."""
    return engine.split(":")[0]


def pow2(n):
    return style.power_of_two_text(n, least=10)


def series(rows, scaling):
    """{(exchange, size): {P: row}} of one scaling: size N for strong scaling, n0 = N / P (bodies
    per rank) for weak."""
    out = {}
    for r in rows:
        if r.get("scaling") != scaling:
            continue
        p, n = int(r["ranks"]), int(r["n"])
        out.setdefault((exchange(r["engine"]), n if scaling == "strong" else n // p), {})[p] = r
    # One rank exchanges nothing: its point is the same computation for both exchanges, so a
    # series without one borrows the other's (the ring was measured only where it differs).
    for (ex, size), by_p in out.items():
        if 1 not in by_p:
            for (ex2, size2), other in out.items():
                if size2 == size and 1 in other:
                    by_p[1] = other[1]
                    break
    return out


def strong_efficiency(by_p):
    """(base P, {P: T(Pb) Pb / (P T(P))})."""
    base = min(by_p)
    tb = float(by_p[base]["seconds_per_eval"])
    return base, {p: tb * base / (p * float(r["seconds_per_eval"])) for p, r in by_p.items()}


def weak_efficiency(by_p):
    """(base P, {P: rate(P) / (P / Pb rate(Pb))}), rate = interactions_per_s: per interaction."""
    base = min(by_p)
    rb = float(by_p[base]["interactions_per_s"])
    return base, {p: float(r["interactions_per_s"]) * base / (p * rb) for p, r in by_p.items()}


def below(ax, handles=None, ncol=1):
    """The panel's legend under its x axis (constrained layout makes room for it)."""
    kw = dict(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=ncol, handlelength=2.4,
              columnspacing=0.8)
    return ax.legend(handles=handles, **kw) if handles else ax.legend(**kw)


def draw_efficiency(ax, by_key, efficiency, what):
    sizes = sorted({size for _, size in by_key})
    colour = dict(zip(sizes, COLOURS * 3))
    ps = set()
    for (ex, size), by_p in sorted(by_key.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if len(by_p) < 2:
            continue  # one point (N = 2^20 on 16 ranks alone): no efficiency to draw
        base, eff = efficiency(by_p)
        pp = sorted(eff)
        ps |= set(pp)
        name, ls, marker = EXCHANGES.get(ex, (ex, ":", "^"))
        based = "" if base == 1 else f", base P = {base}"
        ax.plot(pp, [eff[p] for p in pp], ls=ls, marker=marker, color=colour[size],
                label=f"{what} = ${pow2(size)}$, {name}{based}")
        # efficiency goes as 1 / T(P): T(P)'s spread, the base's median held
        style.timing_spread(ax, pp, [by_p[p] for p in pp],
                            lambda r, sec: eff[int(r["ranks"])] * float(r["seconds_per_eval"]) / sec, colour[size])
    ax.axhline(TARGET_EFFICIENCY, color="k", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(ps) or [1])
    ax.set_xticklabels([str(p) for p in sorted(ps)] or ["1"])
    ax.set_xlabel("ranks P")
    return ps


def main():
    ms = machines()
    # One row of panels per machine, each a subfigure titled with its machine (when there are
    # several), so that the constrained layout treats every row alike.
    fig = style.plt.figure(figsize=(style.TEXT_WIDTH, 3.6 * len(ms) + 0.2 * (len(ms) > 1)))
    rows_of_panels = [sub.subplots(1, 3) for sub in fig.subfigures(len(ms), 1, squeeze=False)[:, 0]]
    macros_rows = []
    for row_axes, (name, rows, meta) in zip(rows_of_panels, ms):
        strong, weak = series(rows, "strong"), series(rows, "weak")
        ax_a, ax_b, ax_c = row_axes
        # (a) strong-scaling efficiency.
        draw_efficiency(ax_a, strong, strong_efficiency, "N")
        ax_a.set_ylabel("parallel efficiency")
        ax_a.set_title("(a) strong: $P_b\\,T(P_b) \\,/\\, (P\\,T(P))$")
        # (c) weak-scaling efficiency, per interaction.
        draw_efficiency(ax_c, weak, weak_efficiency, "$n_0$")
        ax_c.set_title("(c) weak, $N = n_0 P$")
        ax_c.set_ylabel("efficiency per interaction")
        top = max([1.0] + [e for s, f in ((strong, strong_efficiency), (weak, weak_efficiency))
                           for by_p in s.values() for e in f(by_p)[1].values()])
        for ax in (ax_a, ax_c):
            ax.set_ylim(0, max(1.6, 1.15 * top))
            ax.annotate(f"target {TARGET_EFFICIENCY} ({TARGET_RANKS} ranks, $N = {pow2(TARGET_N)}$)"
                        if ax is ax_a else f"{TARGET_EFFICIENCY}", (0.02, TARGET_EFFICIENCY),
                        xycoords=("axes fraction", "data"), ha="left", va="top", fontsize=6.5,
                        xytext=(0, -2), textcoords="offset points")
            below(ax)
        ax_a.text(0.02, 0.98, NITADORI, transform=ax_a.transAxes, ha="left", va="top", fontsize=5.8,
                  bbox={"facecolor": "white", "edgecolor": "0.7", "lw": 0.5, "pad": 2})
        # (b) compute and exchange at the largest strong-scaling N measured on several P.
        if strong:
            nmax = max(size for (_, size), by_p in strong.items() if len(by_p) > 1 or len(strong) == 1)
            exes = [ex for ex in EXCHANGES if (ex, nmax) in strong]
            ps = sorted({p for ex in exes for p in strong[(ex, nmax)]})
            width = 0.8 / max(1, len(exes))
            for k, ex in enumerate(exes):
                by_p = strong[(ex, nmax)]
                for i, p in enumerate(ps):
                    if p not in by_p:
                        continue
                    r = by_p[p]
                    x = i + (k - (len(exes) - 1) / 2) * width
                    comp, exch = float(r["compute_seconds"]), float(r["exchange_seconds"])
                    hatch = "" if ex == "mpi" else "////"
                    ax_b.bar(x, comp, width * 0.92, color=PART_COLOURS["compute"], hatch=hatch, edgecolor="white", lw=0)
                    ax_b.bar(x, exch, width * 0.92, bottom=comp, color=PART_COLOURS["exchange"], hatch=hatch,
                             edgecolor="white", lw=0)
                    total = float(r["seconds_per_eval"])
                    ax_b.plot([x - width * 0.46, x + width * 0.46], [total, total], color="k", lw=0.8)
                    ax_b.annotate(f"{100 * exch / total:.0f}%", (x, max(total, comp + exch)), ha="center",
                                  va="bottom", fontsize=5.8, xytext=(0, 1), textcoords="offset points")
            ax_b.set_xticks(range(len(ps)))
            ax_b.set_xticklabels([str(p) for p in ps])
            ax_b.set_xlabel("ranks P")
            ax_b.set_ylim(0, ax_b.get_ylim()[1] * 1.12)
            ax_b.set_title(f"(b) one evaluation at $N = {pow2(nmax)}$")
            handles = [Patch(color=PART_COLOURS["compute"], label="compute (rank 0)"),
                       Patch(color=PART_COLOURS["exchange"], label="exchange + wait"),
                       Line2D([], [], color="k", lw=0.8, label="wall time"),
                       Patch(facecolor="0.6", label="allgatherv"),
                       Patch(facecolor="0.6", hatch="////", edgecolor="white", label="ring")]
            below(ax_b, handles, ncol=2)
        ax_b.set_ylabel("seconds per evaluation")
        if len(ms) > 1:
            ax_a.get_figure().suptitle(name, fontweight="bold")
        macros_rows.append((name, rows, meta, strong, weak))
    style.save(fig, EXP)

    sources = paper.results_files(EXP)
    write_table(macros_rows, sources)
    write_numbers(macros_rows, sources)
    print(f"[E25] wrote figures/{EXP}.pdf/.png, paper/generated/E25_table.tex, E25_numbers.tex",
          file=sys.stderr)


def write_table(machines_rows, sources):
    """Seconds per evaluation (efficiency) at every P, a row per scaling, size and exchange, one
    block per machine."""
    ps_all = sorted({int(r["ranks"]) for _, rows, _, _, _ in machines_rows for r in rows})
    cols = len(ps_all)
    lines = [r"\begin{tabular}{llr" + "r" * cols + "}", r"\toprule",
             r"scaling & exchange & $N$ or $n_0$ & \multicolumn{" + str(cols) +
             r"}{c}{seconds per evaluation (efficiency) on $P$ ranks} \\",
             rf"\cmidrule(lr){{4-{cols + 3}}}",
             " & & & " + " & ".join(f"$P = {p}$" for p in ps_all) + r" \\"]
    for name, rows, meta, strong, weak in machines_rows:
        lines += [r"\midrule", rf"\multicolumn{{{cols + 3}}}{{l}}{{\emph{{{paper.tex_escape(name)}}}}} \\"]
        for scaling, by_key, efficiency in (("strong", strong, strong_efficiency), ("weak", weak, weak_efficiency)):
            for (ex, size), by_p in sorted(by_key.items(), key=lambda kv: (kv[0][1], kv[0][0])):
                base, eff = efficiency(by_p)
                cells = [scaling, EXCHANGES.get(ex, (ex,))[0],
                         f"${pow2(size)}$" + (r"\,/\,rank" if scaling == "weak" else "")
                         + (f" (from $P = {base}$)" if base != 1 and len(by_p) > 1 else "")]
                alone = len(by_p) == 1  # no base to compare with: the time alone
                cells += [(f"{float(by_p[p]['seconds_per_eval']):.3g}" + ("" if alone else f" ({eff[p]:.2f})"))
                          if p in by_p else "---" for p in ps_all]
                lines.append(" & ".join(cells) + r" \\")
    lines += [r"\midrule",
              rf"\multicolumn{{{cols + 3}}}{{p{{0.9\linewidth}}}}{{\footnotesize Efficiency: strong "
              r"$P_b\,T(P_b) / (P\,T(P))$ from $P_b = 1$ or the fewest ranks measured (one rank exchanges "
              r"nothing: its point serves both exchanges); weak, per interaction, $T(1)\,W(P) / (P\,T(P)\,W(1))$, "
              r"$W = N(N-1)$.} \\",
              r"\bottomrule", r"\end{tabular}", ""]
    paper.write_tex("E25_table.tex", "\n".join(lines), __file__, sources)


def write_numbers(machines_rows, sources):
    """Macros of this machine (results/E25_mpi_scaling.csv) and of the largest other one."""
    name, rows, meta, strong, weak = machines_rows[0]
    M = paper.MISSING

    def at_largest(by_key, efficiency, ex):
        """(size, P, efficiency, row) at the largest P of the largest size measured from 1 rank
        (else from its fewest ranks)."""
        keys = [k for k in by_key if k[0] == ex]
        if not keys:
            return None
        from_one = [k for k in keys if 1 in by_key[k]] or keys
        key = max(from_one, key=lambda k: (max(by_key[k]), k[1]))
        p = max(by_key[key])
        return key[1], p, efficiency(by_key[key])[1][p], by_key[key][p]

    def block(prefix, strong, weak):
        out = {}
        for ex, part in (("mpi", "Allgather"), ("mpi-ring", "Ring")):
            s = at_largest(strong, strong_efficiency, ex)
            w = at_largest(weak, weak_efficiency, ex)
            out[f"{prefix}Strong{part}Eff"] = f"{s[2]:.2f}" if s else M
            out[f"{prefix}Strong{part}N"] = f"${pow2(s[0])}$" if s else M
            out[f"{prefix}Strong{part}Ranks"] = str(s[1]) if s else M
            out[f"{prefix}Strong{part}Seconds"] = f"{float(s[3]['seconds_per_eval']):.3g}" if s else M
            out[f"{prefix}Strong{part}ExchangeShare"] = (
                f"{100 * float(s[3]['exchange_seconds']) / float(s[3]['seconds_per_eval']):.0f}" if s else M)
            out[f"{prefix}Weak{part}Eff"] = f"{w[2]:.2f}" if w else M
            out[f"{prefix}Weak{part}Ranks"] = str(w[1]) if w else M
        a = at_largest(strong, strong_efficiency, "mpi")
        r = at_largest(strong, strong_efficiency, "mpi-ring")
        out[f"{prefix}RingOverAllgather"] = (f"{float(r[3]['seconds_per_eval']) / float(a[3]['seconds_per_eval']):.2f}"
                                             if a and r and a[:2] == r[:2] else M)
        # The target: 0.85 on 16 ranks at N = 2^18 (from 1 rank), on the better exchange.
        at_target = {ex: strong_efficiency(strong[(ex, TARGET_N)])[1][TARGET_RANKS] for ex in EXCHANGES
                     if {1, TARGET_RANKS} <= set(strong.get((ex, TARGET_N), {}))}
        out[f"{prefix}TargetAllgatherEff"] = f"{at_target['mpi']:.2f}" if "mpi" in at_target else M
        out[f"{prefix}TargetRingEff"] = f"{at_target['mpi-ring']:.2f}" if "mpi-ring" in at_target else M
        # The interactions per second at the target N on 1 rank and on the target's ranks (mpi:).
        target = strong.get(("mpi", TARGET_N), {})
        for key, p in (("OneRankRate", 1), ("TargetRate", TARGET_RANKS)):
            out[f"{prefix}{key}"] = paper.tex_sci(float(target[p]["interactions_per_s"])) if p in target else M
        out[f"{prefix}Verdict"] = (M if not at_target else
                                   "met" if max(at_target.values()) >= TARGET_EFFICIENCY else "not met")
        out[f"{prefix}MaxRanks"] = str(max(p for by_p in strong.values() for p in by_p)) if strong else M
        return out

    macros = {
        **paper.run_macros("ETwentyFive", meta),
        "ETwentyFiveCpu": paper.tex_escape(name),
        "ETwentyFiveMpi": paper.tex_escape(paper.build(meta).get("mpi") or M),
        "ETwentyFiveStrongSizes": ", ".join(f"${pow2(n)}$" for n in sorted({n for _, n in strong})) or M,
        "ETwentyFiveWeakSizes": ", ".join(f"${pow2(n)}$" for n in sorted({n for _, n in weak})) or M,
        "ETwentyFiveRepeats": ", ".join(sorted({r["repeats"] for r in rows}, key=int)),
        "ETwentyFiveLoadMax": f"{max(float(r[k]) for r in rows for k in ('load_before', 'load_after') if r.get(k)):.2f}",
        "ETwentyFiveSched": paper.sched_text(meta),
        "ETwentyFiveTargetEff": f"{TARGET_EFFICIENCY}",
        "ETwentyFiveTargetRanks": str(TARGET_RANKS),
        "ETwentyFiveTargetN": f"${pow2(TARGET_N)}$",
        "ETwentyFiveNitadoriPeakPercent": "57.7",
        "ETwentyFiveNitadoriParticles": "64k",
        "ETwentyFiveNitadoriCpus": "400",
        "ETwentyFiveMachines": str(len(machines_rows)),
        "ETwentyFiveOtherMachines": ", ".join(paper.tex_escape(m[0]) for m in machines_rows[1:]) or "none",
    }
    macros.update(block("ETwentyFive", strong, weak))
    # The other machine with the most ranks (the GPU host's CPU, full profile), when there.
    others = sorted(machines_rows[1:], key=lambda m: max(int(r["ranks"]) for r in m[1]))
    other = block("ETwentyFiveOther", others[-1][3], others[-1][4]) if others else \
        {k.replace("ETwentyFive", "ETwentyFiveOther", 1): M for k in block("ETwentyFive", {}, {})}
    macros.update(other)
    macros["ETwentyFiveOtherCpu"] = paper.tex_escape(others[-1][0]) if others else M
    paper.write_macros("E25_numbers.tex", macros, __file__, sources)


if __name__ == "__main__":
    main()
