#!/usr/bin/env python3
"""Every figure and table of the paper sits beside its text: run after the PDF is built (`make paper`).

A float must be printed on the page of its first citation or the next one. Floats of a kind must be numbered in the order the text first cites them (Table 2 is not
cited before Table 1); a float cited only in another one's caption ranks right after that one.
A float's page comes from the .aux file (\\newlabel{fig:...}{{NUMBER}{PAGE}...}); its citations
from the PDF's text (pdftotext), where the text says "Figure 3", "Fig. 3" or "Table 3". The
seeds' own figures and tables ("S0's Fig. 2", "S1's Table 1", "S0, Fig. 2") are not ours and
are skipped, and so is each float's own caption ("Figure 3: ...").

    check_paper_floats.py PAPER.pdf PAPER.aux

Prints every float with its page and the page of its first citation; exits 1 if one is printed
before its first citation or more than one page after it, is never cited, or is numbered out of
the order of first citation.
"""
import re
import subprocess
import sys

KINDS = {"fig": "Figure", "tab": "Table"}
# "Figure 3", "Fig. 3", "Figs. 3", "Table 3" (a number not followed by "-" or a digit: "Table 14-1"
# is a seed's). The seeds' floats: a possessive or "S0, " just before.
MENTION = re.compile(r"(?P<seed>(?:\u2019s|'s|S\d,)\s+)?(?P<word>Figures?|Figs?\.|Tables?)\s+(?P<num>\d+)(?![\d-])")
CAPTION = re.compile(r"^\s*(Figure|Table)\s+(\d+):.*?(?:\n\s*\n|\Z)", re.M | re.S)  # to its blank line


def floats(aux):
    """[(label, kind, number, page)] of every \\newlabel{fig:...} / {tab:...} in the .aux."""
    out = []
    for label, number, page in re.findall(r"\\newlabel\{((?:fig|tab):[^}]*)\}\{\{(\d+)\}\{(\d+)\}", aux):
        out.append((label, KINDS[label.split(":")[0]], int(number), int(page)))
    return out


def first_citations(pages):
    """{(kind, number): [page (1-based) of its first citation, position in the whole text of its
    first citation outside captions or None, the float whose caption first cites it]}; the
    floats' own caption labels and the seeds' floats are skipped."""
    first, offset = {}, 0
    for index, text in enumerate(pages, start=1):
        found = list(CAPTION.finditer(text))
        labels = {(m.start(1), m.end(2)) for m in found}  # "Figure 3:" opening its own caption
        captions = [(m.span(), (m.group(1), int(m.group(2)))) for m in found]
        for m in MENTION.finditer(text):
            if m.group("seed") or (m.start("word"), m.end("num")) in labels:
                continue
            kind = "Table" if m.group("word").startswith("Table") else "Figure"
            entry = first.setdefault((kind, int(m.group("num"))), [index, None, None])
            parent = next((f for (a, b), f in captions if a <= m.start() < b), None)
            if parent is None and entry[1] is None:
                entry[1] = offset + m.start()
            elif parent is not None and entry[2] is None:
                entry[2] = parent
        offset += len(text)
    return first


def order_key(cited, key, depth=0):
    """Where a float is first cited in the running text; a float cited only in another one's
    caption comes right after that one."""
    _, position, parent = cited[key]
    if position is not None or parent is None or depth > 5 or parent not in cited:
        return (position, 0) if position is not None else None
    outer = order_key(cited, parent, depth + 1)
    return None if outer is None else (outer[0], outer[1] + 1)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_paper_floats.py PAPER.pdf PAPER.aux")
    pdf, aux_path = sys.argv[1], sys.argv[2]
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", "-layout", pdf, "-"], capture_output=True,
                          text=True, check=True).stdout
    pages = text.split("\f")
    with open(aux_path, encoding="utf-8", errors="replace") as f:
        found = floats(f.read())
    cited = first_citations(pages)
    problems = []
    print(f"{'float':<22} {'label':<22} {'page':>4} {'cited':>5}")
    for label, kind, number, page in sorted(found, key=lambda x: (x[1], x[2])):
        cite = cited.get((kind, number), (None,))[0]
        print(f"{kind + ' ' + str(number):<22} {label:<22} {page:>4} {cite if cite else '-':>5}")
        if cite is None:
            problems.append(f"{kind} {number} ({label}) is never cited in the text")
        elif not cite <= page <= cite + 1:  # on the page of its first citation or the next
            problems.append(f"{kind} {number} ({label}) is on page {page}, its first citation on page {cite}")
    for kind in KINDS.values():  # the order of first citation in the running text
        keys = {n: order_key(cited, (kind, n)) for _, k, n, _ in found if k == kind and (kind, n) in cited}
        numbers = sorted((key, n) for n, key in keys.items() if key is not None)
        order = [n for _, n in numbers]
        if order != sorted(order):
            problems.append(f"{kind}s are first cited in the order {order}, not in the order of their numbers")
    for p in problems:
        print(f"check_paper_floats: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
