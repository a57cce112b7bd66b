"""E07 at small N: where the OpenMP thread team starts to pay for a force evaluation, and what a
whole run of two bodies costs with the default engine against `simple`.

Reads results/E07_small_n.csv (one evaluation, N = 2 ... 4096, each engine on one thread, as it
ships and with the team forced at every N) and results/E07_kepler_run.csv (IAS15 on the Kepler
orbit, repeated runs with each engine); writes
  figures/E07_small_n.pdf, .png        (a) the time of one evaluation with the team forced, and
                                       as shipped, over one thread's, against N, per engine;
                                       (b) the Kepler runs' wall times, each run a dot, the
                                       medians as bars
  paper/generated/E07_small_numbers.tex  \\newcommand macros for the numbers the text quotes
"""
import statistics

import style
from matplotlib.lines import Line2D

from nbodylab import paper

EXP, KEPLER = "E07_small_n", "E07_kepler_run"
COLOURS = {"openmp": "tab:blue", "openmp-block": "tab:green", "openmp-simd": "tab:red",
           "octree": "tab:purple", "kdtree-nested-heap": "tab:brown"}
# The target (docs/experiments.md, E07 small N): the default engine within 1.2 times simple.
TARGET_RATIO = 1.2


def team_from(by_n):
    """The smallest N from which the forced team beats one thread at every larger N of the sweep
    ({N: (one thread, forced team)}); None where it never does."""
    found = None
    for n in sorted(by_n, reverse=True):
        one, team = by_n[n]
        if team >= one:
            break
        found = n
    return found


def main():
    rows, meta = paper.load_results(EXP)
    timed = {(r["engine"], r["precision"], r["env"], int(r["n"])): r for r in rows}
    seconds = {k: float(r["seconds_per_eval"]) for k, r in timed.items()}
    served = sorted({(e, p) for e, p, _, _ in seconds if e != "simple"}, key=lambda k: (k[1], k[0]))
    fig, (ax, kx) = style.figure(1, 2, height=2.8, width_ratios=[2, 1])
    firsts, shipped_worst = {}, {}
    for engine, precision in served:
        ns = sorted(n for e, p, env, n in seconds if (e, p, env) == (engine, precision, "1 thread"))
        one = {n: seconds[(engine, precision, "1 thread", n)] for n in ns}
        team = {n: seconds.get((engine, precision, "team at every N", n)) for n in ns}
        ships = {n: seconds.get((engine, precision, "all threads", n)) for n in ns}
        colour = COLOURS.get(engine, "tab:grey")
        style_of = "-" if precision == "double" else ":"
        ax.plot(ns, [team[n] / one[n] for n in ns], style_of, color=colour, marker="o", ms=3)
        style.timing_spread(ax, ns, [timed.get((engine, precision, "team at every N", n)) for n in ns],
                            lambda r, sec: sec / one[int(r["n"])], colour)
        ax.plot(ns, [ships[n] / one[n] for n in ns], style_of, color=colour, alpha=0.4, lw=3)
        firsts[(engine, precision)] = team_from({n: (one[n], team[n]) for n in ns})
        shipped_worst[(engine, precision)] = max(ships[n] / one[n] for n in ns if team[n] >= one[n]) if any(
            team[n] >= one[n] for n in ns) else None
    ax.axhline(1, color="black", lw=0.6)
    ax.set(xscale="log", yscale="log", xlabel="bodies N", ylabel="time / time on one thread",
           title=f"(a) one evaluation, {meta['host'].get('cpu_count')} cores")
    ax.set_xscale("log", base=2)
    style.log_ticks(ax)
    handles = [Line2D([], [], color=c, label=e) for e, c in COLOURS.items() if any(k[0] == e for k in served)]
    handles += [Line2D([], [], color="black", marker="o", ms=3, label="team at every N"),
                Line2D([], [], color="black", alpha=0.4, lw=3, label="as shipped"),
                Line2D([], [], color="black", ls=":", label="double-double")]
    style.legend_right(ax, handles=handles, fontsize="x-small")

    runs, _ = paper.load_results(KEPLER)
    runs, failed = paper.split_failures(runs)
    walls = {c: [float(r["wall_s"]) for r in runs if r["choice"] == c] for c in ("simple", "default")}
    medians = {c: statistics.median(w) if w else None for c, w in walls.items()}
    for x, c in enumerate(("simple", "default")):
        kx.plot([x] * len(walls[c]), walls[c], "o", color="tab:grey", ms=3)
        if medians[c]:
            kx.bar(x, medians[c], width=0.5, color="none", edgecolor="black")
    engine = next((r["engine"] for r in runs if r["choice"] == "default"), "default")
    kx.set(xticks=[0, 1], xticklabels=["simple", engine], ylabel="wall time [s]",
           title="(b) Kepler run, IAS15")
    kx.set_ylim(bottom=0)
    style.save(fig, EXP)

    double = [f for (e, p), f in firsts.items() if p == "double"]
    dd = [f for (e, p), f in firsts.items() if p == "dd"]
    ratio = medians["default"] / medians["simple"] if medians["simple"] and medians["default"] else None
    worst = [w for w in shipped_worst.values() if w is not None]
    at_two = {e: seconds.get((e, "double", "1 thread", 2)) for e in ("simple", "openmp-simd")}
    macros = {
        "ESevenSmallSimpleTwoNs": f"{at_two['simple'] * 1e9:.0f}" if at_two["simple"] else paper.MISSING,
        "ESevenSmallSimdTwoNs": f"{at_two['openmp-simd'] * 1e9:.0f}" if at_two["openmp-simd"] else paper.MISSING,
        "ESevenSmallFrom": str(max(double)) if double and None not in double else paper.MISSING,
        "ESevenSmallFromDd": str(max(dd)) if dd and None not in dd else paper.MISSING,
        "ESevenSmallShippedWorst": f"{max(worst):.2f}" if worst else paper.MISSING,
        "ESevenSmallRepeats": rows[0]["repeats"] if rows else paper.MISSING,
        "ESevenKeplerRuns": str(len(walls["simple"])),
        "ESevenKeplerFailed": str(len(failed)),
        "ESevenKeplerSimpleS": f"{medians['simple']:.3f}" if medians["simple"] else paper.MISSING,
        "ESevenKeplerDefaultS": f"{medians['default']:.3f}" if medians["default"] else paper.MISSING,
        "ESevenKeplerEngine": engine,
        "ESevenKeplerRatio": f"{ratio:.2f}" if ratio else paper.MISSING,
        "ESevenKeplerTarget": f"{TARGET_RATIO}",
        "ESevenKeplerVerdict": paper.MISSING if ratio is None else ("met" if ratio <= TARGET_RATIO else "not met"),
    }
    paper.write_macros("E07_small_numbers.tex", macros, __file__, [f"results/{EXP}.csv", f"results/{KEPLER}.csv"])


if __name__ == "__main__":
    main()
