"""E26 figure and numbers: the distributed octree (mpi-octree) on CPU ranks, one thread per rank.

Reads results/E26_distributed_tree.csv; writes
  figures/E26_distributed_tree.pdf, .png
      (a) the time of one evaluation against the ranks P (strong scaling at fixed N, weak scaling
          at fixed bodies per rank), rank 0's exchange apart, with the parallel efficiency in the
          labels; beyond the machine's cores the ranks share them (marked);
      (b) the bytes a rank sends per evaluation against P, one colour per N (the mean over the
          ranks), and dotted, the part beyond the bodies sent to their domains and their sums
          back: the locally essential trees, the top cells' moments, the counts and the cuts;
      (c) the 99th-percentile force error against P (dotted: the median), one colour per N: the
          result is the one-process tree's bit for bit, so the error does not move.
      Shaded in (b) and (c): more ranks than the machine's cores, which they share.
  paper/generated/E26_numbers.tex     \\newcommand macros for the numbers the text quotes
"""
import math

import style

from nbodylab import mpi, paper

pow2 = style.power_of_two_text  # "2^{k}" in TeX

EXP = "E26_distributed_tree"
COLOURS = ["tab:blue", "tab:red", "tab:green", "tab:purple", "tab:brown"]


def below(ax):
    """The panel's legend under its x axis."""
    ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.22))


def by_ranks(rows, scaling, n=None):
    """{P: row} of one scaling (and one N, where given)."""
    return {int(r["ranks"]): r for r in rows if r["scaling"] == scaling and (n is None or int(r["n"]) == n)}


def sizes(rows, scaling):
    return sorted({int(r["n"]) for r in rows if r["scaling"] == scaling})


def essential_bytes(r):
    """The bytes a rank sends beyond the bodies and their sums (body_bytes): the essential trees,
    the top cells' moments, the counts and the cuts."""
    return float(r["exchange_bytes"]) - float(r["body_bytes"])


def efficiency(rows, scaling):
    """{P: efficiency}: strong T(1) / (P T(P)); weak per body term, rate(P) / (P rate(1)), rate =
    N terms_per_body / T."""
    pts = by_ranks(rows, scaling)
    if 1 not in pts:
        return {}
    def rate(r):
        return int(r["n"]) * float(r["terms_per_body"]) / float(r["seconds_per_eval"])
    if scaling == "strong":
        t1 = float(pts[1]["seconds_per_eval"])
        return {p: t1 / (p * float(r["seconds_per_eval"])) for p, r in pts.items()}
    return {p: rate(r) / (p * rate(pts[1])) for p, r in pts.items()}


