"""E20 figure: the renderer's seconds per 1920 x 1080 frame against N, by stage, beside the target
of 2 s for 10^6 bodies on the 2-core machine; and the macros the text quotes.

Reads results/E20_render_time.csv (experiments/render_time.py); writes
  figures/E20_render_time.pdf, .png          stacked stages per N
  paper/generated/E20_render_numbers.tex     \\newcommand macros: seconds per frame at the largest N
"""
import numpy as np

import style
from nbodylab import paper

EXP = "E20_render_time"
STAGES = [("read_s", "read the snapshot"), ("deposit_s", "deposit in pixels"), ("colour_s", "colour"),
          ("write_s", "write the PNG")]


def main():
    rows, meta = paper.load_results(EXP)
    n = np.array([int(r["n"]) for r in rows])
    fig, ax = style.figure(1, 1, height=2.8)
    bottom = np.zeros(len(rows))
    positions = np.arange(len(rows))
    for key, label in STAGES:
        values = np.array([float(r[key]) for r in rows])
        ax.bar(positions, values, bottom=bottom, label=label, width=0.6)
        bottom += values
    ax.axhline(2.0, color="black", lw=0.8, ls="--", label="target for $10^6$ bodies")
    ax.set_xticks(positions, [f"$10^{{{int(round(np.log10(x)))}}}$" if x == 10 ** round(np.log10(x)) else str(x) for x in n])
    ax.set_xlabel("bodies N")
    ax.set_ylabel("seconds per frame")
    ax.set_title(f"1920 x 1080 frame, {paper.machine(meta)}", fontsize="small")
    ax.set_ylim(0, 2.6)
    ax.legend(fontsize="small", loc="upper left", ncol=3)
    style.save(fig, EXP)

    largest = max(rows, key=lambda r: int(r["n"]))
    macros = {"EtwentyRenderN": paper.tex_count(largest["n"]),
              "EtwentyRenderFrameSeconds": f"{float(largest['frame_s']):.2f}"}
    paper.write_macros("E20_render_numbers.tex", macros, __file__, [f"results/{EXP}.csv"])


if __name__ == "__main__":
    main()
