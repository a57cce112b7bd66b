"""Provenance: what ran, where, when; and the one .meta.json schema of results/."""
import datetime
import functools
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

from . import ROOT, files

# Version of the schema of results/*.meta.json (results_meta): bump it when the common keys change.
META_FORMAT = 1
# The keys every results/*.meta.json begins with, in this order.
META_KEYS = ("meta_format", "experiment", "title", "created_utc", "producer", "columns", "sources")
RUNNER = "experiments/runner.py"  # the producer of the runner's results, whatever the kind


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def display(path):
    """A path as recorded in provenance: relative to the repository when inside it."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def results_meta(experiment, title, producer, columns, sources, created_utc=None, **sections):
    """The provenance of a file in results/, its sidecar X.meta.json (files.write_csv writes both),
    in the one schema of results/ whoever writes it:
      meta_format  META_FORMAT, the version of this schema
      experiment   the experiment the file belongs to: experiments/<experiment>.toml
      title        what the file holds, in one line
      created_utc  when it was written (default: now)
      producer     the program that wrote it, a repository path: experiments/runner.py (also for
                   the results of a script or reducer it runs), a collector (tools/gpu/collect_*.py)
      columns      the CSV's header
      sources      what it was made from, repository paths: the experiment file (the runner's
                   results), the results it was computed from, the kept logs of the device runs
                   it was collected from (evidence/)
    then the producer's own sections: the runner's profile, kind, nbody (binary, build info),
    host, runner, experiment_toml, points; a collector's device_runs and parameters."""
    clash = sorted(set(sections) & set(META_KEYS))
    if clash:
        raise ValueError(f"{clash} are common keys of results_meta, not sections")
    return {"meta_format": META_FORMAT, "experiment": experiment, "title": title,
            "created_utc": created_utc or utc_now(), "producer": _in_repository(producer),
            "columns": list(columns), "sources": [_in_repository(s) for s in sources], **sections}


def write_unless_same(path, header, rows, meta):
    """X.csv and its X.meta.json (files.write_csv), left alone when they hold the same already but
    for created_utc: deriving or collecting again from unchanged inputs changes nothing."""
    path = Path(path)
    if path.is_file() and files.sidecar(path).is_file() and \
            files.read_text(path) == files.csv_text(header, rows) and \
            {**files.read_json(files.sidecar(path)), "created_utc": None} == {**meta, "created_utc": None}:
        return False
    files.write_csv(path, header, rows, meta)
    return True


def _in_repository(path):
    """A repository path as recorded: absolute paths made relative to the repository, relative
    ones (already relative to it; a folder ends with /) kept as written."""
    return display(path) if Path(path).is_absolute() else str(path)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# nvcc names its temporary files after its process id (tmpxft_<pid>_<n>) and those names land in
# the program, so two builds of one source with one toolchain differ in them only.
_NVCC_TEMPORARY_NAME = re.compile(rb"tmpxft_[0-9a-f]{8}_[0-9a-f]{8}")


def program_sha256(path):
    """The sha256 of a program with nvcc's temporary-file names blanked: the same for every build
    of one source with one toolchain and flags (in one folder), so that a run in parts resumes on
    another machine with the same build made again (the point store's identity of nbody)."""
    with open(path, "rb") as f:
        return hashlib.sha256(_NVCC_TEMPORARY_NAME.sub(b"tmpxft", f.read())).hexdigest()


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


# What the solver's results depend on besides the experiment file: every path nbody is built from.
SOLVER_SOURCES = ("CMakeLists.txt", "cmake", "solver", "kernels")


