"""E16 figure: seed S0's Figs. 11 and 12, the GPU kd-tree walks against lambda_crit, the build
(on the GPU, and on the host as S0 did) and the walk apart.

Reads results/E16_kdtree_gpu_lambda.csv (`nbody bench` rows: device time, build, walk, terms per
body); writes
  figures/E16_kdtree_gpu_lambda.pdf, .png  time against lambda_crit at N = 2^17 and 2^20; build
                                           and walk as bars, GPU build against host build
  paper/generated/E16_numbers.tex          \\newcommand macros for the numbers the text quotes
"""
import numpy as np

import gpu_common
import style
from nbodylab import paper

EXP = "E16_kdtree_gpu_lambda"
ENGINES = ["cuda-kdtree-cycle", "cuda-kdtree-nested", "cuda-kdtree-nested-ldg", "cuda-kdtree-stackless",
           "opencl-kdtree-cycle", "opencl-kdtree-nested", "opencl-kdtree-stackless"]
COLOURS = {"cuda-kdtree-cycle": "tab:olive", "cuda-kdtree-nested": "tab:blue", "cuda-kdtree-nested-ldg": "tab:green",
           "cuda-kdtree-stackless": "tab:red", "opencl-kdtree-cycle": "tab:olive", "opencl-kdtree-nested": "tab:blue",
           "opencl-kdtree-stackless": "tab:red"}
BAR_LAMBDAS = [1.0, 2.0, 4.0]


def host_built(r):
    return "host_build=1" in r["launch"]


def longest(r):
    """A row of the tree split at each node's longest side (S0's: x, y, z by depth)."""
    return r.get("split-axis") == "longest"


def lam(r):
    return float(r["lambda-crit"])


def total(r):
    """Build (GPU: device time; host: wall time with the copy) plus walk, in seconds."""
    return float(r["build_seconds"]) + float(r["walk_seconds"])


