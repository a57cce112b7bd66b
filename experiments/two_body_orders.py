"""E01's reducer: the convergence order of every fixed-step method, fitted to E01's errors at
t = 10 P against the step h = P/N, per method, precision, eccentricity and error measure
(position, largest energy error); and the order E01 measured per method at e = 0.5, the
column of the paper's method table. Writes into --out
  E01_two_body_orders.csv           the fits (+ .meta.json: the fit's parameters)
  E01_two_body_orders_measured.csv  the measured order per method (+ .meta.json)

Usage: python3 experiments/two_body_orders.py --out FOLDER   (the runner runs it: kind "derived")
Needs numpy, as the figure scripts do (the runner's Python). Standard output: one line.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

from nbodylab import RESULTS_DIR, files, paper, provenance

NAME = "E01_two_body_orders"
SOURCE = "E01_two_body_convergence"
PRODUCER = "experiments/two_body_orders.py"
WINDOW = (1e-12, 1e-3)  # the fit window (docs/experiments.md, E01): 1e-12 < error < 1e-3
# Runs in double-double reach ~1e-30 here: their window stops 3 decades above, at 1e-27 (as
# double's 1e-12 stops 3 decades above its ~1e-15).
WINDOWS = {"double": WINDOW, "dd": (1e-27, 1e-3)}
MIN_POINTS = 3          # fewest points a slope is fitted to
SLOPE_SPREAD = 0.5      # local slopes of a power-law run agree within this (see fit_order)
TOLERANCE = 0.3         # a fit agrees with theory when |fitted - theory| <= TOLERANCE (docs/experiments.md)
# An order keeps 4 decimals: the digits after them come from the least-squares solve and the
# logarithms (BLAS, SIMD paths), which differ between machines (by ~1e-14), where the results
# must not. Not 3: the paper's 2 decimals are rounded from these (paper.decimals), and from 3
# they would often differ from the fit's own rounding (8.87457 -> 8.875 -> 8.88, not 8.87).
# Every judgement below is made on the rounded orders, the numbers the results carry.
DECIMALS = 4
MEASURES = {"pos_err": "position", "dE_rel_max": "energy"}  # E01 column -> name in the results
COLUMNS = ["method", "order_flag", "precision", "e", "error", "theory", "fitted", "n_used", "n_window",
           "finest_slope", "primary"]
MEASURED_COLUMNS = ["method", "order_flag", "theory", "measured", "how"]


def load():
    """E01's completed runs as arrays (failed runs have no errors to fit)."""
    rows, _ = paper.split_failures(files.read_csv(RESULTS_DIR / f"{SOURCE}.csv"))
    d = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    for k in ("e", "pos_err", "dE_rel_max", "t", "period", "method_order"):
        d[k] = d[k].astype(float)
    d["precision"] = np.array([p or "double" for p in d.get("precision", [""] * len(rows))])
    d["n"] = np.array([float(s.split("/")[1]) for s in d["dt"]])  # dt = "P/N": N steps a period
    # Every error is measured at t = 10 P against the reference at 10 P: check that the runs
    # really ended there (a solver that overshoots or stops short would fake the order).
    periods = d["t"] / d["period"]
    if not np.allclose(periods, 10, rtol=1e-12):
        raise SystemExit(f"{PRODUCER}: runs of {SOURCE} did not end at t = 10 P (t/P = {sorted(set(periods))})")
    return d


def series_keys(d):
    """(integrator, Adams order or '', precision) in the order the experiment lists them."""
    return list(dict.fromkeys(zip(d["integrator"], d["order"], d["precision"])))


def series(d, key, e):
    sel = (d["integrator"] == key[0]) & (d["order"] == key[1]) & (d["precision"] == key[2]) & (d["e"] == e)
    idx = np.argsort(d["n"][sel])
    return {k: v[sel][idx] for k, v in d.items()}


def theory(d, key):
    return int(d["method_order"][(d["integrator"] == key[0]) & (d["order"] == key[1])][0])


def above_knee(h, err, window):
    """log h, log err of the window's points from the coarsest down to the round-off knee (the last
    point before the error first stops falling as h shrinks), and how many the window holds."""
    inside = (err > window[0]) & (err < window[1])
    coarse_first = np.argsort(-h[inside])
    x, y = np.log(h[inside])[coarse_first], np.log(err[inside])[coarse_first]
    knee = 1
    while knee < len(x) and y[knee] < y[knee - 1]:
        knee += 1
    return x[:knee], y[:knee], len(x)


