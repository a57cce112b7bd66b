"""E09 figure and tables: time of one force evaluation against N for the best CPU engine, OpenCL
and CUDA, float, double and dd, on the H100 (seed S0's Table 3). Reads
results/E09_gpu_time_vs_n.csv and E09_gpu_time_vs_n_test_norms.csv; writes figures/E09_gpu_time_vs_n.pdf/.png,
paper/generated/E09_table.tex (every engine), E09_seed_table.tex (S0's Table 3 beside ours) and
E09_numbers.tex."""
import style
from gpu_common import ENGINE_STYLE, device_text, engine_legend, gpu_text, load, ratio, save, sci, write_macros, write_tex
from seed_numbers import S0_TABLE3_CPU, S0_TABLE3_GPU, S0_TABLE3_N, S0_TABLE3_SECONDS

NAME = "E09_gpu_time_vs_n"
rows, meta = load(NAME)
ENGINES = ["openmp-simd", "opencl-tiled", "cuda-naive", "cuda-tiled", "cuda-split", "cuda-pairs"]

t = {}
for r in rows:
    t.setdefault((r["engine"], r["precision"]), {})[int(r["n"])] = r

fig, axes = style.figure(1, 3, height=2.9)
for ax, prec in zip(axes, ["float", "double", "dd"]):
    for e in ENGINES:
        pts = t.get((e, prec))
        if not pts:
            continue
        ns = sorted(pts)
        c, m = ENGINE_STYLE[e]
        ax.loglog(ns, [float(pts[n]["interactions_per_s"]) for n in ns], marker=m, color=c, label=e)
    ax.set_title(prec)
    ax.set_xlabel("N")
    style.log_ticks(ax)
axes[0].set_ylabel("interactions / s  ($N(N-1)$ / time)")
engine_legend(fig, axes)
fig.suptitle(device_text(meta, rows))
save(fig, NAME)

# Table: seconds per evaluation at each N, the CUDA engines, OpenCL and the CPU.
ns = sorted({int(r["n"]) for r in rows})
lines = [r"\begin{tabular}{r" + "r" * 9 + "}", r"\toprule",
         r"& \multicolumn{4}{c}{float} & \multicolumn{4}{c}{double} & dd \\",
         r"\cmidrule(lr){2-5} \cmidrule(lr){6-9} \cmidrule(lr){10-10}",
         r"$N$ & split & pairs & OpenCL & CPU & split & pairs & OpenCL & CPU & split \\", r"\midrule"]


def seconds(e, p, n):
    r = t.get((e, p), {}).get(n)
    return float(r["seconds_per_eval"]) if r else None


def sec(e, p, n):
    s = seconds(e, p, n)
    return f"{s:#.3g}" if s else "---"


for n in ns:
    dd = sec("cuda-split", "dd", n) if n <= 131072 else sec("cuda-tiled", "dd", n)
    cells = [sec(e, p, n) for p in ("float", "double") for e in ("cuda-split", "cuda-pairs", "opencl-tiled", "openmp-simd")]
    lines.append(f"{n} & " + " & ".join(cells) + f" & {dd} \\\\")
lines += [r"\bottomrule", r"\end{tabular}"]
write_tex("E09_table.tex", "\n".join(lines) + "\n", __file__, [f"results/{NAME}.csv"])

# S0's Table 3 beside ours: each of S0's rows next to the engine of ours that does the same
# (its best CPU engine, its tiled OpenCL and CUDA kernels) in double, and S0's seconds over ours.
S0_MATCH = {"cpu": "openmp-simd", "opencl": "opencl-tiled", "cuda": "cuda-tiled"}
lines = [r"\begin{tabular}{r" + "rrr" * len(S0_MATCH) + "}", r"\toprule",
         r"& \multicolumn{3}{c}{best CPU engine} & \multicolumn{3}{c}{OpenCL, tiled} & "
         r"\multicolumn{3}{c}{CUDA, tiled} \\",
         r"\cmidrule(lr){2-4} \cmidrule(lr){5-7} \cmidrule(lr){8-10}",
         r"$N$" + r" & \seed{0} & ours & \seed{0}/ours" * len(S0_MATCH) + r" \\", r"\midrule"]
