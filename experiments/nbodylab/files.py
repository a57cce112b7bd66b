"""Atomic file output and the sidecar rule.

Every output is written to `<path>.tmp.<pid>` in the same directory and then moved into
place with os.replace, so a reader (or an interrupted run) never sees half a file.
"""
import csv
import io
import json
import os
from pathlib import Path


def sidecar(path):
    """The provenance file of an output: X.csv -> X.meta.json (X.anything -> X.meta.json)."""
    path = Path(path)
    return path.with_name(path.name.rsplit(".", 1)[0] + ".meta.json")


def write_text(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
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
    """Rows of a CSV as dicts of strings."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)
