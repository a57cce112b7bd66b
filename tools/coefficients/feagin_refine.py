import mpmath as mp, pickle, time
from feagin_setup import *
import feagin_rank as R
mp.mp.dps = 130
R.b[:] = exact_b()
b = R.b
e = [mp.mpf(0)] * S; e[1] = mp.mpf(1) / 360; e[15] = -mp.mpf(1) / 360
R.bh[:] = [b[i] - e[i] for i in range(S)]
qmax = {2:2, 3:3, 4:3, 5:4, 6:4, 7:4, 8:5, 9:5, 10:5, 11:5, 12:4, 13:3, 14:2, 16:5}
def residuals(x):
    r = R.residuals(x)
    A = build(x); c = [mp.fsum(A[i]) for i in range(S)]
    r += [mp.fsum(A[i][j] * c[j] ** (q - 1) for j in range(i)) - c[i] ** q / q for i, qm in qmax.items() for q in range(2, qm + 1)]
    r += [c[6] - mp.mpf(5)/6, c[12] - mp.mpf(5)/6, c[16] - 1, c[13] - c[4], c[4] - (c[3] - mp.mpf(1)/2), c[3] - 3*c[2]/2]
    return r
x = x0(); xp = x[:]
for it in range(2):
    t0 = time.time()
    r0 = residuals(x)
    print(it, "max residual", mp.nstr(max(abs(v) for v in r0), 3), flush=True)
    h = mp.mpf(10) ** -65
    J = mp.matrix(len(r0), len(x))
    for k in range(len(x)):
        xs = x[:]; xs[k] += h
        r1 = residuals(xs)
        for m in range(len(r0)): J[m, k] = (r1[m] - r0[m]) / h
    E, Q = mp.eigsy(J.T * J)
    print("eigs (sqrt) smallest", sorted([mp.nstr(mp.sqrt(abs(v)), 3) for v in E], key=float)[:3])
    g = J.T * mp.matrix(r0)
    dx = [mp.mpf(0)] * len(x)
    for k in range(len(x)):
        if mp.sqrt(abs(E[k])) < mp.mpf(10) ** -20: continue  # null direction: no move (min-norm)
        coef = mp.fsum(Q[i, k] * g[i] for i in range(len(x))) / E[k]
        for i in range(len(x)): dx[i] += coef * Q[i, k]
    x = [x[i] - dx[i] for i in range(len(x))]
    print("step", mp.nstr(max(abs(d) for d in dx), 3), "time", time.time() - t0, flush=True)
r0 = residuals(x)
print("final max residual", mp.nstr(max(abs(v) for v in r0), 3))
print("max |refined - published|", mp.nstr(max(abs(x[i] - xp[i]) for i in range(len(x))), 3))
pickle.dump([str(v) for v in x], open("feagin_refined.pkl", "wb"))
A = build(x); c = [mp.fsum(A[i]) for i in range(S)]
import feagin_data as F
print("c - published", [mp.nstr(c[i] - mp.mpf(F.c.get(i, "0")), 3) for i in range(S)])
