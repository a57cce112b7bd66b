"""E20 figure: seed S4's potential field, the softened potential of 4096 bodies (S0's two galaxies)
on the plane through their centre of mass, with the bodies over it; and the macros the text quotes.

Reads results/E20_potential_field.csv and _bodies.csv (experiments/potential_field.py); writes
  figures/E20_potential_field.pdf, .png       the field, its contours and the bodies
  paper/generated/E20_potential_numbers.tex   \\newcommand macros: bodies, nodes, seconds, method
"""
import numpy as np
from matplotlib.colors import LogNorm

import style
from nbodylab import paper

EXP = "E20_potential_field"


def main():
    rows, meta = paper.load_results(EXP)
    bodies, _ = paper.load_results(EXP + "_bodies")
    x = np.array([float(r["x"]) for r in rows])
    y = np.array([float(r["y"]) for r in rows])
    phi = np.array([float(r["phi"]) for r in rows])
    k = int(round(np.sqrt(len(rows))))
    xs, ys, field = x[:k], y[::k], phi.reshape(k, k)
    fig, ax = style.figure(1, 1, height=4.2)
    depth = -field  # the potential is negative everywhere: its depth on a log scale shows the halos and the cores
    norm = LogNorm(depth.min(), depth.max())
    shown = ax.pcolormesh(xs, ys, depth, cmap="magma", norm=norm, shading="auto", rasterized=True)
    ax.contour(xs, ys, depth, levels=np.geomspace(depth.min(), depth.max(), 12)[1:-1], colors="white", linewidths=0.4,
               alpha=0.5)
    bx = np.array([float(b["x"]) for b in bodies])
    by = np.array([float(b["y"]) for b in bodies])
    inside = (bx >= xs[0]) & (bx <= xs[-1]) & (by >= ys[0]) & (by <= ys[-1])
    ax.scatter(bx[inside], by[inside], s=0.8, color="#7fffd4", linewidths=0, alpha=0.7, rasterized=True)
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.grid(False)
    fig.colorbar(shown, ax=ax, label=r"depth of the potential $-\phi$ (G = 1)", shrink=0.85)
    style.save(fig, EXP)

    summary = meta["parameters"]["summary"]
    macros = {"EtwentyPotentialBodies": paper.tex_count(len(bodies)),
              "EtwentyPotentialNodes": paper.tex_count(summary["points"]),
              "EtwentyPotentialPerAxis": str(summary["per_axis"]),
              "EtwentyPotentialSeconds": f"{summary['seconds']:.2f}"}
    paper.write_macros("E20_potential_numbers.tex", macros, __file__,
                       [f"results/{EXP}.csv", f"results/{EXP}_bodies.csv"])


if __name__ == "__main__":
    main()
