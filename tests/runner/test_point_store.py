"""The runner's store of finished points (experiments/nbodylab/points.py), which every kind of
experiment resumes from: a stored point is found again under the same hash, and only for the
same run of the same binary in the same record format (the binary's hash blind to nvcc's
temporary-file names only, so that the same build made again resumes); --force, an unreadable record and one the
kind cannot use run the point again; the hashes of the records stored before the store was one
module (a sweep point, a tune point, a ladder run) are unchanged. Run by CTest
(tests/CMakeLists.txt)."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
from nbodylab import points, provenance  # noqa: E402

SHA = "ab" * 32
ARGS = ["run", "--n", "4"]


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    return ok


def main():
    with tempfile.TemporaryDirectory() as tmp:
        points.POINTS_DIR = Path(tmp)
        store = points.PointStore("E99_store", SHA, 2)
        ok = check("a sweep point's hash is the one records were stored under",
                   store.key(run=ARGS, reference=None, timeseries=False) == "e666d8611ed3715cd06ee3f16e262288")
        ok &= check("a tune point's too", store.key(tune=["tune", "--n", "4"]) == "8e9acc1a99463e403291d41fa73cd808")
        ok &= check("a ladder run's too (record format 1)",
                    points.PointStore("E99_store", SHA, 1).key(run=ARGS) == "562ce92fcd7e68a7609e2969394f1572")
        key = store.key(run=ARGS)
        ok &= check("the hash covers the binary", key != points.PointStore("E99_store", "cd" * 32, 2).key(run=ARGS))
        ok &= check("and the arguments", key != store.key(run=ARGS + ["--seed", "2"]))

        stored = store.store(key, {"params": {"n": 4}, "summary": {"fevals": 10}})
        ok &= check("a stored record carries its format, binary and time",
                    stored["record_format"] == 2 and stored["nbody_sha256"] == SHA and bool(stored["finished_utc"]))
        ok &= check("is found again as stored", store.load(key) == stored)
        ok &= check("and left no temporary file", [p.name for p in Path(tmp, "E99_store").iterdir()] == [f"{key}.json"])
        ok &= check("--force runs it again", points.PointStore("E99_store", SHA, 2, force=True).load(key) is None)
        ok &= check("another record format runs it again", points.PointStore("E99_store", SHA, 3).load(key) is None)
        ok &= check("a record the kind cannot use runs it again", store.load(key, lambda r: "timeseries" in r) is None)
        store.path(key).write_text("{ half a rec")
        ok &= check("an unreadable record runs it again", store.load(key) is None)

        def program(name, text):
            Path(tmp, name).write_bytes(text)
            return provenance.program_sha256(Path(tmp, name))
        built = program("a", b"\x7fELF code tmpxft_00002f4f_00000000-6_k.cudafe1.cpp code")
        ok &= check("a program built again (other nvcc temporary names) has the same hash",
                    built == program("b", b"\x7fELF code tmpxft_00c0ffee_00000001-6_k.cudafe1.cpp code"))
        ok &= check("a program differing in any other byte has another",
                    built != program("c", b"\x7fELF codE tmpxft_00002f4f_00000000-6_k.cudafe1.cpp code"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
