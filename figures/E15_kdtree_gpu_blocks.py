"""E15 figure and table: seed S0's Tables 5-7, the GPU kd-tree walks against the block size.

Reads results/E15_kdtree_gpu_blocks.csv (one `nbody tune` row per engine, precision, size and
launch shape: the device time of the GPU build and the walk); writes
  figures/E15_kdtree_gpu_blocks.pdf, .png  seconds per force evaluation against the block size
  paper/generated/E15_table.tex            each engine's best time and block, S0's best beside
  paper/generated/E15_numbers.tex          \\newcommand macros for the numbers the text quotes
"""
import gpu_common
import style
from nbodylab import paper
from seed_numbers import S0_TREE_BLOCKS, S0_TREE_ROW_ENGINE, S0_TREE_TABLES

EXP = "E15_kdtree_gpu_blocks"
ENGINES = ["cuda-kdtree-cycle", "cuda-kdtree-nested", "cuda-kdtree-nested-ldg", "cuda-kdtree-stackless",
           "opencl-kdtree-cycle", "opencl-kdtree-nested", "opencl-kdtree-stackless", "cuda-tiled", "opencl-tiled"]
COLOURS = {"cuda-kdtree-cycle": "tab:olive", "cuda-kdtree-nested": "tab:blue", "cuda-kdtree-nested-ldg": "tab:green",
           "cuda-kdtree-stackless": "tab:red", "opencl-kdtree-cycle": "tab:olive", "opencl-kdtree-nested": "tab:blue",
           "opencl-kdtree-stackless": "tab:red", "cuda-tiled": "k", "opencl-tiled": "k"}
SIZES = ["128K", "1M"]
PRECISIONS = ["float", "double"]
TARGET_MS = {"float": 20, "double": 40}  # N = 2^20, lambda_crit = 4, build on the GPU included


def ms(seconds):
    """Milliseconds as the text prints them: 3 significant digits, whole numbers from 100 on."""
    v = 1e3 * seconds
    return f"{v:.0f}" if v >= 100 else f"{v:.3g}"


def shape(row):
    """{key: value} of the row's launch text, e.g. {"block": "64", "l1": "1"}."""
    return dict(item.split("=") for item in row["launch"].split(",") if "=" in item)


def plain(row):
    """A row of the default shape apart from the block size (no L1 preference, the GPU build)."""
    s = shape(row)
    return all(v in ("0", "auto") for k, v in s.items() if k != "block")