def _git(*args):
    """(exit status, stdout) of git in the repository; (None, "") where git cannot run."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None, ""
    return out.returncode, out.stdout


def solver_source_changed(commit):
    """Why the solver source here differs from that of `commit` (the commit nbody was built from),
    or None when it is the same: no tracked change and no new file under SOLVER_SOURCES."""
    if not commit or commit == "unknown":
        return "the results do not record the solver's commit"
    status, _ = _git("cat-file", "-e", f"{commit}^{{commit}}")
    if status is None:
        return "git is not available to compare the solver source"
    if status != 0:
        return f"commit {commit[:8]} is not in this repository's history"
    status, _ = _git("diff", "--quiet", commit, "--", *SOLVER_SOURCES)
    if status != 0:
        return f"the solver source has changed since {commit[:8]}"
    _, untracked = _git("ls-files", "--others", "--exclude-standard", "--", *SOLVER_SOURCES)
    if untracked.strip():
        return f"the solver source has new files since {commit[:8]}"
    return None


def _toml(text):
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def same_toml(recorded, text):
    """Whether an experiment file recorded in a meta says what `text` says (comments aside)."""
    return _toml(recorded) == _toml(text)


def committed_results_state(meta, toml_text, profile, profiles, references=None):
    """Whether the results a runner meta describes can stand for a run of `profile` now:
    (True, why) to reuse them, (False, why) to run again. They stand when they were made by a
    profile at least as large (the larger runs are the expensive ones, committed to be reused;
    their commit shows in the paper's provenance table) or by the same profile, from the same
    experiment file and a clean build of the solver source as it is here; for a reference
    experiment, `references` {name: its build.json here}, from the same commit of each reference
    code instead (nbody does not make its results). A change to the runner that changes results is
    not seen here: run with --force."""
    made = meta.get("profile")
    if made not in profiles or profiles.index(made) < profiles.index(profile):
        return False, f"they were made by the profile {made}"
    build = meta.get("nbody", {}).get("build_info", {}).get("build", {})
    commit = build.get("git_commit", "")
    if made != profile:
        return True, f"made by the larger profile {made} at {commit[:8]}"
    if not same_toml(meta.get("experiment_toml", ""), toml_text):
        return False, "the experiment file has changed since (more than its comments)"
    if references is not None:
        for name, built in references.items():
            made_from = (meta.get(name) or {}).get("commit")
            if made_from != built.get("commit"):
                return False, (f"they were made by {name} at {str(made_from)[:8]}, the build here is of "
                               f"{str(built.get('commit'))[:8]}")
        return True, "the experiment file and the reference code's commit are those they were made from"
    if build.get("git_dirty", True):
        return False, "they were made by a build from uncommitted source"
    changed = solver_source_changed(commit)
    if changed:
        return False, changed
    return True, f"the experiment file and the solver source are those of {commit[:8]}"


@functools.lru_cache(maxsize=None)
def _archive_members(archive):
    with tarfile.open(archive) as tar:
        return {m.name: m for m in tar.getmembers()}


def _archived(source):
    """(archive, member name) of a repository path kept in an archive of one of its folders, as
    evidence/gpu/logs/FOLDER/... is kept in evidence/gpu/logs/FOLDER.tar.xz (evidence/README.md),
    or None."""
    parts = source.strip("/").split("/")
    for k in range(len(parts), 0, -1):
        archive = ROOT.joinpath(*parts[:k - 1], parts[k - 1] + ".tar.xz")
        if archive.is_file():
            name, members = "/".join(parts[k - 1:]), _archive_members(archive)
            found = name in members or any(m.startswith(name + "/") for m in members)
            return (archive, name) if found else None
    return None


def source_exists(source):
    """Whether a source a .meta.json names is in the repository: a file or folder, or one kept in
    an archive of its folder (evidence/gpu/logs/FOLDER.tar.xz)."""
    return (ROOT / source).exists() or _archived(source) is not None


def source_text(source):
    """The text of such a source file, or None where it is in neither."""
    if (ROOT / source).is_file():
        return (ROOT / source).read_text(encoding="utf-8")
    found = _archived(source)
    member = found and _archive_members(found[0]).get(found[1])
    if not member or not member.isfile():
        return None
    with tarfile.open(found[0]) as tar:
        return tar.extractfile(found[1]).read().decode("utf-8")


def _is_folder(source):
    found = _archived(source)
    member = found and _archive_members(found[0]).get(found[1])
    return source.endswith("/") or (ROOT / source).is_dir() or (found is not None and not (member and member.isfile()))


def _evidence_builds(sources):
    """`nbody --build-info` of the runs whose logs a collector read: build_info.json in each
    evidence folder named in `sources` (or in the folder of a named file), and the GPU that
    nvidia-smi named in its provenance.txt."""
    infos = []
    for source in sources:
        if not source.startswith("evidence/"):
            continue
        folder = source.rstrip("/") if _is_folder(source) else source.rsplit("/", 1)[0]
        text = source_text(f"{folder}/build_info.json")
        if text is not None:
            info = json.loads(text)
            lines = (source_text(f"{folder}/provenance.txt") or "").splitlines()
            if len(lines) > 1 and lines[0].startswith("name,"):
                info.setdefault("host", {})["gpu"] = lines[1].split(",")[0].strip()
            infos.append(info)
    return infos


def measurement(meta):
    """Where, when and from which solver a results file was measured, from its .meta.json in
    whichever producer's form: a dict of machine (CPU and cores), gpu (None where none was
    recorded), commits (short, sorted; '+dirty' for an uncommitted build; empty when nothing
    recorded it), dates (the days measured, or the day collected where the logs carry no date),
    and profile (the runner's profile, or the device batches a collector read)."""
    info = (meta.get("nbody") or {}).get("build_info", {})
    runs = meta.get("device_runs") or []
    host = dict(meta.get("host") or {})
    infos = [info] if info else [{"build": r.get("build", {}), "host": r.get("host", {})} for r in runs]
    infos = infos or _evidence_builds(meta.get("sources", []))
    commits = sorted({b["git_commit"][:7] + ("+dirty" if b.get("git_dirty") else "")
                      for b in (i.get("build", {}) for i in infos) if b.get("git_commit")})
    hosts = [i.get("host", {}) for i in infos]
    devices = sorted({r["gpu"] for r in runs if r.get("gpu")} |
                     {h["gpu"] for h in hosts if h.get("gpu")} |
                     {(h.get("cuda") or {}).get("device") for h in hosts if (h.get("cuda") or {}).get("device")} |
                     {g["name"] for g in host.get("nvidia_smi") or []} | ({host["gpu"]} if host.get("gpu") else set()))
    cuda_host = any("cuda" in (h.get("features") or []) for h in hosts)
    needs_gpu = "cuda" in str(tomllib.loads(meta["experiment_toml"]).get("requires", "")) \
        if meta.get("experiment_toml") else True  # a collector reads device logs
    smi = [g["name"] for g in host.get("nvidia_smi") or []]  # every GPU of the host: "4 x NVIDIA H200"
    gpu = ", ".join(f"{smi.count(d)} x {d}" if smi.count(d) > 1 else d for d in devices) or \
        ("a CUDA GPU, model not recorded" if cuda_host and needs_gpu else None)
    cpu = host.get("cpu_model") or next((h["cpu_model"] for h in hosts if h.get("cpu_model")), None)
    cores = host.get("cpu_count") or next((h["logical_cores"] for h in hosts if h.get("logical_cores")), None)
    starts = [r.get("started_utc") or r.get("start_utc") for r in runs + (meta.get("batches") or [])]
    starts += meta.get("parts_started_utc") or []  # a run in parts (tools/gpu/collect_e05.py)
    starts += [p.get("finished_utc") for p in meta.get("points") or []]  # the runner's points, over days
    return {"machine": f"{cpu}, {cores} cores" if cores else (cpu or "not recorded"), "gpu": gpu,
            "commits": commits, "dates": sorted({s[:10] for s in starts if s}) or [meta["created_utc"][:10]],
            "profile": meta.get("profile") or ", ".join(sorted({r["batch"] for r in runs if r.get("batch")}))
            or "device logs"}
