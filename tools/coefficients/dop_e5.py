import mpmath as mp, pickle
from trees import trees, gamma
import dop853_data as D
mp.mp.dps = 140
Astr, bstr = pickle.load(open("dop_rows.pkl","rb"))
A = [[mp.mpf(x) for x in row] for row in Astr]; b = [mp.mpf(x) for x in bstr]
S = 12
phi = {}
def Phi(t):
    if t in phi: return phi[t]
    v = [mp.mpf(1)]*S
    for u in t:
        w = Phi(u)
        v = [v[i]*mp.fsum(A[i][j]*w[j] for j in range(i)) for i in range(S)]
    phi[t] = v
    return v
nodes = [0,5,6,7,8,9,10,11]
e5 = [mp.mpf(D.E5.get(i,"0")) for i in range(S)]
bh = [b[i]-e5[i] for i in range(S)]
for n in range(1,8):
    print(n, mp.nstr(max(abs(mp.fsum(bh[i]*Phi(t)[i] for i in range(S)) - mp.mpf(1)/gamma(t)) for t in trees(n)),3))
rows = [[Phi(t)[j] for j in nodes] for n in range(1,6) for t in trees(n)]
U, Sv, V = mp.svd_r(mp.matrix(rows))
print([mp.nstr(s,3) for s in Sv])
print("bhat5", [mp.nstr(x,30) for x in bh])
print("e5", [mp.nstr(x,30) for x in e5])
