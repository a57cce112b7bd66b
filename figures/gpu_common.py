"""Shared helpers of the GPU figure scripts (E09-E13, E24): reading the committed GPU results
and their provenance, the caption text naming the device run, and one colour and marker per
engine. Standard library + matplotlib."""
import style
from style import save  # noqa: F401  (the scripts save with it)
from nbodylab import paper
from nbodylab.paper import load_results as load  # noqa: F401  (rows and provenance of results/NAME.csv)

# engine -> (colour, marker), the same in every GPU figure
ENGINE_STYLE = {"openmp-simd": ("tab:grey", "s"), "opencl-tiled": ("tab:green", "^"),
                "cuda-naive": ("tab:orange", "v"), "cuda-tiled": ("tab:blue", "o"),
                "cuda-split": ("tab:red", "D"), "cuda-pairs": ("tab:purple", "P")}


def device_text(meta, rows=None):
    """'NVIDIA H100 80GB HBM3, driver 580.159.04, SM clock 1980 MHz under load, commit c29b9b34c3d9+dirty',
    from a collected result's device_runs or from a runner's .meta.json (GPU from nbody --build-info,
    driver from nvidia-smi, clock: the median of the rows' gpu_sm_clock_mhz)."""
    if "device_runs" in meta:
        run = meta["device_runs"][-1]
        gpu, driver, b = run["gpu"], run["driver"], run["build"]
        clk = run["clocks"].get("sm_clock_mhz_under_load_median")
    else:
        b = meta["nbody"]["build_info"]["build"]
        gpu = (meta["nbody"]["build_info"]["host"].get("cuda") or {}).get("device", "?")
        driver = (meta["host"].get("nvidia_smi") or [{}])[0].get("driver_version", "?")
        clocks = sorted(float(r["gpu_sm_clock_mhz"]) for r in rows or [] if r.get("gpu_sm_clock_mhz"))
        clk = clocks[len(clocks) // 2] if clocks else None
    commit = str(b.get("git_commit", "?"))[:12] + ("+dirty" if b.get("git_dirty") else "")
    clock = f"SM clock {clk:.0f} MHz under load" if clk else "SM clock not sampled"
    return f"{gpu}, driver {driver}, {clock}, commit {commit}"


def gpu_text(meta):
    """'NVIDIA H100 80GB HBM3, CUDA 13.0': the GPU and CUDA runtime of a collected result's last
    device run or of a runner's .meta.json, for captions beside a seed's hardware."""
    if "device_runs" in meta:
        run = meta["device_runs"][-1]
        return f"{run['gpu']}, CUDA {run['cuda_version']}"
    cuda = meta["nbody"]["build_info"]["host"]["cuda"]
    version = cuda["cuda_runtime_version"]  # 1000 * major + 10 * minor
    return f"{cuda['device']}, CUDA {version // 1000}.{version % 1000 // 10}"


def ratio(x):
    """A ratio for a table column: two significant digits below 10, whole numbers above."""
    return f"{x:.0f}" if x >= 10 else f"{x:.2g}"


def engine_legend(fig, axes, ncol=6):
    """One legend under the panels for every engine (and other labelled line) drawn in any of them,
    in at most `ncol` columns."""
    handles = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    style.legend_below(fig, list(handles.values()), ncol=min(len(handles), ncol))



def sci(x, digits=2):
    return paper.tex_sci(float(x), digits)


def write_tex(name, text, script, sources):
    paper.write_tex(name, text, script, sources)


def write_macros(name, macros, script, sources):
    paper.write_macros(name, macros, script, sources)
