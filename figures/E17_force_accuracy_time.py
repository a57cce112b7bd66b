"""E17 figure: the accuracy-against-time frontier of every force engine, and the tree engines'
energy drift over 1000 leapfrog steps against all pairs (seed S4's octree; S0 judged trees by dE).

Reads results/E17_force_accuracy_time.csv (`nbody bench` rows with the force error of 1024 bodies:
time per evaluation, build, moments and walk, terms per body) and
results/E17_tree_energy_drift.csv (`nbody run` summaries: |dE/E0|, the steps' wall time) and, where
they exist, results/E17_ryoanji.csv (the reference code Ryoanji on the same bodies and GPU, with
nbody's grouped walk timed in the same run where that run did: the two codes' ratio); writes
  figures/E17_force_accuracy_time.pdf, .png  seconds per evaluation against the 99th-percentile
                                             error, one curve per engine (its settings that no
                                             other of its settings beats in both), float, Plummer
                                             sphere at N = 2^18, 2^20 and 2^22, two galaxies at 2^20
  paper/generated/E17_frontier.tex           the fastest setting of each engine at p99 <= 1e-2,
                                             1e-3 and 1e-4, for each N
  paper/generated/E17_drift.tex              |dE/E0| after 1000 steps and the time per step
  paper/generated/E17_numbers.tex            \\newcommand macros for the numbers the text quotes
"""
import math

import gpu_common
import style
from nbodylab import paper

EXP = "E17_force_accuracy_time"
DRIFT = "E17_tree_energy_drift"
REFERENCE = "E17_ryoanji"
TARGETS = [1e-2, 1e-3, 1e-4]
# A curve: (label, engine, moments or None); its points are the engine's settings (theta and leaf
# size, or lambda_crit) that no other of them beats in both error and time.
CURVES = [("groups, quad.", "cuda-octree-groups", "quadrupole", "tab:red", "-"),
          ("groups, mono.", "cuda-octree-groups", "monopole", "tab:red", "--"),
          ("S4 thread/body, quad.", "cuda-octree", "quadrupole", "tab:blue", "-"),
          ("S4 thread/body, mono.", "cuda-octree", "monopole", "tab:blue", "--"),
          ("OpenCL, host build", "opencl-octree", None, "tab:orange", "-"),
          ("kd-tree (S0)", "cuda-kdtree-stackless", None, "tab:green", "-"),
          ("CPU octree, quad.", "octree", "quadrupole", "tab:grey", "-"),
          ("CPU octree, mono.", "octree", "monopole", "tab:grey", "--"),
          ("Ryoanji (reference)", "ryoanji", None, "tab:brown", "-.")]
ALL_PAIRS = [("cuda-pairs", "tab:purple", "P"), ("cuda-split", "tab:pink", "D"), ("openmp-simd", "k", "s")]
COLUMNS = [("octree groups, quad.", "cuda-octree-groups", "quadrupole"),
           ("octree groups, mono.", "cuda-octree-groups", "monopole"),
           ("S4 octree, quad.", "cuda-octree", "quadrupole"),
           ("S4 octree, mono.", "cuda-octree", "monopole"),
           ("kd-tree", "cuda-kdtree-stackless", None),
           ("OpenCL octree", "opencl-octree", None),
           ("all pairs (GPU)", ("cuda-pairs", "cuda-split"), None)]
# The figure's panels: (N, initial conditions), float.
PANELS = [(262144, "plummer"), (1048576, "plummer"), (4194304, "plummer"), (1048576, "two-galaxies")]
IC_TITLES = {"plummer": "Plummer", "two-galaxies": "two galaxies"}
ENGINES_SHOWN = tuple(c[1] for c in CURVES) + tuple(e for e, _, _ in ALL_PAIRS)
# Engines whose tree is built on the host: the bench's device time is their walk, and an
# evaluation also costs the host's build and upload (build_seconds).
HOST_BUILT = ("opencl-octree",)


def moments(r):
    return r.get("moments") or "monopole"


def setting(r):
    """theta (and the leaf size where it was set) or lambda_crit, as a short label."""
    if r.get("theta"):
        leaves = f", leaves of {r['leaf-size']}" if r.get("leaf-size") else ""
        return rf"$\theta = {float(r['theta']):g}${leaves}"
    if r.get("lambda-crit"):
        return rf"$\lambda = {float(r['lambda-crit']):g}$"
    return ""


def picks(rows, engine, mom=None, n=None, precision="float", ic="plummer"):
    engines = engine if isinstance(engine, tuple) else (engine,)
    return [r for r in rows if r["engine"] in engines and r["precision"] == precision and r["ic"] == ic
            and (n is None or int(r["n"]) == n) and (mom is None or moments(r) == mom) and r.get("error_p99")]