def main():
    rows, meta = paper.load_results(EXP)
    cores = meta["host"].get("cpu_count") or mpi.cores()
    fig, (a, b, c) = style.figure(1, 3, height=3.0)

    # (a) time against ranks
    for scaling, colour, marker in [("strong", "tab:blue", "o"), ("weak", "tab:red", "s")]:
        pts = by_ranks(rows, scaling)
        if not pts:
            continue
        ps = sorted(pts)
        eff = efficiency(rows, scaling)
        n0 = int(pts[ps[0]]["n"]) // (1 if scaling == "strong" else ps[0])
        what = f"$N = {pow2(n0)}$" if scaling == "strong" else f"${pow2(n0)}$ a rank"
        a.plot(ps, [float(pts[p]["seconds_per_eval"]) for p in ps], marker=marker, color=colour,
               label=f"{scaling}, {what}" + (f": {eff[ps[-1]]:.0%} at P = {ps[-1]}" if len(ps) > 1 else ""))
        a.plot(ps, [float(pts[p]["exchange_seconds"]) for p in ps], marker=marker, color=colour, ls=":", mfc="none")
        style.timing_spread(a, ps, [pts[p] for p in ps], color=colour)
    a.set_yscale("log")
    a.set_xticks(sorted({int(r["ranks"]) for r in rows if r["scaling"] in ("strong", "weak")}))
    a.set_xlabel("ranks P")
    a.set_ylabel("seconds per evaluation")
    a.set_title("(a) time; dotted: exchange", fontsize=8)
    below(a)

    # (b) bytes sent per rank against ranks, (c) the error against ranks: one colour per N
    all_ps = set()
    for n, colour in zip(sizes(rows, "ranks"), COLOURS):
        pts = by_ranks(rows, "ranks", n)
        all_ps |= set(pts)
        ps = sorted(p for p in pts if p > 1)
        if ps:
            b.plot(ps, [float(pts[p]["exchange_bytes"]) / 1e6 for p in ps], "o-", color=colour,
                   label=f"$N = {pow2(n)}$")
            b.plot(ps, [essential_bytes(pts[p]) / 1e6 for p in ps], "D:",
                   color=colour, mfc="none")
        ps = sorted(pts)
        c.plot(ps, [float(pts[p]["error_p99"]) for p in ps], "o-", color=colour, label=f"$N = {pow2(n)}$")
        c.plot(ps, [float(pts[p]["error_median"]) for p in ps], "s:", color=colour, mfc="none")
    for ax, title in ((b, "(b) MB a rank sends; dotted: beyond\nthe bodies and sums (essential trees)"),
                      (c, "(c) force error against direct\nsummation (dotted: median)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(sorted(all_ps) or [1])
        ax.set_xticklabels([str(p) for p in sorted(all_ps)] or ["1"])
        ax.set_xlabel("ranks P")
        ax.set_title(title, fontsize=8)
        if any(p > cores for p in all_ps):  # shaded: more ranks than cores, which they share
            ax.axvspan(cores * 1.41, max(all_ps) * 1.41, color="0.9", zorder=0)
        if all_ps:
            below(ax)
    style.save(fig, EXP)
    write_numbers(rows, meta)


def essential_growth(rows):
    """Macros for how the bytes beyond the bodies and their sums grow: their exponent in N on 2 ranks (a
    surface term gives 2/3), and at the largest N, the most ranks' over 2 ranks'."""
    ns = sizes(rows, "ranks")
    two = [by_ranks(rows, "ranks", n).get(2) for n in ns]
    out = {"ETwentySixEssentialExponent": paper.MISSING, "ETwentySixEssentialMostOverTwo": paper.MISSING}
    if len(ns) > 1 and all(two):
        out["ETwentySixEssentialExponent"] = f"{math.log(essential_bytes(two[-1]) / essential_bytes(two[0])) / math.log(ns[-1] / ns[0]):.2f}"
    pts = by_ranks(rows, "ranks", ns[-1]) if ns else {}
    if 2 in pts and max(pts) > 2:
        out["ETwentySixEssentialMostOverTwo"] = f"{essential_bytes(pts[max(pts)]) / essential_bytes(pts[2]):.2f}"
    return out


def write_numbers(rows, meta):
    M = paper.MISSING
    largest = max(sizes(rows, "ranks"), default=None)
    strong, weak, pts = efficiency(rows, "strong"), efficiency(rows, "weak"), by_ranks(rows, "ranks", largest)
    strong_pts = by_ranks(rows, "strong")
    two = max((p for p in strong if p > 1), default=None)
    errors = {float(r["error_p99"]) for r in pts.values()}  # at the largest N
    most_p = max(pts, default=None)
    macros = {
        "ETwentySixStrongN": str(strong_pts[1]["n"]) if 1 in strong_pts else M,
        "ETwentySixStrongP": str(two) if two else M,
        "ETwentySixStrongEfficiency": f"{100 * strong[two]:.0f}\\,\\%" if two else M,
        "ETwentySixWeakEfficiency": f"{100 * weak[max(weak)]:.0f}\\,\\%" if len(weak) > 1 else M,
        "ETwentySixRanksN": str(pts[most_p]["n"]) if most_p else M,
        "ETwentySixMostRanks": str(most_p) if most_p else M,
        "ETwentySixErrorPninetynine": paper.tex_sci(min(errors)) if errors else M,
        "ETwentySixErrorsAgree": ("the same" if len(errors) == 1 else "different") if errors else M,
        "ETwentySixBytesMostRanks": f"{float(pts[most_p]['exchange_bytes']) / 1e6:.2f}" if most_p else M,
        "ETwentySixEssentialShare": (f"{100 * essential_bytes(pts[most_p]) / float(pts[most_p]['exchange_bytes']):.0f}\\,\\%"
                                     if most_p and most_p > 1 else M),
        **essential_growth(rows),
        **paper.run_macros("ETwentySix", meta),
    }
    paper.write_macros("E26_numbers.tex", macros, __file__, [f"results/{EXP}.csv"])


if __name__ == "__main__":
    main()
