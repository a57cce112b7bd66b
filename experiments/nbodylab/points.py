"""The store of finished points, which makes every kind of experiment resumable.

A finished point (a run, a timing, a ladder run) is stored at once as
results/.points/<ID>/<hash>.json, written atomically, so that an interrupted experiment, run
again, runs only what is missing. The hash covers what makes the point (its nbody arguments and
whatever else the kind hashes), the sha256 of the nbody program (provenance.program_sha256: the
same for the same build made again) and the kind's record format, so a record is reused only for
the very same run of the very same program. `--force` runs
everything again. Each kind keeps its own record layout and its version (RECORD_FORMAT in
nbodylab/sweep.py, bench.py, convergence.py: bump it when the layout changes, and older records
are run again); the store adds to every record record_format, nbody_sha256 and finished_utc.
"""
import hashlib
import json

from . import RESULTS_DIR, files, provenance

POINTS_DIR = RESULTS_DIR / ".points"
# The order of the keys in the hashed text. Fixed, so that the records stored before this
# module existed (whose hashes were taken of these keys in this order) are still found; a key
# added since goes last (a point without it hashes as before). launch: the words before `nbody`
# of a point that runs under mpiexec (nbodylab/mpi.py: OMP_NUM_THREADS=T mpiexec -n P ...), so
# that the same nbody arguments on other ranks or threads per rank are another point.
KEY_ORDER = ("run", "bench", "tune", "reference", "nbody_sha256", "timeseries", "record_format", "launch", "tune_cache")


class PointStore:
    """results/.points/<exp_id>/ for one experiment, one nbody program (`nbody_sha256`:
    provenance.program_sha256) and one record format."""

    def __init__(self, exp_id, nbody_sha256, record_format, force=False):
        self.dir = POINTS_DIR / exp_id
        self.sha, self.record_format, self.force = nbody_sha256, record_format, force

    def key(self, **identity):
        """The hash of a point: `identity` names what makes it (run=, bench= or tune= its nbody
        arguments; reference=, timeseries= where the kind has them; launch= its mpiexec words,
        for a point with ranks only; tune_cache= the sha256 of the tuning cache a bench reads)."""
        unknown = set(identity) - set(KEY_ORDER)
        if unknown:
            raise ValueError(f"not hashed by the point store: {sorted(unknown)}")
        fields = {**identity, "nbody_sha256": self.sha, "record_format": self.record_format}
        text = json.dumps({k: fields[k] for k in KEY_ORDER if k in fields})
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def path(self, key, suffix=".json"):
        """The record's file, or a file beside it (suffix ".snapshots.csv", ".parts")."""
        return self.dir / f"{key}{suffix}"

    def load(self, key, usable=lambda record: True):
        """The stored record of a point, or None when it must run (again): --force, none stored,
        unreadable, another record format, or not `usable` (e.g. it lacks a timeseries)."""
        if self.force:
            return None
        try:
            record = files.read_json(self.path(key))
        except (OSError, ValueError):
            return None
        if record.get("record_format") != self.record_format or not usable(record):
            return None
        return record

    def store(self, key, record):
        """Store a finished point (atomically: an interruption leaves the old record or none)
        and return it as stored."""
        record = {"record_format": self.record_format, **record, "nbody_sha256": self.sha,
                  "finished_utc": provenance.utc_now()}
        files.write_json(self.path(key), record)
        return record
