#!/usr/bin/env python3
"""The repository stays lean: its tracked files hold at most LIMIT bytes (a clone, and a copy sent
to a remote GPU machine, carry no generated figures, raw run state or bulk tables uncompressed),
and a bulk table (X.csv.gz) is written with the same bytes whenever it holds the same text and
read back as written.

Usage: python3 tests/runner/test_repository_size.py   (exit 77: not a git checkout)"""
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
from nbodylab import ROOT, files  # noqa: E402

LIMIT = 30_000_000


def check(what, ok):
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    return ok


def main():
    try:
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        print("skipped: not a git checkout (the size rule is about what the repository tracks)")
        return 77
    paths = [ROOT / p.decode() for p in listed.split(b"\0") if p]
    sizes = sorted(((p.stat().st_size, p) for p in paths if p.is_file()), reverse=True)
    total = sum(s for s, _ in sizes)
    largest = ", ".join(f"{p.relative_to(ROOT)} {s / 1e6:.1f} MB" for s, p in sizes[:3])
    ok = check(f"tracked files: {total / 1e6:.1f} MB of at most {LIMIT / 1e6:.0f} MB (largest: {largest})",
               total <= LIMIT)

    text = "t,x\n" + "".join(f"{i},{i * 0.5}\n" for i in range(5000))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "X_timeseries.csv.gz"
        files.write_text(path, text)
        first = path.read_bytes()
        ok &= check("a .csv.gz is gzip-compressed and reads back as written",
                    first[:2] == b"\x1f\x8b" and len(first) < len(text) / 2 and files.read_text(path) == text)
        path.unlink()
        files.write_text(path, text)
        ok &= check("the same text gives the same bytes (no name or time in the header)", path.read_bytes() == first)
        before = path.stat().st_mtime_ns
        files.write_text(path, text)
        ok &= check("writing the same text again leaves the file alone", path.stat().st_mtime_ns == before)
        ok &= check("its sidecar is X_timeseries.meta.json", files.sidecar(path).name == "X_timeseries.meta.json")
        ok &= check("read_csv reads it", files.read_csv(path)[-1] == {"t": "4999", "x": "2499.5"})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
