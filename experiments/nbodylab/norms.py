"""The worst norms of nbody_tests' engine comparisons: every check of an engine against `simple`
(tests/support.hpp, check_against_simple) says, with -s and the compact reporter, on one line

    ... with 2 messages: 'ENGINE[ --launch SHAPE][ leaf L RULE], n = N, ...' and 'norm = X, tolerance Y'

reduced here to the worst norm per engine and tolerance. Read by experiments/gpu_test_norms.py (E09's
table of them) and tests/gpu/check.py (`make gpu-check`'s tests_worst_norms.csv)."""
import re

# The engine and the norm are on the same line: compact reports each assertion on one line with
# its messages, so a norm is never credited to the engine of an earlier line.
ENGINE = re.compile(r"((?:cuda|opencl|openmp|kdtree|octree)[a-z0-9-]*|simple)"
                    r"(?: --launch (?:'[^']*'|\S+)| leaf \d+ [a-z]+)?, n = \d+")
NORM = re.compile(r"norm = ([0-9.eE+-]+), tolerance ([0-9.eE+-]+)")
HEADER = ["engine", "tolerance", "worst_norm"]


def worst(lines):
    """{(engine, tolerance as printed): the worst norm} over the comparisons in `lines`."""
    out = {}
    for line in lines:
        norm, engine = NORM.search(line), ENGINE.search(line)
        if norm and engine:
            key = (engine.group(1), norm.group(2))
            out[key] = max(out.get(key, 0.0), float(norm.group(1)))
    return out


def rows(worst_norms):
    """The table (HEADER's columns) of worst(), sorted, the norms to three digits."""
    return [[engine, tolerance, f"{v:.3g}"] for (engine, tolerance), v in sorted(worst_norms.items())]
