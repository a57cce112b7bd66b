"""E24 figure: measured interactions/s of every GPU engine against the GPU's arithmetic limits at
the measured SM clock (the FP32 lanes for float, the FP64 lanes for double and dd, divided by the
operations one interaction issues in the compiled kernels). Reads results/E24_roofline.csv (computed
from E09's results, whose provenance names the device run) and E24_roofline_nsight_counts.csv;
writes figures/E24_roofline.pdf/.png and paper/generated/E24_numbers.tex."""
import style
from gpu_common import ENGINE_STYLE, device_text, engine_legend, load, save, sci, write_macros

NAME = "E24_roofline"
rows, _ = load("E24_roofline")
fig, axes = style.figure(1, 3, height=2.9)
macros = {}
for ax, p in zip(axes, ["float", "double", "dd"]):
    sub = [r for r in rows if r["precision"] == p]
    for e, (c, m) in ENGINE_STYLE.items():
        pts = sorted((int(r["n"]), float(r["interactions_per_s"])) for r in sub if r["engine"] == e)
        if pts:
            ax.loglog([n for n, _ in pts], [v for _, v in pts], marker=m, color=c, label=e)
    # one limit per operation count: the all-pairs kernels, and cuda-pairs (two interactions a pair)
    for pairs in (False, True):
        lim = [r for r in sub if (r["engine"] == "cuda-pairs") == pairs]
        if not lim:
            continue
        limit = max(float(r["pipe_limit_interactions_per_s"]) for r in lim)
        ax.axhline(limit, color="tab:purple" if pairs else "k", lw=1.2, ls="--" if pairs else "-")
        ax.annotate(f"{lim[0]['pipe']} limit, {lim[0]['ops_per_interaction']} ops" + (" (pairs)" if pairs else ""),
                    (0.03, limit), xycoords=("axes fraction", "data"), xytext=(0, 1), textcoords="offset points",
                    va="bottom", fontsize=7, color="tab:purple" if pairs else "k")
        ax.set_ylim(top=max(ax.get_ylim()[1], 2.5 * limit))  # room for the label above the line
        best = max(lim, key=lambda r: float(r["interactions_per_s"]))
        key = "Pairs" if pairs else ""
        macros[f"ETwentyFour{key}Limit{p.capitalize()}"] = sci(limit)
        macros[f"ETwentyFour{key}Fraction{p.capitalize()}"] = f"{100 * float(best['fraction_of_limit']):.0f}"
    ax.set_title(p)
    ax.set_xlabel("N")
    style.log_ticks(ax)
# Nsight Compute at N = 2^20: issue slots busy and instructions per interaction (per pair) of the
# float tiled kernel and of cuda-pairs.
for r in load("E24_roofline_nsight_counts")[0]:
    key = {"cuda-tiled": "Tiled", "cuda-pairs": "Pairs"}[r["engine"]]
    macros[f"ETwentyFour{key}IssueBusy"] = f"{float(r['issue_slots_busy_percent']):.0f}"
    macros[f"ETwentyFour{key}Instr"] = r["instructions"]
axes[0].set_ylabel("interactions / s")
engine_legend(fig, axes)
e09_rows, e09_meta = load("E09_gpu_time_vs_n")  # the measurement E24 is computed from
fig.suptitle(device_text(e09_meta, e09_rows))
save(fig, NAME)
write_macros("E24_numbers.tex", macros, __file__, ["results/E24_roofline.csv", "results/E24_roofline_nsight_counts.csv"])
