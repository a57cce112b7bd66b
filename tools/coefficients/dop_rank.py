import mpmath as mp
import dop853_data as D
from trees import trees, gamma
mp.mp.dps = 80
s6 = mp.sqrt(6)
c = [mp.mpf(0), (12-2*s6)/135, (6-s6)/45, (6-s6)/30, (6+s6)/30, mp.mpf(1)/3, mp.mpf(1)/4, mp.mpf(4)/13, mp.mpf(127)/195, mp.mpf(3)/5, mp.mpf(6)/7, mp.mpf(1)]
S = 12
# exact b from quadrature
nodes = [0,5,6,7,8,9,10,11]
M = mp.matrix([[c[j]**q for j in nodes] for q in range(8)])
rhs = mp.matrix([mp.mpf(1)/(q+1) for q in range(8)])
bx = mp.lu_solve(M, rhs)
b = [mp.mpf(0)]*S
for k,j in enumerate(nodes): b[j] = bx[k]
print("b diff", [mp.nstr(b[j]-mp.mpf(D.B[j]),3) for j in nodes])
print("b as fractions", [mp.identify(b[j]) for j in nodes])
def exact_row(i, nz, qs):
    M = mp.matrix([[c[j]**(q-1) for j in nz] for q in qs])
    r = mp.matrix([c[i]**q/q for q in qs])
    return mp.lu_solve(M, r) if len(nz)==len(qs) else mp.qr_solve(M, r)[0]
A = [[mp.mpf(0)]*S for _ in range(S)]
for (i,j),v in D.A.items(): A[i][j] = mp.mpf(v)
# rows 1..7 exact
rows = {1:([0],[1]),2:([0,1],[1,2]),3:([0,2],[1,2]),4:([0,2,3],[1,2,3]),5:([0,3,4],[1,2,3]),6:([0,3,4,5],[1,2,3,4]),7:([0,3,4,5,6],[1,2,3,4,5])}
for i,(nz,qs) in rows.items():
    x = exact_row(i,nz,qs)
    for k,j in enumerate(nz):
        print(i,j, mp.nstr(x[k]-A[i][j],3), mp.identify(x[k],['sqrt(6)']))
        A[i][j] = x[k]

free = [(i,j) for i in range(8,12) for j in range(S) if A[i][j] != 0]
print(len(free), "unknowns")
alltrees = [t for n in range(1,9) for t in trees(n)]
def residuals(A):
    phi = {}
    def Phi(t):
        if t in phi: return phi[t]
        v = [mp.mpf(1)]*S
        for u in t:
            w = Phi(u)
            v = [v[i]*mp.fsum(A[i][j]*w[j] for j in range(i)) for i in range(S)]
        phi[t] = v
        return v
    r = [mp.fsum(b[i]*Phi(t)[i] for i in range(S)) - mp.mpf(1)/gamma(t) for t in alltrees]
    r += [mp.fsum(A[i][j]*c[j]**(q-1) for j in range(i)) - c[i]**q/q for i in range(8,12) for q in range(1,6)]
    r += [mp.fsum(b[i]*A[i][j] for i in range(S)) - b[j]*(1-c[j]) for j in range(S)]
    return r
r0 = residuals(A)
print("max residual at 30-digit point", mp.nstr(max(abs(x) for x in r0),3))
h = mp.mpf(10)**-35
J = mp.matrix(len(r0), len(free))
for k,(i,j) in enumerate(free):
    save = A[i][j]; A[i][j] = save + h
    r1 = residuals(A); A[i][j] = save
    for m in range(len(r0)): J[m,k] = (r1[m]-r0[m])/h
U, Sv, V = mp.svd_r(J)
print([mp.nstr(s,3) for s in Sv])
