"""E13 table and figure: the launch shape `nbody tune` found best per (engine, precision, N) on the
GPU, against the median and the worst valid shape it tried. Reads results/E13_tuned_launch.csv
(a row per shape tried, `best` = 1 for the one stored in the cache); writes
figures/E13_tuned_launch.pdf/.png and paper/generated/E13_table.tex."""
import statistics

import style
from gpu_common import device_text, load, save, write_tex

NAME = "E13_tuned_launch"
PRECISIONS = ("float", "double", "dd")
rows, meta = load(NAME)


def tuned(rows):
    """Per (engine, precision, N), in table order: the best row with the median and worst valid
    rate of its shapes and their count."""
    points = {}
    for r in rows:
        points.setdefault((r["engine"], PRECISIONS.index(r["precision"]), int(r["n"])), []).append(r)
    for key in sorted(points):
        shapes = points[key]
        rates = sorted(float(r["interactions_per_s"]) for r in shapes if r["status"] == "ok")
        best = next(r for r in shapes if r["best"] == "1")
        yield best, statistics.median(rates), rates[0], len(rates)


table = list(tuned(rows))
lines = [r"\begin{tabular}{llrrrrrrrrr}", r"\hline",
         r"engine & precision & $N$ & block & split & unroll & b/thread & shapes & best & median & worst \\", r"\hline"]
for r, median, worst, count in table:
    rates = [float(r["interactions_per_s"]) / 1e9, median / 1e9, worst / 1e9]
    lines.append(f"{r['engine']} & {r['precision']} & {r['n']} & {r['block']} & {r['split']} & {r['unroll']} & "
                 f"{r['ipt']} & {count} & " + " & ".join(f"{x:.0f}" for x in rates) + r" \\")
lines += [r"\hline", r"\end{tabular}"]
write_tex("E13_table.tex", "\n".join(lines) + "\n", __file__, [f"results/{NAME}.csv"])

fig, ax = style.figure(height=3.0)
for p, c in zip(PRECISIONS, ("tab:blue", "tab:red", "tab:green")):
    sub = sorted((int(r["n"]), float(r["interactions_per_s"]), median) for r, median, _, _ in table
                 if r["precision"] == p and r["engine"] == "cuda-split")
    if not sub:
        continue
    ns, best, medians = zip(*sub)
    ax.loglog(ns, best, "o-", color=c, label=f"{p}: tuned")
    ax.loglog(ns, medians, "--", color=c, label=f"{p}: median shape")
ax.set_xlabel("N")
ax.set_ylabel("interactions / s")
fig.suptitle(f"E13: cuda-split, tuned vs median shape\n{device_text(meta, rows)}")
style.log_ticks(ax)
style.legend_right(ax)
save(fig, NAME)
