"""E18 figure and table: seed S3's sort study on the H100. The time of one cell-list build by every
CUDA builder against N (density 3, cells of the cut-off, float, from a cold L2), in random order and
in S3's order after a step; the incremental re-sort against the fraction of the particles placed
anew; the builders at 2^20 beside CUB's radix sort (S3: its bucket sort 20-40 % faster).

Reads results/E18_cell_list_build_gpu.csv (committed from the device); writes
  figures/E18_cell_list_build_gpu.pdf, .png  nanoseconds per particle of a build against N (two
                                          orders), and milliseconds against the fraction moved
  paper/generated/E18_table.tex           every builder at 2^20: both orders, cold and warm L2,
                                          the time over CUB's radix sort
  paper/generated/E18_numbers.tex         \\newcommand macros for the numbers the text quotes
"""
import gpu_common
import style
from nbodylab import paper

EXP = "E18_cell_list_build_gpu"
LARGE = 1 << 20
# builder -> (label, colour, marker): S3's four, then the counting sort, CUB's, HOOMD-blue's and
# the two-level bucket sort
BUILDERS = {"linked-list": ("S3: linked lists", "tab:blue", "o"),
            "shared-lists": ("S3: shared-memory lists", "tab:cyan", "v"),
            "linked-to-arrays": ("S3: lists to arrays + reorder", "tab:purple", "^"),
            "incremental": ("S3: incremental re-sort", "tab:pink", "D"),
            "counting-sort": ("counting sort", "tab:green", "s"),
            "radix-sort": ("CUB radix sort", "tab:red", "P"),
            "binned": ("HOOMD-blue bins", "tab:orange", "X"),
            "two-level": ("two-level bucket sort", "tab:brown", "*"),
            "cpu": ("CPU counting sort, one core", "tab:grey", ".")}
ORDERS = {"random": "random order", "step": "in cell order, after a DPD step"}


def ms(r):
    return 1e3 * float(r["seconds"])


def pick(rows, builder, order, cache="cold", n=None, moved=""):
    """The rows of one builder and order (the sweep against N unless n), CUDA rows from `cache`."""
    return sorted((r for r in rows if r["builder"] == builder and r["order"] == order
                   and (builder == "cpu" or r["cache"] == cache) and r.get("moved-fraction", "") == moved
                   and (n is None or int(r["n"]) == n)), key=lambda r: int(r["n"]))


