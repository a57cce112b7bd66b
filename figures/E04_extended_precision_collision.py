"""E04 figure and numbers: seed S0's Fig. 3, E03's collision in double-double with compensated
sums, and three high-order methods again in quad as a cross-check.

Reads results/E04_extended_precision_collision.csv (+ .meta.json); writes
  figures/E04_extended_precision_collision.pdf, .png
  paper/generated/E04_table.tex    per method: smallest max|dE/E0| reached and its cost
  paper/generated/E04_numbers.tex  \\newcommand macros for every number the text quotes
"""
import sys

import matplotlib.pyplot as plt

import style
from nbodylab import methods, paper

EXP = "E04_extended_precision_collision"
FLOOR = 1e-34  # exact zeros are drawn here (log axes)
TARGET = 1e-24  # the target bound on the tightest setting's max|dE/E0| (docs/experiments.md, E04)
QUANTITIES = [("dE_rel", r"$|\Delta E / E_0|$ at $T_{\max}$"),
              ("P_rel", r"$|\Delta \mathbf{P}|\,/\sum_i m_i|\mathbf{v}_i|$"),
              ("L_rel", r"$|\Delta \mathbf{L}|\,/\sum_i m_i|\mathbf{r}_i\times\mathbf{v}_i|$")]


def setting(r):
    return f"tol {r['tol']}" if r.get("tol") else f"h = {r['dt']}"


def cross_verdict(pairs):
    """What the quad cross-check says: pairs (quad row, dd row) whose largest energy errors agree
    to 1 part in 1e3 show that dd's round-off did not matter there; where they differ, the dd run
    is at its round-off floor (quad, 2^-113, goes further)."""
    differ = [(q, d) for q, d in pairs
              if abs(q["dE_rel_max"] - d["dE_rel_max"]) > 1e-3 * max(abs(q["dE_rel_max"]), abs(d["dE_rel_max"]))]
    same = len(pairs) - len(differ)
    text = f"{same} of {len(pairs)} pairs agree to three digits or better"
    if differ:
        text += "; they differ for " + ", ".join(
            rf"\code{{{paper.tex_escape(q['integrator'])}}} at {paper.tex_escape(setting(q))}, where dd "
            rf"stops at its round-off floor ({paper.tex_sci(abs(d['dE_rel_max']))}) and quad goes on to "
            rf"{paper.tex_sci(max(abs(q['dE_rel_max']), FLOOR))}" for q, d in differ)
    return text + "."


def main():
    rows, meta = paper.load_results(EXP)
    rows, failed = paper.split_failures(rows)
    for r in rows:
        for k in ("fevals", "dE_rel", "dE_rel_max", "P_rel", "L_rel", "wall_s"):
            r[k] = float(r[k])
    dd = [r for r in rows if r["precision"] == "dd"]
    quad = [r for r in rows if r["precision"] == "quad"]
    ms = sorted({r["integrator"] for r in dd}, key=methods.sort_key)

    keys = [(m, 5 if m.startswith("adams") else None) for m in ms]  # Adams: order 5 (the marker)
    quad_handle = plt.Line2D([], [], color="k", marker="o", ms=8, mfc="none", lw=0, label="the same setting in quad")
    fig, panels, draw = style.method_grid(keys, [t for _, t in QUANTITIES], more_handles=[quad_handle])
    for key in keys:
        sel = sorted((r for r in dd if r["integrator"] == key[0]), key=lambda r: r["fevals"])
        for col, (q, _) in enumerate(QUANTITIES):
            draw(key, col, [r["fevals"] for r in sel], [max(abs(r[q]), FLOOR) for r in sel])
            for r in (x for x in quad if x["integrator"] == key[0]):  # the quad cross-check
                panels[style.method_group(key[0])][col].plot(
                    r["fevals"], max(abs(r[q]), FLOOR), color=methods.style(key[0])[0], marker="o", ms=8,
                    mfc="none", mew=1.2)
    for row in panels.values():
        for ax in row:
            style.log_ticks(ax, most=5)
    for ax in list(panels.values())[-1]:
        ax.set_xlabel("force evaluations")
    style.save(fig, EXP)

    # Table: per method, its best run (smallest max|dE/E0|) and what it cost.
    lines = [r"\begin{tabular}{llrrr}", r"\toprule",
             r"method & setting & force evaluations & $\max|\Delta E/E_0|$ & wall [s] \\", r"\midrule"]
    best_rows = []
    for m in ms:
        r = min((x for x in dd if x["integrator"] == m), key=lambda x: abs(x["dE_rel_max"]))
        best_rows.append(r)
        lines.append(rf"\code{{{paper.tex_escape(m)}}} & {paper.tex_escape(setting(r))} & "
                     f"{int(r['fevals']):,}".replace(",", r"\,") +
                     rf" & {paper.tex_sci(max(abs(r['dE_rel_max']), FLOOR))} & {r['wall_s']:.1f} \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{EXP}.csv"]
    paper.write_tex("E04_table.tex", "\n".join(lines), __file__, sources)

    best = min(dd, key=lambda x: abs(x["dE_rel_max"]))
    # The cross-check: for every quad run, the dd run at the same method and setting.
    agree = []
    for q in quad:
        twin = [r for r in dd if r["integrator"] == q["integrator"] and setting(r) == setting(q)]
        if twin:
            agree.append((q, twin[0]))
    cross = "; ".join(
        rf"\code{{{paper.tex_escape(q['integrator'])}}} at {paper.tex_escape(setting(q))}: "
        rf"{paper.tex_sci(max(abs(q['dE_rel_max']), FLOOR))} in quad, "
        rf"{paper.tex_sci(max(abs(d['dE_rel_max']), FLOOR))} in dd" for q, d in agree) or "none run"
    reached = sorted({r["integrator"] for r in dd if abs(r["dE_rel_max"]) <= TARGET}, key=methods.sort_key)
    macros = {
        **paper.run_macros("EFour", meta),
        "EFourN": str(paper.fixed_flags(meta).get("n")),
        "EFourRuns": str(len(rows)),
        "EFourBestMax": paper.tex_sci(max(abs(best["dE_rel_max"]), FLOOR)),
        "EFourBestMethod": rf"\code{{{paper.tex_escape(best['integrator'])}}}",
        "EFourBestSetting": paper.tex_escape(setting(best)),
        "EFourBestFevals": f"{int(best['fevals']):,}".replace(",", r"\,"),
        "EFourTarget": paper.tex_sci(TARGET, 1),
        "EFourReached": ", ".join(rf"\code{{{paper.tex_escape(m)}}}" for m in reached) or "none",
        "EFourVerdict": "holds" if abs(best["dE_rel_max"]) <= TARGET else "does not hold",
        "EFourCross": cross,
        "EFourCrossVerdict": cross_verdict(agree),
        "EFourWallTotal": f"{sum(r['wall_s'] for r in rows):.0f}",
        "EFourFailedText": paper.failed_text(failed, lambda r: f"{r['integrator']} {r['precision']} {setting(r)}"),
    }
    paper.write_macros("E04_numbers.tex", macros, __file__, sources)
    print(f"[E04] wrote figures/{EXP}.pdf/.png, paper/generated/E04_table.tex, E04_numbers.tex",
          file=sys.stderr)


if __name__ == "__main__":
    main()
