#pragma once
// Cash & Karp (1990) 5(4): J. R. Cash and A. H. Karp, "A variable order Runge-Kutta method for
// initial value problems with rapidly varying right-hand sides", ACM Trans. Math. Software 16
// (1990) 201-222, the 5(4) pair of their embedded family (also Numerical Recipes, 2nd ed.,
// Sect. 16.2). Six stages, six force evaluations per step. It advances the 5th-order solution
// (local extrapolation); seed S0's code advanced the 4th-order one.
#include "integrators/explicit_rk.hpp"

namespace nbody {

struct CashKarpMethod {
  static constexpr std::string_view name = "cash-karp";
  static constexpr std::string_view description =
      "Cash-Karp 5(4), advances the 5th-order solution, 6 force evaluations per step";
  static constexpr ButcherTableau<6> tableau{
      .c = {{{"0"}, {"1/5"}, {"3/10"}, {"3/5"}, {"1"}, {"7/8"}}},
      .a = {{{},
             {{{"1/5"}}},
             {{{"3/40"}, {"9/40"}}},
             {{{"3/10"}, {"-9/10"}, {"6/5"}}},
             {{{"-11/54"}, {"5/2"}, {"-70/27"}, {"35/27"}}},
             {{{"1631/55296"}, {"175/512"}, {"575/13824"}, {"44275/110592"}, {"253/4096"}}}}},
      .b = {{{"37/378"}, {"0"}, {"250/621"}, {"125/594"}, {"0"}, {"512/1771"}}},
      .b_hat = {{{"2825/27648"}, {"0"}, {"18575/48384"}, {"13525/55296"}, {"277/14336"}, {"1/4"}}},
      .order = 5,
      .embedded_order = 4,
      .fsal = false};
};
template <class T>
using CashKarp = ExplicitRungeKutta<T, CashKarpMethod>;

}  // namespace nbody
