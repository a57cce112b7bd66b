"""Provenance: what ran, where, when."""
import datetime
import hashlib
import json
import os
import platform
import subprocess
import sys


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _os_name():
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME", platform.platform())
    except OSError:
        return platform.platform()


GPU_FIELDS = ["name", "driver_version", "clocks.sm", "clocks.max.sm", "clocks.applications.graphics", "clocks.mem",
              "power.draw", "power.limit", "temperature.gpu", "persistence_mode"]


def _gpus():
    """nvidia-smi's view of each NVIDIA GPU (name, driver, clocks now, maximum and application
    clocks, power, temperature) when nvidia-smi is here, else None."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(GPU_FIELDS), "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return [dict(zip(GPU_FIELDS, (v.strip() for v in line.split(",")))) for line in out.stdout.splitlines() if line]


def host():
    h = {
        "hostname": platform.node(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "os": _os_name(),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "python": sys.version.split()[0],
    }
    gpus = _gpus()
    if gpus is not None:
        h["nvidia_smi"] = gpus  # at the end of the run: the clock under load is in the batch's clock log
    return h


class BuildInfoError(Exception):
    pass


def build_info(nbody):
    """The JSON object printed by `nbody --build-info`."""
    try:
        out = subprocess.run([str(nbody), "--build-info"], capture_output=True, text=True,
                             timeout=60)
    except OSError as e:
        raise BuildInfoError(f"cannot execute {nbody}: {e.strerror}") from None
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        raise BuildInfoError(f"{nbody} --build-info failed (exit {out.returncode}): {last}")
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError as e:
        raise BuildInfoError(f"{nbody} --build-info did not print JSON: {e}") from None


def integrator_list(nbody):
    """`nbody list integrators --json` (name, description, order, error_estimate, and what
    else the solver reports), or None when this nbody cannot list them as JSON. Recorded with
    the results so that the paper's method table describes the binary that produced them."""
    try:
        out = subprocess.run([str(nbody), "list", "integrators", "--json"], capture_output=True,
                             text=True, timeout=60)
        return json.loads(out.stdout) if out.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
        return None
