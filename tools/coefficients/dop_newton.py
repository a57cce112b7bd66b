import mpmath as mp, pickle
exec(open("dop_rank.py").read().split("r0 = residuals(A)")[0].replace("mp.mp.dps = 80", "mp.mp.dps = 140"))
A30 = [row[:] for row in A]
for it in range(4):
    r0 = residuals(A)
    print(it, "max residual", mp.nstr(max(abs(x) for x in r0), 3))
    h = mp.mpf(10)**-70
    J = mp.matrix(len(r0), len(free))
    for k,(i,j) in enumerate(free):
        save = A[i][j]; A[i][j] = save + h
        r1 = residuals(A); A[i][j] = save
        for m in range(len(r0)): J[m,k] = (r1[m]-r0[m])/h
    JT = J.T; dx = mp.lu_solve(JT*J, JT*mp.matrix(r0))
    for k,(i,j) in enumerate(free): A[i][j] -= dx[k]
r0 = residuals(A)
print("final max residual", mp.nstr(max(abs(x) for x in r0), 3))
print("max change vs Hairer's 30 digits", mp.nstr(max(abs(A[i][j]-A30[i][j]) for (i,j) in free),3))
pickle.dump(([[str(x) for x in row] for row in A], [str(x) for x in b]), open("dop_rows.pkl","wb"))
