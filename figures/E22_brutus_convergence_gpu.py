"""E22 at N = 512 on the GPU (experiments/E22_brutus_convergence_gpu.toml): the same figure, tables
and numbers as figures/E22_brutus_convergence.py, for the ladder that reaches 30 digits with qd
forces on the GPU. Writes figures/E22_brutus_convergence_gpu.pdf, .png and
paper/generated/E22gpu_{ladder,methods,numbers}.tex (macros \\ETwentyTwoGpu...).
"""
import sys

from E22_brutus_convergence import main
from nbodylab import paper

EXP = "E22_brutus_convergence_gpu"

if __name__ == "__main__":
    if (paper.RESULTS_DIR / f"{EXP}.csv").is_file():
        main(EXP, tag="E22gpu", macro="ETwentyTwoGpu")
    else:  # a GPU run not yet taken (tools/gpu/e22_gpu.sh): nothing to draw, nothing quoted
        print(f"[E22] no results/{EXP}.csv yet (a GPU run, tools/gpu/e22_gpu.sh): no figure", file=sys.stderr)
