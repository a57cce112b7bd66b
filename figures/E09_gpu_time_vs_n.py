"""E09 figure and table: time of one force evaluation against N for the best CPU engine, OpenCL
and CUDA, float, double and dd, on the H100 (seed S0's Table 3). Reads
results/E09_gpu_time_vs_n.csv; writes figures/E09_gpu_time_vs_n.pdf/.png,
paper/generated/E09_table.tex and E09_numbers.tex."""
from gpu_common import ROOT, device_text, load, plt, save, sci, write_macros, write_tex

NAME = "E09_gpu_time_vs_n"
rows, meta = load(NAME)
ENGINES = ["openmp-simd", "opencl-tiled", "cuda-naive", "cuda-tiled", "cuda-split"]
STYLE = {"openmp-simd": ("tab:grey", "s"), "opencl-tiled": ("tab:green", "^"), "cuda-naive": ("tab:orange", "v"),
         "cuda-tiled": ("tab:blue", "o"), "cuda-split": ("tab:red", "D")}
# S0 Table 3: one force evaluation, double, N = 131072: 1.13 s on half a Tesla K80 (CUDA).
S0_SECONDS_131072 = 1.13

t = {}
for r in rows:
    t.setdefault((r["engine"], r["precision"]), {})[int(r["n"])] = r

fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=False)
for ax, prec in zip(axes, ["float", "double", "dd"]):
    for e in ENGINES:
        pts = t.get((e, prec))
        if not pts:
            continue
        ns = sorted(pts)
        c, m = STYLE[e]
        ax.loglog(ns, [float(pts[n]["interactions_per_s"]) for n in ns], marker=m, color=c, label=e)
    ax.set_title(prec)
    ax.set_xlabel("N")
    ax.grid(True, which="both", alpha=0.3)
axes[0].set_ylabel("interactions / s  (N(N-1) / time)")
axes[0].legend(fontsize=8)
fig.suptitle(f"E09: one force evaluation; {device_text(meta)}", fontsize=9)
save(fig, NAME)

# Table: seconds per evaluation at each N, the CUDA engines, OpenCL and the CPU.
ns = sorted({int(r["n"]) for r in rows})
lines = [r"\begin{tabular}{r" + "r" * 7 + "}", r"\hline",
         r"$N$ & \multicolumn{3}{c}{float} & \multicolumn{3}{c}{double} & dd \\",
         r" & split & OpenCL & CPU & split & OpenCL & CPU & split \\ \hline"]


def sec(e, p, n):
    r = t.get((e, p), {}).get(n)
    return f"{float(r['seconds_per_eval']):.3g}" if r else "--"


for n in ns:
    dd = sec("cuda-split", "dd", n) if n <= 131072 else sec("cuda-tiled", "dd", n)
    lines.append(f"{n} & {sec('cuda-split', 'float', n)} & {sec('opencl-tiled', 'float', n)} & "
                 f"{sec('openmp-simd', 'float', n)} & {sec('cuda-split', 'double', n)} & {sec('opencl-tiled', 'double', n)} & "
                 f"{sec('openmp-simd', 'double', n)} & {dd} \\\\")
lines += [r"\hline", r"\end{tabular}"]
write_tex("E09_table.tex", "\n".join(lines) + "\n", __file__, [f"results/{NAME}.csv"])


def rate(e, p, n):
    return float(t[(e, p)][n]["interactions_per_s"])


m = {
    "EnineFloatMax": sci(max(rate("cuda-split", "float", 1048576), rate("cuda-tiled", "float", 1048576))),
    "EnineDoubleMax": sci(max(rate("cuda-split", "double", 1048576), rate("cuda-tiled", "double", 1048576))),
    "EnineDdMax": sci(rate("cuda-tiled", "dd", 1048576)),
    "EnineFloatSmall": sci(rate("cuda-split", "float", 4096)),
    "EnineDoubleOneThreeOne": f"{float(t[('cuda-split', 'double')][131072]['seconds_per_eval']):.3g}",
    "EnineSZeroOneThreeOne": f"{S0_SECONDS_131072}",
    "EnineOpenclFloatMax": sci(rate("opencl-tiled", "float", 1048576)),
    "EnineOpenclDoubleMax": sci(rate("opencl-tiled", "double", 1048576)),
    "EnineDevice": device_text(meta).replace("_", r"\_"),
}
write_macros("E09_numbers.tex", m, __file__, [f"results/{NAME}.csv"])