def main():
    rows, meta = paper.load_results(EXP)
    rows, failed = paper.split_failures(rows)
    fig, axes = style.figure(1, 3, height=2.9)
    handles = {}
    for ax, (order, title) in zip(axes[:2], ORDERS.items()):
        for b, (label, colour, marker) in BUILDERS.items():
            line = pick(rows, b, order)
            if line and b != "cpu":  # the CPU, 100-600 times slower, is in the table
                handles[b], = ax.plot([int(r["n"]) for r in line], [1e6 * ms(r) / int(r["n"]) for r in line], marker=marker,
                                      color=colour, label=label, ms=4, lw=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("particles $N$")
        style.log_ticks(ax, "y")
    axes[0].set_ylabel("ns per particle")
    ax = axes[2]
    for b in ("incremental", "counting-sort", "binned", "two-level"):
        line = sorted((r for r in rows if r["builder"] == b and r.get("moved-fraction", "") != ""),
                      key=lambda r: float(r["moved_fraction"]))
        label, colour, marker = BUILDERS[b]
        xs = [max(float(r["moved_fraction"]), 1e-4) for r in line]  # none moved drawn at 1e-4
        ax.plot(xs, [ms(r) for r in line], marker=marker, color=colour, ms=4, lw=1)
    ax.set_xscale("log")
    ax.set_ylabel("ms per build")
    ax.set_xlabel("fraction that changed cell")
    ax.set_title(r"$N = 2^{20}$, random order")
    style.log_ticks(ax, "x")
    style.legend_below(fig, list(handles.values()), ncol=4, fontsize="small")
    style.save(fig, EXP)

    radix = {o: pick(rows, "radix-sort", o, n=LARGE) for o in ORDERS}
    lines = [r"\begin{tabular}{lrrrrr}", r"\toprule",
             r"builder & \multicolumn{2}{c}{random order} & \multicolumn{2}{c}{after a step} & warm L2, random \\",
             r" & ms & over radix & ms & over radix & ms \\", r"\midrule"]
    for b, (label, *_) in BUILDERS.items():
        if b == "cpu":
            continue
        cells = []
        for o in ORDERS:
            r = pick(rows, b, o, n=LARGE)
            cells += [f"{ms(r[0]):.4f}", f"{ms(r[0]) / ms(radix[o][0]):.2f}"] if r and radix[o] else [paper.MISSING] * 2
        warm = pick(rows, b, "random", cache="warm", n=LARGE)
        cells.append(f"{ms(warm[0]):.4f}" if warm else paper.MISSING)
        lines.append(rf"{paper.tex_escape(label)} & " + " & ".join(cells) + r" \\")
    cpu = {o: pick(rows, "cpu", o, n=LARGE) for o in ORDERS}
    lines.append(r"\midrule")
    cpu_ms = {o: f"{ms(cpu[o][0]):.2f}" if cpu[o] else paper.MISSING for o in ORDERS}  # no radix column, no warm run
    lines.append(rf"{paper.tex_escape(BUILDERS['cpu'][0])} & {cpu_ms['random']} &  & {cpu_ms['step']} &  &  \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv"]
    paper.write_tex("E18_table.tex", "\n".join(lines), __file__, sources)

    macros = {"EeighteenDevice": gpu_common.device_text(meta, rows)}
    for o in ORDERS:
        ok = paper.macro_part(o)
        at = sorted((r for b in BUILDERS if b != "cpu" for r in pick(rows, b, o, n=LARGE)), key=ms)
        macros[f"Eeighteen{ok}FastestMs"] = f"{ms(at[0]):.3f}" if at else paper.MISSING
        macros[f"Eeighteen{ok}FastestBuilder"] = at[0]["builder"] if at else paper.MISSING
        macros[f"Eeighteen{ok}RadixMs"] = f"{ms(radix[o][0]):.3f}" if radix[o] else paper.MISSING
        # S3's claim: its linked lists against the radix sort, at the smallest and largest N; how much
        # longer they take at the largest (where they lose); the largest N at which they still win.
        linked = {int(r["n"]): ms(r) for r in pick(rows, "linked-list", o)}
        rad = {int(r["n"]): ms(r) for r in pick(rows, "radix-sort", o)}
        both = sorted(set(linked) & set(rad))
        for which, n in (("Small", both[0] if both else None), ("Large", both[-1] if both else None)):
            macros[f"Eeighteen{ok}Linked{which}Gain"] = f"{100 * (1 - linked[n] / rad[n]):.0f}" if both else paper.MISSING
        macros[f"Eeighteen{ok}RadixLargeLead"] = (f"{100 * (linked[both[-1]] / rad[both[-1]] - 1):.0f}"
                                                 if both else paper.MISSING)
        wins = [n for n in both if linked[n] < rad[n]]
        macros[f"Eeighteen{ok}LinkedWinsUpTo"] = f"2^{{{max(wins).bit_length() - 1}}}" if wins else paper.MISSING
        macros[f"Eeighteen{ok}CpuMs"] = f"{ms(cpu[o][0]):.1f}" if cpu[o] else paper.MISSING
    # The one-level sorts in random order at the largest N against the two-level one and the bins.
    one = {b: pick(rows, b, "random", n=LARGE) for b in ("counting-sort", "binned", "two-level")}
    gain = lambda b, over: (f"{100 * (1 - ms(one[b][0]) / ms(over[0])):.0f}" if one[b] and over else paper.MISSING)
    macros["EeighteenRandomBinnedGain"] = gain("binned", one["counting-sort"])
    macros["EeighteenRandomTwoLevelGain"] = gain("two-level", one["counting-sort"])
    macros["EeighteenRandomTwoLevelRadixGain"] = gain("two-level", radix["random"])
    # The largest N at which the two-level sort is the fastest builder in random order.
    cuda = [r for r in rows if r["builder"] not in ("cpu",) and r["cache"] == "cold" and not r.get("moved-fraction")
            and r["order"] == "random"]
    fastest = [n for n in {int(r["n"]) for r in cuda}
               if min((r for r in cuda if int(r["n"]) == n), key=ms)["builder"] == "two-level"]
    macros["EeighteenRandomTwoLevelFastestUpTo"] = f"2^{{{max(fastest).bit_length() - 1}}}" if fastest else paper.MISSING
    # The incremental re-sort: the largest fraction moved at which it beats the counting sort.
    inc = {float(r["moved-fraction"]): ms(r) for r in rows if r["builder"] == "incremental" and r.get("moved-fraction")}
    cs = {float(r["moved-fraction"]): ms(r) for r in rows if r["builder"] == "counting-sort" and r.get("moved-fraction")}
    better = [f for f in inc if f in cs and inc[f] < cs[f]]
    macros["EeighteenIncrementalWinsUpTo"] = f"{100 * max(better):g}" if better else paper.MISSING
    macros["EeighteenIncrementalAllMs"] = f"{inc[1.0]:.3f}" if 1.0 in inc else paper.MISSING
    macros["EeighteenIncrementalNoneMs"] = f"{inc[0.0]:.3f}" if 0.0 in inc else paper.MISSING
    stepped = pick(rows, "incremental", "step", n=LARGE)
    macros["EeighteenStepMovedPercent"] = f"{100 * float(stepped[0]['moved_fraction']):.1f}" if stepped else paper.MISSING
    macros["EeighteenFailed"] = str(len(failed))
    paper.write_macros("E18_numbers.tex", macros, __file__, sources)


if __name__ == "__main__":
    main()
