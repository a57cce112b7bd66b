"""E25, GPU rows: the MPI all-pairs engine with one GPU per rank on 1, 2 and 4 GPUs of one host,
float and double, with two local kernels: mpi:cuda-tiled (blocks of bodies) and mpi:cuda-pairs
(each pair once; the ranks split its passes and add their sums in turn).

Reads results/E25_multi_gpu_scaling.csv; writes
  figures/E25_multi_gpu_scaling.pdf, .png
      (a) strong scaling, N = 2^20 and 2^22: parallel efficiency T(1) / (P T(P)) against the GPUs
          P, with the 0.90 target (4 GPUs, N = 2^22, float);
      (b) weak scaling, 2^20 bodies per GPU: efficiency per interaction,
          T(1) / T(P) x W(P) / (P W(1)), W = N (N - 1) (as in E25_mpi_scaling.py);
      (c) interactions per second at N = 2^22 against P, beside P times the one-GPU rate;
      (d) where the time beside rank 0's kernels goes at N = 2^22: its packing and copies and the
          exchange (with the wait for slower ranks), in % of one evaluation;
  paper/generated/E25_gpu_table.tex     seconds per evaluation (efficiency) on 1, 2 and 4 GPUs
  paper/generated/E25_gpu_numbers.tex   \\newcommand macros for the numbers the text quotes
"""
import re
import sys

import style
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from nbodylab import paper, provenance

pow2 = style.power_of_two_text  # "2^{k}" in TeX

EXP = "E25_multi_gpu_scaling"
# The target (issue: multi-GPU runs): at N = 2^22, float, 4 GPUs at least 90 % of 4 x one GPU's rate.
TARGET_EFFICIENCY, TARGET_GPUS, TARGET_N, TARGET_PRECISION = 0.90, 4, 2 ** 22, "float"
ENGINES = {"mpi:cuda-tiled": ("Tiled", "o"), "mpi:cuda-pairs": ("Pairs", "D")}  # macro part, marker
PRECISION_LINES = {"float": "-", "double": "--"}
SIZE_COLOURS = {2 ** 20: "tab:blue", 2 ** 22: "tab:red"}
ENGINE_COLOURS = {"mpi:cuda-tiled": "tab:green", "mpi:cuda-pairs": "tab:purple"}  # (c), (d)
GPUS = (1, 2, 4)


