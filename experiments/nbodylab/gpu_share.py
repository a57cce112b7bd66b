"""Points of one experiment at once on the one GPU (an experiment's `gpu_share = "mps"`): for runs
that are latency-bound and leave most of the GPU idle (E05's N = 512 steps on the device, a
grid-wide barrier per force evaluation), NVIDIA's Multi-Process Service runs them side by side
where plain processes would only take turns. The runner starts its control daemon for the
points of one `run` (a pipe and log folder of their own), gives each point an equal share of the
multiprocessors (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), and stops it when they end, whatever ends
them. The points' wall times then overlap: the GPU time they cost is the longest point's."""
import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import requirements

KINDS = ("mps",)


@contextlib.contextmanager
def shared(kind, env, points):
    """With `kind` "mps" and more than one point: the daemon running for `points` points at once,
    `env` (the points' environment) set to reach it; yields what the results' meta records of it
    (None where the points do not share the GPU)."""
    if kind != "mps" or points < 2:
        yield None
        return
    control = requirements.mps_control()
    folder = Path(tempfile.mkdtemp(prefix="nbodylab-mps-"))
    share = max(1, 100 // points)
    env.update(CUDA_MPS_PIPE_DIRECTORY=str(folder / "pipe"), CUDA_MPS_LOG_DIRECTORY=str(folder / "log"),
               CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=str(share))
    for name in ("pipe", "log"):
        (folder / name).mkdir()
    try:
        subprocess.run([control, "-d"], env=env, check=True, capture_output=True, text=True)
        yield {"kind": "mps", "points_at_once": points, "active_thread_percentage": share}
    finally:
        subprocess.run([control], input="quit\n", env=env, capture_output=True, text=True)
        shutil.rmtree(folder, ignore_errors=True)
