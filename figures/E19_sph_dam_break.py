"""E19 figure and table, SPH half: the 2-D dam break (a water column 1 m wide and 2 m high in a
tank 4 m wide), the front position against time at six particle spacings (three on this
machine's CPU, three finer on the H100), beside the experiments of Koshizuka and Oka (1996) and of
Martin and Moyce (1952) as the E19 spec tabulates them.

Reads results/E19_sph_dam_break.csv and its _timeseries.csv.gz (`make all`),
results/E19_sph_dam_break_gpu.csv and its _timeseries (committed from the H100), and
results/E19_sph_dam_break_dualsphysics.csv (DualSPHysics's own run of the case, committed); writes
  figures/E19_sph_dam_break.pdf, .png   front x(t) per spacing with the experiments; the same in
                                        Martin and Moyce's variables Z = x / L, T = t sqrt(2 g / L)
  paper/generated/E19_sph_table.tex     the front at Koshizuka and Oka's times, per spacing
  paper/generated/E19_sph_numbers.tex   \\newcommand macros for the numbers the text quotes
"""
import math

import style
from nbodylab import paper

EXP, GPU_EXP, DSPH_EXP = "E19_sph_dam_break", "E19_sph_dam_break_gpu", "E19_sph_dam_break_dualsphysics"
G, L, H, TANK = 9.81, 1.0, 2.0, 4.0  # gravity, the column's width and height, the tank's width (m)
# The E19 spec's tables: Koshizuka and Oka (t s, x m), Martin and Moyce (T, Z).
KOSHIZUKA_OKA = [(0.266, 1.464), (0.414, 2.123), (0.565, 3.034), (0.751, 4.132)]
MARTIN_MOYCE = [(1.219, 1.474), (1.997, 2.292), (2.547, 2.995), (3.345, 4.134)]
T_SCALE = math.sqrt(2 * G / L)  # T = t sqrt(2 g / L)
# Every record of the same collapse (a column twice as high as wide) at hand, to tell the
# computation's lead from one record's: [(t s, x m)] scaled to L = 1 m, by the key of its macro.
#   Koshizuka and Oka as DualSPHysics ships them beside its CaseDambreakVal2D
#     (examples/main/01_DamBreak/EXP_X-DamTipPosition_Koshizula&Oka1996.txt): the spec's four points
#     are among them;
#   Koshizuka and Oka as PySPH digitized them (pysph/examples/db_exp_data.py, Z against T);
#   Martin and Moyce's two columns of their Figure 3, a = 2.25 in (the spec's points) and
#     a = 1.125 in, as PySPH digitized them.
EXPERIMENT_RECORDS = {
    "KoshizukaOkaDualSPHysics":
     [(0.092, 1.128), (0.191, 1.244), (0.266, 1.464), (0.322, 1.695), (0.368, 1.903), (0.414, 2.123),
      (0.447, 2.365), (0.496, 2.584), (0.522, 2.804), (0.565, 3.034), (0.594, 3.219), (0.637, 3.462),
      (0.669, 3.704), (0.702, 3.900), (0.751, 4.132)],
    "KoshizukaOkaPySPH":
     [(T / T_SCALE, Z * L) for T, Z in [(0.381, 1.111), (0.769, 1.252), (1.153, 1.505), (1.537, 1.892),
                                         (1.935, 2.241), (2.323, 2.615), (2.719, 3.003), (3.096, 3.624)]],
    "MartinMoyceLarge":  # a = 2.25 in
     [(T / T_SCALE, Z * L) for T, Z in [(0.832, 1.217), (1.219, 1.474), (1.997, 2.292), (2.547, 2.995),
                                         (3.345, 4.134)]],
    "MartinMoyceSmall":  # a = 1.125 in
     [(T / T_SCALE, Z * L) for T, Z in [(0.849, 1.245), (1.212, 1.443), (1.602, 1.884), (2.283, 2.689),
                                         (2.950, 3.728)]],
}


def front_at(series, t):
    """The front at time t, linear between the samples around it (None outside them)."""
    for (t0, x0), (t1, x1) in zip(series, series[1:]):
        if t0 <= t <= t1:
            return x0 + (x1 - x0) * (t - t0) / (t1 - t0)
    return None


def time_at(series, x):
    """The first time the front reaches x, linear between the samples around it (None if never)."""
    for (t0, x0), (t1, x1) in zip(series, series[1:]):
        if x0 <= x <= x1:
            return t0 + (t1 - t0) * (x - x0) / (x1 - x0)
    return None


