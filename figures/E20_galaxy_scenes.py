"""E20 figures: seed S0's three movies as frame grids, and the stars' escape; the macros the text
quotes.

Reads results/E20_galaxy_scenes.csv, its .meta.json and results/E20_galaxy_scenes_SCENE.npz
(experiments/galaxy_scenes.py, run on the H100); writes
  figures/E20_galaxy_collision.pdf, _central99.pdf, _central10.pdf (.png)  each scene's 8 frames
  figures/E20_galaxy_escape.pdf, .png       the stars' share beyond 2 R and escaped, and their radii
  paper/generated/E20_galaxy_numbers.tex    \\newcommand macros: bodies, steps, energy drift, escape
"""
import numpy as np
from matplotlib.colorbar import ColorbarBase
from matplotlib.colors import Normalize

import style
from nbodylab import paper, render

EXP = "E20_galaxy_scenes"
FIGURES = {"collision": "E20_galaxy_collision", "central-99": "E20_galaxy_central99",
           "central-10": "E20_galaxy_central10"}
LABELS = {"collision": "two galaxies (60,000 bodies)", "central-99": "central body 99 %",
          "central-10": "central body 10 %"}
S0_ESCAPED = 0.05  # S0: "about 5 % of the stars left the original region for good" (central body 10 %)


def halved(frame):
    """The frame at half its size (2 x 2 means): the paper's grid needs no more."""
    h, w = (s // 2 * 2 for s in frame.shape[:2])
    return frame[:h, :w].reshape(h // 2, 2, w // 2, 2, 3).mean(axis=(1, 3)) / 255.0


def grid(scene, entry):
    data = np.load(paper.RESULTS_DIR / f"{EXP}_{scene}.npz")
    frames, times = data["frames"], data["times"]
    fig = style.plt.figure(figsize=(style.TEXT_WIDTH, style.TEXT_WIDTH * 0.47), facecolor="black")
    fig.set_layout_engine("none")  # the frames placed by hand, edge to edge
    width, gap = 0.225, 0.004
    for k, (frame, t) in enumerate(zip(frames, times)):
        row, col = divmod(k, 4)
        ax = fig.add_axes([col * (width + gap), 1 - (row + 1) * 0.5 + gap, width, 0.5 - 2 * gap])
        ax.imshow(halved(frame), interpolation="antialiased")
        ax.set_axis_off()
        ax.text(0.04, 0.95, f"t = {t:g}", color="white", fontsize=7, transform=ax.transAxes, va="top")
    cax = fig.add_axes([4 * (width + gap) + 0.01, 0.15, 0.015, 0.7])
    colours = ColorbarBase(cax, cmap=render.colormap(), norm=Normalize(*entry["speed_range"]))
    colours.set_label("speed |v|", color="white", fontsize=7)
    colours.ax.tick_params(colors="white", labelsize=6)
    style.save(fig, FIGURES[scene])



def escape(rows):
    fig, (ax, ax_r) = style.figure(1, 2, height=2.5)
    for scene, colour in zip(FIGURES, ("C0", "C3", "C2")):
        t = np.array([float(r["t"]) for r in rows if r["scene"] == scene])
        beyond = np.array([float(r["beyond_2R"]) for r in rows if r["scene"] == scene])
        escaped = np.array([float(r["escaped"]) for r in rows if r["scene"] == scene])
        ax.plot(t, 100 * beyond, color=colour, ls="--", lw=1)
        ax.plot(t, 100 * escaped, color=colour, lw=1.3, label=LABELS[scene])
        if scene != "collision":
            for q, ls in (("r10", ":"), ("r50", "-"), ("r90", "--")):
                ax_r.plot(t, [float(r[q]) for r in rows if r["scene"] == scene], color=colour, ls=ls, lw=1)
    ax.axhline(100 * S0_ESCAPED, color="0.4", lw=0.8, ls="-.", label="S0: about 5 % escape (central 10 %)")
    ax.set_xlabel("t (dynamical times)")
    ax.set_ylabel("stars (% of their mass)")
    ax.set_title("stars escaped (solid)\nand beyond 2R (dashed)", fontsize=7.5)
    ax.legend(fontsize=6.5)
    ax_r.set_xlabel("t (dynamical times)")
    ax_r.set_ylabel("radius (red: central 99 %, green: 10 %)", fontsize=7.5)
    ax_r.set_yscale("log")
    ax_r.set_title("radii holding 10 % (dotted), 50 % (solid)\nand 90 % (dashed) of the stars' mass", fontsize=7.5)
    style.save(fig, "E20_galaxy_escape")


def main():
    rows, meta = paper.load_results(EXP)
    scenes = meta["parameters"]["scenes"]
    for scene in FIGURES:
        grid(scene, scenes[scene])
    escape(rows)

    macros = {}
    for scene, key in (("collision", "Collision"), ("central-99", "NinetyNine"), ("central-10", "Ten")):
        summary = scenes[scene]["summary"]
        last = [r for r in rows if r["scene"] == scene][-1]
        beyond = [float(r["beyond_2R"]) for r in rows if r["scene"] == scene]
        macros.update({
            f"EtwentyGalaxy{key}Bodies": paper.tex_count(summary["n"]),
            f"EtwentyGalaxy{key}Steps": paper.tex_count(summary["steps"]),
            f"EtwentyGalaxy{key}MsPerStep": f"{summary['step_wall_s'] / summary['steps'] * 1e3:.2f}",
            f"EtwentyGalaxy{key}StepSeconds": f"{summary['step_wall_s']:.0f}",
            f"EtwentyGalaxy{key}Drift": paper.tex_sci(abs(summary["dE_rel"]), 1),
            f"EtwentyGalaxy{key}Escaped": f"{100 * float(last['escaped']):.1f}",
            f"EtwentyGalaxy{key}BeyondMax": f"{100 * max(beyond):.0f}",
            f"EtwentyGalaxy{key}BeyondEnd": f"{100 * float(last['beyond_2R']):.0f}",
            f"EtwentyGalaxy{key}MovieMB": (f"{scenes[scene]['movie']['bytes'] / 1e6:.1f}"  # none without ffmpeg
                                           if scenes[scene]["movie"].get("bytes") else paper.MISSING),
        })
    macros["EtwentyGalaxyTEnd"] = f"{meta['parameters']['t_end']:g}"
    paper.write_macros("E20_galaxy_numbers.tex", macros, __file__, [f"results/{EXP}.csv"])


if __name__ == "__main__":
    main()