def seconds(r):
    """Seconds per evaluation, the host's build included where the tree is built there."""
    host = float(r["build_seconds"]) if r["engine"] in HOST_BUILT else 0.0
    return float(r["seconds_per_eval"]) + host


def frontier(rows):
    """The rows that no other row beats in both error and time, by error."""
    kept = []
    for r in sorted(rows, key=lambda r: (float(r["error_p99"]), seconds(r))):
        if not kept or seconds(r) < seconds(kept[-1]):
            kept.append(r)
    return kept


def fastest(rows, target):
    """The fastest row whose 99th-percentile error is at most target, or None."""
    ok = [r for r in rows if float(r["error_p99"]) <= target]
    return min(ok, key=seconds) if ok else None


def reference_rows():
    """(Ryoanji's rows as engine rows: engine "ryoanji", quadrupoles; nbody's rows of the same run
    on the same card, engine as nbody names it), none where it was not run."""
    try:
        rows, _ = paper.load_results(REFERENCE)
    except paper.MissingResults:
        return [], []
    ryoanji = [{**r, "engine": "ryoanji", "moments": "quadrupole"} for r in rows if r.get("code", "ryoanji") == "ryoanji"]
    ours = [{**r, "engine": r["code"].split(":", 1)[1], "leaf-size": r["ncrit"]} for r in rows
            if r.get("code", "").startswith("nbody:")]
    return ryoanji, ours


