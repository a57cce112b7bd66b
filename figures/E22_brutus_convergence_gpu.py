"""E22 at N = 512 on the GPU (experiments/E22_brutus_convergence_gpu.toml): the same figure, tables
and numbers as figures/E22_brutus_convergence.py, for the ladder that reaches 30 digits with qd
forces on the GPU, and how the CPU ladder's answer at N = 512 (its dd reference, ~23 digits)
compares. Writes figures/E22_brutus_convergence_gpu.pdf, .png and
paper/generated/E22gpu_{ladder,methods,numbers,versus_cpu}.tex (macros \\ETwentyTwoGpu...).
"""
import sys

from E22_brutus_convergence import EXP as CPU_EXP, main
from nbodylab import files, paper

EXP = "E22_brutus_convergence_gpu"


def versus_cpu():
    """Macros: do the compared runs get the same verdict (the time they leave 1e-6, or none, or
    where they stopped) against the CPU ladder's N = 512 reference (the same 38 runs, a less
    converged reference)? And the ladder's cost per evaluation and its GPU."""
    def rows(exp):
        return {(r["integrator"], r["dt"], r["tol"]): r
                for r in files.read_csv(paper.RESULTS_DIR / f"{exp}_methods.csv") if r["n"] == "512"}
    gpu, cpu = rows(EXP), rows(CPU_EXP)
    both = [k for k in gpu if k in cpu]
    same = sum(gpu[k]["t_leave"] == cpu[k]["t_leave"] and gpu[k]["failure"] == cpu[k]["failure"] for k in both)
    rel = max((abs(float(gpu[k]["delta_end"]) - float(cpu[k]["delta_end"])) / float(gpu[k]["delta_end"])
               for k in both if gpu[k]["delta_end"] and cpu[k]["delta_end"]), default=float("nan"))
    if both:
        digits = float(cpu[both[0]]["reference_digits"])
        text = (f"Against this 30-digit reference, {same} of {len(both)} double-precision runs get the same verdict "
                "(the output time at which they leave $10^{-6}$, or that they never do, or where they stopped) as "
                f"against the CPU ladder's best \\code{{dd}} run ({digits:.1f} digits), and their final distances "
                f"agree to {paper.tex_sci(rel, 1)} (relative)")
        text += (": for the question asked of the double-precision methods, a "
                 f"{digits:.0f}-digit reference was already enough; the 30 digits make that a measured fact rather "
                 "than an assumption." if same == len(both) else
                 f": for {len(both) - same} of them the less converged CPU reference gives another verdict.")
    else:  # the profile that ran E22 on the CPU did not reach N = 512: nothing to set side by side
        text = ("The CPU ladder of the profile in results/ did not run at $N = 512$, so the two references are "
                "not compared here (\\code{make all PROFILE=full} runs it).")
    macros = {"ETwentyTwoGpuVersusCpu": text}
    ladder = files.read_csv(paper.RESULTS_DIR / f"{EXP}.csv")
    ms = [1e3 * float(r["wall_s"]) / int(r["fevals"]) for r in ladder]
    macros["ETwentyTwoGpuMsPerEval"] = f"{min(ms):.1f}--{max(ms):.1f}"  # host work included
    gpus = dict.fromkeys(r["device"].split(";")[0] for r in ladder)  # "NAME; launch shape"
    macros["ETwentyTwoGpuDevice"] = paper.tex_escape(" and ".join(gpus))
    sources = [f"results/{EXP}.csv", f"results/{EXP}_methods.csv", f"results/{CPU_EXP}_methods.csv"]
    paper.write_macros("E22gpu_versus_cpu.tex", macros, __file__, sources)


if __name__ == "__main__":
    if (paper.RESULTS_DIR / f"{EXP}.csv").is_file():
        main(EXP, tag="E22gpu", macro="ETwentyTwoGpu")
        versus_cpu()
    else:  # a GPU run not yet taken: nothing to draw, nothing quoted
        print(f"[E22] no results/{EXP}.csv yet (a GPU run, see experiments/{EXP}.toml): no figure", file=sys.stderr)