def series(rows, scaling):
    """{(engine, precision, size): {P: row}}: size N (strong) or N / P (weak)."""
    out = {}
    for r in rows:
        if r["scaling"] == scaling:
            p, n = int(r["ranks"]), int(r["n"])
            out.setdefault((r["engine"], r["precision"], n if scaling == "strong" else n // p), {})[p] = r
    return out


def ordered(by_key):
    return sorted(by_key.items(), key=lambda kv: (kv[0][2], kv[0][1] != "float", list(ENGINES).index(kv[0][0])))


def seconds(r):
    return float(r["seconds_per_eval"])


def strong_efficiency(by_p):
    return {p: seconds(by_p[1]) / (p * seconds(r)) for p, r in by_p.items()} if 1 in by_p else {}


def weak_efficiency(by_p):
    rate = {p: float(r["interactions_per_s"]) for p, r in by_p.items()}
    return {p: rate[p] / (p * rate[1]) for p in rate} if 1 in rate else {}


def parts_of(r):
    """Rank 0's evaluation in seconds: its kernels, the rest of its local engine, the exchange."""
    kernel, compute = float(r["kernel_seconds"]), float(r["compute_seconds"])
    return {"kernel": kernel, "copies": compute - kernel, "exchange": seconds(r) - compute}


def gpu_axis(ax):
    ax.set_xscale("log", base=2)
    ax.set_xticks(GPUS)
    ax.set_xticklabels([str(p) for p in GPUS])
    ax.set_xlabel("GPUs P (one rank each)")


def draw_efficiency(ax, by_key, efficiency):
    for (engine, precision, size), by_p in ordered(by_key):
        eff = efficiency(by_p)
        ps = sorted(eff)
        ax.plot(ps, [eff[p] for p in ps], ls=PRECISION_LINES.get(precision, ":"), marker=ENGINES[engine][1],
                color=SIZE_COLOURS.get(size, "tab:green"), mfc="none" if engine == "mpi:cuda-pairs" else None)
    ax.axhline(TARGET_EFFICIENCY, color="k", lw=0.8, ls=":")
    gpu_axis(ax)


def main():
    rows, meta = paper.load_results(EXP)
    strong, weak = series(rows, "strong"), series(rows, "weak")
    gpu = provenance.measurement(meta)["gpu"]
    nmax = max(size for _, _, size in strong)

    fig, axes = style.figure(2, 2, height=5.0)
    (ax_a, ax_b), (ax_c, ax_d) = axes
    draw_efficiency(ax_a, strong, strong_efficiency)
    ax_a.set_ylabel("parallel efficiency")
    ax_a.set_title("(a) strong, $N = 2^{20}$ and $2^{22}$: $T(1) \\,/\\, (P\\,T(P))$")
    ax_a.annotate(f"target {TARGET_EFFICIENCY:.2f} ($N = {pow2(TARGET_N)}$, {TARGET_PRECISION}, {TARGET_GPUS} GPUs)",
                  (0.02, TARGET_EFFICIENCY), xycoords=("axes fraction", "data"), ha="left", va="top", fontsize=6,
                  xytext=(0, -2), textcoords="offset points")
    draw_efficiency(ax_b, weak, weak_efficiency)
    ax_b.set_ylabel("efficiency per interaction")
    ax_b.set_title("(b) weak, $2^{20}$ bodies per GPU")
    low = min([0.8] + [e for s, f in ((strong, strong_efficiency), (weak, weak_efficiency))
                       for by_p in s.values() for e in f(by_p).values()])
    for ax in (ax_a, ax_b):
        ax.set_ylim(min(0.75, low - 0.05), 1.05)

    # (c) the rates at the largest N, and P times the one-GPU rate.
    for (engine, precision, size), by_p in ordered(strong):
        if size != nmax:
            continue
        ps = sorted(by_p)
        colour = ENGINE_COLOURS[engine]
        ax_c.plot(ps, [float(by_p[p]["interactions_per_s"]) for p in ps], ls=PRECISION_LINES[precision],
                  marker=ENGINES[engine][1], color=colour, mfc="none" if engine == "mpi:cuda-pairs" else None)
        if 1 in by_p:
            ax_c.plot(ps, [p * float(by_p[1]["interactions_per_s"]) for p in ps], ls=":", color=colour, lw=0.7)
    gpu_axis(ax_c)
    ax_c.set_yscale("log")
    style.log_ticks(ax_c, "y")
    ax_c.set_ylabel("interactions per second")
    ax_c.set_title(f"(c) $N = {pow2(nmax)}$; dotted: $P$ times one GPU")

    # (d) the time beside the kernels at the largest N, per P: copies and exchange, % of an evaluation.
    keys = [k for k, _ in ordered(strong) if k[2] == nmax]
    width = 0.8 / max(1, len(keys))
    for j, key in enumerate(keys):
        engine, precision, _ = key
        for i, p in enumerate(GPUS):
            r = strong[key].get(p)
            if r is None:
                continue
            x = i + (j - (len(keys) - 1) / 2) * width
            parts = parts_of(r)
            copies, exchange = (100 * parts[k] / seconds(r) for k in ("copies", "exchange"))
            hatch = "" if precision == "float" else "////"
            ax_d.bar(x, copies, width * 0.92, color=ENGINE_COLOURS[engine], alpha=0.45, hatch=hatch, edgecolor="white", lw=0)
            ax_d.bar(x, exchange, width * 0.92, bottom=copies, color=ENGINE_COLOURS[engine], hatch=hatch,
                     edgecolor="white", lw=0)
    ax_d.set_xticks(range(len(GPUS)))
    ax_d.set_xticklabels([str(p) for p in GPUS])
    ax_d.set_xlabel("GPUs P")
    ax_d.set_ylabel("% of one evaluation")
    ax_d.set_title(f"(d) beside the kernels, $N = {pow2(nmax)}$")

    handles = [Line2D([], [], color=SIZE_COLOURS[2 ** 20], label="(a) $N = 2^{20}$; (b) $2^{20}$ per GPU"),
               Line2D([], [], color=SIZE_COLOURS[2 ** 22], label="(a) $N = 2^{22}$")]
    handles += [Line2D([], [], color="0.3", ls=ls, label=prec) for prec, ls in PRECISION_LINES.items()]
    handles += [Line2D([], [], color=ENGINE_COLOURS[e], marker=m, ls="none", mfc="none" if e == "mpi:cuda-pairs" else None,
                       label=f"{e} (colour: c, d)") for e, (_, m) in ENGINES.items()]
    handles += [Patch(facecolor="0.8", label="(d) packing, copies"), Patch(facecolor="0.45", label="(d) exchange, wait"),
                Patch(facecolor="0.6", hatch="////", edgecolor="white", label="(d) double")]
    style.legend_below(fig, handles, ncol=4, fontsize=6.5)
    fig.suptitle(f"E25 on {gpu}, one GPU per rank", fontsize=8)
    style.save(fig, EXP)

    sources = [f"results/{EXP}.csv"]
    write_table(strong, weak, sources)
    write_numbers(meta, gpu, strong, weak, sources)
    print(f"[E25] wrote figures/{EXP}.pdf/.png, paper/generated/E25_gpu_table.tex, E25_gpu_numbers.tex",
          file=sys.stderr)


def write_table(strong, weak, sources):
    lines = [r"\begin{tabular}{llllrrr}", r"\toprule",
             r"scaling & local kernel & precision & $N$ or $n_0$ & "
             r"\multicolumn{3}{c}{seconds per evaluation (efficiency) on $P$ GPUs} \\",
             r"\cmidrule(lr){5-7}", r" & & & & $P = 1$ & $P = 2$ & $P = 4$ \\"]
    for scaling, by_key, efficiency in (("strong", strong, strong_efficiency), ("weak", weak, weak_efficiency)):
        lines.append(r"\midrule")
        for (engine, prec, size), by_p in ordered(by_key):
            eff = efficiency(by_p)
            cells = [scaling, rf"\code{{{engine.split(':')[1]}}}", prec,
                     f"${pow2(size)}$" + (r"\,/\,GPU" if scaling == "weak" else "")]
            cells += [f"{seconds(by_p[p]):#.3g} ({eff[p]:.2f})" if p in by_p and p in eff else "---" for p in GPUS]
            lines.append(" & ".join(cells) + r" \\")
    lines += [r"\midrule",
              r"\multicolumn{7}{p{0.9\linewidth}}{\footnotesize Wall time of one evaluation on rank 0 (upload, kernels, "
              r"download, exchange). Efficiency: strong $T(1) / (P\,T(P))$; weak, per interaction, "
              r"$T(1)\,W(P) / (P\,T(P)\,W(1))$, $W = N(N-1)$. \code{cuda-pairs} evaluates each pair once: its seconds "
              r"are those of half the interactions.} \\",
              r"\bottomrule", r"\end{tabular}", ""]
    paper.write_tex("E25_gpu_table.tex", "\n".join(lines), __file__, sources)


def write_numbers(meta, gpu, strong, weak, sources):
    M = paper.MISSING
    e_target = strong_efficiency(strong.get(("mpi:cuda-tiled", TARGET_PRECISION, TARGET_N), {})).get(TARGET_GPUS)
    e_pairs = strong_efficiency(strong.get(("mpi:cuda-pairs", TARGET_PRECISION, TARGET_N), {})).get(TARGET_GPUS)
    best = max([e for e in (e_target, e_pairs) if e is not None], default=None)
    macros = {
        "ETwentyFiveGpuDevice": paper.tex_escape(gpu or M),
        **paper.run_macros("ETwentyFiveGpu", meta),
        "ETwentyFiveGpuMpi": paper.tex_escape(paper.build(meta).get("mpi") or M),
        "ETwentyFiveGpuTargetEff": f"{TARGET_EFFICIENCY:.2f}",
        "ETwentyFiveGpuTargetVerdict": M if best is None else ("met" if best >= TARGET_EFFICIENCY else "not met"),
    }
    for engine, (ename, _) in ENGINES.items():
        for prec in ("float", "double"):
            P = ename + prec.capitalize()
            for size, name in ((2 ** 20, "Mega"), (2 ** 22, "FourMega")):
                by_p = strong.get((engine, prec, size), {})
                eff = strong_efficiency(by_p)
                for p, pname in ((2, "Two"), (4, "Four")):
                    macros[f"ETwentyFiveGpu{P}{name}{pname}Eff"] = f"{eff[p]:.2f}" if p in eff else M
                for p, pname in ((1, "One"), (4, "Four")):
                    r = by_p.get(p)
                    macros[f"ETwentyFiveGpu{P}{name}{pname}Seconds"] = f"{seconds(r):.3g}" if r else M
                    macros[f"ETwentyFiveGpu{P}{name}{pname}Rate"] = paper.tex_sci(float(r["interactions_per_s"])) if r else M
                r, one = by_p.get(4), by_p.get(1)
                for part, pname in (("exchange", "Exchange"), ("copies", "Copies")):
                    macros[f"ETwentyFiveGpu{P}{name}Four{pname}Share"] = (
                        f"{100 * parts_of(r)[part] / seconds(r):.1f}" if r else M)
                # cuda-pairs: its passes at this N, the launch's split= as resolved (the device column).
                if engine == "mpi:cuda-pairs":
                    split = re.search(r"split=(\d+)", (r or {}).get("device", ""))
                    macros[f"ETwentyFiveGpu{P}{name}Passes"] = split.group(1) if split else M
                # Rank 0's kernels on 4 GPUs against a quarter of the one-GPU kernels' time.
                macros[f"ETwentyFiveGpu{P}{name}FourKernelEff"] = (
                    f"{float(one['kernel_seconds']) / (4 * float(r['kernel_seconds'])):.2f}" if one and r else M)
            w = weak_efficiency(weak.get((engine, prec, 2 ** 20), {}))
            macros[f"ETwentyFiveGpu{P}WeakFourEff"] = f"{w[4]:.2f}" if 4 in w else M
    paper.write_macros("E25_gpu_numbers.tex", macros, __file__, sources)


if __name__ == "__main__":
    main()
