"""For the tests that need packages of the virtual environment (h5py, yt, pynbody, matplotlib):
require(...) imports them, or runs the test again under .venv/bin/python, or, without that, skips
it (exit 77, which CTest reports as skipped)."""
import importlib
import os
import sys
from pathlib import Path

VENV = Path(__file__).resolve().parents[2] / ".venv"


def require(*modules):
    try:
        for name in modules:
            importlib.import_module(name)
    except ImportError:
        python = VENV / "bin" / "python"
        if Path(sys.prefix).resolve() != VENV.resolve() and python.exists():
            os.execv(python, [str(python), *sys.argv])
        print(f"skipped: needs {', '.join(modules)} from the virtual environment (make .venv/.stamp)")
        sys.exit(77)
