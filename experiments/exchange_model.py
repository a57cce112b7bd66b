"""E26's exchange model: the bytes a rank of mpi-octree sends per evaluation, predicted from the
geometry alone (no fit to the measured bytes), beside E26's measurements and extrapolated to
thousands of ranks. Writes E26_exchange_model.csv and its .meta.json into --out.

The model follows solver/engines/octree/distributed.hpp step by step, on an *expected octree*:
  density   the generator's Plummer sphere (Henon units, Plummer radius 3 pi / 16, mass fractions
            above 0.999 not drawn), analytic; a cell's expected body count lambda = N x its mass
            (a 128^3 table of cell masses and first moments for the coarse levels, the density at
            the cell's centre below). The cube: side twice the expected extreme coordinate of N
            bodies; the sphere's centre off the cube's by the spread of the extremes (the measured
            points average PLACEMENTS such offsets, drawn with a fixed seed: with the sphere at
            the centre the cuts of P = 2, 4, 8 would fall on octant boundaries, as real bodies'
            do not).
  domains   P key ranges of equal count along the Morton curve (found by descending the cells
            along each cut), so cells are shared, top cells or inside one domain as the code
            decides: a cell holding a cut is shared with probability P(bodies on both sides)
            (Poisson), its other non-empty children are top cells of the rank whose range holds
            them. A rank's boxes: its top cells that exist with probability >= 1/2.
  opening   a node goes with its children when its centre of mass lies within
            side / theta + delta of one of the receiver's boxes; delta combines the density
            gradient's shift of the centre of mass with the scatter of n bodies placed uniformly
            (0.92 s / (2 sqrt(n)), the mean of a 3-d normal of that rms). Child c of an opened node p
            goes with probability P(c non-empty and p holds >= 2 bodies)
            = (1 - e^-lambda_c) - lambda_c e^-lambda_p. Leaves of one body are points: never
            opened, so essential trees carry no bodies.
  walk      per receiving rank, every other rank's top cells (always sent: the essential tree's
            roots) and, level by level, the children of those opened. Cells of fewer than
            TAIL_BODIES expected bodies end the walk with a planar layer: the receiver's boundary
            taken as a plane at the cell's distance, the sub-cells within reach counted slab by slab.
  bytes     pack(): 24 bytes of counts, 36 bytes a node (float: centre, crit2, mass; four
            unsigned), 16 a body; beside them the collectives' own (the summaries, 16 rounds of
            the bisection for the cuts, the extents, 9 counts a shared cell, the top cells'
            moments, the bodies to their domains and their sums back: 24 + 16 bytes a body).
Exchange time = bytes / bandwidth + collectives x latency, the two constants from E26's rows on 2
ranks (one host, shared memory), and for a network from NETWORK's source.

Usage: python3 experiments/exchange_model.py --out FOLDER     (the runner runs it: kind "derived")
Needs numpy. Deterministic (the placements' seed is fixed). Standard output: one line a row group.
"""
import argparse
import math
import sys
from pathlib import Path

import numpy as np

from nbodylab import RESULTS_DIR, files, provenance

NAME = "E26_exchange_model"
SOURCE = "E26_distributed_tree"
PRODUCER = "experiments/exchange_model.py"
TITLE = "Distributed octree: bytes a rank sends per evaluation, geometric model against E26 and extrapolated"

PLUMMER_RADIUS = 3 * math.pi / 16
MASS_CUT = 0.999                  # the generator draws no mass fraction above this
MAX_LEVEL = 21                    # key bits per axis (kernels/common/octree.hpp)
TABLE_LEVEL = 7                   # 128^3 cells of mass table
NODE_BYTES, BODY_BYTES, COUNTS_BYTES = 36, 16, 24   # essential.hpp pack(), T = float, monopoles
SUMMARY_BYTES, EXTENT_BYTES, SHAPE_BYTES, TOP_BYTES = 40, 48, 20, 20
BODY_OUT_BYTES, SUM_BACK_BYTES = 24, 16           # id + x, y, z, m; a, terms
BISECTION_ROUNDS, BISECTION_PARTS = 16, 16        # 2^63 in parts of 16 down to 1
TAIL_BODIES = 64.0   # cells below this many expected bodies: the planar layer
TAIL_FRACTION = 4096  # and below 1/4096 of a domain's bodies (a cell of 1/16 of its side) where larger
PLACEMENTS = 4
PLACEMENT_SEED = 1  # placements of the sphere in its cube averaged over
SAMPLED_RECEIVERS = 8             # receivers walked where P is larger (evenly along the curve)
COLLECTIVES = 26  # timed per evaluation: 16 bisection rounds, 7 gathers and exchanges, 3 at the end
# A network line: HPE Slingshot-11 (LUMI-G, Frontier), 200 Gbit/s a NIC; latency of a message
# of a few microseconds (NETWORK_SOURCE).
NETWORK = {"bandwidth_bytes_per_s": 25e9, "latency_s": 2e-6}
NETWORK_SOURCE = ("Slingshot-11: 200 Gbit/s per NIC (LUMI architecture, LUMI user documentation); the latency "
                  "an assumed 2 microseconds a message, of the order MPI reaches on such networks")
