import mpmath as mp
import dop853_data as D
mp.mp.dps = 60
s6 = mp.sqrt(6)
c = [mp.mpf(0), (12-2*s6)/135, (6-s6)/45, (6-s6)/30, (6+s6)/30, mp.mpf(1)/3, mp.mpf(1)/4, mp.mpf(4)/13, mp.mpf(127)/195, mp.mpf(3)/5, mp.mpf(6)/7, mp.mpf(1), mp.mpf(1)]
S = 12
A = [[mp.mpf(0)]*S for _ in range(S)]
for (i,j),v in D.A.items(): A[i][j] = mp.mpf(v)
for i in range(1,S):
    nz = [j for j in range(S) if A[i][j] != 0]
    res = [mp.fsum(A[i][j]*c[j]**(q-1) for j in range(S)) - c[i]**q/q for q in range(1,9)]
    print(i, len(nz), nz, [mp.nstr(abs(r),2) for r in res])
b = [mp.mpf(D.B.get(i,"0")) for i in range(S)]
# D(1)-type: sum_i b_i a_ij - b_j(1-c_j)
print("D1", [mp.nstr(mp.fsum(b[i]*A[i][j] for i in range(S)) - b[j]*(1-c[j]),2) for j in range(S)])
print("D2", [mp.nstr(mp.fsum(b[i]*c[i]*A[i][j] for i in range(S)) - b[j]*(1-c[j]**2)/2,2) for j in range(S)])
print("bq", [mp.nstr(mp.fsum(b[i]*c[i]**(q-1) for i in range(S)) - mp.mpf(1)/q,2) for q in range(1,11)])
