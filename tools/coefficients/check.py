import mpmath as mp
from trees import trees, gamma
mp.mp.dps = 120
def check(S, A, b, c, maxorder, label=""):
    phi = {}
    def Phi(t):
        if t in phi: return phi[t]
        v = [mp.mpf(1)] * S
        for u in t:
            w = Phi(u)
            Aw = [mp.fsum(A[i][j] * w[j] for j in range(S)) for i in range(S)]
            v = [v[i] * Aw[i] for i in range(S)]
        phi[t] = v
        return v
    worst = {}
    for n in range(1, maxorder + 1):
        m = 0
        for t in trees(n):
            r = mp.fsum(b[i] * Phi(t)[i] for i in range(S)) - mp.mpf(1) / gamma(t)
            m = max(m, abs(r))
        worst[n] = m
    rows = max(abs(mp.fsum(A[i]) - c[i]) for i in range(S))
    print(label, "rowsum", mp.nstr(rows, 5), {k: mp.nstr(v, 5) for k, v in worst.items()})
    return worst