for i, n in enumerate(S0_TABLE3_N):
    cells = [str(n)]
    for row, ours in S0_MATCH.items():
        published, mine = S0_TABLE3_SECONDS[row][i], seconds(ours, "double", n)
        cells += [published or "---", sec(ours, "double", n),
                  ratio(float(published) / mine) if published and mine else "---"]
    lines.append(" & ".join(cells) + r" \\")
lines += [r"\bottomrule", r"\end{tabular}"]
write_tex("E09_seed_table.tex", "\n".join(lines) + "\n", __file__, [f"results/{NAME}.csv", "figures/seed_numbers.py"])


def rate(e, p, n):
    return float(t[(e, p)][n]["interactions_per_s"])


ALL_PAIRS = ("cuda-tiled", "cuda-split")  # the all-pairs engines (every pair twice)


def crossover(p):
    """The smallest N from which on cuda-pairs beats the all-pairs engines at every measured N."""
    faster = [rate("cuda-pairs", p, n) > max(rate(e, p, n) for e in ALL_PAIRS) for n in ns if n in t[("cuda-pairs", p)]]
    measured = [n for n in ns if n in t[("cuda-pairs", p)]]
    k = len(faster)
    while k > 0 and faster[k - 1]:
        k -= 1
    return measured[k] if k < len(measured) else "none"
m = {
    "EnineFloatMax": sci(max(rate(e, "float", 1048576) for e in ALL_PAIRS)),
    "EnineDoubleMax": sci(max(rate(e, "double", 1048576) for e in ALL_PAIRS)),
    "EninePairsFloatMax": sci(rate("cuda-pairs", "float", 1048576)),
    "EninePairsDoubleMax": sci(rate("cuda-pairs", "double", 1048576)),
    "EninePairsFloatGain": f"{rate('cuda-pairs', 'float', 1048576) / max(rate(e, 'float', 1048576) for e in ALL_PAIRS):.2f}",
    "EninePairsDoubleGain": f"{rate('cuda-pairs', 'double', 1048576) / max(rate(e, 'double', 1048576) for e in ALL_PAIRS):.2f}",
    "EninePairsFloatCross": str(crossover("float")),
    "EnineDdMax": sci(rate("cuda-tiled", "dd", 1048576)),
    "EnineFloatSmall": sci(rate("cuda-split", "float", 4096)),
    # S0's largest N, with its CUDA kernel and ours that does the same.
    "EnineSZeroN": str(S0_TABLE3_N[-1]),
    "EnineSZeroCuda": S0_TABLE3_SECONDS["cuda"][-1],
    "EnineTiledAtSZeroN": sec("cuda-tiled", "double", S0_TABLE3_N[-1]),
    "EnineTiledOverSZero": ratio(float(S0_TABLE3_SECONDS["cuda"][-1]) / seconds("cuda-tiled", "double", S0_TABLE3_N[-1])),
    "EnineSZeroCpu": S0_TABLE3_CPU,
    "EnineSZeroGpu": S0_TABLE3_GPU,
    "EnineGpu": gpu_text(meta),
    "EnineCpu": f"{meta['host']['cpu_model']} ({meta['host']['cpu_count']} cores)",
    "EnineOpenclFloatMax": sci(rate("opencl-tiled", "float", 1048576)),
    "EnineOpenclDoubleMax": sci(rate("opencl-tiled", "double", 1048576)),
    "EnineDevice": device_text(meta, rows).replace("_", r"\_"),
}
# The worst norm against `simple` of any GPU engine in the GPU test runs, per tolerance (that is, precision).
worst = {}
for r in load("E09_gpu_time_vs_n_test_norms")[0]:
    worst[float(r["tolerance"])] = max(worst.get(float(r["tolerance"]), 0.0), float(r["worst_norm"]))
m.update({"EnineWorstNormFloat": sci(worst[1e-5]), "EnineWorstNormDouble": sci(worst[1e-13]),
          "EnineWorstNormDd": sci(worst[1e-28])})
write_macros("E09_numbers.tex", m, __file__, [f"results/{NAME}.csv", "results/E09_gpu_time_vs_n_test_norms.csv"])
