"""E12 figure and table: seed S2's loop-unroll study (Table 14-1) for cuda-tiled: unroll factor x
bodies per thread, float and double at N = 262144, dd at N = 32768, on the H100. Reads
results/E12_unroll_sweep.csv; writes figures/E12_unroll_sweep.pdf/.png and
paper/generated/E12_table.tex."""
import style
from gpu_common import device_text, load, save, write_tex

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

lines = [r"\begin{tabular}{lr" + "r" * 6 + "}", r"\hline",
         r"precision & bodies/thread & \multicolumn{6}{c}{unroll 1, 2, 4, 8, 16, 32 (billion interactions/s)} \\", r"\hline"]
for p in precs:
    sub = [r for r in rows if r["precision"] == p and r["status"] == "ok"]
    for ipt in sorted({int(r["ipt"]) for r in sub}):
        v = {int(r["unroll"]): float(r["interactions_per_s"]) / 1e9 for r in sub if int(r["ipt"]) == ipt}
        lines.append(f"{p} & {ipt} & " + " & ".join(f"{v[u]:.0f}" if u in v else "--" for u in (1, 2, 4, 8, 16, 32)) + r" \\")
lines += [r"\hline", r"\end{tabular}"]
write_tex("E12_table.tex", "\n".join(lines) + "\n", __file__, [f"results/{NAME}.csv"])
