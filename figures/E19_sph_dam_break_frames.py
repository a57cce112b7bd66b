"""E19 figure, SPH half: seed S3's dam break as pictures, the fluid particles of the 2-D dam break
(a water column 1 m wide and 2 m high released in a tank 4 m wide) every 0.2 s, coloured by speed,
and the macros of its caption.

Reads results/E19_sph_dam_break_frames.csv and _particles.csv.gz (experiments/sph_dam_break_frames.py);
writes
  figures/E19_sph_dam_break_frames.pdf, .png   the frames, the tank's walls, one colour bar
  paper/generated/E19_sph_frames_numbers.tex    \\newcommand macros for the numbers the text quotes
"""
import style
from nbodylab import paper

EXP = "E19_sph_dam_break_frames"
TANK, WALL = 4.0, 3.0  # the tank: width and the walls' height (m)


def tank_frames(fig, axes, times, tank, wall, shown, label):
    """A grid of dam-break frames (2 x 3): each one's tank walls (their inner faces), time and
    limits, the axes' labels, and the colour bar of `shown` (S0's blue-green-red scale)."""
    for ax, t in zip(axes.flat, times):
        ax.plot([0, 0, tank, tank], [wall, 0, 0, wall], color="black", lw=0.8)
        ax.set_title(f"t = {t:.1f} s", fontsize="small")
        ax.set_aspect("equal")
        ax.set_xlim(-0.1, tank + 0.1)
        ax.set_ylim(-0.1, wall + 0.1)
        ax.grid(False)
    for ax in axes[1]:
        ax.set_xlabel("x (m)")
    for ax in axes[:, 0]:
        ax.set_ylabel("y (m)")
    fig.colorbar(shown, ax=axes, label=label, shrink=0.8)


def main():
    rows, meta = paper.load_results(EXP)
    particles = paper.load_bulk(f"{EXP}_particles", EXP)
    times = [float(r["t"]) for r in rows]
    top = max(float(r["top_speed"]) for r in rows)
    fig, axes = style.figure(2, 3, height=3.6, sharex=True, sharey=True)
    for ax, t in zip(axes.flat, times):
        at = [r for r in particles if float(r["t"]) == t]
        dots = ax.scatter([float(r["x"]) for r in at], [float(r["y"]) for r in at], c=[float(r["speed"]) for r in at],
                          s=0.4, cmap="jet", vmin=0, vmax=top, linewidths=0, rasterized=True)
    tank_frames(fig, axes, times, TANK, WALL, dots, "speed (m/s)")
    style.save(fig, EXP)

    summary = meta["parameters"]["summary"]
    macros = {"EnineteenSphFramesFluid": str(summary["fluid"]), "EnineteenSphFramesSteps": str(summary["steps_taken"]),
              "EnineteenSphFramesEscaped": str(summary["escaped"]), "EnineteenSphFramesTopSpeed": f"{top:.1f}"}
    paper.write_macros("E19_sph_frames_numbers.tex", macros, __file__, [f"results/{EXP}.csv", paper.bulk_file(f"{EXP}_particles")])


if __name__ == "__main__":
    main()
