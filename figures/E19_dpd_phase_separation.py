"""E19, seed S3's first DPD demonstration: two species separating. Frames of the species field on
the mid-plane, and the domain size against time with its growth exponent.

Reads results/E19_dpd_phase_separation.csv and _frames.csv.gz (the H100, experiments/dpd_demos.py);
writes
  figures/E19_dpd_phase_separation.pdf, .png   four frames and L(t) on log axes
  paper/generated/E19_phase_numbers.tex        \\newcommand macros for the numbers the text quotes
"""
import numpy as np
import species_frames
import style
from nbodylab import paper

EXP = "E19_dpd_phase_separation"
LATE = 0.25  # the exponent is fitted over t >= LATE t_end: the coarsening, past the first demixing


def main():
    rows, meta = paper.load_results(EXP)
    frames = paper.load_bulk(f"{EXP}_frames", EXP)
    t = np.array([float(r["t"]) for r in rows])
    L = np.array([float(r["L"]) for r in rows])
    times = sorted({float(r["t"]) for r in frames})
    # The frames nearest 0, 1/8, 1/2 and all of the run: L doubles about twice between them.
    shown = sorted({min(times, key=lambda x: abs(x - f * times[-1])) for f in (0, 1 / 8, 1 / 2, 1)})
    fig = style.plt.figure(figsize=(style.TEXT_WIDTH, 2.2), layout="constrained")
    grid = fig.add_gridspec(1, 5, width_ratios=[1, 1, 1, 1, 1.6])
    for k, when in enumerate(shown):
        ax = fig.add_subplot(grid[0, k])
        species_frames.draw(ax, frames, when)
    ax = fig.add_subplot(grid[0, 4])
    ax.loglog(t[t > 0], L[t > 0], "o", ms=3, color="tab:blue", label="measured")
    late = t >= LATE * t.max()
    slope, icept = np.polyfit(np.log(t[late]), np.log(L[late]), 1)
    ax.loglog(t[late], np.exp(icept) * t[late] ** slope, "-", color="tab:red", label=f"$t^{{{slope:.2f}}}$")
    ax.set_xlabel("time $t$")
    ax.set_ylabel("domain size $L$")
    ax.legend(fontsize="small")
    style.log_ticks(ax)
    style.save(fig, EXP)

    summary = meta["parameters"]["summary"]
    macros = {"EnineteenPhaseGpu": paper.gpu_name(meta), "EnineteenPhaseN": str(summary["n"]), "EnineteenPhaseExponent": f"{slope:.2f}",
              "EnineteenPhaseLstart": f"{L[0]:.1f}", "EnineteenPhaseLend": f"{L[-1]:.1f}",
              "EnineteenPhaseTend": f"{t[-1]:g}", "EnineteenPhaseFitFrom": f"{LATE * t.max():g}",
              "EnineteenPhaseMsPerStep": f"{1e3 * summary['seconds_per_step']:.2f}",
              "EnineteenPhaseSteps": str(summary["steps_taken"])}
    paper.write_macros("E19_phase_numbers.tex", macros, __file__, [f"results/{EXP}.csv", paper.bulk_file(f"{EXP}_frames")])


if __name__ == "__main__":
    main()