def main():
    rows, meta = paper.load_results(EXP)
    ok = [r for r in rows if r["status"] == "ok"]
    invalid = [r for r in rows if r["status"] != "ok"]

    def series(size, precision, engine, pick=plain):
        rs = [r for r in ok if r["size"] == size and r["precision"] == precision and r["engine"] == engine and pick(r)]
        return sorted(((int(r["block"]), float(r["seconds_per_eval"])) for r in rs))

    fig, axes = style.figure(2, 2, height=4.6, sharex=True)
    for i, size in enumerate(SIZES):
        for j, precision in enumerate(PRECISIONS):
            ax = axes[i][j]
            for e in ENGINES:
                pts = series(size, precision, e)
                if pts:
                    ax.plot([b for b, _ in pts], [s for _, s in pts], ("--" if e.startswith("opencl") else "-"),
                            marker="o" if "kdtree" in e else "s", color=COLOURS[e], label=e)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(f"N = {size}, {precision}")
            if i == 1:
                ax.set_xlabel("block size (threads)")
            if j == 0:
                ax.set_ylabel("seconds per force evaluation")
            style.log_ticks(ax)
    gpu_common.engine_legend(fig, axes.flat, ncol=3)
    style.save(fig, EXP)

    # Table: each engine's best time (ms) and the block it ran at, per size and precision, and
    # S0's best over its block sizes (seconds, with its block) beside.
    def best(size, precision, engine, pick=plain):
        pts = series(size, precision, engine, pick)
        return min(pts, key=lambda p: p[1]) if pts else None

    def s0_best(table, engine):
        rows_ = S0_TREE_TABLES[table]["rows"]
        name = next((k for k, v in S0_TREE_ROW_ENGINE.items() if v == engine), None)
        if not name:
            return None
        vals = [(b, float(v)) for b, v in zip(S0_TREE_BLOCKS, rows_[name]) if v is not None]
        return min(vals, key=lambda p: p[1])

    cols = [(s, p) for s in SIZES for p in PRECISIONS]
    lines = [r"\begin{tabular}{l" + "r" * len(cols) + "rrr}", r"\toprule",
             r" & \multicolumn{" + str(len(cols)) + r"}{c}{H100: ms (block)} & \multicolumn{3}{c}{\seed{0}: s (block)} \\",
             rf"\cmidrule(lr){{2-{len(cols) + 1}}} \cmidrule(lr){{{len(cols) + 2}-{len(cols) + 4}}}",
             "engine & " + " & ".join(f"{s} {p}" for s, p in cols) + r" & T.\,5 & T.\,6 & T.\,7 \\", r"\midrule"]
    for e in ENGINES:
        cells = [rf"\code{{{e}}}"]
        for s, p in cols:
            b = best(s, p, e)
            cells.append(f"{ms(b[1])} ({b[0]})" if b else "---")
        for t in ("5", "6", "7"):
            b = s0_best(t, e)
            cells.append(f"{b[1]:g} ({b[0]})" if b else "---")
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    paper.write_tex("E15_table.tex", "\n".join(lines), __file__, [f"results/{EXP}.csv"])

    macros = {"EFifteenInvalid": str(len(invalid)),
              "EFifteenInvalidBlocks": ", ".join(sorted({r["block"] for r in invalid})) or "none",
              "EFifteenRows": str(len(rows))}
    for p in PRECISIONS:
        trees = [(e, best("1M", p, e)) for e in ENGINES if "kdtree" in e and best("1M", p, e)]
        e_best, b_best = min(trees, key=lambda x: x[1][1]) if trees else (None, None)
        key = paper.macro_part(p)
        macros[f"EFifteen{key}BestEngine"] = rf"\code{{{e_best}}}" if e_best else paper.MISSING
        macros[f"EFifteen{key}BestMs"] = ms(b_best[1]) if b_best else paper.MISSING
        macros[f"EFifteen{key}BestBlock"] = str(b_best[0]) if b_best else paper.MISSING
        macros[f"EFifteen{key}TargetMs"] = str(TARGET_MS[p])
        macros[f"EFifteen{key}Verdict"] = paper.MISSING if not b_best else (
            "met" if 1e3 * b_best[1] <= TARGET_MS[p] else "not met")
        dense = best("1M", p, "cuda-tiled")
        macros[f"EFifteen{key}DenseMs"] = ms(dense[1]) if dense else paper.MISSING
        macros[f"EFifteen{key}OverDense"] = f"{dense[1] / b_best[1]:.0f}" if dense and b_best else paper.MISSING
        t = "7" if p == "float" else "6"  # S0's Table 7 was float (the paper's E15 section says why)
        s0 = s0_best(t, "cuda-kdtree-stackless")
        macros[f"EFifteen{key}SZeroSeconds"] = f"{s0[1]:g}" if s0 else paper.MISSING
        macros[f"EFifteen{key}OverSZero"] = f"{s0[1] / b_best[1]:.0f}" if s0 and b_best else paper.MISSING
        # The L1 preference: the walk's best time with it against without it.
        for e in ("cuda-kdtree-nested", "cuda-kdtree-stackless"):
            with_l1 = best("1M", p, e, lambda r: shape(r).get("l1") == "1")
            without = best("1M", p, e)
            macros[f"EFifteen{key}{paper.macro_part(e)}LOne"] = (
                f"{without[1] / with_l1[1]:.2f}" if with_l1 and without else paper.MISSING)
        # S0's order of the walks: cycle, nested, nested-ldg, stackless, each best over blocks.
        for e in ("cuda-kdtree-cycle", "cuda-kdtree-nested", "cuda-kdtree-nested-ldg", "cuda-kdtree-stackless",
                  "opencl-kdtree-cycle", "opencl-kdtree-nested", "opencl-kdtree-stackless"):
            b = best("1M", p, e)
            macros[f"EFifteen{key}{paper.macro_part(e)}Ms"] = ms(b[1]) if b else paper.MISSING
    # S0's Table 7 all-pairs rate: N^2 terms in its best time, and the float operations that is at
    # 20 per term (the count of Section gpu-engines).
    dense7 = s0_best("7", "cuda-tiled")
    if dense7:
        rate = float(S0_TREE_TABLES["7"]["n"]) ** 2 / dense7[1]
        macros["EFifteenSZeroDenseSeconds"] = f"{dense7[1]:g}"
        macros["EFifteenSZeroDenseRate"] = paper.tex_sci(rate, 2)
        macros["EFifteenSZeroDenseTflops"] = f"{20 * rate / 1e12:.1f}"
    paper.write_macros("E15_numbers.tex", macros, __file__, [f"results/{EXP}.csv"])


if __name__ == "__main__":
    main()