def fit_order(h, err, window):
    """Convergence order from error against step size h.

    The points inside the window still include points outside the power-law regime
    err ~ C h^p: at the coarse end, steps where the leading error terms have not yet taken over
    (DOPRI5 at e = 0.5 dips there), at the fine end, the round-off plateau of double precision,
    whose noise can mimic any slope. So the fit uses the window's points from the coarsest down
    to the round-off knee, and among those the longest run of at least MIN_POINTS consecutive
    points whose local slopes d log(err) / d log(h) agree within SLOPE_SPREAD (of equally long
    runs, the finest). Returns (order or None, points used, points in the window)."""
    x, y, n_window = above_knee(h, err, window)
    local = np.diff(y) / np.diff(x)
    best = None  # (first, last) indices of the run
    for first in range(len(x)):
        for last in range(len(x) - 1, first + MIN_POINTS - 2, -1):
            slopes = local[first:last]
            if slopes.max() - slopes.min() <= SLOPE_SPREAD:
                if best is None or last - first >= best[1] - best[0]:
                    best = (first, last)
                break
    if best is None:
        return None, 0, n_window
    first, last = best
    slope, _ = np.polyfit(x[first:last + 1], y[first:last + 1], 1)
    return round(float(slope), DECIMALS), last - first + 1, n_window


def finest_slope(h, err, window):
    """The local slope d log(err) / d log(h) between the two finest points of the window above
    the round-off knee: where a pre-asymptotic fit ends up as h shrinks (None: < 2 points)."""
    x, y, _ = above_knee(h, err, window)
    if len(x) < 2:
        return None
    return round(float((y[-1] - y[-2]) / (x[-1] - x[-2])), DECIMALS)


def agrees(d, order, key):
    return order is not None and abs(order - theory(d, key)) <= TOLERANCE


def primary(fits, key, e):
    """The error measure whose fit stands for the method: position, or energy where the position
    error has no fit."""
    return "pos_err" if fits["pos_err", key, e][0] is not None else "dE_rel_max"


def measured(d, keys, fits, finest):
    """The measured order of every double-precision method at e = 0.5, {key: (order or None, how)}:
    its double-precision fit when that agrees with the theory, else its double-double fit, else
    the finest local slope in double-double (pre-asymptotic fits)."""
    def at_half(k):
        return fits[primary(fits, k, 0.5), k, 0.5][0]

    def verdict(k):
        dd = (k[0], k[1], "dd")
        if agrees(d, at_half(k), k):
            return at_half(k), "fit"
        if dd in keys and agrees(d, at_half(dd), dd):
            return at_half(dd), "fit in dd"
        if dd in keys and finest["pos_err", dd, 0.5] is not None:
            return finest["pos_err", dd, 0.5], "finest slope in dd"
        return at_half(k), "fit"
    return {k: verdict(k) for k in keys if k[2] == "double"}


def text(order):
    return "" if order is None else f"{order:.{DECIMALS}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    out = Path(ap.parse_args().out)
    d = load()
    es = sorted(float(e) for e in set(d["e"]))
    keys = series_keys(d)
    fits, finest = {}, {}
    for q in MEASURES:
        for k in keys:
            for e in es:
                s = series(d, k, e)
                fits[q, k, e] = fit_order(1.0 / s["n"], np.abs(s[q]), WINDOWS[k[2]])
                finest[q, k, e] = finest_slope(1.0 / s["n"], np.abs(s[q]), WINDOWS[k[2]])
    rows = [[k[0], k[1], k[2], repr(e), MEASURES[q], theory(d, k), text(f), used, window, text(finest[q, k, e]),
             "true" if q == primary(fits, k, e) else "false"]
            for q in MEASURES for k in keys for e in es for f, used, window in [fits[q, k, e]]]
    parameters = {"windows": WINDOWS, "min_points": MIN_POINTS, "slope_spread": SLOPE_SPREAD,
                  "tolerance": TOLERANCE, "decimals": DECIMALS,
                  "primary": "the fit that stands for a method at an eccentricity: the position error's, "
                             "or the energy error's where the position error has none"}
    sources = [f"results/{SOURCE}.csv", PRODUCER]
    files.write_csv(out / f"{NAME}.csv", COLUMNS, rows, provenance.results_meta(
        NAME, "E01: fitted convergence order per method, precision, eccentricity and error measure", PRODUCER,
        COLUMNS, sources, parameters=parameters))
    verdicts = measured(d, keys, fits, finest) if 0.5 in es else {}
    files.write_csv(out / f"{NAME}_measured.csv", MEASURED_COLUMNS,
                    [[k[0], k[1], theory(d, k), text(v), how] for k, (v, how) in verdicts.items()],
                    provenance.results_meta(NAME, "E01: the measured order per method at e = 0.5 (the method "
                                            "table's column)", PRODUCER, MEASURED_COLUMNS, sources,
                                            parameters=parameters))
    print(f"{NAME}: {len(rows)} fits of {len(keys)} series of {SOURCE}, {len(verdicts)} measured orders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
