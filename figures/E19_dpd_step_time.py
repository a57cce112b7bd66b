"""E19 figure and table, DPD half: the time of one DPD step at 2^20 particles (density 3), on the
H100 with every cell-list builder, on its host's 16 cores and on this machine's, beside seed S3's
Table 1.

Reads results/E19_dpd_step_time_gpu.csv (the H100 and its host, committed from the device) and
results/E19_dpd_step_time.csv (this machine, `make all`); writes
  figures/E19_dpd_step_time.pdf, .png   seconds per step, S3's machines and ours (log scale)
  paper/generated/E19_table.tex         the same as a table, with the speed-up over S3's CUDA run
  paper/generated/E19_numbers.tex       \\newcommand macros for the numbers the text quotes
"""
import gpu_common
import style
from nbodylab import paper

EXP, GPU_EXP = "E19_dpd_step_time", "E19_dpd_step_time_gpu"
# Seed S3, Table 1: seconds of one simulation step of 2^20 particles (DPD), per architecture.
S3_SECONDS = [("GeForce 6800 Ultra (OpenGL)", 1.868), ("Cell B.E.", 1.353), ("GeForce 8800 GT (CUDA)", 0.251),
              ("Itanium 1.5 GHz", 15.765), ("Core 2 Duo 2.4 GHz, one thread", 3.392)]
S3_CUDA = 0.251
LARGE = 1 << 20  # the rows compared with S3: 2^20 particles (within rounding of the box)


def large(rows):
    return [r for r in rows if abs(int(r["n"]) - LARGE) <= 8 and r.get("seconds_per_step")]


def seconds(r):
    return float(r["seconds_per_step"])


def main():
    gpu_rows, gpu_meta = paper.load_results(GPU_EXP)
    try:
        here_rows, here_meta = paper.load_results(EXP)
    except paper.MissingResults:
        here_rows, here_meta = [], None
    ours = []  # (label, precision, seconds, note)
    for p in ("float", "double"):
        cuda = sorted((r for r in large(gpu_rows) if r["engine"] == "cuda" and r["precision"] == p), key=seconds)
        if cuda:
            ours.append((f"H100, {p}", p, seconds(cuda[0]), f"cell list {cuda[0]['cell-list']}"))
    for p in ("float", "double"):
        host = [r for r in large(gpu_rows) if r["engine"] == "openmp" and r["precision"] == p]
        if host:
            ours.append((f"H100's host, {host[0]['threads']} cores, {p}", p, seconds(host[0]), ""))
    for p in ("float", "double"):
        mine = [r for r in large(here_rows) if r["engine"] == "openmp" and r["precision"] == p]
        if mine:
            ours.append((f"this machine, {mine[0]['threads']} cores, {p}", p, seconds(mine[0]), ""))

    labels = [f"S3: {name}" for name, _ in S3_SECONDS] + [label for label, _, _, _ in ours]
    values = [s for _, s in S3_SECONDS] + [s for _, _, s, _ in ours]
    colours = ["tab:grey"] * len(S3_SECONDS) + ["tab:red" if "H100," in label else "tab:blue" for label, *_ in ours]
    fig, ax = style.figure(1, 1, height=0.22 * len(labels) + 0.8)
    y = list(range(len(labels)))[::-1]
    ax.barh(y, values, color=colours)
    ax.set_yticks(y, labels)
    ax.set_xscale("log")
    ax.set_xlabel(r"seconds per DPD step, $2^{20}$ particles (cell list included)")
    ax.grid(axis="y", visible=False)
    style.log_ticks(ax, "x")
    style.save(fig, EXP)

    lines = [r"\begin{tabular}{lrr}", r"\toprule", r"machine & seconds per step & S3's CUDA time over it \\", r"\midrule"]
    for name, s in S3_SECONDS:
        lines.append(rf"\seed{{3}}: {paper.tex_escape(name)} & {s:g} & {S3_CUDA / s:.2g} \\")
    lines.append(r"\midrule")
    for label, _, s, note in ours:
        text = paper.tex_escape(label) + (rf" \tiny{{({paper.tex_escape(note)})}}" if note else "")
        lines.append(rf"{text} & {s:.3g} & {S3_CUDA / s:.3g} \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    sources = [f"results/{GPU_EXP}.csv"] + ([f"results/{EXP}.csv"] if here_meta else [])
    paper.write_tex("E19_table.tex", "\n".join(lines), __file__, sources)

    macros = {"EnineteenDevice": gpu_common.device_text(gpu_meta, gpu_rows)}
    for p in ("float", "double"):
        pk = paper.macro_part(p)
        cuda = sorted((r for r in large(gpu_rows) if r["engine"] == "cuda" and r["precision"] == p), key=seconds)
        macros[f"Enineteen{pk}Ms"] = f"{1e3 * seconds(cuda[0]):.2f}" if cuda else paper.MISSING
        macros[f"Enineteen{pk}SlowestMs"] = f"{1e3 * seconds(cuda[-1]):.2f}" if cuda else paper.MISSING
        macros[f"Enineteen{pk}Builder"] = cuda[0]["cell-list"] if cuda else paper.MISSING
        cells = sorted(1e3 * float(r["cell_list_seconds_per_step"]) for r in cuda if r.get("cell_list_seconds_per_step"))
        macros[f"Enineteen{pk}CellsMinMs"] = f"{cells[0]:.3f}" if cells else paper.MISSING
        macros[f"Enineteen{pk}CellsMaxMs"] = f"{cells[-1]:.3f}" if cells else paper.MISSING
        macros[f"Enineteen{pk}OverSthree"] = f"{S3_CUDA / seconds(cuda[0]):.0f}" if cuda else paper.MISSING
        host = [r for r in large(gpu_rows) if r["engine"] == "openmp" and r["precision"] == p]
        macros[f"Enineteen{pk}HostMs"] = f"{1e3 * seconds(host[0]):.0f}" if host else paper.MISSING
        mine = [r for r in large(here_rows) if r["engine"] == "openmp" and r["precision"] == p]
        macros[f"Enineteen{pk}HereS"] = f"{seconds(mine[0]):.2f}" if mine else paper.MISSING
        # This machine's time per particle at 2^20 over that at 2^16.
        small = [r for r in here_rows if r["engine"] == "openmp" and r["precision"] == p and int(r["n"]) == 1 << 16]
        macros[f"Enineteen{pk}HereGrowth"] = (f"{seconds(mine[0]) / int(mine[0]['n']) / (seconds(small[0]) / int(small[0]['n'])):.1f}"
                                             if mine and small else paper.MISSING)
    macros["EnineteenN"] = next((r["n"] for r in large(gpu_rows)), paper.MISSING)
    macros["EnineteenHostCores"] = next((r["threads"] for r in large(gpu_rows) if r["engine"] == "openmp"), paper.MISSING)
    paper.write_macros("E19_numbers.tex", macros, __file__, sources)


if __name__ == "__main__":
    main()
