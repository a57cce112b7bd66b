"""Every file in results/ has its provenance in the one .meta.json schema
(experiments/nbodylab/provenance.py, results_meta), whoever wrote it (the runner, a GPU collector;
never a figure script: figures only read results/): the common keys first and in order, the
experiment it belongs to, a producer and sources that exist in the repository, the CSV's header as
its columns; a derived experiment's results the runner, its reducer and its inputs, a script experiment's the
runner and its script (or, for one that needs what CI lacks, the script alone, made before the
runner ran it, or the results it is to replace, still filed under the experiment they were
collected for). Those of other classes of machine (results/machines/NAME/) alike, each named as
its experiment. Run by CTest (tests/CMakeLists.txt)."""
import datetime
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
from nbodylab import MACHINES_DIR, RESULTS_DIR, ROOT, files, provenance, spec  # noqa: E402

COMMON = ["meta_format", "experiment", "title", "created_utc", "producer", "columns", "sources"]


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    return ok


def problems(meta, csv_path):
    """What is wrong with the sidecar `meta` of `csv_path` (an empty list when nothing is)."""
    out = []
    if list(meta)[:len(COMMON)] != COMMON:
        return [f"begins with {list(meta)[:len(COMMON)]}, not {COMMON}"]
    if meta["meta_format"] != provenance.META_FORMAT:
        out.append(f"meta_format {meta['meta_format']!r}")
    exp = meta["experiment"]
    if not (spec.EXPERIMENTS_DIR / f"{exp}.toml").is_file():
        out.append(f"experiment {exp!r} has no experiments/{exp}.toml")
    if not (csv_path.stem == exp or csv_path.stem.startswith(exp + "_")):
        out.append(f"the file is not named after its experiment {exp!r}")
    if not isinstance(meta["title"], str) or not meta["title"]:
        out.append("no title")
    try:
        datetime.datetime.fromisoformat(meta["created_utc"].replace("Z", "+00:00"))
    except (TypeError, ValueError):
        out.append(f"created_utc {meta['created_utc']!r} is not a time")
    if not (ROOT / meta["producer"]).is_file():
        out.append(f"producer {meta['producer']!r} is not a file of the repository")
    header = files.read_text(csv_path).split("\n", 1)[0].split(",")
    if meta["columns"] != header:
        out.append(f"columns {meta['columns']} are not the CSV's header {header}")
    missing = [s for s in meta["sources"] if not provenance.source_exists(s)]
    if not meta["sources"] or missing:
        out.append(f"sources missing from the repository: {missing or 'none given'}")
    return out


def main():
    folders = [RESULTS_DIR, *sorted(p for p in MACHINES_DIR.glob("*") if p.is_dir())]
    metas = sorted(m for f in folders for m in f.glob("*.meta.json"))
    csvs = sorted(c for f in folders for pattern in ("*.csv", "*.csv.gz") for c in f.glob(pattern))
    ok = check(f"every results/*.csv and *.csv.gz has a .meta.json, machines/NAME/ too ({len(csvs)})",
               all(files.sidecar(c).is_file() for c in csvs))
    ok &= check(f"every results/*.meta.json is the sidecar of one CSV ({len(metas)})",
                sorted(map(files.sidecar, csvs)) == metas)
    others = [c for c in csvs if c.parent != RESULTS_DIR]
    ok &= check(f"another class of machine's results are named as their experiment's: "
                f"{[str(c.relative_to(RESULTS_DIR)) for c in others]}",
                all((spec.EXPERIMENTS_DIR / f"{c.name.split('.')[0]}.toml").is_file() for c in others))
    producers = set()
    for csv_path in csvs:
        meta = files.read_json(files.sidecar(csv_path))
        wrong = problems(meta, csv_path)
        ok &= check(f"{csv_path.name}: one schema" + (f": {'; '.join(wrong)}" if wrong else ""), not wrong)
        producers.add(meta.get("producer"))
    ok &= check(f"written by the runner and the collectors alike: {sorted(map(str, producers))}",
                {provenance.RUNNER, "tools/gpu/collect_e05.py"} <= producers)
    by_figures = sorted(str(p) for p in producers if str(p).startswith("figures/"))
    ok &= check("none written by a figure script (a table computed from results is a derived experiment's)"
                + (f": {', '.join(by_figures)}" if by_figures else ""), not by_figures)
    for exp_id in spec.experiment_ids():
        exp = spec.load(exp_id, "full")
        if exp.kind == "derived":
            meta = files.read_json(RESULTS_DIR / f"{exp_id}.meta.json")
            ok &= check(f"{exp_id} (derived): computed by the runner with {exp.script} from its inputs, "
                        f"whose checksums it records",
                        meta["producer"] == provenance.RUNNER and meta.get("script") == exp.script
                        and set(meta.get("inputs", {})) == {f"results/{d}{s}" for d in exp.derived_from
                                                            for s in (".csv", ".meta.json")})
        if exp.kind == "script":  # or, where this machine cannot run it, written by the script itself
            for csv_path in [c for c in csvs if c.name.startswith(exp_id)]:
                meta = files.read_json(files.sidecar(csv_path))
                by_runner = meta["producer"] == provenance.RUNNER and meta.get("script") == exp.script
                # results from before the experiment was a script's, still filed under the experiment
                # they were collected for: its first run where it can replaces them
                older = meta["experiment"] != exp_id
                ok &= check(f"{csv_path.name} (script): taken in by the runner from {exp.script}"
                            + (f" (until it runs: {meta['producer']}'s for {meta['experiment']})" if older else ""),
                            by_runner or (bool(exp.requires) and (meta["producer"] == exp.script or older)))
    fresh = provenance.results_meta("E01_two_body_convergence", "a title", provenance.RUNNER, ["t"],
                                    ["experiments/E01_two_body_convergence.toml"], profile="smoke")
    ok &= check("results_meta writes the schema (common keys, then the producer's sections)",
                list(fresh) == COMMON + ["profile"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
