"""E19 numbers, SPH half: the time of one SPH step of the 3-D dam break at about 2^20 particles on
this machine's cores and on the H100 machine's 16, float and double (the H100's own rows come
with SPH on the GPU).

Reads results/E19_sph_step_time.csv (`make all`) and results/E19_sph_step_time_gpu.csv (committed
from the H100 machine); writes
  paper/generated/E19_sph_step_numbers.tex   \\newcommand macros for the numbers the text quotes
"""
import style  # noqa: F401 (puts experiments/ on the path)
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
    host_rows, _ = paper.load_results(GPU_EXP)
    host = {r["precision"]: r for r in paper.split_failures(host_rows)[0]}
    macros["EnineteenSphStepHostThreads"] = next(iter(host.values()))["threads"] if host else paper.MISSING
    for p in ("float", "double"):
        r, h = by.get(p), host.get(p)
        macros[f"EnineteenSphStep{paper.macro_part(p)}S"] = f"{float(r['seconds_per_step']):.1f}" if r else paper.MISSING
        macros[f"EnineteenSphStepHost{paper.macro_part(p)}S"] = f"{float(h['seconds_per_step']):.2f}" if h else paper.MISSING
    paper.write_macros("E19_sph_step_numbers.tex", macros, __file__, [f"results/{EXP}.csv", f"results/{GPU_EXP}.csv"])


if __name__ == "__main__":
    main()