# Published runs (citations in the paper's references.bib: bedorf-2014, cornerstone-2023).
PUBLISHED = [
    {"code": "Bonsai (Bedorf et al., SC14)", "particles": 242e9, "gpus": 18600, "machine": "Titan, K20X"},
    {"code": "Cornerstone (Keller et al., PASC 2023)", "particles": 8e12, "gpus": None,
     "machine": "almost the full LUMI-G (GPU count not in the sources found)"},
]
EXTRAPOLATED_PER_RANK = [1 << 24, 1 << 26]   # bodies a rank (weak scaling)
EXTRAPOLATED_RANKS = [2, 16, 128, 1000]
# The compute side of the step: E17's H100 walk of this setting (cuda-octree-groups, Plummer
# N = 2^22, float, monopoles, leaves of 1, theta 0.5: its terms per second), the terms per body
# grown as E26's one-rank rows grow them per factor 8 in N (compute_constants).
E17 = "E17_force_accuracy_time"
E17_POINT = {"n": str(1 << 22), "ic": "plummer", "precision": "float", "engine": "cuda-octree-groups",
             "moments": "monopole", "leaf-size": "1", "theta": "0.5"}
COLUMNS = ["kind", "n", "ranks", "bodies_per_rank", "theta", "leaf_size", "model_bytes_mean", "model_bytes_max",
           "model_essential_mean", "model_body_bytes", "model_let_nodes_per_pair", "model_shared_cells",
           "model_top_cells_per_rank", "measured_bytes_mean", "measured_bytes_max", "measured_essential_mean",
           "ratio_mean", "ratio_max", "ratio_essential", "receivers_walked", "model_exchange_seconds_host",
           "measured_exchange_seconds", "model_exchange_seconds_network", "exchange_share_network"]


# ------------------------------------------------------------------------------------------ density
def plummer_density(r):
    """Mass density of the generator's Plummer sphere of mass 1 (mass fractions above MASS_CUT
    not drawn, so the density is zero beyond their radius and the rest scaled to mass 1)."""
    a = PLUMMER_RADIUS
    rho = 3 / (4 * math.pi * a ** 3) * (1 + (r / a) ** 2) ** -2.5 / MASS_CUT
    return np.where(r <= truncation_radius(), rho, 0.0)


def truncation_radius():
    return PLUMMER_RADIUS / math.sqrt(MASS_CUT ** (-2 / 3) - 1)


def cube_extremes(n):
    """The cube of n bodies: its side, twice the coordinate t one of n bodies is expected to
    exceed (P(x > t) = 1/n, P(x > t) = 1/2 int p(r) (1 - t/r) dr for an isotropic body at radius
    r), and the spread of the sphere's centre about the cube's centre on each axis: half the
    difference of two extremes, each Gumbel with scale beta = P(x > t) / p(t)."""
    r = np.linspace(1e-6, truncation_radius(), 20001)
    pr = 4 * math.pi * r ** 2 * plummer_density(r)
    def tail(t):
        w = np.clip(1 - t / r, 0, None)
        return 0.5 * np.trapezoid(pr * w, r)
    lo, hi = 0.0, truncation_radius()
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if tail(mid) > 1 / n else (lo, mid)
    beta = tail(lo) * 1e-3 * lo / max(tail(lo) - tail(lo * 1.001), 1e-300)
    return 2 * lo, math.pi / math.sqrt(6) * beta / math.sqrt(2)


