"""E14 figure and table: seed S0's Fig. 10 and Table 4, Barnes-Hut on the kd-tree on the CPU.

Reads results/E14_kdtree_cpu.csv (bench rows: time, build, walk, terms per body and force error
against lambda_crit for S0's six variants; openmp-simd; the same tree on a Plummer sphere; the
nested stackless walk on a tree split at each node's longest side, on both) and
results/E14_kdtree_cpu_energy.csv (|dE/E0| after 100 leapfrog steps); writes
  figures/E14_kdtree_cpu.pdf, .png     time, force error and energy change against lambda_crit
  paper/generated/E14_table.tex        milliseconds per force evaluation, variant x lambda_crit
  paper/generated/E14_numbers.tex      \\newcommand macros for the numbers the text quotes
"""
import style
from nbodylab import paper

EXP = "E14_kdtree_cpu"
ENERGY = "E14_kdtree_cpu_energy"
VARIANTS = ["kdtree-cycle-pointer", "kdtree-cycle-heap", "kdtree-cycle-stackless",
            "kdtree-nested-pointer", "kdtree-nested-heap", "kdtree-nested-stackless"]
# S0's names (Table 4) for ours.
S0_NAMES = {"kdtree-cycle-pointer": "cycle+tree", "kdtree-cycle-heap": "cycle+heap",
            "kdtree-cycle-stackless": "cycle+heapstackless", "kdtree-nested-pointer": "nestedtree+tree",
            "kdtree-nested-heap": "nestedtree+heap", "kdtree-nested-stackless": "nestedtree+heapstackless"}
COLOURS = {"kdtree-cycle-pointer": "tab:grey", "kdtree-cycle-heap": "tab:olive",
           "kdtree-cycle-stackless": "tab:cyan", "kdtree-nested-pointer": "tab:brown",
           "kdtree-nested-heap": "tab:blue", "kdtree-nested-stackless": "tab:red"}
MARKERS = {"kdtree-cycle-pointer": "s", "kdtree-cycle-heap": "^", "kdtree-cycle-stackless": "v",
           "kdtree-nested-pointer": "D", "kdtree-nested-heap": "o", "kdtree-nested-stackless": "*"}
ERROR_TARGET = 1e-3  # the 99th-percentile force error the comparison with all pairs is made at
SPEEDUP_TARGET = 5   # ... and the speed-up over openmp-simd asked for there (docs/experiments.md, E14)


def lam(r):
    return float(r["lambda-crit"])


def longest(r):
    """A row of the tree split at each node's longest side (S0's: x, y, z by depth)."""
    return r.get("split-axis") == "longest"


def ms(seconds):
    """Milliseconds as the text prints them: 3 significant digits, whole numbers from 100 on."""
    v = 1e3 * seconds
    return f"{v:.0f}" if v >= 100 else f"{v:.3g}"


