"""Atomic file output and the sidecar rule.

Every output is written to `<path>.tmp.<pid>` in the same directory and then moved into
place with os.replace, so a reader (or an interrupted run) never sees half a file.

A path ending in .gz is written and read gzip-compressed: the bulk tables (every output time of
the runs, `X_timeseries.csv.gz`; the particles or cells of pictures, such as `X_frames.csv.gz`)
are, and Python's csv and gzip, numpy.loadtxt, pandas and R read them as they are.
"""
import csv
import gzip
import io
import json
import os
from pathlib import Path


def sidecar(path):
    """The provenance file of an output: X.csv -> X.meta.json (X.anything -> X.meta.json,
    X.csv.gz -> X.meta.json)."""
    path = Path(path)
    return path.with_name(path.name.removesuffix(".gz").rsplit(".", 1)[0] + ".meta.json")


def read_text(path):
    """The text of a file, decompressed when its name ends in .gz."""
    path = Path(path)
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
            return f.read()
    return path.read_text(encoding="utf-8")


def write_text(path, text):
    """Write `text` to `path` atomically; a .gz path gets it gzip-compressed, with no name or time
    in its header, and is left alone when it already holds that text (another zlib may compress
    the same text to other bytes)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    if path.suffix == ".gz":
        if path.is_file() and read_text(path) == text:
            return
        data = gzip.compress(data, compresslevel=9, mtime=0)
    tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path, obj):
    write_text(path, json.dumps(obj, indent=2, sort_keys=False) + "\n")


def csv_text(header, rows):
    """CSV text of rows (sequences or dicts keyed by header); floats keep full precision."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow([row[h] for h in header] if isinstance(row, dict) else row)
    return buf.getvalue()


def write_csv(path, header, rows, meta):
    """Write X.csv and its X.meta.json (sidecar first: a CSV never exists without one)."""
    write_json(sidecar(path), meta)
    write_text(path, csv_text(header, rows))


def read_csv(path):
    """Rows of a CSV (X.csv, or X.csv.gz) as dicts of strings."""
    return list(csv.DictReader(io.StringIO(read_text(path), newline="")))


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)
