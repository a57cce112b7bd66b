"""An experiment's gpu_share = "mps" (experiments/nbodylab/gpu_share.py): the runner starts NVIDIA's
MPS control daemon for the points of one run, each point's environment reaching it with an equal
share of the multiprocessors, and stops it when they end, also when a point fails; one point, or
none, starts nothing. Checked with a stand-in nvidia-cuda-mps-control on PATH that records how it
was called (no GPU needed). Run by CTest (tests/CMakeLists.txt)."""
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
from nbodylab import gpu_share  # noqa: E402

STAND_IN = """#!/bin/sh
{ echo "args=$*"; echo "pipe=$CUDA_MPS_PIPE_DIRECTORY share=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE";
  [ "$1" = -d ] || cat; } >> "$MPS_RECORD"
"""


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    return ok


def main():
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "nvidia-cuda-mps-control").write_text(STAND_IN)
        (tmp / "nvidia-cuda-mps-control").chmod(0o755)
        record = tmp / "record.txt"
        os.environ["PATH"] = f"{tmp}:{os.environ['PATH']}"
        env = {"PATH": os.environ["PATH"], "MPS_RECORD": str(record)}
        with gpu_share.shared("mps", env, 4) as shared:
            pipe = Path(env["CUDA_MPS_PIPE_DIRECTORY"])
            ok &= check("four points: the daemon started (-d), the points' environment reaching it, a quarter "
                        "of the multiprocessors each", record.read_text().splitlines()[0] == "args=-d"
                        and env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] == "25" and pipe.is_dir()
                        and shared == {"kind": "mps", "points_at_once": 4, "active_thread_percentage": 25})
        lines = record.read_text().splitlines()
        ok &= check("and stopped when they ended (quit), its folders removed",
                    lines[-1] == "quit" and lines[-3] == "args=" and not pipe.exists())
        record.unlink()
        try:
            with gpu_share.shared("mps", dict(env), 3):
                raise RuntimeError("a point failed")
        except RuntimeError:
            pass
        lines = record.read_text().splitlines()
        ok &= check("a failure among the points stops it too",
                    lines[0] == "args=-d" and "share=33" in lines[1] and lines[-1] == "quit")
        record.unlink()
        for kind, points in (("mps", 1), ("mps", 0), ("", 4)):
            mine = dict(env)
            with gpu_share.shared(kind, mine, points) as shared:
                pass
            ok &= check(f"gpu_share {kind!r} with {points} point(s) to run: nothing started, the environment as it was",
                        shared is None and not record.exists() and mine == env)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
