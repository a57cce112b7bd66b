"""The frames of S3's DPD demonstrations (E19): a species field phi in [-1, 1] on a grid of unit
cells, stored as rows (t, i, j, phi) in results/*_frames.csv.gz, drawn as one image per time."""
import numpy as np


def draw(ax, frames, when):
    """phi at time `when` on `ax` (red: +1, blue: -1), titled with the time, without ticks."""
    cells = [r for r in frames if float(r["t"]) == when]
    phi = np.zeros((1 + max(int(r["i"]) for r in cells), 1 + max(int(r["j"]) for r in cells)))
    for r in cells:
        phi[int(r["i"]), int(r["j"])] = float(r["phi"])
    ax.imshow(phi.T, origin="lower", cmap="RdBu", vmin=-1, vmax=1, interpolation="nearest")
    ax.set_title(f"$t = {when:g}$")
    ax.set_xticks([])
    ax.set_yticks([])