def main():
    rows, meta = paper.load_results(EXP)
    energy_rows, energy_meta = paper.load_results(ENERGY)
    galaxy = [r for r in rows if r["ic"] == "two-galaxies" and not longest(r)]
    plummer = sorted((r for r in rows if r["ic"] == "plummer" and not longest(r)), key=lam)
    galaxy_longest = sorted((r for r in rows if r["ic"] == "two-galaxies" and longest(r)), key=lam)
    plummer_longest = sorted((r for r in rows if r["ic"] == "plummer" and longest(r)), key=lam)
    tree = {v: sorted((r for r in galaxy if r["engine"] == v), key=lam) for v in VARIANTS}
    tree = {v: rs for v, rs in tree.items() if rs}
    allpairs = next((r for r in galaxy if r["engine"] == "openmp-simd"), None)
    t_all = float(allpairs["seconds_per_eval"]) if allpairs else None
    n = paper.fixed_flags(meta).get("n")

    fig, axes = style.figure(1, 3, height=2.7)
    ax_t, ax_e, ax_de = axes
    for v, rs in tree.items():
        ax_t.plot([lam(r) for r in rs], [float(r["seconds_per_eval"]) for r in rs], marker=MARKERS[v],
                  color=COLOURS[v], label=v)
        style.timing_spread(ax_t, [lam(r) for r in rs], rs, color=COLOURS[v])
    if galaxy_longest:
        ax_t.plot([lam(r) for r in galaxy_longest], [float(r["seconds_per_eval"]) for r in galaxy_longest], "-.",
                  marker="*", color="tab:pink", label="nested-stackless, longest-side split")
        style.timing_spread(ax_t, [lam(r) for r in galaxy_longest], galaxy_longest, color="tab:pink")
    if t_all:
        ax_t.axhline(t_all, color="k", ls="--", lw=0.9, label="openmp-simd (all pairs)")
    best = tree.get("kdtree-nested-stackless") or next(iter(tree.values()), [])
    if best:
        ax_t.plot([lam(r) for r in best], [float(r["build_seconds"]) for r in best], ls=":", color="tab:red",
                  label="its build (nested-stackless)")
    ax_t.set_ylabel("seconds per force evaluation")
    ax_t.set_title("(a) time")
    if best:
        ax_e.plot([lam(r) for r in best], [float(r["error_p99"]) for r in best], "o-", color="tab:red",
                  label="galaxies, 99th pct.")
        ax_e.plot([lam(r) for r in best], [float(r["error_median"]) for r in best], "o--", color="tab:red",
                  label="galaxies, median")
    if plummer:
        ax_e.plot([lam(r) for r in plummer], [float(r["error_p99"]) for r in plummer], "s-", color="tab:purple",
                  label="Plummer, 99th pct.")
        ax_e.plot([lam(r) for r in plummer], [float(r["error_median"]) for r in plummer], "s--",
                  color="tab:purple", label="Plummer, median")
    for rs, marker, label in ((galaxy_longest, "*", "galaxies"), (plummer_longest, "s", "Plummer")):
        if rs:
            ax_e.plot([lam(r) for r in rs], [float(r["error_p99"]) for r in rs], "-.", marker=marker, ms=3,
                      color="tab:pink", label=f"{label}, 99th pct., longest side")
    ax_e.axhline(ERROR_TARGET, color="k", lw=0.6, ls=":")
    ax_e.set_ylabel("force error per body")
    ax_e.set_title("(b) force error")
    ok_energy, _ = paper.split_failures(energy_rows)
    tree_energy = sorted((r for r in ok_energy if r["engine"] != "openmp-simd"), key=lam)
    exact_energy = next((r for r in ok_energy if r["engine"] == "openmp-simd"), None)
    if tree_energy:
        ax_de.plot([lam(r) for r in tree_energy], [abs(float(r["dE_rel"])) for r in tree_energy], "*-",
                   color="tab:red", label="kd-tree")
    if exact_energy and abs(float(exact_energy["dE_rel"])) > 0:
        ax_de.axhline(abs(float(exact_energy["dE_rel"])), color="k", ls="--", lw=0.9, label="openmp-simd (all pairs)")
    ax_de.set_ylabel(r"$|\Delta E / E_0|$ after 100 steps")
    ax_de.set_title("(c) energy")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(r"$\lambda_\mathrm{crit}$")
        style.log_ticks(ax)
    handles = ax_t.get_legend_handles_labels()[0] + ax_e.get_legend_handles_labels()[0]
    style.legend_below(fig, handles, ncol=3)
    style.save(fig, EXP)

    # Table: milliseconds per evaluation for every variant and lambda, S0's name beside ours; the
    # build, terms per body and the force error of the (common) tree below.
    lambdas = sorted({lam(r) for rs in tree.values() for r in rs})
    head = " & ".join(f"{x:g}" for x in lambdas)
    lines = [r"\begin{tabular}{ll" + "r" * len(lambdas) + "}", r"\toprule",
             r"engine & S0's name & \multicolumn{" + str(len(lambdas)) + r"}{c}{milliseconds per force evaluation at $\lambda_\mathrm{crit} =$} \\",
             rf"\cmidrule(lr){{3-{len(lambdas) + 2}}}", f" & & {head} \\\\", r"\midrule"]

    def cells(rs, key, fmt):
        by = {lam(r): r for r in rs}
        return " & ".join(fmt(float(by[x][key])) if x in by and by[x].get(key) else "---" for x in lambdas)

    for v, rs in tree.items():
        lines.append(rf"\code{{{v}}} & {S0_NAMES[v]} & " + cells(rs, "seconds_per_eval", ms) + r" \\")
    if best:
        lines.append(r"\midrule")
        lines.append(r"build (nested-stackless) & & " + cells(best, "build_seconds", ms) + r" \\")
        lines.append(r"terms per body & & " + cells(best, "terms_per_body", lambda x: f"{x:.0f}") + r" \\")
        lines.append(r"force error, median & & " + cells(best, "error_median", lambda x: paper.tex_sci(x, 2)) + r" \\")
        lines.append(r"force error, 99th pct. & & " + cells(best, "error_p99", lambda x: paper.tex_sci(x, 2)) + r" \\")
    if t_all:
        lines.append(r"\midrule")
        lines.append(rf"\code{{openmp-simd}} (all pairs) & & \multicolumn{{{len(lambdas)}}}{{c}}{{{ms(t_all)}}} \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    paper.write_tex("E14_table.tex", "\n".join(lines), __file__, [f"results/{EXP}.csv"])

    # The comparison asked for: the fastest variant at a 99th-percentile error of ERROR_TARGET or
    # better, against openmp-simd in the same run.
    fast = [(float(r["seconds_per_eval"]), v, r) for v, rs in tree.items() for r in rs
            if float(r["error_p99"]) <= ERROR_TARGET]
    t_best, v_best, r_best = min(fast, key=lambda x: x[0]) if fast else (None, None, None)
    speedup = t_all / t_best if t_best and t_all else None
    plummer_ok = [r for r in plummer if float(r["error_p99"]) <= ERROR_TARGET]
    p_first = plummer_ok[0] if plummer_ok else None

    def ratio(a, b, x):
        ra = {lam(r): float(r["seconds_per_eval"]) for r in tree.get(a, [])}
        rb = {lam(r): float(r["seconds_per_eval"]) for r in tree.get(b, [])}
        return f"{ra[x] / rb[x]:.1f}" if x in ra and x in rb else paper.MISSING

    big = max(lambdas) if lambdas else None
    # The longest-side split against S0's, nested stackless walk, lambda_crit = 4 (galaxies), and
    # on the Plummer sphere the first lambda_crit with a 99th percentile within ERROR_TARGET.
    at4 = next((r for r in tree.get("kdtree-nested-stackless", []) if lam(r) == 4.0), None)
    long4 = next((r for r in galaxy_longest if lam(r) == 4.0), None)
    pl_long = next((r for r in plummer_longest if float(r["error_p99"]) <= ERROR_TARGET), None)
    exact_de = abs(float(exact_energy["dE_rel"])) if exact_energy else None
    de_at = {lam(r): abs(float(r["dE_rel"])) for r in tree_energy}
    macros = {
        "EFourteenN": str(n) if n else paper.MISSING,
        "EFourteenProfile": meta["profile"],
        "EFourteenThreads": galaxy[0]["threads"] if galaxy else paper.MISSING,
        "EFourteenAllPairsMs": ms(t_all) if t_all else paper.MISSING,
        "EFourteenBestVariant": rf"\code{{{v_best}}}" if v_best else paper.MISSING,
        "EFourteenBestLambda": f"{lam(r_best):g}" if r_best else paper.MISSING,
        "EFourteenBestMs": ms(t_best) if t_best else paper.MISSING,
        "EFourteenBestPninetynine": paper.tex_sci(float(r_best["error_p99"])) if r_best else paper.MISSING,
        "EFourteenBestBuildMs": ms(float(r_best["build_seconds"])) if r_best else paper.MISSING,
        "EFourteenSpeedup": f"{speedup:.1f}" if speedup else paper.MISSING,
        # The target is stated for S0's N = 32,768; a smaller profile reports without judging.
        "EFourteenVerdict": paper.MISSING if speedup is None else
        ("not judged at this N: the target is stated at $N = 32768$" if n != 32768 else
         "met" if speedup >= SPEEDUP_TARGET else "not met"),
        "EFourteenSpeedupTarget": str(SPEEDUP_TARGET),
        "EFourteenPointerOverHeapNested": ratio("kdtree-nested-pointer", "kdtree-nested-heap", 4.0),
        "EFourteenCycleOverNestedStackless": ratio("kdtree-cycle-stackless", "kdtree-nested-stackless", 4.0),
        "EFourteenHeapOverStacklessNested": ratio("kdtree-nested-heap", "kdtree-nested-stackless", 4.0),
        "EFourteenPlummerLambda": f"{lam(p_first):g}" if p_first else paper.MISSING,
        "EFourteenPlummerMs": ms(float(p_first["seconds_per_eval"])) if p_first else paper.MISSING,
        "EFourteenPlummerTerms": f"{float(p_first['terms_per_body']):.0f}" if p_first else paper.MISSING,
        "EFourteenLargestLambda": f"{big:g}" if big else paper.MISSING,
        "EFourteenExactDE": paper.tex_sci(exact_de) if exact_de else paper.MISSING,
        "EFourteenDEAtOne": paper.tex_sci(de_at[1.0]) if 1.0 in de_at else paper.MISSING,
        "EFourteenDEAtFour": paper.tex_sci(de_at[4.0]) if 4.0 in de_at else paper.MISSING,
        "EFourteenLongestMs": ms(float(long4["seconds_per_eval"])) if long4 else paper.MISSING,
        "EFourteenLongestTerms": f"{float(long4['terms_per_body']):.0f}" if long4 else paper.MISSING,
        "EFourteenLongestPninetynine": paper.tex_sci(float(long4["error_p99"])) if long4 else paper.MISSING,
        "EFourteenDepthMs": ms(float(at4["seconds_per_eval"])) if at4 else paper.MISSING,
        "EFourteenDepthTerms": f"{float(at4['terms_per_body']):.0f}" if at4 else paper.MISSING,
        "EFourteenDepthPninetynine": paper.tex_sci(float(at4["error_p99"])) if at4 else paper.MISSING,
        "EFourteenPlummerLongestLambda": f"{lam(pl_long):g}" if pl_long else paper.MISSING,
        "EFourteenPlummerLongestMs": ms(float(pl_long["seconds_per_eval"])) if pl_long else paper.MISSING,
        "EFourteenEnergyN": str(paper.fixed_flags(energy_meta).get("n", paper.MISSING)),
    }
    macros = {k: str(v) for k, v in macros.items()}
    paper.write_macros("E14_numbers.tex", macros, __file__, [f"results/{EXP}.csv", f"results/{ENERGY}.csv"])


if __name__ == "__main__":
    main()
