"""E19 numbers, SPH half: the time of one SPH step of the 3-D dam break at about 2^20 particles on
this machine's cores, on the H100 machine's 16 and on the H100, float and double, and how many
times seed S3's one step with 2^20 particles on a GeForce 8800 GT (Table 1, 0.251 s) each is.

Reads results/E19_sph_step_time.csv (`make all`) and results/E19_sph_step_time_gpu.csv (committed
from the H100 machine); writes
  paper/generated/E19_sph_step_numbers.tex   \\newcommand macros for the numbers the text quotes
"""
import style  # noqa: F401 (puts experiments/ on the path)
from E19_dpd_step_time import S3_CUDA  # seed S3's Table 1, owned by the DPD half's figure
from nbodylab import paper

EXP, GPU_EXP = "E19_sph_step_time", "E19_sph_step_time_gpu"



def main():
    rows, meta = paper.load_results(EXP)
    rows, failed = paper.split_failures(rows)
    by = {r["precision"]: r for r in rows}
    any_row = rows[0] if rows else None
    macros = {
        "EnineteenSphStepParticles": any_row["n"] if any_row else paper.MISSING,
        "EnineteenSphStepFluid": any_row["fluid"] if any_row else paper.MISSING,
        "EnineteenSphStepThreads": any_row["threads"] if any_row else paper.MISSING,
        "EnineteenSphStepFailed": str(len(failed)),
    }
    gpu_rows = paper.split_failures(paper.load_results(GPU_EXP)[0])[0]
    host = {r["precision"]: r for r in gpu_rows if r["engine"] == "openmp"}
    gpu = {r["precision"]: r for r in gpu_rows if r["engine"] == "cuda"}
    macros["EnineteenSphStepHostThreads"] = next(iter(host.values()))["threads"] if host else paper.MISSING
    for p in ("float", "double"):
        r, h, g = by.get(p), host.get(p), gpu.get(p)
        part = paper.macro_part(p)
        macros[f"EnineteenSphStep{part}S"] = f"{float(r['seconds_per_step']):.1f}" if r else paper.MISSING
        macros[f"EnineteenSphStepHost{part}S"] = f"{float(h['seconds_per_step']):.2f}" if h else paper.MISSING
        macros[f"EnineteenSphStepGpu{part}Ms"] = f"{float(g['seconds_per_step']) * 1e3:.2f}" if g else paper.MISSING
        macros[f"EnineteenSphStepGpu{part}OverSthree"] = (f"{S3_CUDA / float(g['seconds_per_step']):.0f}" if g
                                                          else paper.MISSING)
    g = gpu.get("float")
    macros["EnineteenSphStepGpuSteps"] = g["steps_taken"] if g else paper.MISSING
    macros["EnineteenSphStepGpuLists"] = g["lists_made"] if g else paper.MISSING
    macros["EnineteenSphStepGpuTEnd"] = f"{float(g['t-end']):g}" if g else paper.MISSING
    paper.write_macros("E19_sph_step_numbers.tex", macros, __file__, [f"results/{EXP}.csv", f"results/{GPU_EXP}.csv"])


if __name__ == "__main__":
    main()
