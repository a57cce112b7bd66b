# Writes the coefficient text of feagin10 and dop853 (70 significant digits / exact rationals).
import mpmath as mp, pickle
from fractions import Fraction as Fr
import sympy as sp
mp.mp.dps = 140
DIG = 70
def dec(x):
    x = mp.mpf(x)
    if x == 0: return "0"
    s = mp.nstr(x, DIG, min_fixed=-mp.inf, max_fixed=mp.inf, strip_zeros=False)
    return s
def rat(f):
    f = sp.Rational(f)
    return str(f.p) if f.q == 1 else f"{f.p}/{f.q}"
def cpp_row(vals):
    return "{{" + ", ".join('{"%s"}' % v for v in vals) + "}}"

# ---------------- Feagin
from feagin_setup import *
xs = [mp.mpf(v) for v in pickle.load(open("feagin_refined.pkl", "rb"))]
A = build(xs)
S = 17
exact_pos = set(exact_a)
def a_text(i, j):
    if (i, j) in exact_pos: return rat(exact_a[(i, j)])
    return dec(A[i][j]) if A[i][j] != 0 else "0"
c = [mp.fsum(A[i]) for i in range(S)]
s7 = mp.sqrt(7)
c_text = []
exact_c = {0: "0", 1: "1/10", 6: "5/6", 12: "5/6", 15: "1/10", 16: "1"}
for i in range(S):
    if i in exact_c:
        assert abs(c[i] - mp.mpf(sp.Rational(exact_c[i]).p) / sp.Rational(exact_c[i]).q) < mp.mpf(10)**-120, (i, c[i])
        c_text.append(exact_c[i])
    else:
        c_text.append(dec(c[i]))
b_text = ["1/30", "1/40", "1/30", "0", "1/20", "0", "1/25", "0", dec((14 - s7) / 60), dec((14 + s7) / 60), dec((14 + s7) / 60),
          dec((14 - s7) / 60), "-1/25", "-1/20", "-1/30", "-1/40", "1/30"]
bh_text = list(b_text); bh_text[1] = "1/45"; bh_text[15] = "-1/45"
with open("feagin_rows.txt", "w") as f:
    f.write("c: " + cpp_row(c_text) + "\n")
    for i in range(S):
        last = max([j for j in range(i) if A[i][j] != 0], default=-1)
        f.write("a%d: " % i + (cpp_row([a_text(i, j) for j in range(last + 1)]) if last >= 0 else "{}") + "\n")
    f.write("b: " + cpp_row(b_text) + "\n")
    f.write("bh: " + cpp_row(bh_text) + "\n")

# ---------------- DOP853
Astr, bstr = pickle.load(open("dop_rows.pkl", "rb"))
A = [[mp.mpf(x) for x in row] for row in Astr]
S = 12
s6 = mp.sqrt(6)
cD = [mp.mpf(0), (12 - 2 * s6) / 135, (6 - s6) / 45, (6 - s6) / 30, (6 + s6) / 30]
c_text = ["0"] + [dec(v) for v in cD[1:]] + ["1/3", "1/4", "4/13", "127/195", "3/5", "6/7", "1", "1"]
exact = {(5, 0): "1/27", (6, 0): "19/512", (6, 5): "-9/512"}
for (i, j), v in exact.items():
    assert abs(A[i][j] - mp.mpf(sp.Rational(v).p) / sp.Rational(v).q) < mp.mpf(10)**-120
nodes = [0, 5, 6, 7, 8, 9, 10, 11]
cn = {0: Fr(0), 5: Fr(1, 3), 6: Fr(1, 4), 7: Fr(4, 13), 8: Fr(127, 195), 9: Fr(3, 5), 10: Fr(6, 7), 11: Fr(1)}
M = sp.Matrix([[cn[j] ** q for j in nodes] for q in range(8)])
bx = M.LUsolve(sp.Matrix([sp.Rational(1, q + 1) for q in range(8)]))
b = {j: bx[k] for k, j in enumerate(nodes)}
e5 = {0: sp.Rational(116092271, 8848465920), 5: sp.Rational(-1871647, 1527680), 6: sp.Rational(-69799717, 140793660),
      7: sp.Rational(1230164450203, 739113984000), 8: sp.Rational(-1980813971228885, 5654156025964544),
      9: sp.Rational(464500805, 1389975552), 10: sp.Rational(1606764981773, 19613062656000), 11: sp.Rational(-137909, 6168960)}
c9 = sp.Rational(127, 195)
w9 = 1 / (6 * c9 * (1 - c9)); w12 = sp.Rational(1, 2) - w9 * c9; w1 = 1 - w9 - w12
bhh = {0: w1, 8: w9, 11: w12}
print("bhh", bhh)
for j in nodes: assert abs(float(b[j]) - float(mp.mpf(bstr[j]))) < 1e-15
def full(d, n=13): return [rat(d[j]) if j in d else "0" for j in range(n)]
with open("dop_rows.txt", "w") as f:
    f.write("c: " + cpp_row(c_text) + "\n")
    for i in range(S):
        last = max([j for j in range(i) if A[i][j] != 0], default=-1)
        row = [exact.get((i, j), dec(A[i][j]) if A[i][j] != 0 else "0") for j in range(last + 1)]
        f.write("a%d: " % i + (cpp_row(row) if last >= 0 else "{}") + "\n")
    f.write("a12: " + cpp_row(full(b, 12)) + "\n")
    f.write("b: " + cpp_row(full(b)) + "\n")
    f.write("bh: " + cpp_row(full({j: b[j] - e5[j] for j in nodes})) + "\n")
    f.write("bh2: " + cpp_row(full(bhh)) + "\n")
