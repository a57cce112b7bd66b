"""One long `nbody run` in parts: each part stops at the next multiple of a part length
(`--stop-at`) and the next resumes from its checkpoint, bit for bit the uninterrupted run (in the
same launch shape). Finished parts stay in the point's folder (<hash>.parts/: part-K.summary.json,
part-K.checkpoint.bin and part-K.NAME for each output the run writes) and are not run again, so
that an interrupted run (a job's time limit, a lent GPU machine given back, the runner stopped)
loses at most one part; carried to another machine with results/.points/, it goes on there.
Used by run experiments (`part_length`, nbodylab/sweep.py) and convergence ladders ([ladder]
part-length, nbodylab/convergence.py)."""
import math
import shlex
import shutil
import sys

from . import files
from .provenance import display
from .spec import fmt


def run_in_parts(call, nbody, args, env, part_length, folder, outputs, tag, force=False):
    """Run `nbody ARGS` (with a numeric --t-end) in parts of `part_length`, each part through
    call(nbody, argv, env, shown) (it raises on failure), writing the outputs [(flag, NAME), ...]
    as folder/part-K.NAME; the first is a recorded output (with a .meta.json, written with the
    others once the part has ended), whose record gives the part's command line. With `force`
    the folder starts afresh. Returns (the whole run's summary: the last part's, whose counts are
    the run's, with the parts' wall times added up; the parts: [{t, fevals, wall_s, device,
    command_line}]; {NAME: [the parts' files, in order]})."""
    if force:
        shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    t_end = float(args[args.index("--t-end") + 1])

    def part(k, name):
        return folder / f"part-{k}.{name}"

    def done(k):
        return part(k, "summary.json").is_file() and files.sidecar(part(k, outputs[0][1])).is_file()

    k = 1
    while done(k):
        k += 1
    last = files.read_json(part(k - 1, "summary.json")) if k > 1 else None
    while last is None or not last["completed"]:
        t = last["t"] if last else 0.0
        stop = (math.floor(t / part_length + 1e-9) + 1) * part_length
        flags = ["--checkpoint", str(part(k, "checkpoint.bin"))]
        if k > 1:
            flags += ["--resume", str(part(k - 1, "checkpoint.bin"))]
        if stop < t_end:
            flags += ["--stop-at", fmt(stop)]
        for flag, name in outputs:
            flags += [flag, str(part(k, name))]
        flags += ["--summary", str(part(k, "summary.json"))]
        print(f"[{tag}]   part {k}: from t = {t:g}", file=sys.stderr)
        call(nbody, [*args, *flags], env, shlex.join([display(nbody), *args, *flags]))
        last = files.read_json(part(k, "summary.json"))
        k += 1
    summaries = [files.read_json(part(i, "summary.json")) for i in range(1, k)]
    parts = [{"t": s["t"], "fevals": s["fevals"], "wall_s": s["wall_s"], "device": s["device"],
              "command_line": files.read_json(files.sidecar(part(i, outputs[0][1])))["parameters"]["command_line"]}
             for i, s in enumerate(summaries, 1)]
    summary = {**summaries[-1], "wall_s": sum(s["wall_s"] for s in summaries)}
    return summary, parts, {name: [part(i, name) for i in range(1, k)] for _, name in outputs}


def joined_csv(paths):
    """The text of CSV files of one header written one after another (the parts' snapshots or
    diagnostics: a resumed part starts after the previous part's last row)."""
    texts = [p.read_text() for p in paths]
    return texts[0] + "".join(t.split("\n", 1)[1] for t in texts[1:])
