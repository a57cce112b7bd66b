#!/usr/bin/env python3
"""The commands the paper prints can be copied: run after the PDF is built (`make paper`).

In the PDF's text (pdftotext), no flag of `nbody` may appear with one dash where it has two (a
T1 typewriter font turns `--` into an en dash unless paper.tex disables that ligature), and the
paper's example command `nbody ic --ic kepler --at-time 10P` must appear as printed and run.

    check_paper_commands.py NBODY PAPER.pdf
"""
import re
import subprocess
import sys
import tempfile

EXAMPLE = ["ic", "--ic", "kepler", "--at-time", "10P"]


def long_flags(nbody):
    """Every --flag that some `nbody [SUBCOMMAND] --help` lists."""
    flags = set()
    for sub in ([], ["run"], ["ic"], ["bench"], ["tune"], ["list"]):
        text = subprocess.run([nbody, *sub, "--help"], capture_output=True, text=True, check=True).stdout
        flags.update(re.findall(r"--([a-z][a-z0-9-]+)", text))
    return flags


def main():
    nbody, pdf = sys.argv[1], sys.argv[2]
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", pdf, "-"], capture_output=True, text=True, check=True).stdout
    problems = []
    flags = long_flags(nbody)
    # A flag with one hyphen, or with an en dash (the ligature): "-t-end", "–t-end".
    for match in re.finditer(r"(?<![\w-])(?:-|\u2013)([a-z][a-z0-9-]+)", text):
        if match.group(1) in flags:
            line = text[max(0, match.start() - 40):match.end() + 20].replace("\n", " ")
            problems.append(f"'{match.group(0)}' should be '--{match.group(1)}': ...{line}...")
    if "nbody " + " ".join(EXAMPLE) not in text:
        problems.append("the example command 'nbody " + " ".join(EXAMPLE) + "' is not in the PDF's text as printed")
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([nbody, *EXAMPLE, "--out", f"{tmp}/state.csv"], capture_output=True, text=True)
        if done.returncode != 0:
            problems.append(f"'nbody {' '.join(EXAMPLE)}' fails: {done.stderr.strip()}")
    for p in problems:
        print(f"check_paper_commands: {p}", file=sys.stderr)
    print(f"check_paper_commands: {len(flags)} flags of nbody, {len(problems)} problems in {pdf}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
