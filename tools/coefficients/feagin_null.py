import mpmath as mp, pickle
import feagin_rank as R
from feagin_setup import *
mp.mp.dps = 60
x = x0(); r0 = R.residuals(x)
h = mp.mpf(10) ** -30
J = mp.matrix(len(r0), len(x))
for k in range(len(x)):
    xs = x[:]; xs[k] += h
    r1 = R.residuals(xs)
    for m in range(len(r0)): J[m, k] = (r1[m] - r0[m]) / h
E, Q = mp.eigsy(J.T * J)
k = min(range(len(x)), key=lambda i: abs(E[i]))
v = [Q[i, k] for i in range(len(x))]
order = sorted(range(len(x)), key=lambda i: -abs(v[i]))
for i in order[:15]:
    print(group_list[i][1], mp.nstr(v[i], 5))
pickle.dump([str(t) for t in v], open("null.pkl", "wb"))
