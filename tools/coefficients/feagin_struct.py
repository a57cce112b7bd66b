import mpmath as mp
import feagin_data as F
mp.mp.dps = 100
S = 17
A = [[mp.mpf(0)]*S for _ in range(S)]
for (i,j),v in F.a.items(): A[i][j] = mp.mpf(v)
c = [mp.fsum(A[i]) for i in range(S)]
cp = [mp.mpf(F.c.get(i,"0")) for i in range(S)]
print("c - published", [mp.nstr(c[i]-cp[i],2) for i in range(S)])
for i in range(1,S):
    nz = [j for j in range(S) if A[i][j] != 0]
    res = [mp.fsum(A[i][j]*c[j]**(q-1) for j in range(S)) - c[i]**q/q for q in range(1,11)]
    print(i, len(nz), nz, [mp.nstr(abs(r),2) for r in res])
b = [mp.mpf(F.b.get(i,"0")) for i in range(S)]
print("D1", [mp.nstr(mp.fsum(b[i]*A[i][j] for i in range(S)) - b[j]*(1-c[j]),2) for j in range(S)])
