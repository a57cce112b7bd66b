"""E12 figure and table: seed S2's loop-unroll study (Table 14-1) for cuda-tiled: unroll factor x
bodies per thread, float and double at N = 262144, dd at N = 32768, on the H100. Reads
results/E12_unroll_sweep.csv; writes figures/E12_unroll_sweep.pdf/.png,
paper/generated/E12_table.tex (with S2's rates) and E12_numbers.tex."""
import style
from gpu_common import device_text, gpu_text, load, save, write_macros, write_tex
from seed_numbers import S2_UNIT_EXPONENT, S2_UNROLL

NAME = "E12_unroll_sweep"
rows, meta = load(NAME)
precs = ["float", "double", "dd"]
fig, axes = style.figure(1, 3, height=2.8)
for ax, p in zip(axes, precs):
    sub = [r for r in rows if r["precision"] == p and r["status"] == "ok"]
    for ipt in sorted({int(r["ipt"]) for r in sub}):
        pts = sorted((int(r["unroll"]), float(r["interactions_per_s"])) for r in sub if int(r["ipt"]) == ipt)
        ax.semilogx([u for u, _ in pts], [v / 1e9 for _, v in pts], "o-", base=2, label=f"{ipt} bodies/thread")
    ax.set_title(f"{p}, N = {sub[0]['n']}, block {sub[0]['block']}")
    ax.set_xlabel("unroll factor")
    style.log_ticks(ax, "x")
axes[0].set_ylabel("billion interactions / s")
style.legend_below(fig, axes[0].get_legend_handles_labels()[0], ncol=4)
fig.suptitle(f"E12: cuda-tiled unroll study\n{device_text(meta)}")
save(fig, NAME)

# Table: ours per precision and bodies per thread, then S2's three rates (in its unit, 10^8/s), each
# row with its gain from unrolling 16 times (S2's best factor) over not unrolling.
UNROLLS = (1, 2, 4, 8, 16, 32)
BEST_S2 = max(S2_UNROLL, key=lambda u: float(S2_UNROLL[u]))


def gain(by_unroll):
    return float(by_unroll[BEST_S2]) / float(by_unroll[1]) if BEST_S2 in by_unroll and 1 in by_unroll else None


cols = 4 + len(UNROLLS) + 1
lines = [r"\begin{tabular}{lrrr" + "r" * len(UNROLLS) + "r}", r"\toprule",
         rf"& & & & \multicolumn{{{len(UNROLLS)}}}{{c}}{{unroll factor}} & \\",
         rf"\cmidrule(lr){{5-{4 + len(UNROLLS)}}}",
         "precision & $N$ & block & bodies/thread & " + " & ".join(map(str, UNROLLS))
         + rf" & {BEST_S2} over 1 \\", r"\midrule",
         rf"\multicolumn{{{cols}}}{{l}}{{\emph{{ours: \code{{cuda-tiled}}, billion interactions/s}}}} \\"]
gains = {}
for p in precs:
    sub = [r for r in rows if r["precision"] == p and r["status"] == "ok"]
    for ipt in sorted({int(r["ipt"]) for r in sub}):
        one = [r for r in sub if int(r["ipt"]) == ipt]
        v = {int(r["unroll"]): float(r["interactions_per_s"]) / 1e9 for r in one}
        gains[(p, ipt)] = gain(v)
        cells = [p, one[0]["n"], one[0]["block"], str(ipt)] + [f"{v[u]:.0f}" if u in v else "---" for u in UNROLLS]
        lines.append(" & ".join(cells + [f"{gains[(p, ipt)]:.2f}" if gains[(p, ipt)] else "---"]) + r" \\")
lines += [r"\midrule",
          rf"\multicolumn{{{cols}}}{{l}}{{\emph{{\seed{{2}}: simple kernel, $10^{{{S2_UNIT_EXPONENT}}}$ interactions/s}}}} \\",
          " & ".join(["float", "---", "---", "1"] + [S2_UNROLL.get(u, "---") for u in UNROLLS]
                     + [f"{gain(S2_UNROLL):.2f}"]) + r" \\", r"\bottomrule", r"\end{tabular}"]
sources = [f"results/{NAME}.csv", "figures/seed_numbers.py"]
write_tex("E12_table.tex", "\n".join(lines) + "\n", __file__, sources)
ours_gain, seed_gain = gains[("float", 1)], gain(S2_UNROLL)
write_macros("E12_numbers.tex", {
    "ETwelveGpu": gpu_text(meta), "ETwelveBestSTwo": str(BEST_S2),
    "ETwelveGainFloat": f"{ours_gain:.2f}", "ETwelveSeedGain": f"{seed_gain:.2f}",
    # Within 5 % counts as the same gain.
    "ETwelveGainVerdict": "less" if ours_gain < 0.95 * seed_gain else "more" if ours_gain > 1.05 * seed_gain
    else "about as much"}, __file__, sources)
