def rows(fname):
    d = {}
    for line in open(fname):
        k, v = line.split(": ", 1)
        d[k] = v.strip()
    return d
def amatrix(d, S, indent="             "):
    out = []
    for i in range(S):
        out.append(d["a%d" % i])
    return "{{" + (",\n" + indent).join(out) + "}}"

D = rows("dop_rows.txt")
dop = '''#pragma once
// DOP853: Hairer's 8th-order explicit Runge-Kutta method with the error estimate "8(5,3)" of his
// code DOP853 (E. Hairer, S. P. Norsett, G. Wanner, "Solving Ordinary Differential Equations I",
// 2nd ed., Springer 1993, Sect. II.5 and II.10; the Fortran DOP853 of 1993), built on the 12-stage
// structure of Dormand & Prince's RK8(7)13M (P. J. Prince, J. R. Dormand, "High order embedded
// Runge-Kutta formulae", J. Comput. Appl. Math. 7 (1981) 67-75). Twelve stages and a 13th at
// y_new that is the next step's first (FSAL): 12 force evaluations per step. It advances the
// 8th-order solution; the error estimate combines a 5th- and a 3rd-order embedded solution as
// Hairer's code does, err = err5^2 / sqrt(err5^2 + 0.01 err3^2) (combined_error below), which is
// O(h^8): the controller uses the exponent 1/8, as DOP853 does.
//
// Coefficients. DOP853's source prints them with 30 digits; here they have 70 or are exact:
// - c2..c5 are (12 - 2 sqrt 6)/135, (6 - sqrt 6)/45, (6 - sqrt 6)/30, (6 + sqrt 6)/30; the other
//   nodes are rational (1/3, 1/4, 4/13, 127/195, 3/5, 6/7, 1).
// - Rows 2-8 of A are fixed by the stage-order conditions sum_j a_ij c_j^(q-1) = c_i^q / q
//   (q = 1..3 for rows 2-5, q = 1..5 for rows 6-8) on DOP853's zero pattern: solved exactly
//   (a61 = 1/27, a71 = 19/512, a76 = -9/512, the others in Q(sqrt 6)).
// - b solves the quadrature conditions sum_i b_i c_i^(q-1) = 1/q, q = 1..8, on its eight nodes:
//   exact rationals.
// - Rows 9-12 (30 unknowns) are the solution, unique near DOP853's 30-digit values (the Jacobian
//   has full rank 30), of: the stage-order conditions q = 1..5, the conditions
//   sum_i b_i a_ij = b_j (1 - c_j) for all j, and all 200 order conditions up to order 8; Newton's
//   method in 140-digit arithmetic from DOP853's values converges to residuals below 1e-130 and
//   moves no coefficient by more than 5e-29 (their last printed digit).
// - The 5th-order weights b_hat are exact rationals: DOP853's error coefficients er1, er6..er12
//   are b - b_hat; three of them are recognised as fractions (116092271/8848465920,
//   -1871647/1527680, -69799717/140793660), and the 5th-order quadrature conditions then give
//   the other five, which agree with DOP853's printed values to their 28 digits.
// - The 3rd-order weights b_hat2 (DOP853's bhh1..3 on stages 1, 9, 12) are the quadrature
//   weights of order 3 on those nodes: 31/127, 12675/17272, 3/136.
// tests/test_tableaux.cpp checks all of it against the order conditions in 100-digit arithmetic.
#include <cmath>

#include "integrators/explicit_rk.hpp"

namespace nbody {

struct Dop853Method {
  static constexpr std::string_view name = "dop853";
  static constexpr std::string_view description =
      "Hairer's DOP853, order 8 with 5th- and 3rd-order error estimates, 12 force evaluations per step (FSAL); "
      "--dt (fixed) or --tol";
  static constexpr ButcherTableau<13> tableau{
      .c = %(c)s,
      .a = %(a)s,
      .b = %(b)s,
      .b_hat = %(bh)s,
      .order = 8,
      .embedded_order = 5,
      .fsal = true,
      .b_hat2 = %(bh2)s,
      .embedded_order2 = 3};

  // Hairer's combination of the two estimates (DOP853, "error estimation"): err5^2 / sqrt(err5^2
  // + 0.01 err3^2). Where the 3rd-order estimate is small it is err5; where it dominates, the
  // estimate is damped, which makes it O(h^8) and robust for large steps.
  static constexpr int error_order = 8;
  template <class T>
  static T combined_error(T err5, T err3) {
    using std::sqrt;
    const T denominator = err5 * err5 + err3 * err3 / T(100);
    return denominator > T(0) ? err5 * err5 / sqrt(denominator) : T(0);
  }
};
template <class T>
using Dop853 = ExplicitRungeKutta<T, Dop853Method>;

}  // namespace nbody
''' % dict(c=D["c"], a=amatrix(D, 13), b=D["b"], bh=D["bh"], bh2=D["bh2"])
open("/work/main/solver/integrators/dop853.hpp", "w").write(dop)

