from fractions import Fraction as Fr
from decimal import Decimal, getcontext
import sympy as sp
import dop853_data as D
getcontext().prec = 60
nodes = [0,5,6,7,8,9,10,11]
cn = {0:Fr(0),5:Fr(1,3),6:Fr(1,4),7:Fr(4,13),8:Fr(127,195),9:Fr(3,5),10:Fr(6,7),11:Fr(1)}
M = sp.Matrix([[cn[j]**q for j in nodes] for q in range(8)])
b = M.LUsolve(sp.Matrix([sp.Rational(1,q+1) for q in range(8)]))
b = {j: b[k] for k,j in enumerate(nodes)}
print("b exact:", b)
for j in nodes: assert abs(float(b[j] - sp.Rational(Fr(Decimal(D.B[j]))))) < 1e-28
# e5 guesses
guess = {0:Fr(116092271,8848465920),5:Fr(-1871647,1527680),6:Fr(-69799717,140793660),7:Fr(1230164450203,739113984000),
         9:Fr(464500805,1389975552),10:Fr(1606764981773,19613062656000),11:Fr(-137909,6168960)}
# solve for bhat on the 5 nodes given 3 known nodes (0,5,6)
known = [0,5,6]; unk = [7,8,9,10,11]
bh = {j: b[j] - sp.Rational(guess[j]) for j in known}
Mu = sp.Matrix([[cn[j]**q for j in unk] for q in range(5)])
r = sp.Matrix([sp.Rational(1,q+1) - sum(bh[j]*cn[j]**q for j in known) for q in range(5)])
x = Mu.LUsolve(r)
for k,j in enumerate(unk): bh[j] = x[k]
for j in nodes:
    e = b[j]-bh[j]
    print(j, e, float(e - sp.Rational(Fr(Decimal(D.E5[j])))))
