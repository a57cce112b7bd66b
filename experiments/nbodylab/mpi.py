"""Points that run under mpiexec: the point parameters `ranks` and `threads_per_rank`.

They are not nbody flags. A point with `ranks = P` runs its nbody command as

    OMP_NUM_THREADS=T mpiexec -n P --bind-to core --map-by slot:PE=T nbody ...

(T = threads_per_rank, default max(1, cores // P)), so that each rank has T cores of its own;
ranks = 1 runs under mpiexec too, so that the 1-rank points of a scaling experiment are measured
the same way as the others. Where P * T exceeds the cores, Open MPI is told to oversubscribe
(`--bind-to core:overload-allowed ... --oversubscribe`: plain `--bind-to core` refuses to bind
two ranks to one core); such timings share cores. The cores are the physical cores this process
may run on (Open MPI's slots: a core's hardware threads count once). Running as root, Open MPI
needs OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1: they are set in the point's environment only.

The recorded command (and the point's hash, nbodylab/points.py) carries the launch,
`OMP_NUM_THREADS=T mpiexec ...`, but not the root variables, which change nothing measured.
"""
import os
import shutil
from pathlib import Path

# The point parameters that choose the launch, not nbody flags.
PARAMS = ("ranks", "threads_per_rank")
MPIEXEC = "mpiexec"
ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def check_value(name, value):
    """None when `value` is a valid ranks / threads_per_rank (a whole number >= 1), else the
    reason, for a one-line error."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return f"{name} must be a whole number >= 1, got {value!r}"
    return None


def cores():
    """The physical cores this process may run on (hardware threads of one core count once)."""
    try:
        cpus = os.sched_getaffinity(0)
    except AttributeError:
        return os.cpu_count() or 1
    siblings = set()
    for cpu in cpus:
        path = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list")
        try:
            siblings.add(path.read_text().strip())
        except OSError:
            siblings.add(str(cpu))
    return max(1, len(siblings))


def launch(ranks, threads_per_rank=None, ncores=None):
    """The words before `nbody` that launch a point on `ranks` ranks of `threads_per_rank`
    threads each (None: max(1, cores // ranks)): ["OMP_NUM_THREADS=T", "mpiexec", "-n", ...].
    The first word is the environment setting (see environment())."""
    ncores = ncores or cores()
    threads = threads_per_rank or max(1, ncores // ranks)
    over = ranks * threads > ncores
    return ([f"OMP_NUM_THREADS={threads}", MPIEXEC, "-n", str(ranks),
             "--bind-to", "core:overload-allowed" if over else "core", "--map-by", f"slot:PE={threads}"]
            + (["--oversubscribe"] if over else []))


def split(words):
    """(argv prefix, {variable: value}) of launch()'s words: the leading NAME=value words are
    the environment."""
    env = {}
    while words and "=" in words[0] and not words[0].startswith("-"):
        name, value = words[0].split("=", 1)
        env[name] = value
        words = words[1:]
    return list(words), env


def environment(base, settings):
    """The environment of a point under mpiexec: `base` with launch()'s settings and, when this
    process runs as root, Open MPI's permission to run as root (for this run only)."""
    env = dict(base, **settings)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.update(ROOT_ENV)
    return env


def lacking(build_info):
    """Why this machine cannot run points under mpiexec (one line), or None when it can: nbody
    built with MPI (`nbody --build-info`: build.mpi not null) and mpiexec on PATH."""
    if not (build_info.get("build") or {}).get("mpi"):
        return "nbody was built without MPI: its --build-info has build.mpi null"
    if shutil.which(MPIEXEC) is None:
        return f"{MPIEXEC} is not on PATH"
    return None
