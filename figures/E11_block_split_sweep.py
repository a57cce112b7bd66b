"""E11 figure and table: seed S1's tiled kernel with the j-range of each body split over blocks
(cuda-split, float): block size x split, N = 4096 and 32768, on the H100. Reads
results/E11_block_split_sweep.csv; writes figures/E11_block_split_sweep.pdf/.png,
paper/generated/E11_table.tex (S1's two split sweeps beside ours) and E11_numbers.tex."""
import style
from gpu_common import device_text, gpu_text, load, ratio, save, sci, write_macros, write_tex
from seed_numbers import S1_GPU, S1_N, S1_SPLIT_SWEEPS

NAME = "E11_block_split_sweep"
rows, meta = load(NAME)
ns = sorted({int(r["n"]) for r in rows})
fig, axes = style.figure(len(ns), 1, height=2.4 * len(ns) + 0.3, squeeze=False)
axes = axes[:, 0]
macros = {}
for ax, n in zip(axes, ns):
    sub = [r for r in rows if int(r["n"]) == n and r["status"] == "ok"]
    blocks = sorted({int(r["block"]) for r in sub})
    splits = sorted({int(r["split"]) for r in sub})
    grid = [[float("nan")] * len(splits) for _ in blocks]
    for r in sub:
        grid[blocks.index(int(r["block"]))][splits.index(int(r["split"]))] = float(r["interactions_per_s"]) / 1e9
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(splits)), splits)
    ax.set_yticks(range(len(blocks)), blocks)
    ax.set_xlabel("split (blocks per body's j-range)")
    ax.set_ylabel("threads per block")
    for i in range(len(blocks)):
        for j in range(len(splits)):
            ax.text(j, i, f"{grid[i][j]:.0f}", ha="center", va="center", fontsize=7, color="w")
    ax.grid(False)
    fig.colorbar(im, ax=ax, label="billion interactions / s")
    ax.set_title(f"N = {n}")
    best = max(sub, key=lambda r: float(r["interactions_per_s"]))
    key = "Four" if n == 4096 else "ThirtyTwo"
    macros[f"ElevenBest{key}"] = sci(best["interactions_per_s"])
    macros[f"ElevenBest{key}Shape"] = f"block {best['block']}, split {best['split']}"
fig.suptitle(f"E11: cuda-split, float\n{device_text(meta)}")
save(fig, NAME)

# Table: S1's two split sweeps (float, N = 4096) beside ours at the same shapes, and ours over S1's.
ours = {(int(r["block"]), int(r["split"])): float(r["interactions_per_s"]) / 1e9
        for r in rows if int(r["n"]) == S1_N and r["precision"] == "float" and r["status"] == "ok"}
lines = [r"\begin{tabular}{rrrrr}", r"\toprule",
         r"block & split & \seed{1} & ours & ours/\seed{1} \\", r"\midrule"]
for i, (title, sweep) in enumerate(S1_SPLIT_SWEEPS.items()):
    lines += [r"\midrule"] * (i > 0) + [rf"\multicolumn{{5}}{{l}}{{\emph{{{title}}}}} \\"]
    for (block, split), seed in sweep.items():
        mine = ours.get((block, split))
        lines.append(f"{block} & {split} & {seed} & " + (f"{mine:.1f} & {ratio(mine / float(seed))}" if mine else "--- & ---")
                     + r" \\")
lines += [r"\bottomrule", r"\end{tabular}"]
sources = [f"results/{NAME}.csv", "figures/seed_numbers.py"]
write_tex("E11_table.tex", "\n".join(lines) + "\n", __file__, sources)

seed_best = max((float(v), v, shape) for sweep in S1_SPLIT_SWEEPS.values() for shape, v in sweep.items())
macros.update({"ElevenGpu": gpu_text(meta), "ElevenSeedGpu": S1_GPU, "ElevenSeedBest": seed_best[1],
               "ElevenSeedBestShape": "block {}, split {}".format(*seed_best[2])})
write_macros("E11_numbers.tex", macros, __file__, sources)
