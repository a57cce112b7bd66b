"""E24 figure: measured interactions/s of every GPU engine against the H100's arithmetic limits at
the measured SM clock (FP32 128 lanes/SM for float, FP64 64 lanes/SM for double and dd, divided
by the operations one interaction issues in the compiled kernels). Reads results/E24_roofline.csv;
writes figures/E24_roofline.pdf/.png and paper/generated/E24_numbers.tex."""
from gpu_common import ROOT, device_text, load, plt, save, sci, write_macros

NAME = "E24_roofline"
rows, meta = load("E24_roofline")
fig, axes = plt.subplots(1, 3, figsize=(13, 4))
STYLE = {"opencl-tiled": ("tab:green", "^"), "cuda-naive": ("tab:orange", "v"), "cuda-tiled": ("tab:blue", "o"),
         "cuda-split": ("tab:red", "D"), "cuda-pairs": ("tab:purple", "P")}
macros = {}
for ax, p in zip(axes, ["float", "double", "dd"]):
    sub = [r for r in rows if r["precision"] == p]
    for e, (c, m) in STYLE.items():
        pts = sorted((int(r["n"]), float(r["interactions_per_s"])) for r in sub if r["engine"] == e)
        if pts:
            ax.loglog([n for n, _ in pts], [v for _, v in pts], marker=m, color=c, label=e)
    # one limit per operation count: the all-pairs kernels, and cuda-pairs (two interactions a pair)
    for pairs in (False, True):
        lim = [r for r in sub if (r["engine"] == "cuda-pairs") == pairs]
        if not lim:
            continue
        limit = max(float(r["pipe_limit_interactions_per_s"]) for r in lim)
        ax.axhline(limit, color="tab:purple" if pairs else "k", lw=1.5, ls="--" if pairs else "-",
                   label=f"{lim[0]['pipe']} limit, {lim[0]['ops_per_interaction']} ops" + (" (pairs)" if pairs else ""))
        best = max(lim, key=lambda r: float(r["interactions_per_s"]))
        key = "Pairs" if pairs else ""
        macros[f"ETwentyFour{key}Limit{p.capitalize()}"] = sci(limit)
        macros[f"ETwentyFour{key}Fraction{p.capitalize()}"] = f"{100 * float(best['fraction_of_limit']):.0f}"
    ax.set_title(p)
    ax.set_xlabel("N")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
# Nsight Compute at N = 2^20 (tools/gpu/logs/): issue slots busy and instructions per interaction of
# the float tiled kernel (regcap probe, block 512, 2 bodies per thread) and of cuda-pairs (256 x 8).
LOGS = ROOT / "evidence" / "gpu" / "logs"


def ncu_issue_busy(path):
    return next(float(line.split()[-1]) for line in path.read_text().splitlines() if "Issue Slots Busy" in line)


def ncu_instructions(path, per):
    """The number after the colon on the first line naming `per` ("per interaction", "per pair")."""
    return next(line.split(":")[1].split()[0] for line in path.read_text().splitlines() if per in line)


macros["ETwentyFourTiledIssueBusy"] = f"{ncu_issue_busy(LOGS / 'regcap_probe' / 'ncu_float_2p20_i2_b512_details.txt'):.0f}"
macros["ETwentyFourTiledInstr"] = ncu_instructions(LOGS / "regcap_probe" / "ncu_float_2p20_i2_b512_by_opcode.txt",
                                                   "per interaction")
macros["ETwentyFourPairsIssueBusy"] = f"{ncu_issue_busy(LOGS / 'pairs_final' / 'ncu_details_float.txt'):.0f}"
macros["ETwentyFourPairsInstr"] = ncu_instructions(LOGS / "pairs_final" / "ncu_by_opcode.txt", "per pair")
axes[0].set_ylabel("interactions / s")
fig.suptitle(f"E24: against the arithmetic limits; {device_text(meta, rows)}", fontsize=9)
save(fig, NAME)
write_macros("E24_numbers.tex", macros, __file__, ["results/E24_roofline.csv", "tools/gpu/logs/regcap_probe/",
                                                   "tools/gpu/logs/pairs_final/"])
