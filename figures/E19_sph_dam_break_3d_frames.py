"""E19 figure, SPH half: the 3-D dam break on the GPU as pictures, its fluid seen from the side
(projected along the tank's width) every 0.2 s, each square of 2 cm coloured by its particles'
mean speed with S0's blue-green-red scale, and the macros of its caption.

Reads results/E19_sph_dam_break_3d_frames.csv and _squares.csv.gz
(experiments/sph_dam_break_3d_frames.py, run on a CUDA GPU); writes
  figures/E19_sph_dam_break_3d_frames.pdf, .png   the frames, the tank's walls, one colour bar
  paper/generated/E19_sph_frames_3d_numbers.tex    \\newcommand macros for the numbers the text quotes
"""
import numpy as np

import style
from E19_sph_dam_break_frames import tank_frames  # the 2-D frames' grid, walls and colour bar
from nbodylab import paper

EXP = "E19_sph_dam_break_3d_frames"
TANK, WALL, BIN = 4.0, 2.5, 0.02  # the tank: length and the walls' height (m); the squares' side


def main():
    rows, meta = paper.load_results(EXP)
    side = [r for r in paper.load_bulk(f"{EXP}_squares", EXP) if r["view"] == "side"]
    times = sorted(float(r["t"]) for r in rows if r["view"] == "side")
    top = max(float(r["top_speed"]) for r in rows if r["view"] == "side")
    nx, ny = int(round(TANK / BIN)) + 10, int(round(WALL / BIN)) + 10
    fig, axes = style.figure(2, 3, height=3.3, sharex=True, sharey=True)
    for ax, t in zip(axes.flat, times):
        image = np.full((ny, nx), np.nan)
        for r in side:
            if float(r["t"]) == t:
                i, j = int(float(r["x"]) / BIN), int(float(r["y"]) / BIN)
                if 0 <= i < nx and 0 <= j < ny:
                    image[j, i] = float(r["speed"])
        shown = ax.imshow(np.ma.masked_invalid(image), origin="lower", extent=[0, nx * BIN, 0, ny * BIN], cmap="jet",
                          vmin=0, vmax=top, interpolation="nearest", rasterized=True)
    tank_frames(fig, axes, times, TANK, WALL, shown, "mean speed across the width (m/s)")
    style.save(fig, EXP)

    summary = meta["parameters"]["summary"]
    macros = {"EnineteenSphThreeDFramesGpu": paper.gpu_name(meta),
              "EnineteenSphThreeDFramesParticles": str(summary["n"]),
              "EnineteenSphThreeDFramesFluid": str(summary["fluid"]),
              "EnineteenSphThreeDFramesSteps": str(summary["steps_taken"]),
              "EnineteenSphThreeDFramesLists": str(summary["lists_made"]),
              "EnineteenSphThreeDFramesMsPerStep": f"{summary['seconds_per_step'] * 1e3:.2f}",
              "EnineteenSphThreeDFramesEscaped": str(summary["escaped"]),
              "EnineteenSphThreeDFramesTopSpeed": f"{top:.1f}"}
    paper.write_macros("E19_sph_frames_3d_numbers.tex", macros, __file__, [f"results/{EXP}.csv", paper.bulk_file(f"{EXP}_squares")])


if __name__ == "__main__":
    main()