F = rows("feagin_rows.txt")
fea = '''#pragma once
// Feagin's RK10(8): T. Feagin, "A tenth-order Runge-Kutta method with error estimate", Proc. IAENG
// Conf. on Scientific Computing (2007), and "High-order explicit Runge-Kutta methods using
// m-symmetry", Neural, Parallel & Scientific Computations 20 (2012) 437-458; coefficient file
// rk10.txt (sce.uhcl.edu/rungekutta) with 60 decimals. Seventeen stages, 17 force evaluations per
// step. It advances the 10th-order solution; the embedded one is of order 8 and differs from it
// only in stages 2 and 16, so the error estimate is h (k2 - k16) / 360 (Feagin's).
//
// Coefficients, 70 significant digits. Feagin's 60 decimals satisfy the order conditions only to
// about 1e-60 (sum b_i = 1 to 1.4e-60, the row sums c_i to 7e-60), which is not enough to prove
// them to 1e-60, so they were refined in 130-digit arithmetic:
// - exact where Feagin's values are: the rational b_i and a_ij (1/10, 27/40, ...), c6 = c12 = 5/6;
//   the Gauss-Lobatto weights b9..b12 = (14 -+ sqrt 7)/60 and nodes c9..c12 =
//   (1 +- sqrt(1/3 +- 2 sqrt(7)/21))/2 of the 6-point rule the weights form;
// - the remaining 70 distinct values of A (Feagin's symmetries kept: entries that agree up to
//   sign in rk10.txt stay equal) solve, by Newton's method from Feagin's values, all 1205 order
//   conditions up to order 10 for b and 200 up to order 8 for b_hat, the stage-order conditions
//   that Feagin's rows satisfy, sum_i b_i a_ij = b_j (1 - c_j), and c3 = 3 c2 / 2,
//   c4 = c3 - 1/2, c13 = c4; the Jacobian has full rank, so the solution is unique near rk10.txt,
//   and it moves no coefficient by more than 5e-60: Feagin's method, with 70 digits.
// tests/test_tableaux.cpp checks the result against the order conditions in 100-digit arithmetic.
#include "integrators/explicit_rk.hpp"

namespace nbody {

struct Feagin10Method {
  static constexpr std::string_view name = "feagin10";
  static constexpr std::string_view description =
      "Feagin RK10(8), advances the 10th-order solution, 17 force evaluations per step; --dt (fixed) or --tol";
  static constexpr ButcherTableau<17> tableau{
      .c = %(c)s,
      .a = %(a)s,
      .b = %(b)s,
      .b_hat = %(bh)s,
      .order = 10,
      .embedded_order = 8,
      .fsal = false};
};
template <class T>
using Feagin10 = ExplicitRungeKutta<T, Feagin10Method>;

}  // namespace nbody
''' % dict(c=F["c"], a=amatrix(F, 17), b=F["b"], bh=F["bh"])
open("/work/main/solver/integrators/feagin10.hpp", "w").write(fea)
