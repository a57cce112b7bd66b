"""E07 figure and table: seed S0's Table 2, the time of one force evaluation against N for the
CPU engines (double), next to S0's published numbers, in total and per core.

Reads results/E07_cpu_engines.csv (this machine, `make all`) and every other
results/E07_cpu_engines_<machine>.csv (the same experiment run elsewhere, e.g. on the GPU host's
CPU, committed with its .meta.json); writes
  figures/E07_cpu_engines.pdf, .png       interactions/s against N, one panel per machine
  paper/generated/E07_table.tex           seconds per evaluation, interactions/s, per core and
                                          speed-up over simple, one block per machine, and S0's
  paper/generated/E07_numbers.tex         \\newcommand macros for every number the text quotes
"""
import sys

import style
from nbodylab import paper

EXP = "E07_cpu_engines"
ENGINES = ["simple", "openmp", "openmp-block", "openmp-simd"]
COLOURS = {"simple": "tab:grey", "openmp": "tab:blue", "openmp-block": "tab:green",
           "openmp-simd": "tab:red"}
# Seed S0, Table 2 (Debian 9, gcc 6.3.0, Intel Core i7-5820K, 6 cores): seconds of one force
# evaluation in double. Its best engine is "openmp + block + optimierung".
S0_N = [2048, 4096, 8192, 16384, 32768]
S0_SECONDS = {"simple": [0.0425, 0.1651, 0.6594, 2.65, 10.52],
              "openmp": [0.0078, 0.0260, 0.1079, 0.417, 1.655],
              "openmp + block + opt.": [0.0037, 0.0128, 0.0495, 0.194, 0.774]}
S0_CORES = 6
S0_MATCH = {"simple": "simple", "openmp": "openmp", "openmp + block + opt.": "openmp-simd"}
# The targets on the 2-core machine at N = 32768 (docs/experiments.md, E07).
TARGET_RATE, TARGET_OVER_OPENMP = 3.5e9, 2.5


def machines():
    """[(label, rows, meta)] for every machine this experiment ran on (paper.results_per_machine)."""
    return paper.results_per_machine(EXP)


def cores_used(row):
    return 1 if row["engine"] == "simple" else int(row["threads"])


def table_of(rows):
    """{engine: {n: row}}."""
    t = {}
    for r in rows:
        t.setdefault(r["engine"], {})[int(r["n"])] = r
    return t


def sci(x):
    return paper.tex_sci(x, 2)


# The CPU timing experiments that time all-pairs engines at N that E07 times too; the same engine,
# precision, N and threads on the same CPU must agree across them (the timing protocol's check).
# E07_small_n: its "all threads" rows, as the other experiments run.
ACROSS = ["E06_precision_cost", "E07_small_n", "E08_layout_precision", "E14_kdtree_cpu"]
ACROSS_LABELS = {EXP: "E07", "E07_small_n": "E07 small $N$"}
ACROSS_LIMIT = 0.10


def across_experiments(rows, meta):
    """{(engine, precision, n, threads): {experiment: seconds}} of the timings E07 (rows, meta) and
    the ACROSS experiments made on its CPU share (two experiments or more); the paper quotes the
    largest spread (largest over smallest, less one)."""
    cpu = rows[0]["cpu_model"]
    found = {}
    for exp_id, (rs, m) in [(EXP, (rows, meta))] + [(e, paper.load_results(e)) for e in ACROSS
                                                       if (paper.RESULTS_DIR / f"{e}.csv").is_file()]:
        fixed = paper.fixed_flags(m)
        for r in rs:
            if r.get("cpu_model") != cpu or r.get("env", "all threads") != "all threads" or not r.get("seconds_per_eval"):
                continue
            key = (r["engine"], r.get("precision") or fixed.get("precision", "double"), int(r.get("n") or fixed["n"]),
                   int(r["threads"]))
            found.setdefault(key, {}).setdefault(exp_id, float(r["seconds_per_eval"]))
    return {k: v for k, v in sorted(found.items()) if len(v) > 1}


