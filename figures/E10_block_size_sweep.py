"""E10 figure and table: seed S1's block-size sweep of the one-thread-per-body kernel (cuda-naive),
N = 4096, float and double, on the H100; block 1025 is an invalid launch (reported as such, never
as a time). Reads results/E10_block_size_sweep.csv; writes figures/E10_block_size_sweep.pdf/.png
and paper/generated/E10_table.tex."""
import style
from gpu_common import device_text, load, save, write_tex

NAME = "E10_block_size_sweep"
rows, meta = load(NAME)
fig, ax = style.figure(height=2.8)
for prec, c in (("float", "tab:blue"), ("double", "tab:red")):
    ok = [r for r in rows if r["precision"] == prec and r["status"] == "ok"]
    ax.semilogx([int(r["block"]) for r in ok], [float(r["interactions_per_s"]) / 1e9 for r in ok], "o-", color=c,
                label=prec, base=2)
invalid = sorted({int(r["block"]) for r in rows if r["status"] != "ok"})
for b in invalid:
    ax.axvline(b, color="k", ls=":", lw=1)
if invalid:
    ax.text(0.98, 0.95, "block " + ", ".join(map(str, invalid)) + ": invalid launch\n(an error, never a time)",
            transform=ax.transAxes, ha="right", va="top")
ax.set_xlabel("threads per block")
ax.set_ylabel("billion interactions / s")
ax.set_title(f"E10: cuda-naive, N = 4096\n{device_text(meta)}")
ax.legend(loc="upper left")
save(fig, NAME)

blocks = sorted({int(r["block"]) for r in rows})
cell = {(r["precision"], int(r["block"])): r for r in rows}
lines = [r"\begin{tabular}{rrr}", r"\hline", r"block & float & double \\", r"\hline"]
for b in blocks:
    vals = []
    for p in ("float", "double"):
        r = cell.get((p, b))
        vals.append("invalid launch" if r and r["status"] == "invalid" else f"{float(r['interactions_per_s']) / 1e9:.1f}" if r else "--")
    lines.append(f"{b} & {vals[0]} & {vals[1]} \\\\")
lines += [r"\hline", r"\end{tabular}"]
write_tex("E10_table.tex", "\n".join(lines) + "\n", __file__, [f"results/{NAME}.csv"])
