"""How the figures of the paper look (figures/*.py): drawn at the size the paper prints them.

A figure is TEXT_WIDTH wide, the paper's \\textwidth, so \\includegraphics[width=\\textwidth]
prints it at 1:1 and every text at the size RC sets (nothing below 7 pt). Legends go outside the
data (`legend_below`, `legend_right`), a log axis shows at least two labelled ticks
(`log_ticks`), and a panel never holds more methods than colours and markers can tell apart:
the integrators are drawn in the groups of METHOD_GROUPS, each in its colour and marker of
nbodylab.methods.
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import ticker  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
from nbodylab import ROOT, methods  # noqa: E402

TEXT_WIDTH = 6.3  # inches: \textwidth of paper/paper.tex (A4 with 2.5 cm margins, 16 cm)
RC = {
    "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "legend.fontsize": 7.5,
    "xtick.labelsize": 7.5, "ytick.labelsize": 7.5, "figure.titlesize": 8.5,
    "legend.frameon": False, "legend.handlelength": 2.2, "legend.columnspacing": 1.2,
    "lines.linewidth": 1.0, "lines.markersize": 3.5,
    "axes.grid": True, "grid.alpha": 0.35, "grid.linewidth": 0.5,
    "figure.constrained_layout.use": True,
    "figure.constrained_layout.h_pad": 0.03, "figure.constrained_layout.w_pad": 0.03,
    "savefig.dpi": 200,
}
plt.rcParams.update(RC)

# The integrators by how their step is set, one panel (or row of panels) each: the families of
# nbodylab.methods.STYLE.
METHOD_GROUPS = [
    ("fixed step, one-step", ("explicit", "symplectic", "implicit")),
    ("Adams\n(marker: order)", ("multistep",)),
    ("step-size control", ("embedded", "extrapolation", "other")),
]


def method_group(name):
    """Index in METHOD_GROUPS of the group an integrator is drawn in."""
    family = methods.style(name)[2]
    return next(i for i, (_, families) in enumerate(METHOD_GROUPS) if family in families)


def method_grid(keys, columns, row_height=1.3, same_y=None, more_handles=()):
    """A figure with one row per group of METHOD_GROUPS that `keys` ((method, Adams order or
    None) pairs) fill, named on its left, one column per quantity in `columns` (titles), every
    panel on log axes; a column shares its y range down the rows, and with the column
    same_y[column] names (same_y = {3: 0}: column 3 on column 0's y axis). One legend of every
    method (and of `more_handles`) under the panels. Returns (fig, {group index: row of axes},
    draw) where draw(key, column, x, y) draws a key's series in its colour and marker (the Adams
    methods: their order as the marker, Moulton dashed)."""
    same_y = same_y or {}
    groups = sorted({method_group(m) for m, _ in keys})
    fig, axes = figure(len(groups), len(columns), height=row_height * len(groups) + 0.95,
                       sharex=True, squeeze=False)
    for c in range(len(columns)):
        for r in range(len(groups)):
            if (r, same_y.get(c, c)) != (0, c):
                axes[r][c].sharey(axes[0][same_y.get(c, c)])
        if c in same_y:
            for ax in axes[:, c]:
                ax.tick_params(labelleft=False)
    rows = dict(zip(groups, axes))
    for g, row in rows.items():
        row[0].set_ylabel(METHOD_GROUPS[g][0], fontweight="bold")
        for ax in row:
            ax.set_xscale("log")
            ax.set_yscale("log")
    for ax, t in zip(axes[0], columns):
        ax.set_title(t)
    handles = {}
    for m, o in keys:
        handles.setdefault(m, plt.Line2D([], [], color=methods.style(m)[0], ls=adams_line(m),
                                         marker=methods.marker(m, o if o is None else "k"),
                                         ms=6 if o is not None else 3.5,
                                         label=m + (" $k$" if o is not None else "")))
    legend_below(fig, list(handles.values()) + list(more_handles), ncol=5, handlelength=2.0)

    def draw(key, column, x, y):
        m, o = key
        rows[method_group(m)][column].plot(
            x, y, color=methods.style(m)[0], marker=methods.marker(m, o), ls=adams_line(m),
            ms=5 if o is not None else 3, lw=0.6 if o is not None else 0.8, alpha=0.9,
            markeredgewidth=0.4 if o is not None else 0.8)
    return fig, rows, draw


def adams_line(name):
    """Adams-Moulton dashed beside Adams-Bashforth (both draw their order as the marker)."""
    return "--" if name == "adams-moulton" else "-"


def figure(nrows=1, ncols=1, height=2.6, **kw):
    """(fig, axes) TEXT_WIDTH wide and `height` inches high, laid out by matplotlib's
    constrained layout (legends placed "outside" get their own room)."""
    return plt.subplots(nrows, ncols, figsize=(TEXT_WIDTH, height), **kw)


def legend_below(fig, handles, ncol, **kw):
    """One legend for the whole figure, under its panels."""
    return fig.legend(handles=handles, loc="outside lower center", ncol=ncol, **kw)


def legend_right(ax, handles=None, **kw):
    """A legend to the right of one panel, outside its data."""
    kw.setdefault("loc", "center left")
    kw.setdefault("bbox_to_anchor", (1.02, 0.5))
    kw.setdefault("borderaxespad", 0.0)
    return ax.legend(handles=handles, **kw) if handles is not None else ax.legend(**kw)


def timing_spread(ax, xs, rows, value=lambda row, seconds: seconds, color="black"):
    """Bars through each plotted timing from its fastest to its slowest evaluation (a bench row's
    seconds_per_eval_min and _max about its median seconds_per_eval: the runner's timing
    protocol). `value(row, seconds)` is what the figure plots for a row's time (a rate, a ratio);
    rows measured before the protocol, without the columns, get none."""
    bars = [(x, value(r, float(r["seconds_per_eval"])), value(r, float(r["seconds_per_eval_min"])),
             value(r, float(r["seconds_per_eval_max"])))
            for x, r in zip(xs, rows) if r and r.get("seconds_per_eval_min") and r.get("seconds_per_eval_max")]
    if bars:
        x, y, a, b = zip(*bars)
        below = [v - min(p, q) for v, p, q in zip(y, a, b)]
        above = [max(p, q) - v for v, p, q in zip(y, a, b)]
        ax.errorbar(x, y, yerr=[below, above], fmt="none", ecolor=color, elinewidth=0.8, capsize=1.5, zorder=3)


def log_ticks(ax, axes="xy", most=6):
    """At least two labelled ticks on each log axis of `ax` (call once the data and limits are
    set): powers of the axis' base (every k-th, at most `most`); for base 10 where fewer than
    two powers fall in the range, 1-2-5 steps, then 1-9 steps, then evenly spaced values."""
    for name in axes:
        axis = ax.xaxis if name == "x" else ax.yaxis
        if axis.get_scale() != "log":
            continue
        lo, hi = sorted(ax.get_xlim() if name == "x" else ax.get_ylim())
        base = axis.get_transform().base
        powers = np.arange(np.floor(np.log(lo) / np.log(base)), np.ceil(np.log(hi) / np.log(base)) + 1)
        ticks = []
        for subs in ((1,), (1, 2, 5), range(1, 10)) if base == 10 else ((1,),):
            ticks = [m * base ** p for p in powers for m in subs if lo * (1 - 1e-9) <= m * base ** p <= hi * (1 + 1e-9)]
            if len(ticks) >= 2:
                break
        if len(ticks) >= 2 and len(subs) == 1:
            step = max(1, int(np.ceil(len(ticks) / most)))
            exps = np.round(np.log(ticks) / np.log(base))
            ticks = [t for t, e in zip(ticks, exps) if e % step == 0] or ticks[::step]
        axis.set_major_locator(ticker.FixedLocator(ticks) if len(ticks) >= 2 else ticker.MaxNLocator(nbins=4))
        plain = 1e-2 <= lo and hi < 1e4 and not (len(subs) == 1 and len(ticks) >= 2)  # 20, 50, 100
        axis.set_major_formatter(ticker.FuncFormatter(_plain_text if plain else _power_text) if base == 10
                                 else ticker.LogFormatterSciNotation(base=base))
        axis.set_minor_locator(ticker.LogLocator(base=base, subs="auto" if base == 10 else (1.0,)))
        axis.set_minor_formatter(ticker.NullFormatter())


def power_of_two_text(n, least=0):
    """A body or rank count as LaTeX: "2^{k}" for a power of two of at least 2^least, else its digits."""
    n = int(n)
    k = n.bit_length() - 1
    return f"2^{{{k}}}" if n == 1 << k and k >= least else str(n)


def _power_text(value, _pos=None):
    """A tick label on a base-10 log axis: $10^{k}$ or $5\\times10^{k}$."""
    if value <= 0:
        return ""
    exponent = int(np.floor(np.log10(value) + 1e-9))
    mantissa = value / 10.0 ** exponent
    return f"$10^{{{exponent}}}$" if abs(mantissa - 1) < 1e-6 else f"${mantissa:.3g}\\times10^{{{exponent}}}$"


def _plain_text(value, _pos=None):
    """A tick label of a log axis between 0.01 and 10^4 that is not labelled in powers of ten."""
    return f"{value:g}"


def scaled_axis(ax, label, axis="y"):
    """Tick labels of a large linear quantity in units of a power of ten named in the axis
    label ("force evaluations [$10^{8}$]"), instead of an offset text over the panel's title."""
    lo, hi = ax.get_ylim() if axis == "y" else ax.get_xlim()
    power = int(np.floor(np.log10(max(abs(lo), abs(hi))))) if max(abs(lo), abs(hi)) > 0 else 0
    target = ax.yaxis if axis == "y" else ax.xaxis
    if power < 4:
        target.set_label_text(label)
        return
    target.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v / 10 ** power:g}"))
    target.set_label_text(f"{label} [$10^{{{power}}}$]")


def save(fig, name):
    """figures/<name>.pdf and .png (dated by SOURCE_DATE_EPOCH, which the runner sets)."""
    for ext in ("pdf", "png"):
        fig.savefig(ROOT / "figures" / f"{name}.{ext}")
    plt.close(fig)
