"""E19, seed S3's second DPD demonstration: a Rayleigh-Taylor instability. Frames of the species
field on (x, z); the amplitudes of the interface's longest waves against time (the first start); their growth
rates (mean and spread over the independent starts) against the inviscid sqrt(A g k).

Reads results/E19_dpd_rayleigh_taylor.csv and _frames.csv.gz (the H100, experiments/dpd_demos.py);
writes
  figures/E19_dpd_rayleigh_taylor.pdf, .png   four frames, the amplitudes (log), the rates
  paper/generated/E19_rt_numbers.tex          \\newcommand macros for the numbers the text quotes
"""
import numpy as np
import species_frames
import style
from nbodylab import paper

EXP = "E19_dpd_rayleigh_taylor"
START = 4.0      # the fit starts after the random start has relaxed (t >= START)
NOISE = 2.0      # ... and once a wave is this many times its amplitude at the start
SATURATED = 0.4  # ... and ends before it reaches this fraction of its largest amplitude


def growth_rate(t, a):
    """The exponential growth rate of a(t) in its linear stage, by least squares on log a; the
    window (first, last) times; None when the stage has fewer than four samples."""
    floor = NOISE * max(a[t <= START].mean(), 1e-12)
    top = SATURATED * a.max()
    first = next((k for k in range(len(t)) if t[k] >= START and a[k] > floor), None)
    if first is None:
        return None
    last = next((k for k in range(first, len(t)) if a[k] > top), len(t)) - 1
    if last - first < 3:
        return None
    rate = np.polyfit(t[first:last + 1], np.log(a[first:last + 1]), 1)[0]
    return rate, t[first], t[last]


def main():
    rows, meta = paper.load_results(EXP)
    frames = paper.load_bulk(f"{EXP}_frames", EXP)
    modes = sorted({int(r["m"]) for r in rows})
    seeds = sorted({int(r["seed"]) for r in rows})

    def series(m, seed):
        mine = [r for r in rows if int(r["m"]) == m and int(r["seed"]) == seed]
        return np.array([float(r["t"]) for r in mine]), np.array([float(r["amplitude"]) for r in mine])

    inviscid = {m: float(next(r["sqrt_Agk"] for r in rows if int(r["m"]) == m)) for m in modes}
    fits = {m: [f for seed in seeds if (f := growth_rate(*series(m, seed)))] for m in modes}
    # A wave's rate: the mean over the starts whose linear stage could be fitted, and their spread.
    rates = {m: (np.mean([f[0] for f in fits[m]]), np.std([f[0] for f in fits[m]]), len(fits[m])) for m in modes if fits[m]}

    times = sorted({float(r["t"]) for r in frames})
    shown = [times[j] for j in np.linspace(0, min(len(times) - 1, 3), 4).round().astype(int)] if times else []
    fig = style.plt.figure(figsize=(style.TEXT_WIDTH, 3.6), layout="constrained")
    grid = fig.add_gridspec(2, 4)
    for j, when in enumerate(shown):
        ax = fig.add_subplot(grid[0, j])
        species_frames.draw(ax, frames, when)
    colours = style.plt.cm.viridis(np.linspace(0, 0.9, len(modes)))
    ax = fig.add_subplot(grid[1, :2])
    for m, c in zip(modes, colours):  # the first start's waves, its fitted stage marked
        t, a = series(m, seeds[0])
        ax.semilogy(t, a, color=c, lw=1, label=f"$m = {m}$")
        fit = growth_rate(t, a)
        if fit:
            inside = (t >= fit[1]) & (t <= fit[2])
            ax.semilogy(t[inside], a[inside], "o", color=c, ms=2)
    ax.set_xlabel("time $t$")
    ax.set_ylabel(f"wave amplitude (seed {seeds[0]})")
    ax.legend(fontsize="x-small", ncol=2)
    ax = fig.add_subplot(grid[1, 2:])
    fitted = sorted(rates)
    ax.errorbar([inviscid[m] for m in fitted], [rates[m][0] for m in fitted], yerr=[rates[m][1] for m in fitted], fmt="o",
                color="tab:blue", ms=3, capsize=2, label=f"measured ({len(seeds)} starts)")
    top = max(inviscid.values()) * 1.1
    ax.plot([0, top], [0, top], "--", color="tab:grey", label=r"$\sigma = \sqrt{A g k}$")
    for m in fitted:
        ax.annotate(f"{m}", (inviscid[m], rates[m][0]), textcoords="offset points", xytext=(4, -8), fontsize="x-small")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel(r"$\sqrt{A g k}$")
    ax.set_ylabel(r"growth rate $\sigma$")
    ax.legend(fontsize="small")
    style.save(fig, EXP)

    summary = meta["parameters"]["summary"]
    macros = {"EnineteenRtGpu": paper.gpu_name(meta), "EnineteenRtN": str(summary["n"]), "EnineteenRtMsPerStep": f"{1e3 * summary['seconds_per_step']:.2f}"}
    for m in modes:
        word = paper.macro_part(["one", "two", "three", "four", "five", "six", "seven", "eight"][m - 1])
        macros[f"EnineteenRt{word}Ratio"] = f"{rates[m][0] / inviscid[m]:.2f}" if m in rates else paper.MISSING
        macros[f"EnineteenRt{word}Spread"] = f"{rates[m][1] / inviscid[m]:.2f}" if m in rates else paper.MISSING
    macros["EnineteenRtSeeds"] = str(len(seeds))
    macros["EnineteenRtFitted"] = str(sum(rates[m][2] for m in rates))
    macros["EnineteenRtFits"] = str(len(seeds) * len(modes))
    paper.write_macros("E19_rt_numbers.tex", macros, __file__, [f"results/{EXP}.csv", paper.bulk_file(f"{EXP}_frames")])
    print("growth rate over sqrt(A g k):", {m: round(rates[m][0] / inviscid[m], 3) for m in rates})


if __name__ == "__main__":
    main()
