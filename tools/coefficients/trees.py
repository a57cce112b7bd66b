# Rooted trees as canonical sorted tuples of children; order-condition checks.
from functools import lru_cache
import itertools

@lru_cache(None)
def trees(n):
    """All rooted trees with n vertices, canonical (children tuple sorted)."""
    if n == 1:
        return [()]
    out = set()
    # partitions of n-1 into child orders (multisets of trees)
    def rec(remaining, min_key, acc):
        if remaining == 0:
            out.add(tuple(sorted(acc)))
            return
        for k in range(1, remaining + 1):
            for t in trees(k):
                key = (k, t)
                if min_key is not None and key < min_key:
                    continue
                rec(remaining - k, key, acc + [t])
    rec(n - 1, None, [])
    return sorted(out)

def order(t):
    return 1 + sum(order(u) for u in t)

def gamma(t):
    g = order(t)
    for u in t:
        g *= gamma(u)
    return g

if __name__ == "__main__":
    print([len(trees(n)) for n in range(1, 11)])
