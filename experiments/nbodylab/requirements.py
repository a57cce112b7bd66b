"""What an experiment may require (`requires` in its file, or in a profile's table), and whether
this machine has it. A requirement is one of

    cuda, opencl   nbody built with that back end and a device of it here (`nbody --build-info`:
                   host.features)
    mpi            nbody built with MPI and mpiexec on PATH (nbodylab/mpi.py)
    gpus>=N        at least N CUDA devices here (nvidia-smi -L; without it, the one device
                   `nbody --build-info` names)
    sm>=XY         a CUDA device of compute capability X.Y or later (sm>=80: an A100 or later;
                   the device `nbody --build-info` names)
    ncu            Nsight Compute's command line, ncu, on PATH or in a CUDA toolkit's
                   /usr/local/cuda*/bin (where a GPU machine's image keeps it off PATH)
    mps            NVIDIA's Multi-Process Service: its control daemon, nvidia-cuda-mps-control, on
                   PATH (an experiment's gpu_share = "mps" needs it: nbodylab/gpu_share.py)
    reference:NAME another code built from its own source for a reference experiment, in
                   build/reference/NAME/ with its build.json (what it was built from, written last)
                   and the files that names: reference:dualsphysics, DualSPHysics
                   (`make reference-dualsphysics DUALSPHYSICS_GIT=DIR`,
                   tools/reference/dualsphysics/build.sh); reference:ryoanji, Ryoanji
                   (`make reference-ryoanji RYOANJI_GIT=DIR`, tools/reference/ryoanji/build.sh)

The runner never runs an experiment on less: it reuses the committed results, or says what the
machine lacks (`runner.py plan`)."""
import glob
import json
import re
import shutil
import subprocess

from . import ROOT, mpi

FEATURES = ("cuda", "opencl")
GPUS = re.compile(r"gpus>=([1-9][0-9]*)")
SM = re.compile(r"sm>=([1-9][0-9]{1,2})")
# The reference codes: each one's name and the command that builds it into build/reference/NAME/.
REFERENCES = {"dualsphysics": ("DualSPHysics", "make reference-dualsphysics DUALSPHYSICS_GIT=/path/to/DualSPHysics.git"),
              "ryoanji": ("Ryoanji", "make reference-ryoanji RYOANJI_GIT=/path/to/ryoanji.git")}
NAMES = "cuda, opencl, mpi, ncu, gpus>=N, sm>=XY, mps, " + ", ".join(f"reference:{r}" for r in REFERENCES)


def check(requirement):
    """None when `requirement` is one the runner knows, else the reason (for a one-line error)."""
    if (requirement in (*FEATURES, "mpi", "ncu", "mps", *(f"reference:{r}" for r in REFERENCES))
            or GPUS.fullmatch(requirement) or SM.fullmatch(requirement)):
        return None
    return f"unknown requirement {requirement!r} (known: {NAMES})"


def mps_control():
    """The path of NVIDIA's Multi-Process Service control, nvidia-cuda-mps-control (it comes with the
    driver), or None."""
    return shutil.which("nvidia-cuda-mps-control")


def ncu():
    """The path of Nsight Compute's command line, ncu: on PATH, else the CUDA toolkit's
    (/usr/local/cuda/bin, else a /usr/local/cuda-X.Y/bin); None where there is none."""
    toolkits = ["/usr/local/cuda/bin/ncu", *sorted(glob.glob("/usr/local/cuda-*/bin/ncu"))]
    return shutil.which("ncu") or next((p for p in toolkits if shutil.which(p)), None)


def reference_dir(name):
    """Where the build of reference code `name` lives: build/reference/NAME/ of this repository."""
    return ROOT / "build" / "reference" / name


def reference_build(name):
    """The build.json of reference code `name` (what it was built from, and its "files": paths in
    reference_dir), or None where there is no whole build: build.json missing or unreadable, or a
    file it names absent. The build writes build.json last."""
    folder = reference_dir(name)
    try:
        build = json.loads((folder / "build.json").read_text())
        named = list(build["files"].values())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return build if named and all(isinstance(p, str) and (folder / p).exists() for p in named) else None


def lacking_reference(name):
    """Why reference code `name` cannot run here (one line), or None."""
    if reference_build(name):
        return None
    title, command = REFERENCES[name]
    return f"no {title} build in {reference_dir(name).relative_to(ROOT)}/: `{command}` builds it"


def cuda_devices(build_info):
    """The CUDA devices of this machine: nvidia-smi's count, else the one `nbody --build-info` names."""
    if shutil.which("nvidia-smi"):
        try:
            out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60).stdout
            return sum(1 for line in out.splitlines() if line.startswith("GPU "))
        except (OSError, subprocess.SubprocessError):
            pass
    return 1 if (build_info.get("host") or {}).get("cuda") else 0


def lacking(build_info, requirement):
    """Why this machine does not meet `requirement` (one line), or None when it does."""
    host, build = build_info.get("host") or {}, build_info.get("build") or {}
    if requirement in FEATURES:
        if "features" in host:
            have = requirement in host["features"]
        else:  # a solver before host.features: its GPU engines are named after their back end
            have = any(e.split("-")[0] == requirement for e in build.get("gpu_engines", []))
        return None if have else f"no {requirement} device for nbody here"
    if requirement == "mpi":
        return mpi.lacking(build_info)
    if requirement == "mps":
        return None if mps_control() else "nvidia-cuda-mps-control (NVIDIA's Multi-Process Service) is not on PATH"
    if requirement == "ncu":
        return None if ncu() else "ncu (Nsight Compute) is neither on PATH nor in /usr/local/cuda*/bin"
    if requirement.startswith("reference:"):
        return lacking_reference(requirement.removeprefix("reference:"))
    if GPUS.fullmatch(requirement):
        least, count = int(GPUS.fullmatch(requirement)[1]), cuda_devices(build_info)
        return None if count >= least else f"{count} CUDA device{'s' * (count != 1)} here, not {least}"
    least = SM.fullmatch(requirement)[1]
    capability = str((host.get("cuda") or {}).get("compute_capability", ""))
    have = capability.replace(".", "") if re.fullmatch(r"[0-9]+\.[0-9]", capability) else ""
    if have and int(have) >= int(least):
        return None
    return (f"a CUDA device of compute capability {least[:-1]}.{least[-1]} or later is needed, "
            + (f"this one is {capability}" if have else "none is here"))
