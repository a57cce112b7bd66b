import mpmath as mp
from fractions import Fraction
from decimal import Decimal
import feagin_data as F
from trees import trees, gamma
S = 17
ALLT10 = [t for n in range(1, 11) for t in trees(n)]
ALLT8 = [t for n in range(1, 9) for t in trees(n)]
# exact rationals among a (published values that are short decimals)
def is_short(v):
    d = Decimal(v).normalize()
    return len(d.as_tuple().digits) <= 6
exact_a = {k: Fraction(Decimal(v)) for k, v in F.a.items() if is_short(v)}
# tie groups among the others: identical value up to sign
groups = {}
for k, v in F.a.items():
    if k in exact_a: continue
    key = v.lstrip("-")
    groups.setdefault(key, []).append((k, -1 if v.startswith("-") else 1))
group_list = list(groups.items())  # [(absvalue, [(pos, sign)])]
# exact b: rationals and Lobatto weights (14 -+ sqrt7)/60
def exact_b():
    b = [mp.mpf(0)] * S
    for i, v in F.b.items():
        if is_short(v) or "333333" in v:
            b[i] = mp.mpf(Fraction(Decimal(v)).limit_denominator(1000).numerator) / Fraction(Decimal(v)).limit_denominator(1000).denominator
    s7 = mp.sqrt(7)
    b[8] = b[11] = (14 - s7) / 60
    b[9] = b[10] = (14 + s7) / 60
    return b
def build(x):
    A = [[mp.mpf(0)] * S for _ in range(S)]
    for (i, j), f in exact_a.items(): A[i][j] = mp.mpf(f.numerator) / f.denominator
    for g, (_, members) in enumerate(group_list):
        for (i, j), s in members: A[i][j] = s * x[g]
    return A
def x0():
    return [mp.mpf(v) for v, _ in group_list]