class Sphere:
    """Cell masses and centres of mass of the Plummer sphere in the cube [0, L]^3 (its centre at
    the cube's): a table for levels <= TABLE_LEVEL, the density at the centre below."""

    def __init__(self, side, offset=(0.0, 0.0, 0.0)):
        self.side = side
        self.centre = np.array([side / 2 + o for o in offset])
        g = 1 << TABLE_LEVEL
        h = side / g
        x = [(np.arange(g) + 0.5) * h - c for c in self.centre]
        r = np.sqrt(x[0][:, None, None] ** 2 + x[1][None, :, None] ** 2 + x[2][None, None, :] ** 2)
        m = plummer_density(r) * h ** 3
        m /= m.sum()
        self.mass, self.moment = [None] * (TABLE_LEVEL + 1), [None] * (TABLE_LEVEL + 1)
        mx = [m * x[0][:, None, None], m * x[1][None, :, None], m * x[2][None, None, :]]
        for level in range(TABLE_LEVEL, -1, -1):
            self.mass[level] = m
            self.moment[level] = mx
            if level:
                m = m.reshape(m.shape[0] // 2, 2, m.shape[1] // 2, 2, m.shape[2] // 2, 2).sum(axis=(1, 3, 5))
                mx = [v.reshape(v.shape[0] // 2, 2, v.shape[1] // 2, 2, v.shape[2] // 2, 2).sum(axis=(1, 3, 5)) for v in mx]

    def cells(self, level, ix, iy, iz):
        """Mass, centre of mass (3 x n) and geometric centre of the cells (level, ix, iy, iz)."""
        s = self.side / (1 << level)
        centre = np.stack([(ix + 0.5) * s, (iy + 0.5) * s, (iz + 0.5) * s])
        if level <= TABLE_LEVEL:
            mass = self.mass[level][ix, iy, iz]
            with np.errstate(invalid="ignore", divide="ignore"):
                com = np.stack([self.moment[level][a][ix, iy, iz] / mass + self.centre[a] for a in range(3)])
            com = np.where(mass > 0, com, centre)
            return mass, com, centre
        p = centre - self.centre.reshape((3,) + (1,) * np.ndim(ix))
        r = np.sqrt((p ** 2).sum(axis=0))
        mass = plummer_density(r) * s ** 3
        # the density gradient moves the centre of mass by s^2/12 grad(rho)/rho, rho'/rho = -5 r/(a^2 + r^2)
        shift = s ** 2 / 12 * 5 / (PLUMMER_RADIUS ** 2 + r ** 2)
        return mass, centre - shift * p, centre


# ----------------------------------------------------------------------------------------- domains
OCTANTS = np.array([[(o >> 2) & 1, (o >> 1) & 1, o & 1] for o in range(8)])


def children(level, ix, iy, iz):
    """The 8 children of each cell, in key order: arrays (n x 8)."""
    return (2 * ix[:, None] + OCTANTS[:, 0], 2 * iy[:, None] + OCTANTS[:, 1], 2 * iz[:, None] + OCTANTS[:, 2])


def spread(v):
    v = v.astype(np.uint64) & np.uint64(0x1FFFFF)
    for shift, mask in ((32, 0x1F00000000FFFF), (16, 0x1F0000FF0000FF), (8, 0x100F00F00F00F00F),
                        (4, 0x10C30C30C30C30C3), (2, 0x1249249249249249)):
        v = (v | (v << np.uint64(shift))) & np.uint64(mask)
    return v


def first_key(level, ix, iy, iz):
    """The first 63-bit key of each cell (x highest, as morton_key)."""
    shift = np.uint64(MAX_LEVEL - level)
    return (spread(ix) << np.uint64(2) | spread(iy) << np.uint64(1) | spread(iz)) << (np.uint64(3) * shift)


class Domains:
    """The P domains of equal count along the curve: the cells holding each cut, the shared
    cells, the top cells (with their owners and the probability that they exist)."""

    def __init__(self, sphere, n, p):
        self.n, self.p = n, p
        target = np.arange(1, p) / p
        ix = iy = iz = np.zeros(p - 1, dtype=np.int64)
        before = np.zeros(p - 1)
        mass = np.ones(p - 1)
        self.cut_cells = []  # per level: (ix, iy, iz, left mass, right mass) of each cut
        for level in range(0, MAX_LEVEL + 1):
            self.cut_cells.append((ix, iy, iz, target - before, mass - (target - before)))
            if level == MAX_LEVEL or n * mass.max() < 0.05:
                break
            cx, cy, cz = children(level, ix, iy, iz)
            m = sphere.cells(level + 1, cx, cy, cz)[0]
            cum = np.cumsum(m, axis=1)
            o = np.minimum((cum <= (target - before)[:, None]).sum(axis=1), 7)
            rows = np.arange(p - 1)
            before = before + np.where(o > 0, cum[rows, np.maximum(o - 1, 0)], 0.0)
            ix, iy, iz, mass = cx[rows, o], cy[rows, o], cz[rows, o], m[rows, o]
        deepest = len(self.cut_cells) - 1
        dx, dy, dz = self.cut_cells[deepest][:3]
        self.cut_keys = first_key(deepest, dx, dy, dz)
        self._tops(sphere)

    def _shared(self, level):
        """The distinct cells holding cuts at a level and the probability that each is shared."""
        ix, iy, iz, left, right = self.cut_cells[level]
        key = (ix * (1 << 21) + iy) * (1 << 21) + iz
        uniq, first, count = np.unique(key, return_index=True, return_counts=True)
        n = self.n
        single = (1 - np.exp(-n * np.clip(left[first], 0, None))) * (1 - np.exp(-n * np.clip(right[first], 0, None)))
        return ix[first], iy[first], iz[first], np.where(count > 1, 1.0, single), uniq

    def _tops(self, sphere):
        levels, xs, ys, zs, owners, weights = [], [], [], [], [], []
        self.shared_cells = 0.0
        for level in range(len(self.cut_cells)):
            ix, iy, iz, w, _ = self._shared(level)
            self.shared_cells += w.sum()
            if level + 1 >= len(self.cut_cells):
                break
            nx, ny, nz, nw, nkey = self._shared(level + 1)
            cx, cy, cz = children(level, ix, iy, iz)
            ckey = (cx * (1 << 21) + cy) * (1 << 21) + cz
            holds_cut = np.isin(ckey, nkey)
            m = sphere.cells(level + 1, cx, cy, cz)[0]
            nonempty = 1 - np.exp(-self.n * m)
            shared_child = np.zeros_like(m)
            idx = np.searchsorted(nkey, ckey[holds_cut])
            shared_child[holds_cut] = nw[idx]
            weight = w[:, None] * np.clip(nonempty - shared_child, 0, None)
            owner = np.searchsorted(self.cut_keys, first_key(level + 1, cx, cy, cz), side="right")
            keep = weight > 1e-6
            levels.append(np.full(keep.sum(), level + 1))
            xs.append(cx[keep]), ys.append(cy[keep]), zs.append(cz[keep])
            owners.append(owner[keep]), weights.append(weight[keep])
        self.top_level = np.concatenate(levels)
        self.top_x, self.top_y, self.top_z = np.concatenate(xs), np.concatenate(ys), np.concatenate(zs)
        self.top_owner, self.top_weight = np.concatenate(owners), np.concatenate(weights)
        self.tops_per_rank = np.bincount(self.top_owner, weights=self.top_weight, minlength=self.p)

    def boxes(self, sphere, rank):
        """lo, hi (k x 3) of the rank's top cells that exist with probability >= 1/2."""
        pick = (self.top_owner == rank) & (self.top_weight >= 0.5)
        s = sphere.side / (1 << self.top_level[pick]).astype(float)
        lo = np.stack([self.top_x[pick] * s, self.top_y[pick] * s, self.top_z[pick] * s], axis=1)
        return lo, lo + s[:, None]


# -------------------------------------------------------------------------------------------- walk
def box_distance(points, lo, hi, chunk=8192):
    """The distance from each point (3 x n) to the nearest box."""
    out = np.empty(points.shape[1])
    for a in range(0, points.shape[1], chunk):
        q = points[:, a:a + chunk].T[:, None, :]
        d = np.maximum(np.maximum(lo[None] - q, q - hi[None]), 0)
        out[a:a + chunk] = np.sqrt((d ** 2).sum(axis=2)).min(axis=1)
    return out


def scatter(s, lam):
    """Expected distance between the centre of mass of a cell's bodies, uniformly placed, and the
    cell's centre: 0.92 x the rms s / (2 sqrt(n)), n the expected count given at least 2."""
    lam = np.maximum(lam, 1e-12)
    p2 = -np.expm1(-lam) - lam * np.exp(-lam)
    n = np.where(p2 > 1e-12, (lam + lam * np.expm1(-lam)) / np.maximum(p2, 1e-300), 2.0)
    return 0.92 * s / (2 * np.sqrt(np.maximum(n, 2.0)))


def sent_children(lam_child, lam_parent):
    """P(child non-empty and parent holding >= 2 bodies), Poisson."""
    return -np.expm1(-lam_child) - lam_child * np.exp(-lam_parent)


def planar_layer(side, lam, dist, theta):
    """Expected nodes sent below opened cells of fewer than TAIL_BODIES bodies: the receiver's
    boundary a plane at distance dist from the cell's centre, sub-cells in slabs along it."""
    total = 8 * sent_children(lam / 8, lam)
    for j in range(2, MAX_LEVEL):
        lam_parent, lam_child = lam / 8 ** (j - 1), lam / 8 ** j
        if np.all(lam_parent < 1e-4):
            break
        s = side / 2 ** (j - 1)
        reach = s / theta + scatter(s, lam_parent)
        slabs = np.clip(np.floor((reach - dist + side / 2) / s + 0.5), 0, 2 ** (j - 1))
        total = total + slabs * 4 ** (j - 1) * 8 * sent_children(lam_child, lam_parent)
    return total


def walk(sphere, dom, receiver, theta, n, tail_bodies=TAIL_BODIES):
    """Expected essential-tree nodes each rank sends the receiver (array over senders)."""
    lo, hi = dom.boxes(sphere, receiver)
    nodes = np.zeros(dom.p)
    if len(lo) == 0:
        return nodes
    other = dom.top_owner != receiver
    nodes += np.bincount(dom.top_owner[other], weights=dom.top_weight[other], minlength=dom.p)  # the roots
    frontier = {}
    for level in np.unique(dom.top_level[other]):
        pick = other & (dom.top_level == level)
        frontier[int(level)] = (dom.top_x[pick], dom.top_y[pick], dom.top_z[pick], dom.top_owner[pick],
                                dom.top_weight[pick])
    for level in range(0, MAX_LEVEL):
        if level not in frontier:
            continue
        ix, iy, iz, owner, weight = frontier.pop(level)
        if len(ix) == 0:
            continue
        side = sphere.side / (1 << level)
        mass, com, centre = sphere.cells(level, ix, iy, iz)
        lam = n * mass
        internal = -np.expm1(-lam) - lam * np.exp(-lam)
        delta = np.sqrt(np.sum((com - centre) ** 2, axis=0) + scatter(side, lam) ** 2)
        dist = box_distance(com, lo, hi)
        opened = (dist <= side / theta + delta) & (internal * weight > 1e-7)
        tail = opened & (lam < tail_bodies)
        if tail.any():
            nodes += np.bincount(owner[tail], weights=weight[tail] * planar_layer(side, lam[tail], dist[tail], theta),
                                 minlength=dom.p)
        go = opened & ~tail
        if not go.any():
            continue
        cx, cy, cz = children(level, ix[go], iy[go], iz[go])
        cm = sphere.cells(level + 1, cx.ravel(), cy.ravel(), cz.ravel())[0].reshape(cx.shape)
        sent = sent_children(n * cm, lam[go][:, None]) * weight[go][:, None]
        nodes += np.bincount(np.repeat(owner[go], 8), weights=sent.ravel(), minlength=dom.p)
        keep = (n * cm).ravel() > 1e-3
        prev = frontier.get(level + 1)
        new = (cx.ravel()[keep], cy.ravel()[keep], cz.ravel()[keep], np.repeat(owner[go], 8)[keep],
               np.repeat(weight[go], 8)[keep])
        frontier[level + 1] = new if prev is None else tuple(np.concatenate([a, b]) for a, b in zip(prev, new))
    return nodes


# ------------------------------------------------------------------------------------------- bytes
def fixed_bytes(n, p):
    """What every rank sends beside the essential trees and the top's gathers: the summaries, the
    bisection's sums (ranks.cpp counts 2 (P - 1)/P of the values of an allreduce), the extents,
    and the bodies to their domains and their sums back (equal domains: each rank keeps 1/P)."""
    bisection = BISECTION_ROUNDS * (2 * (p - 1) * (BISECTION_PARTS - 1) * 8 * (p - 1) // p)
    bodies = (BODY_OUT_BYTES + SUM_BACK_BYTES) * (n / p) * (p - 1) / p
    return (SUMMARY_BYTES + EXTENT_BYTES) * (p - 1) + bisection, bodies


def model(n, p, theta=0.5, receivers=None, tail_bodies=TAIL_BODIES, placements=PLACEMENTS):
    """Bytes each rank sends (mean, most) and the parts, for N bodies on P ranks: the average over
    `placements` placements of the sphere in its cube (the extremes that set the cube are random,
    and where the core falls among the cells moves the cuts)."""
    parts = {"mean": 0.0, "max": 0.0, "essential": 0.0, "body": 0.0, "let_nodes": 0.0, "shared": 0.0,
             "tops": 0.0, "walked": 0}
    if p == 1:
        return parts
    side, spread = cube_extremes(n)
    offsets = np.random.default_rng(PLACEMENT_SEED).normal(0.0, spread, (placements, 3))
    for offset in offsets:
        sphere = Sphere(side, offset)
        dom = Domains(sphere, n, p)
        walked = list(range(p)) if receivers is None or receivers >= p else \
            sorted({int((k + 0.5) * p / receivers) for k in range(receivers)})
        let = np.zeros(p)  # nodes each rank sends to the walked receivers
        for r in walked:
            let += walk(sphere, dom, r, theta, n, tail_bodies)
        let *= (p - 1) / (len(walked) - (len(walked) == p))  # per sender, over its P - 1 receivers
        fixed, bodies = fixed_bytes(n, p)
        top = (SHAPE_BYTES + TOP_BYTES * dom.tops_per_rank) * (p - 1) + 9 * 4 * dom.shared_cells * (p - 1)
        per_rank = fixed + bodies + top + COUNTS_BYTES * (p - 1) + NODE_BYTES * let
        parts["mean"] += per_rank.mean() / placements
        parts["max"] += (per_rank.max() if len(walked) == p else float("nan")) / placements
        parts["essential"] += (per_rank - bodies).mean() / placements
        parts["body"] = bodies
        parts["let_nodes"] += let.mean() / (p - 1) / placements
        parts["shared"] += dom.shared_cells / placements
        parts["tops"] += dom.tops_per_rank.mean() / placements
        parts["walked"] = len(walked)
    return {k: float(v) for k, v in parts.items()}


def host_constants(measured):
    """Bandwidth and latency of this host's shared-memory MPI from E26's rows on 2 ranks (the rows
    beyond 2 ranks share 2 cores, so their exchange time is mostly waiting): least squares of
    exchange_seconds = bytes / bandwidth + COLLECTIVES x latency."""
    pts = [(float(r["exchange_bytes"]), float(r["exchange_seconds"])) for (n, p), r in measured.items() if p == 2]
    a = np.array([[b, COLLECTIVES] for b, _ in pts])
    (inv_bw, latency), *_ = np.linalg.lstsq(a, np.array([t for _, t in pts]), rcond=None)
    return {"bandwidth_bytes_per_s": 1 / inv_bw, "latency_s": max(latency, 0.0)}


def exchange_seconds(bytes_sent, p, c):
    """bytes / bandwidth + a message to each other rank per collective, the latency each."""
    return bytes_sent / c["bandwidth_bytes_per_s"] + COLLECTIVES * (p - 1) * c["latency_s"]


def compute_constants(e26_rows):
    """The walk's rate on one H100 (terms per second) and terms per body at E17_POINT, and the terms
    per body that a factor 8 in N adds (E26's one-rank rows at their smallest and largest N)."""
    e17 = [r for r in files.read_csv(RESULTS_DIR / f"{E17}.csv") if all(r[k] == v for k, v in E17_POINT.items())]
    if len(e17) != 1:
        raise SystemExit(f"exchange_model.py: results/{E17}.csv holds {len(e17)} rows of {E17_POINT}, not 1")
    n, terms = int(E17_POINT["n"]), float(e17[0]["terms_per_body"])
    one_rank = sorted((int(r["n"]), float(r["terms_per_body"])) for r in e26_rows if r["ranks"] == "1")
    (n0, t0), (n1, t1) = one_rank[0], one_rank[-1]
    return {"n": n, "terms_per_body": terms, "terms_per_s": n * terms / float(e17[0]["seconds_per_eval"]),
            "terms_per_level": (t1 - t0) / math.log(n1 / n0, 8)}


def compute_seconds(n_total, per_rank, c):
    """One evaluation's walk on one H100 at E17's rate, the terms per body grown by
    c["terms_per_level"] for each factor 8 in N."""
    terms = c["terms_per_body"] + c["terms_per_level"] * math.log(n_total / c["n"], 8)
    return per_rank * terms / c["terms_per_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    out = Path(ap.parse_args().out)
    rows = files.read_csv(RESULTS_DIR / f"{SOURCE}.csv")
    measured = {}
    for r in rows:
        if int(r["ranks"]) > 1:
            measured.setdefault((int(r["n"]), int(r["ranks"])), r)
    host = host_constants(measured)
    compute = compute_constants(rows)
    table = []
    def line(kind, n, p, m, r=None):
        mean, most = m["mean"], m["max"]
        row = [kind, n, p, n // p, 0.5, 1, f"{mean:.6g}", "" if math.isnan(most) else f"{most:.6g}",
               f"{m['essential']:.6g}", f"{m['body']:.6g}", f"{m['let_nodes']:.6g}", f"{m['shared']:.4g}",
               f"{m['tops']:.4g}"]
        if r:
            bm, bx = float(r["exchange_bytes"]), float(r["exchange_bytes_max"])
            ess = bm - float(r["body_bytes"])
            row += [r["exchange_bytes"], r["exchange_bytes_max"], f"{ess:.6g}", f"{mean / bm:.4f}",
                    f"{most / bx:.4f}", f"{m['essential'] / ess:.4f}", m["walked"],
                    f"{exchange_seconds(mean, p, host):.4g}", r["exchange_seconds"]]
        else:
            row += ["", "", "", "", "", "", m["walked"], f"{exchange_seconds(mean, p, host):.4g}", ""]
        row.append(f"{exchange_seconds(mean, p, NETWORK):.4g}")
        table.append(row)
        return row
    for (n, p), r in sorted(measured.items()):
        row = line("measured", n, p, model(n, p), r)
        print(f"{NAME}: N = {n}, P = {p}: model / measured {row[16]} (mean), {row[17]} (most)")
    shares = {}
    for per_rank in EXTRAPOLATED_PER_RANK:
        for p in EXTRAPOLATED_RANKS:
            m = model(per_rank * p, p, receivers=SAMPLED_RECEIVERS, tail_bodies=max(TAIL_BODIES, per_rank / TAIL_FRACTION),
                      placements=1)  # one placement: at these N the cube's extremes hardly move
            row = line("extrapolated", per_rank * p, p, m)
            t = exchange_seconds(m["mean"], p, NETWORK)
            shares[(per_rank, p)] = t / (t + compute_seconds(per_rank * p, per_rank, compute))
            row.append(f"{shares[(per_rank, p)]:.4g}")
            print(f"{NAME}: {per_rank} a rank, P = {p}: {m['mean'] / 1e6:.1f} MB a rank, exchange "
                  f"{shares[(per_rank, p)]:.1%} of the step on the network line")
    for row in table:
        row += [""] * (len(COLUMNS) - len(row))
    parameters = {
        "theta": 0.5, "leaf_size": 1, "precision": "float", "moments": "monopole",
        "bytes": {"node": NODE_BYTES, "body": BODY_BYTES, "counts": COUNTS_BYTES, "summary": SUMMARY_BYTES,
                  "extent": EXTENT_BYTES, "shape": SHAPE_BYTES, "top_cell": TOP_BYTES,
                  "body_out": BODY_OUT_BYTES, "sum_back": SUM_BACK_BYTES},
        "bisection_rounds": BISECTION_ROUNDS, "tail_bodies": f"max({TAIL_BODIES:g}, bodies a rank / {TAIL_FRACTION})", "placements": PLACEMENTS,
        "placements_extrapolated": 1, "placement_seed": PLACEMENT_SEED, "sampled_receivers": SAMPLED_RECEIVERS,
        "domains": "equal count along the Morton curve",
        "host": {**host, "collectives": COLLECTIVES, "fitted_on": "E26 rows on 2 ranks, one host, shared-memory MPI"},
        "network": {**NETWORK, "source": NETWORK_SOURCE},
        "compute": {**compute, "point": E17_POINT,
                    "source": f"results/{E17}.csv (H100); terms per factor 8 in N from E26's one-rank terms_per_body"},
        "published": PUBLISHED,
    }
    files.write_csv(out / f"{NAME}.csv", COLUMNS, table, provenance.results_meta(
        NAME, TITLE, PRODUCER, COLUMNS, [f"results/{SOURCE}.csv", f"results/{E17}.csv", PRODUCER],
        parameters=parameters))
    return 0


if __name__ == "__main__":
    sys.exit(main())
