"""E26's exchange model (experiments/exchange_model.py) on cases with known answers: one rank sends
nothing; the bodies' part is 40 (N/P)(P-1)/P bytes, as E26 measured; two ranks of a symmetric
sphere cut at its centre send each other the same; an essential tree grows with N as a surface
(between N^(1/2) and N^(5/6) per factor 4, not as the volume) and shrinks per pair as P grows; the
planar layer of a cell next to the receiver sends its children and none of a cell far away.
Run by CTest (tests/CMakeLists.txt)."""
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import needs_venv  # noqa: E402

needs_venv.require("numpy")
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "experiments"))
import exchange_model as em  # noqa: E402


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    return ok


def main():
    em.PLACEMENTS = 1
    ok = True
    one = em.model(1 << 12, 1)
    ok &= check("one rank sends nothing", one["mean"] == 0 and one["max"] == 0)
    for n, p in ((1 << 14, 2), (1 << 16, 8)):
        _, bodies = em.fixed_bytes(n, p)
        ok &= check(f"body bytes N = {n}, P = {p}: 40 (N/P)(P-1)/P",
                    math.isclose(bodies, 40 * (n / p) * (p - 1) / p))
    # A sphere at the cube's centre cut in 2 at the middle of the curve: two mirror halves.
    side, _ = em.cube_extremes(1 << 14)
    sphere = em.Sphere(side)
    dom = em.Domains(sphere, 1 << 14, 2)
    to_1, to_0 = em.walk(sphere, dom, 1, 0.5, 1 << 14)[0], em.walk(sphere, dom, 0, 0.5, 1 << 14)[1]
    ok &= check(f"symmetric halves send each other the same ({to_1:.1f}, {to_0:.1f} nodes)",
                to_1 > 0 and math.isclose(to_1, to_0, rel_tol=1e-6))
    small, large = em.model(1 << 14, 2), em.model(1 << 16, 2)
    growth = math.log(large["let_nodes"] / small["let_nodes"], 4)
    ok &= check(f"the essential tree grows as a surface: N^{growth:.2f}", 0.5 < growth < 5 / 6)
    more = em.model(1 << 14, 8)
    ok &= check("per pair of ranks it shrinks as P grows", more["let_nodes"] < small["let_nodes"])
    near = em.planar_layer(1.0, np.array([1000.0]), np.array([0.5]), 0.5)[0]
    far = em.planar_layer(1.0, np.array([1000.0]), np.array([50.0]), 0.5)[0]
    ok &= check(f"a cell next to the receiver sends its subtree's layer ({near:.0f} nodes), "
                f"a far one its 8 children only ({far:.2f})", near > 100 and math.isclose(far, 8, rel_tol=1e-3))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