def main():
    rows, meta = paper.load_results(EXP)
    fl = [r for r in rows if r["precision"] == "float" and not longest(r)]
    fl_long = [r for r in rows if r["precision"] == "float" and longest(r)]
    sizes = sorted({int(r["n"]) for r in fl})
    fig, axes = style.figure(1, 3, height=2.9)
    for ax, n in zip(axes, sizes[-2:]):
        for e in ENGINES:
            rs = sorted((r for r in fl if int(r["n"]) == n and r["engine"] == e and not host_built(r)), key=lam)
            if rs:
                ax.plot([lam(r) for r in rs], [total(r) for r in rs],
                        "--" if e.startswith("opencl") else "-", marker="o", ms=2.5, color=COLOURS[e], label=e)
        host = sorted((r for r in fl if int(r["n"]) == n and host_built(r)), key=lam)
        gpu = sorted((r for r in fl if int(r["n"]) == n and r["engine"] == "cuda-kdtree-stackless" and not host_built(r)),
                     key=lam)
        if host:
            ax.plot([lam(r) for r in host], [total(r) for r in host], "-.", color="tab:purple",
                    label="stackless, tree built on the host")
            ax.plot([lam(r) for r in host], [float(r["build_seconds"]) for r in host], ":", color="tab:purple",
                    label="host build + copy alone")
        if gpu:
            ax.plot([lam(r) for r in gpu], [float(r["build_seconds"]) for r in gpu], ":", color="tab:red",
                    label="GPU build alone")
        split = sorted((r for r in fl_long if int(r["n"]) == n), key=lam)
        if split:
            ax.plot([lam(r) for r in split], [total(r) for r in split], "-.", marker="*", ms=3, color="tab:pink",
                    label="stackless, longest-side split")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(r"$\lambda_\mathrm{crit}$")
        ax.set_title(f"N = {n}, float")
        style.log_ticks(ax)
    axes[0].set_ylabel("seconds per force evaluation")
    # Bars: build and walk of the stackless walk at the largest N, the tree built on the GPU
    # and on the host.
    ax = axes[2]
    nmax = sizes[-1] if sizes else None
    width = 0.38
    for k, (label, pick, colour) in enumerate([("GPU build", lambda r: not host_built(r), "tab:red"),
                                                ("host build", host_built, "tab:purple")]):
        rs = {lam(r): r for r in fl if int(r["n"]) == nmax and r["engine"] == "cuda-kdtree-stackless" and pick(r)}
        xs = [i + (k - 0.5) * width for i, x in enumerate(BAR_LAMBDAS) if x in rs]
        build = [1e3 * float(rs[x]["build_seconds"]) for x in BAR_LAMBDAS if x in rs]
        walk = [1e3 * float(rs[x]["walk_seconds"]) for x in BAR_LAMBDAS if x in rs]
        ax.bar(xs, build, width, color=colour, alpha=0.45, label=f"{label}")
        ax.bar(xs, walk, width, bottom=build, color=colour, label=f"walk ({label})")
    ax.set_xticks(np.arange(len(BAR_LAMBDAS)), [f"{x:g}" for x in BAR_LAMBDAS])
    ax.set_xlabel(r"$\lambda_\mathrm{crit}$")
    ax.set_ylabel("milliseconds")
    ax.set_title(f"stackless, N = {nmax}, float")
    gpu_common.engine_legend(fig, axes, ncol=3)
    style.save(fig, EXP)

    def row(engine, precision, n, lam_, host, split_longest=False):
        return next((r for r in rows if r["engine"] == engine and r["precision"] == precision and int(r["n"]) == n
                     and lam(r) == lam_ and host_built(r) == host and longest(r) == split_longest), None)

    macros = {}
    for p in ("float", "double"):
        key = paper.macro_part(p)
        g, h = row("cuda-kdtree-stackless", p, 1048576, 4.0, False), row("cuda-kdtree-stackless", p, 1048576, 4.0, True)
        ms = lambda r, c: f"{1e3 * float(r[c]):.3g}" if r else paper.MISSING  # noqa: E731
        macros[f"ESixteen{key}GpuTotalMs"] = f"{1e3 * total(g):.3g}" if g else paper.MISSING
        macros[f"ESixteen{key}GpuBuildMs"] = ms(g, "build_seconds")
        macros[f"ESixteen{key}WalkMs"] = ms(g, "walk_seconds")
        macros[f"ESixteen{key}HostTotalMs"] = f"{1e3 * total(h):.3g}" if h else paper.MISSING
        macros[f"ESixteen{key}HostBuildMs"] = ms(h, "build_seconds")
        macros[f"ESixteen{key}BuildGain"] = (f"{float(h['build_seconds']) / float(g['build_seconds']):.0f}"
                                            if g and h else paper.MISSING)
        macros[f"ESixteen{key}TotalGain"] = f"{total(h) / total(g):.1f}" if g and h else paper.MISSING
        s = row("cuda-kdtree-stackless", p, 1048576, 4.0, False, split_longest=True)
        macros[f"ESixteen{key}LongestMs"] = f"{1e3 * total(s):.3g}" if s else paper.MISSING
        macros[f"ESixteen{key}LongestBuildMs"] = ms(s, "build_seconds")
        macros[f"ESixteen{key}LongestTerms"] = f"{float(s['terms_per_body']):.0f}" if s else paper.MISSING
        macros[f"ESixteen{key}DepthTerms"] = f"{float(g['terms_per_body']):.0f}" if g else paper.MISSING
    big = row("cuda-kdtree-stackless", "float", 131072, 1024.0, False)
    macros["ESixteenSmallTermsAtMax"] = f"{float(big['terms_per_body']):.0f}" if big and big["terms_per_body"] else paper.MISSING
    paper.write_macros("E16_numbers.tex", macros, __file__, [f"results/{EXP}.csv"])


if __name__ == "__main__":
    main()
