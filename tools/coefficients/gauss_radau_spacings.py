import mpmath as mp
mp.mp.dps = 110
# Radau nodes on [-1,1] with fixed node -1: -1 and the roots of (P7(x)+P8(x))/(1+x)
x = mp.mpf
P = lambda n, z: mp.legendre(n, z)
f = lambda z: P(7, z) + P(8, z)
# initial guesses from low precision
import numpy as np
from numpy.polynomial import legendre as L
c = np.zeros(9); c[7]=1; c[8]=1
r = sorted(L.legroots(c))
roots = [mp.findroot(f, mp.mpf(float(v))) for v in r]
roots = [z for z in roots if abs(z+1) > 1e-10]
h = [(z+1)/2 for z in roots]
for v in h: print(mp.nstr(v, 72))
# check quadrature exactness on [0,1] with weights computed by solving moment eqs
nodes = [mp.mpf(0)] + h
A = mp.matrix([[n**k for n in nodes] for k in range(8)])
bvec = mp.matrix([mp.mpf(1)/(k+1) for k in range(8)])
w = mp.lu_solve(A, bvec)
for k in range(16):
    s = sum(w[i]*nodes[i]**k for i in range(8))
    print(k, mp.nstr(s - mp.mpf(1)/(k+1), 5))
