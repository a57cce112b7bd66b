import mpmath as mp, sys
from feagin_setup import *
mp.mp.dps = int(sys.argv[1]) if len(sys.argv) > 1 else 80
b = exact_b()
print("b:", [mp.nstr(v, 20) for v in b])
print("exact a:", exact_a)
print(len(group_list), "unknown groups")
e = [mp.mpf(0)] * S; e[1] = mp.mpf(1) / 360; e[15] = -mp.mpf(1) / 360
bh = [b[i] - e[i] for i in range(S)]
stageq = {}
def residuals(x):
    A = build(x)
    c = [mp.fsum(A[i]) for i in range(S)]
    phi = {}
    def Phi(t):
        if t in phi: return phi[t]
        v = [mp.mpf(1)] * S
        for u in t:
            w = Phi(u)
            v = [v[i] * mp.fsum(A[i][j] * w[j] for j in range(i)) for i in range(S)]
        phi[t] = v
        return v
    r = [mp.fsum(b[i] * Phi(t)[i] for i in range(S)) - mp.mpf(1) / gamma(t) for t in ALLT10]
    r += [mp.fsum(bh[i] * Phi(t)[i] for i in range(S)) - mp.mpf(1) / gamma(t) for t in ALLT8]
    r += [mp.fsum(b[i] * A[i][j] for i in range(S)) - b[j] * (1 - c[j]) for j in range(S)]
    # Lobatto nodes: c8..c11 fixed
    s = mp.sqrt(7)
    lob = {8: (1 + mp.sqrt(mp.mpf(1)/3 + 2*s/21))/2, 9: (1 + mp.sqrt(mp.mpf(1)/3 - 2*s/21))/2}
    lob[10] = 1 - lob[9]; lob[11] = 1 - lob[8]
    r += [c[i] - lob[i] for i in lob]
    return r
if __name__ == "__main__":
    x = x0()
    r0 = residuals(x)
    print(len(r0), "residuals, max", mp.nstr(max(abs(v) for v in r0), 3))
    h = mp.mpf(10) ** (-(mp.mp.dps // 2))
    J = mp.matrix(len(r0), len(x))
    for k in range(len(x)):
        xs = x[:]; xs[k] += h
        r1 = residuals(xs)
        for m in range(len(r0)): J[m, k] = (r1[m] - r0[m]) / h
    JT = J.T
    import pickle
    pickle.dump((str(J.tolist()),), open("/dev/null", "wb"))
    ev = mp.eigsy(JT * J, eigvals_only=True)
    print(sorted([mp.nstr(mp.sqrt(abs(v)), 3) for v in ev], key=lambda s: float(s)))
