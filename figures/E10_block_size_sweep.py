"""E10 figure and table: seed S1's block-size sweep of the one-thread-per-body kernel (cuda-naive),
N = 4096, float and double, on the H100; block 1025 is an invalid launch (reported as such, never
as a time). Reads results/E10_block_size_sweep.csv; writes figures/E10_block_size_sweep.pdf/.png
and paper/generated/E10_table.tex (beside S1's numbers) and E10_numbers.tex."""
import style
from gpu_common import device_text, gpu_text, load, ratio, save, write_macros, write_tex
from seed_numbers import S1_BLOCK_SWEEP, S1_FAILED_LAUNCH, S1_GPU, S1_N

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

# Table: ours in float and double beside S1's first table (float), and ours over S1's where both
# ran the same N.
cell = {(r["precision"], int(r["block"])): r for r in rows}


def rate(p, b):
    """Ours in billion interactions/s, or 'invalid launch', or None when not run."""
    r = cell.get((p, b))
    return None if r is None else "invalid launch" if r["status"] == "invalid" else float(r["interactions_per_s"]) / 1e9


same_n = {int(r["n"]) for r in rows} == {S1_N}
lines = [r"\begin{tabular}{rrrrr}", r"\toprule",
         r"& \multicolumn{2}{c}{ours} & \seed{1} & ours/\seed{1} \\", r"\cmidrule(lr){2-3}",
         r"block & float & double & float & float \\", r"\midrule"]
for b in sorted({int(r["block"]) for r in rows} | set(S1_BLOCK_SWEEP)):
    ours = [rate(p, b) for p in ("float", "double")]
    seed = S1_BLOCK_SWEEP.get(b)
    comparable = seed and same_n and isinstance(ours[0], float) and b != S1_FAILED_LAUNCH
    cells = [str(b)] + [f"{v:.1f}" if isinstance(v, float) else v or "---" for v in ours]
    cells += [(seed or "---") + (" (launch failed)" if b == S1_FAILED_LAUNCH else ""),
              ratio(ours[0] / float(seed)) if comparable else "---"]
    lines.append(" & ".join(cells) + r" \\")
lines += [r"\bottomrule", r"\end{tabular}"]
sources = [f"results/{NAME}.csv", "figures/seed_numbers.py"]
write_tex("E10_table.tex", "\n".join(lines) + "\n", __file__, sources)
write_macros("E10_numbers.tex", {"ETenGpu": gpu_text(meta), "ETenSeedGpu": S1_GPU}, __file__, sources)
