from fractions import Fraction
import dop853_data as D
from decimal import Decimal, getcontext
getcontext().prec = 60
for k, v in list(D.E5.items()) + list(D.B.items()):
    x = Fraction(Decimal(v))
    for md in [10**4, 10**6, 10**8, 10**10, 10**12, 10**14]:
        f = x.limit_denominator(md)
        err = abs(float(f - x))
        if err < 1e-26:
            print(k, v, f, err); break
    else:
        print(k, v, "none", float(abs(x.limit_denominator(10**14)-x)))