def main():
    rows, failed, ts = [], [], []
    for exp in (EXP, GPU_EXP):
        done, bad = paper.split_failures(paper.load_results(exp)[0])
        rows += done
        failed += bad
        ts += paper.load_timeseries(exp)
    spacings = sorted({float(r["dx"]) for r in rows}, reverse=True)  # coarse to fine
    series = {dx: sorted((float(r["t"]), float(r["front"])) for r in ts if float(r["dx"]) == dx) for dx in spacings}
    colours = dict(zip(spacings, ["tab:cyan", "tab:blue", "tab:purple", "tab:red", "tab:orange", "black"]))
    # DualSPHysics's front per spacing, moved into the case's frame: its lattice starts on its wall
    # particles' line, half a spacing behind the wall face from which the case measures x.
    dsph_rows = paper.load_results(DSPH_EXP)[0]
    dsph = {dp: sorted((float(r["t"]), float(r["front"]) - dp / 2) for r in dsph_rows if float(r["dp"]) == dp)
            for dp in sorted({float(r["dp"]) for r in dsph_rows}, reverse=True)}

    fig, axes = style.figure(1, 2, height=3.0)
    ax = axes[0]
    for dx in spacings:
        ax.plot(*zip(*series[dx]), color=colours[dx], lw=1.2, label=f"SPH, dx = {dx:g} m")
    for dp, grey in zip(dsph, ["silver", "grey", "dimgrey"]):
        ax.plot(*zip(*dsph[dp]), color=grey, ls="--", lw=1.2, label=f"DualSPHysics, dp = {dp:g} m")
    ax.plot(*zip(*KOSHIZUKA_OKA), "ks", ms=5, mfc="none", label="Koshizuka and Oka (1996)")
    t_end = max(t for s in series.values() for t, _ in s)
    ax.plot([0, t_end], [L, L + 2 * math.sqrt(G * H) * t_end], "k:", lw=0.8, label="Ritter's inviscid front")
    ax.axhline(TANK, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("front position x (m)")
    ax.set_ylim(0.9, TANK + 0.5)
    ax = axes[1]
    for dx in spacings:
        ax.plot([t * T_SCALE for t, _ in series[dx]], [x / L for _, x in series[dx]], color=colours[dx], lw=1.2)
    ax.plot(*zip(*MARTIN_MOYCE), "k^", ms=5, mfc="none", label="Martin and Moyce (1952)")
    ax.plot([t * T_SCALE for t, _ in KOSHIZUKA_OKA], [x / L for _, x in KOSHIZUKA_OKA], "ks", ms=5, mfc="none")
    ax.set_xlabel(r"$T = t\,\sqrt{2g/L}$")
    ax.set_ylabel(r"$Z = x / L$")
    ax.set_ylim(0.9, TANK / L + 0.5)
    handles = axes[0].get_legend_handles_labels()[0] + ax.get_legend_handles_labels()[0]
    style.legend_below(fig, handles, ncol=3, fontsize="small")
    style.save(fig, EXP)

    # The front at each of Koshizuka and Oka's times before it meets the far wall.
    finest = spacings[-1] if spacings else None
    times = [(t, x) for t, x in KOSHIZUKA_OKA if x < TANK]
    lines = [r"\begin{tabular}{rr" + "r" * len(spacings) + "r}", r"\toprule",
             r"$t$ (s) & Koshizuka--Oka & " + " & ".join(rf"$dx = {dx:g}$" for dx in spacings) + r" & finest over K--O \\",
             r"\midrule"]
    deviations = []
    for t, x in times:
        ours = [front_at(series[dx], t) for dx in spacings]
        dev = ours[-1] / x - 1 if ours and ours[-1] is not None else None
        if dev is not None:
            deviations.append(dev)
        lines.append(f"{t:.3f} & {x:.3f} & " + " & ".join(f"{v:.3f}" if v is not None else paper.MISSING for v in ours)
                     + (rf" & {100 * dev:+.1f}\,\% \\" if dev is not None else rf" & {paper.MISSING} \\"))
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [s for e in (EXP, GPU_EXP) for s in (f"results/{e}.csv", paper.timeseries_file(e))]
    sources.append(f"results/{DSPH_EXP}.csv")
    paper.write_tex("E19_sph_table.tex", "\n".join(lines), __file__, sources)

    by_dx = {float(r["dx"]): r for r in rows}
    fine = by_dx.get(finest)
    macros = {
        "EnineteenSphFinestDx": f"{finest:g}" if finest else paper.MISSING,
        "EnineteenSphFinestParticles": fine["n"] if fine else paper.MISSING,
        "EnineteenSphFinestFluid": fine["fluid"] if fine else paper.MISSING,
        "EnineteenSphFinestSteps": fine["steps_taken"] if fine else paper.MISSING,
        "EnineteenSphFinestMsPerStep": f"{1e3 * float(fine['seconds_per_step']):.2f}" if fine else paper.MISSING,
        "EnineteenSphFinestWhere": (paper.MISSING if not fine else "the H100" if fine.get("device")
                                    else f"{fine['threads']} thread(s) of this machine"),
        "EnineteenSphWorstLead": f"{100 * max(deviations):.0f}" if deviations else paper.MISSING,
        "EnineteenSphBestLead": f"{100 * min(deviations):.0f}" if deviations else paper.MISSING,
        "EnineteenSphMassChangeMax": f"{max(abs(float(r['mass_change'])) for r in rows):g}" if rows else paper.MISSING,
        "EnineteenSphEscaped": str(sum(int(r["escaped"]) for r in rows)) if rows else paper.MISSING,
        "EnineteenSphDensityDeviationMax": (f"{100 * max(float(r['density_deviation']) for r in rows):.1f}"
                                            if rows else paper.MISSING),
        "EnineteenSphFailed": str(len(failed)),
    }
    # Convergence: the largest change of the front at Koshizuka and Oka's times between the two
    # finest spacings, relative.
    if len(spacings) >= 2:
        changes = [abs(front_at(series[spacings[-1]], t) / front_at(series[spacings[-2]], t) - 1) for t, _ in times
                   if front_at(series[spacings[-1]], t) and front_at(series[spacings[-2]], t)]
        macros["EnineteenSphLastRefinementChange"] = f"{100 * max(changes):.1f}" if changes else paper.MISSING
    else:
        macros["EnineteenSphLastRefinementChange"] = paper.MISSING
    # How much earlier than measured the finest run's front reaches each measured position.
    early = [t - time_at(series[finest], x) for t, x in times if finest and time_at(series[finest], x) is not None]
    macros["EnineteenSphEarlyMinMs"] = f"{1e3 * min(early):.0f}" if early else paper.MISSING
    macros["EnineteenSphEarlyMaxMs"] = f"{1e3 * max(early):.0f}" if early else paper.MISSING
    # The same lead in time over every record, at its points from 0.15 s (where the lead has formed)
    # to the far wall; and at the first point of DualSPHysics's record, before it forms.
    for key, points in EXPERIMENT_RECORDS.items():
        ahead = [t - time_at(series[finest], x) for t, x in points
                 if 0.15 <= t and x < TANK and finest and time_at(series[finest], x) is not None]
        macros[f"EnineteenSphAhead{key}"] = f"{1e3 * min(ahead):.0f}--{1e3 * max(ahead):.0f}" if ahead else paper.MISSING
    first_t, first_x = EXPERIMENT_RECORDS["KoshizukaOkaDualSPHysics"][0]
    first = front_at(series[finest], first_t) if finest else None
    macros["EnineteenSphFirstRecordT"] = f"{first_t:.3f}"
    macros["EnineteenSphFirstRecordX"] = f"{first_x:.3f}"
    macros["EnineteenSphFirstRecordOurs"] = f"{first:.3f}" if first is not None else paper.MISSING
    # DualSPHysics's lead over Koshizuka and Oka at their times, at its finest spacing, and its
    # largest difference from nbody-lab's front at the same spacing.
    if dsph:
        dp = min(dsph)
        theirs = [(front_at(dsph[dp], t), x, front_at(series.get(dp, []), t)) for t, x in times]
        macros["EnineteenSphDualSPHysicsDp"] = f"{dp:g}"
        macros["EnineteenSphDualSPHysicsLeads"] = ", ".join(f"{100 * (d / x - 1):+.0f}" for d, x, _ in theirs)
        diffs = [abs(d / o - 1) for d, _, o in theirs if o is not None]
        macros["EnineteenSphDualSPHysicsDiff"] = f"{100 * max(diffs):.1f}" if diffs else paper.MISSING
        coarser = sorted(dsph)[1] if len(dsph) > 1 else None
        changes = [abs(front_at(dsph[dp], t) / front_at(dsph[coarser], t) - 1) for t, _ in times] if coarser else []
        macros["EnineteenSphDualSPHysicsCoarserDp"] = f"{coarser:g}" if coarser else paper.MISSING
        macros["EnineteenSphDualSPHysicsLastChange"] = f"{100 * max(changes):.1f}" if changes else paper.MISSING
    else:
        for k in ("Dp", "Leads", "Diff", "CoarserDp", "LastChange"):
            macros[f"EnineteenSphDualSPHysics{k}"] = paper.MISSING
    paper.write_macros("E19_sph_numbers.tex", macros, __file__, sources)


if __name__ == "__main__":
    main()