def main():
    ms = machines()
    fig, axes = style.figure(1, len(ms), height=3.0, squeeze=False, sharey=True)
    for ax, (name, rows, meta) in zip(axes[0], ms):
        t = table_of(rows)
        for e in ENGINES:
            if e not in t:
                continue
            ns = sorted(t[e])
            ax.plot(ns, [float(t[e][n]["interactions_per_s"]) for n in ns], "o-", ms=3,
                    color=COLOURS[e], label=e)
            style.timing_spread(ax, ns, [t[e][n] for n in ns], lambda r, sec: int(r["n"]) * (int(r["n"]) - 1) / sec,
                                COLOURS[e])
        for s0, ours in S0_MATCH.items():
            ax.plot(S0_N, [n * (n - 1) / s for n, s in zip(S0_N, S0_SECONDS[s0])], "x--", ms=3,
                    lw=0.8, color=COLOURS[ours], alpha=0.7, label=f"S0 {s0}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(name.replace(", ", ",\n", 1) if len(ms) > 1 else name)
        ax.set_xlabel("N")
        style.log_ticks(ax)
    axes[0][0].set_ylabel("interactions / s")
    handles, _ = axes[0][0].get_legend_handles_labels()
    style.legend_below(fig, handles, ncol=4)
    style.save(fig, EXP)

    # Table: one block per machine (seconds at every N, then at the largest N interactions/s in
    # total and per core and the speed-up over simple), then S0's.
    ns_all = sorted({int(r["n"]) for _, rows, _ in ms for r in rows} | set(S0_N))
    cols = len(ns_all)
    lines = [r"\begin{tabular}{l" + "r" * cols + "rrr}", r"\toprule",
             r"engine & \multicolumn{" + str(cols) + r"}{c}{seconds per force evaluation at $N =$} & "
             r"\multicolumn{3}{c}{at $N = " + str(S0_N[-1]) + r"$ (or the largest run)} \\",
             rf"\cmidrule(lr){{2-{cols + 1}}} \cmidrule(lr){{{cols + 2}-{cols + 4}}}",
             " & " + " & ".join(str(n) for n in ns_all) + r" & inter./s & per core & vs simple \\"]

    def block(title, seconds, cores):
        """seconds: {engine: {n: s}}; cores: {engine: cores used}."""
        lines.append(r"\midrule")
        lines.append(rf"\multicolumn{{{cols + 4}}}{{l}}{{\emph{{{title}}}}} \\")
        for e, by_n in seconds.items():
            nmax = S0_N[-1] if S0_N[-1] in by_n else max(by_n)
            rate = nmax * (nmax - 1) / by_n[nmax]
            simple = seconds.get("simple", {}).get(nmax)
            cells = [rf"\code{{{paper.tex_escape(e)}}}"]
            cells += [f"{by_n[n]:.4g}" if n in by_n else "---" for n in ns_all]
            cells += [sci(rate), sci(rate / cores[e]),
                      f"{simple / by_n[nmax]:.1f}" if simple else "---"]
            lines.append(" & ".join(cells) + r" \\")

    for name, rows, meta in ms:
        t = table_of(rows)
        threads = max(int(r["threads"]) for r in rows)
        block(f"{paper.tex_escape(name)}, {threads} threads",
              {e: {n: float(r["seconds_per_eval"]) for n, r in t[e].items()} for e in ENGINES if e in t},
              {e: cores_used(next(iter(t[e].values()))) for e in ENGINES if e in t})
    block(rf"\seed{{0}}: Intel Core i7-5820K (6 cores), gcc 6.3",
          {e: dict(zip(S0_N, s)) for e, s in S0_SECONDS.items()},
          {e: 1 if e == "simple" else S0_CORES for e in S0_SECONDS})
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = paper.results_files(EXP)
    paper.write_tex("E07_table.tex", "\n".join(lines), __file__, sources)

    # Numbers of this machine (results/E07_cpu_engines.csv) for the text.
    name, rows, meta = ms[0]
    t = table_of(rows)
    # The numbers quoted are at S0's largest N (the targets are stated there), or at the
    # largest N measured when a profile stops short of it (smoke).
    sizes = {int(r["n"]) for r in rows}
    nmax = S0_N[-1] if S0_N[-1] in sizes else max(sizes)

    def rate(e, n=nmax):
        return float(t[e][n]["interactions_per_s"]) if e in t and n in t[e] else None

    def secs(e, n=nmax):
        return float(t[e][n]["seconds_per_eval"]) if e in t and n in t[e] else None

    simd, omp, simple, blk = rate("openmp-simd"), rate("openmp"), rate("simple"), rate("openmp-block")
    threads = int(t["openmp-simd"][nmax]["threads"]) if simd else 0
    loads = [float(r[k]) for r in rows for k in ("load_before", "load_after") if r.get(k)]
    s0_best = S0_SECONDS["openmp + block + opt."][-1]
    s0_best_rate = S0_N[-1] * (S0_N[-1] - 1) / s0_best
    macros = {
        **paper.run_macros("ESeven", meta),
        "ESevenCpu": paper.tex_escape(name),
        "ESevenNmax": str(nmax),
        "ESevenThreads": str(threads),
        "ESevenRepeats": rows[0]["repeats"],
        "ESevenSimdIsa": paper.tex_escape(t["openmp-simd"][nmax]["simd"]) if simd else "---",
        "ESevenSimdSeconds": f"{secs('openmp-simd'):.3g}" if simd else "---",
        "ESevenSimdRate": sci(simd) if simd else "---",
        "ESevenSimdPerCore": sci(simd / threads) if simd else "---",
        "ESevenSimdGflops": f"{float(t['openmp-simd'][nmax]['gflops']):.0f}" if simd else "---",
        "ESevenOpenmpRate": sci(omp) if omp else "---",
        "ESevenOpenmpSeconds": f"{secs('openmp'):.3g}" if omp else "---",
        "ESevenSimpleSeconds": f"{secs('simple'):.3g}" if simple else "---",
        "ESevenBlockRate": sci(blk) if blk else "---",
        "ESevenBlockOverOpenmp": f"{blk / omp:.2f}" if blk and omp else "---",
        # The prediction: cache tiles change little (within a factor 1.5 either way).
        "ESevenBlockVerdict": "---" if not (blk and omp) else
        ("as predicted" if 1 / 1.5 <= blk / omp <= 1.5 else "against the prediction"),
        "ESevenSimdOverOpenmp": f"{simd / omp:.1f}" if simd and omp else "---",
        "ESevenSimdOverSimple": f"{simd / simple:.0f}" if simd and simple else "---",
        "ESevenOpenmpOverSimple": f"{omp / simple:.1f}" if omp and simple else "---",
        "ESevenSZeroBestSeconds": f"{s0_best}",
        "ESevenSZeroBestRate": sci(s0_best_rate),
        "ESevenSZeroBestPerCore": sci(s0_best_rate / S0_CORES),
        "ESevenSZeroBestOverOpenmp": f"{S0_SECONDS['openmp'][-1] / s0_best:.1f}",
        "ESevenPerCoreGain": f"{simd / threads / (s0_best_rate / S0_CORES):.1f}" if simd else "---",
        "ESevenTotalGain": f"{s0_best / secs('openmp-simd'):.1f}" if simd and nmax == S0_N[-1] else "---",
        "ESevenSizes": ", ".join(str(n) for n in sorted(sizes)),
        "ESevenLoadMax": f"{max(loads):.2f}" if loads else "---",
        "ESevenSched": paper.sched_text(meta),
        "ESevenTargetRate": sci(TARGET_RATE),
        "ESevenTargetOverOpenmp": f"{TARGET_OVER_OPENMP}",
        "ESevenVerdict": "---" if not (simd and omp) else
        ("met" if simd >= TARGET_RATE and simd / omp >= TARGET_OVER_OPENMP else "not met"),
        "ESevenMachines": str(len(ms)),
        "ESevenOtherMachines": ", ".join(paper.tex_escape(n) for n, _, _ in ms[1:]) or "none",
    }
    # The second machine, when its results are there (the GPU host's CPU): the same numbers.
    other = {"Threads": "---", "SimdSeconds": "---", "SimdRate": "---", "SimdPerCore": "---",
             "SimdOverOpenmp": "---", "BlockOverOpenmp": "---", "TotalGain": "---", "N": "---",
             "OpenmpOverSimple": "---", "PerCoreVsFirst": "---"}
    if len(ms) > 1:
        t2 = table_of(ms[1][1])
        sizes2 = {int(r["n"]) for r in ms[1][1]}
        n2 = S0_N[-1] if S0_N[-1] in sizes2 else max(sizes2)
        if all(n2 in t2.get(e, {}) for e in ("openmp", "openmp-block", "openmp-simd")):
            simd2 = t2["openmp-simd"][n2]
            rate2 = {e: float(t2[e][n2]["interactions_per_s"]) for e in ("openmp", "openmp-block", "openmp-simd")}
            other.update({
                "Threads": simd2["threads"], "N": str(n2),
                "SimdSeconds": f"{float(simd2['seconds_per_eval']):.3g}",
                "SimdRate": sci(rate2["openmp-simd"]),
                "SimdPerCore": sci(rate2["openmp-simd"] / int(simd2["threads"])),
                "SimdOverOpenmp": f"{rate2['openmp-simd'] / rate2['openmp']:.1f}",
                "BlockOverOpenmp": f"{rate2['openmp-block'] / rate2['openmp']:.1f}",
                "TotalGain": f"{s0_best / float(simd2['seconds_per_eval']):.1f}" if n2 == S0_N[-1] else "---"})
            if n2 in t2.get("simple", {}):
                other["OpenmpOverSimple"] = f"{rate2['openmp'] / float(t2['simple'][n2]['interactions_per_s']):.1f}"
            if simd and n2 == nmax:
                other["PerCoreVsFirst"] = f"{rate2['openmp-simd'] / int(simd2['threads']) / (simd / threads):.2f}"
    # Interpretation, by a stated rule: a per-core rate below 60% of the 2-core machine's while
    # `openmp` gains less than 60% of the thread count over `simple`.
    slow = (other["PerCoreVsFirst"] != "---" and float(other["PerCoreVsFirst"]) < 0.6
            and other["OpenmpOverSimple"] != "---"
            and float(other["OpenmpOverSimple"]) < 0.6 * int(other["Threads"]))
    other["PerCoreNote"] = (": its virtual CPUs do not behave as independent cores under full "
                            "vector load" if slow else "")
    macros.update({f"ESevenOther{k}": v for k, v in other.items()})

    # The same timing in other experiments: the largest disagreement.
    shared = across_experiments(rows, meta)
    spread = {k: max(v.values()) / min(v.values()) - 1 for k, v in shared.items()}
    names = [e for e in [EXP] + ACROSS if any(e in v for v in shared.values())]
    worst = max(spread, key=spread.get) if spread else None
    macros.update({
        "ESevenAcrossTimings": str(len(shared)),
        "ESevenAcrossExperiments": ", ".join(ACROSS_LABELS.get(e, e[:3]) for e in names[1:]) or "none",
        "ESevenAcrossMaxPct": f"{100 * spread[worst]:.0f}" if worst else "---",
        "ESevenAcrossWorst": rf"\code{{{paper.tex_escape(worst[0])}}} ({worst[1]}, $N = {worst[2]}$)" if worst else "---",
        "ESevenAcrossLimitPct": f"{100 * ACROSS_LIMIT:.0f}",
        "ESevenAcrossVerdict": "---" if not worst else
        ("within it" if spread[worst] <= ACROSS_LIMIT else "beyond it"),
    })
    paper.write_macros("E07_numbers.tex", macros, __file__, sources + [f"results/{e}.csv" for e in names[1:]])
    print(f"[E07] wrote figures/{EXP}.pdf/.png, paper/generated/E07_table.tex, E07_numbers.tex",
          file=sys.stderr)


if __name__ == "__main__":
    main()
