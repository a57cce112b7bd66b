import mpmath as mp
from check import check
import feagin_data as F
mp.mp.dps = 120
S = 17
A = [[mp.mpf(0)] * S for _ in range(S)]
for (i, j), v in F.a.items(): A[i][j] = mp.mpf(v)
b = [mp.mpf(F.b.get(i, "0")) for i in range(S)]
c = [mp.mpf(F.c.get(i, "0")) for i in range(S)]
check(S, A, b, c, 11, "b")
e = [mp.mpf(0)] * S; e[1] = mp.mpf(1) / 360; e[15] = -mp.mpf(1) / 360
bh = [b[i] - e[i] for i in range(S)]
check(S, A, bh, c, 9, "bhat")