def main():
    rows, meta = paper.load_results(EXP)
    reference, beside_reference = reference_rows()
    rows += reference
    sizes = sorted({int(r["n"]) for r in rows if r["engine"] != "ryoanji"})
    shown = [(n, ic) for n, ic in PANELS if picks(rows, ENGINES_SHOWN, None, n, ic=ic)] or [(sizes[-1], "plummer")]
    cols = min(len(shown), 2)
    fig, grid = style.figure((len(shown) + cols - 1) // cols, cols, height=2.6 * ((len(shown) + cols - 1) // cols),
                             squeeze=False, sharex=True)
    axes = list(grid.flat)
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    for ax, (n, ic) in zip(axes, shown):
        for label, engine, mom, colour, ls in CURVES:
            rs = frontier(picks(rows, engine, mom, n, ic=ic))
            if rs:
                ax.plot([float(r["error_p99"]) for r in rs], [seconds(r) for r in rs], ls, marker="o", ms=2.5,
                        color=colour, label=label)
        for engine, colour, marker in ALL_PAIRS:
            for r in picks(rows, engine, None, n, ic=ic):
                ax.plot(float(r["error_p99"]), seconds(r), marker, ms=5, color=colour, ls="none", label=engine)
        for t in TARGETS:
            ax.axvline(t, color="k", lw=0.5, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(rf"{IC_TITLES[ic]}, $N = 2^{{{n.bit_length() - 1}}}$, float")
        style.log_ticks(ax)
    for i, ax in enumerate(axes[:len(shown)]):
        if i >= len(shown) - cols:
            ax.set_xlabel("99th-percentile force error")
        if i % cols == 0:
            ax.set_ylabel("seconds per evaluation")
    gpu_common.engine_legend(fig, axes, ncol=4)
    style.save(fig, EXP)

    # The table: for each N and error target, the fastest setting of each engine (milliseconds,
    # the setting below), float, Plummer sphere.
    def ms(r):
        x = 1e3 * seconds(r)
        return f"{x:.0f}" if x >= 100 else f"{x:.3g}"

    lines = [r"\begin{tabular}{ll" + "r" * len(COLUMNS) + "}", r"\toprule",
             "$N$ & p99 $\\le$ & " + " & ".join(c[0] for c in COLUMNS) + r" \\", r"\midrule"]
    for n in sizes:
        for t in TARGETS:
            cells = []
            for _, engine, mom in COLUMNS:
                best = fastest(picks(rows, engine, mom, n), t)
                if best is None:
                    cells.append("---")
                elif isinstance(engine, tuple):
                    cells.append(f"{ms(best)} \\tiny{{{paper.tex_escape(best['engine'])}}}")
                else:  # a column of both moments names the one it picked
                    mixed = f", {moments(best)[:4]}." if mom is None and best.get("moments") else ""
                    cells.append(f"{ms(best)} \\tiny{{{setting(best)}{mixed}}}")
            lines.append(f"{n} & $10^{{{round(math.log10(t))}}}$ & " + " & ".join(cells) + r" \\")
        if n != sizes[-1]:
            lines.append(r"\midrule")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    paper.write_tex("E17_frontier.tex", "\n".join(lines), __file__, [f"results/{EXP}.csv"])

    macros = {"ESeventeenDevice": gpu_common.device_text(meta, rows),
              # Whether Ryoanji's run timed nbody's grouped walk beside it on the same bodies and card.
              "ESeventeenRyoanjiRun": "the same run as" if beside_reference else "a run apart from"}
    tree_engines = ("cuda-octree-groups", "cuda-octree", "cuda-kdtree-stackless")
    # The fast engine at p99 <= 1e-3, and the crossover: the smallest N at which the fastest tree
    # setting beats the fastest all-pairs GPU kernel at each target.
    for t, key in zip(TARGETS, ("Two", "Three", "Four")):
        over = [n for n in sizes
                if (tree := fastest(picks(rows, tree_engines, None, n), t))
                and (pairs := fastest(picks(rows, ("cuda-pairs", "cuda-split"), None, n), t))
                and seconds(tree) < seconds(pairs)]
        macros[f"ESeventeenCrossoverE{key}"] = str(over[0]) if over else paper.MISSING
        lost = [n for n in sizes if n not in over]
        macros[f"ESeventeenPairsWinE{key}"] = ", ".join(str(n) for n in lost) if lost else "none"
    for n, key in ((1048576, "Mega"), (4194304, "FourMega"), (65536, "SixtyFourK")):
        for p in ("float", "double"):
            best = fastest(picks(rows, "cuda-octree-groups", None, n, p), 1e-3)
            pk = paper.macro_part(p)
            macros[f"ESeventeen{key}{pk}Ms"] = ms(best) if best else paper.MISSING
            macros[f"ESeventeen{key}{pk}Setting"] = (f"{setting(best)}, {moments(best)}s" if best else paper.MISSING)
            macros[f"ESeventeen{key}{pk}Pninetynine"] = paper.tex_sci(float(best["error_p99"])) if best else paper.MISSING
            for part in ("build", "moments", "walk"):
                macros[f"ESeventeen{key}{pk}{part.capitalize()}Ms"] = (
                    f"{1e3 * float(best[part + '_seconds']):.2f}" if best and best.get(part + "_seconds") else paper.MISSING)
            if best:
                macros[f"ESeventeen{key}{pk}Terms"] = f"{float(best['terms_per_body']):.0f}"
                macros[f"ESeventeen{key}{pk}CellTerms"] = f"{float(best['cell_terms_per_body']):.0f}"
        ry = fastest(picks(rows, "ryoanji", None, n), 1e-3)
        # The grouped walk of Ryoanji's own run where that run timed it, else E17's.
        groups = fastest(picks(beside_reference, "cuda-octree-groups", None, n)
                         or picks(rows, "cuda-octree-groups", None, n), 1e-3)
        macros[f"ESeventeen{key}RyoanjiMs"] = ms(ry) if ry else paper.MISSING
        macros[f"ESeventeen{key}RyoanjiSetting"] = f"{setting(ry)}, at most {ry['ncrit']} bodies a leaf" if ry else paper.MISSING
        macros[f"ESeventeen{key}RyoanjiOverGroups"] = f"{seconds(ry) / seconds(groups):.2f}" if ry and groups else paper.MISSING
        macros[f"ESeventeen{key}RyoanjiGroupsMs"] = ms(groups) if ry and groups else paper.MISSING
        s4 = fastest(picks(rows, "cuda-octree", None, n), 1e-3)
        macros[f"ESeventeen{key}SfourMs"] = ms(s4) if s4 else paper.MISSING
        macros[f"ESeventeen{key}SfourSetting"] = f"{setting(s4)}, {moments(s4)}s" if s4 else paper.MISSING
        kd = fastest(picks(rows, "cuda-kdtree-stackless", None, n), 1e-3)
        macros[f"ESeventeen{key}KdMs"] = ms(kd) if kd else paper.MISSING
        pairs = fastest(picks(rows, ("cuda-pairs", "cuda-split"), None, n), 1e-3)
        macros[f"ESeventeen{key}PairsMs"] = ms(pairs) if pairs else paper.MISSING
    # The same theta, leaf size and moments in double as the float setting at 1e-3, N = 2^20.
    f_best = fastest(picks(rows, "cuda-octree-groups", None, 1048576), 1e-3)
    d_same = next((r for r in picks(rows, "cuda-octree-groups", moments(f_best), 1048576, "double")
                   if f_best and r["theta"] == f_best["theta"] and r.get("leaf-size") == f_best.get("leaf-size")), None)
    macros["ESeventeenDoubleOverFloat"] = f"{seconds(d_same) / seconds(f_best):.2f}" if d_same else paper.MISSING
    # S4's rule, a thread per body, with S4's settings (theta 0.5, monopoles) at 2^20.
    s4_default = next((r for r in picks(rows, "cuda-octree", "monopole", 1048576) if r["theta"] == "0.5"), None)
    macros["ESeventeenSfourDefaultMs"] = ms(s4_default) if s4_default else paper.MISSING
    macros["ESeventeenSfourDefaultPninetynine"] = paper.tex_sci(float(s4_default["error_p99"])) if s4_default else paper.MISSING
    # The OpenCL walk of the host's tree at 2^20: its fastest setting at 1e-3, walk and host build.
    cl = fastest(picks(rows, "opencl-octree", None, 1048576), 1e-3)
    macros["ESeventeenMegaOpenclMs"] = ms(cl) if cl else paper.MISSING
    macros["ESeventeenMegaOpenclSetting"] = f"{setting(cl)}, {moments(cl)}s" if cl else paper.MISSING
    for part in ("build", "walk"):
        macros[f"ESeventeenMegaOpencl{part.capitalize()}Ms"] = (
            f"{1e3 * float(cl[part + '_seconds']):.0f}" if cl else paper.MISSING)
    # The two-galaxy collision at 2^20: the grouped walk's fastest setting at 1e-4, and all pairs.
    gal = fastest(picks(rows, "cuda-octree-groups", None, 1048576, ic="two-galaxies"), 1e-4)
    macros["ESeventeenGalaxiesMs"] = ms(gal) if gal else paper.MISSING
    macros["ESeventeenGalaxiesSetting"] = f"{setting(gal)}, {moments(gal)}s" if gal else paper.MISSING
    macros["ESeventeenGalaxiesPninetynine"] = paper.tex_sci(float(gal["error_p99"])) if gal else paper.MISSING
    gal_pairs = fastest(picks(rows, "cuda-pairs", None, 1048576, ic="two-galaxies"), 1e-4)
    macros["ESeventeenGalaxiesPairsMs"] = ms(gal_pairs) if gal_pairs else paper.MISSING
    kd = fastest(picks(rows, "cuda-kdtree-stackless", None, 1048576), 1e-3)
    macros["ESeventeenMegaKdTerms"] = f"{float(kd['terms_per_body']):.0f}" if kd else paper.MISSING
    split22 = next(iter(picks(rows, "cuda-split", None, 4194304)), None)
    macros["ESeventeenSplitFourMegaPninetynine"] = paper.tex_sci(float(split22["error_p99"])) if split22 else paper.MISSING

    # The energy drift after 1000 leapfrog steps, and S4's step at 2^20 on the GPU.
    drift, dmeta = paper.load_results(DRIFT)
    n_small = min(int(r["n"]) for r in drift)
    head = [r"\begin{tabular}{llrrr}", r"\toprule",
            r"engine & setting & $|\Delta E/E_0|$ float & $|\Delta E/E_0|$ double & ms per step (float) \\", r"\midrule"]
    keyed = {}
    for r in drift:
        if int(r["n"]) != n_small:
            continue
        label = (r.get("theta") and f"{setting(r)}, {moments(r)}s") or setting(r) or "all pairs"
        keyed.setdefault((r["engine"], label), {})[r["precision"]] = r
    for (engine, label), by in keyed.items():
        def de(p):
            if p not in by:
                return "---"
            x = abs(float(by[p]["dE_rel"]))
            return paper.tex_sci(x) if x > 0 else "0"  # the two energies equal in the run's precision

        step = f"{1e3 * float(by['float']['step_wall_s']) / float(by['float']['steps']):.2f}" if "float" in by else "---"
        head.append(rf"\code{{{engine}}} & {label} & {de('float')} & {de('double')} & {step} \\")
    head += [r"\bottomrule", r"\end{tabular}", ""]
    paper.write_tex("E17_drift.tex", "\n".join(head), __file__, [f"results/{DRIFT}.csv"])
    big = next((r for r in drift if int(r["n"]) == 1048576), None)
    macros["ESeventeenStepN"] = str(n_small)
    macros["ESeventeenBigStepMs"] = (f"{1e3 * float(big['step_wall_s']) / float(big['steps']):.2f}" if big else paper.MISSING)
    macros["ESeventeenBigSteps"] = big["steps"] if big else paper.MISSING
    macros["ESeventeenBigDE"] = paper.tex_sci(abs(float(big["dE_rel"]))) if big else paper.MISSING
    macros["ESeventeenBigWallS"] = f"{float(big['wall_s']):.0f}" if big else paper.MISSING
    paper.write_macros("E17_numbers.tex", macros, __file__, [f"results/{EXP}.csv", f"results/{DRIFT}.csv"]
                       + ([f"results/{REFERENCE}.csv"] if reference else []))


if __name__ == "__main__":
    main()
