"""The integrators as the figure scripts show them: one colour and marker per method, the same in
every figure, and the paper's method table ("zoo") from `nbody list integrators --json` as the
runner recorded it with the results. Standard library only."""
from . import paper

# name -> (colour, marker, family). Families group the markers: circles explicit one-step,
# square, plus and octagon the symplectic compositions, diamonds implicit, digits the Adams order, triangles and
# other filled shapes the embedded / extrapolation methods.
STYLE = {
    "euler": ("#7f7f7f", "o", "explicit"),
    "midpoint": ("#bcbd22", "o", "explicit"),
    "trapeze": ("#8c6d31", "o", "explicit"),
    "rk4": ("#2ca02c", "o", "explicit"),
    "leapfrog": ("#1f77b4", "s", "symplectic"),
    "yoshida4": ("#6baed6", "P", "symplectic"),
    "yoshida6": ("#17becf", "8", "symplectic"),
    "gauss-legendre6": ("#393b79", "D", "implicit"),
    "lobatto-iiic4": ("#9c9ede", "D", "implicit"),
    "adams-bashforth": ("#d62728", None, "multistep"),
    "adams-moulton": ("#ff7f0e", None, "multistep"),
    "cash-karp": ("#8c564b", "^", "embedded"),
    "dopri5": ("#9467bd", "v", "embedded"),
    "verner65": ("#e377c2", "<", "embedded"),
    "fehlberg78": ("#637939", ">", "embedded"),
    "dop853": ("#e7969c", "p", "embedded"),
    "feagin10": ("#b5cf6b", "h", "embedded"),
    "bulirsch-stoer": ("#843c39", "X", "extrapolation"),
    "gauss-radau15": ("#000000", "*", "extrapolation"),
}
FALLBACK = ("#444444", "x", "other")
ORDER = list(STYLE)  # legend order


def style(name):
    return STYLE.get(name, FALLBACK)


def marker(name, order=None):
    """The marker of a method; the Adams methods use their order as the marker ($3$)."""
    m = style(name)[1]
    if m is None:
        return f"${order}$" if order not in (None, "") else "o"
    return m


def sort_key(name):
    return (ORDER.index(name) if name in ORDER else len(ORDER), name)


# Fields of `nbody list integrators --json` shown in the table when the solver reports them:
# (key, column head, column spec, formatter).
def _yes(v):
    return "yes" if v is True else "no" if v is False else paper.tex_escape(v)


def _per_step(v):
    return "varies" if v in (0, None) else paper.tex_escape(v)  # 0: iterations decide


OPTIONAL = [
    ("family", "family", "l", lambda v: paper.tex_escape(v)),
    ("stages", "stages", "c", lambda v: paper.tex_escape(v)),
    ("evaluations_per_step", "$f$/step", "c", _per_step),
    ("symplectic", "sympl.", "c", _yes),
    ("implicit", "impl.", "c", _yes),
]


def zoo_table(integrators, measured=None):
    """A booktabs tabular of the integrators: name, order, error estimate, and the optional
    fields of OPTIONAL that at least one entry has; while the solver reports none of them, the
    description (which then is the only place saying what kind of method it is). `measured`:
    {name: (order text, how)} from E01, shown as a column when given ("dd": measured in
    double-double)."""
    present = [o for o in OPTIONAL if any(o[0] in e for e in integrators)]
    describe = not present
    spec = "lcc" + ("c" if measured else "") + "".join(o[2] for o in present) + \
        (">{\\raggedright\\arraybackslash}p{7cm}" if describe else "")
    head = ["method", "order"] + (["measured"] if measured else []) + ["tol"] + \
        [o[1] for o in present] + (["description"] if describe else [])
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(head) + r" \\",
             r"\midrule"]
    for e in sorted(integrators, key=lambda e: sort_key(e["name"])):
        cells = [rf"\code{{{paper.tex_escape(e['name'])}}}", paper.tex_escape(e.get("order", ""))]
        if measured:
            value, how = measured.get(e["name"], ("", ""))
            cells.append((value or "---") + (r"$^{\mathrm{dd}}$" if "dd" in how else ""))
        cells.append(_yes(e.get("error_estimate", "")))
        cells += [o[3](e[o[0]]) if o[0] in e else "" for o in present]
        if describe:
            cells.append(paper.tex_escape(e.get("description", "")))
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(lines)
