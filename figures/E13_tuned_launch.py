"""E13 table and figure: the launch shape `nbody tune` found best per (engine, precision, N) on the
H100, against the median and the worst shape it tried. Reads results/E13_tuned_launch.csv; writes
figures/E13_tuned_launch.pdf/.png and paper/generated/E13_table.tex."""
import style
from gpu_common import device_text, load, save, write_tex

NAME = "E13_tuned_launch"
rows, meta = load(NAME)
lines = [r"\begin{tabular}{llrrrrrrrr}", r"\hline",
         r"engine & precision & $N$ & block & split & unroll & b/thread & best & median & worst \\", r"\hline"]
for r in rows:
    f = [float(r[k]) / 1e9 for k in ("interactions_per_s", "median_shape_interactions_per_s", "worst_shape_interactions_per_s")]
    lines.append(f"{r['engine']} & {r['precision']} & {r['n']} & {r['block']} & {r['split']} & {r['unroll']} & {r['ipt']} & "
                 f"{f[0]:.0f} & {f[1]:.0f} & {f[2]:.0f} \\\\")
lines += [r"\hline", r"\end{tabular}"]
write_tex("E13_table.tex", "\n".join(lines) + "\n", __file__, [f"results/{NAME}.csv"])

fig, ax = style.figure(height=3.0)
for p, c in (("float", "tab:blue"), ("double", "tab:red"), ("dd", "tab:green")):
    sub = sorted((int(r["n"]), r) for r in rows if r["precision"] == p and r["engine"] == "cuda-split")
    if not sub:
        continue
    ns = [n for n, _ in sub]
    ax.loglog(ns, [float(r["interactions_per_s"]) for _, r in sub], "o-", color=c, label=f"{p}: tuned")
    ax.loglog(ns, [float(r["median_shape_interactions_per_s"]) for _, r in sub], "--", color=c, label=f"{p}: median shape")
ax.set_xlabel("N")
ax.set_ylabel("interactions / s")
fig.suptitle(f"E13: cuda-split, tuned vs median shape\n{device_text(meta)}")
style.log_ticks(ax)
style.legend_right(ax)
save(fig, NAME)
