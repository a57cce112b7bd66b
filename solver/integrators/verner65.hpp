#pragma once
// Verner's 6(5) pair, eight stages: J. H. Verner, "Explicit Runge-Kutta methods with estimates of
// the local truncation error", SIAM J. Numer. Anal. 15 (1978) 772-790, the pair of the DVERK code
// (T. E. Hull, W. H. Enright, K. R. Jackson, "User's guide for DVERK", TR 100, Univ. of Toronto,
// 1976). This is the "Werner" method of seed S0: S0's code (nbody_solver_rkdverk, "Verner's
// method of order 6(5) (DVERK)") uses this tableau, but advances the 5th-order solution; here the
// 6th-order one is advanced, as DVERK does. Eight force evaluations per step.
#include "integrators/explicit_rk.hpp"

namespace nbody {

struct Verner65Method {
  static constexpr std::string_view name = "verner65";
  static constexpr std::string_view description =
      "Verner 6(5) (DVERK; seed S0's 'Werner' method), advances the 6th-order solution, 8 force evaluations per step";
  static constexpr ButcherTableau<8> tableau{
      .c = {{{"0"}, {"1/6"}, {"4/15"}, {"2/3"}, {"5/6"}, {"1"}, {"1/15"}, {"1"}}},
      .a = {{{},
             {{{"1/6"}}},
             {{{"4/75"}, {"16/75"}}},
             {{{"5/6"}, {"-8/3"}, {"5/2"}}},
             {{{"-165/64"}, {"55/6"}, {"-425/64"}, {"85/96"}}},
             {{{"12/5"}, {"-8"}, {"4015/612"}, {"-11/36"}, {"88/255"}}},
             {{{"-8263/15000"}, {"124/75"}, {"-643/680"}, {"-81/250"}, {"2484/10625"}, {"0"}}},
             {{{"3501/1720"}, {"-300/43"}, {"297275/52632"}, {"-319/2322"}, {"24068/84065"}, {"0"}, {"3850/26703"}}}}},
      .b = {{{"3/40"}, {"0"}, {"875/2244"}, {"23/72"}, {"264/1955"}, {"0"}, {"125/11592"}, {"43/616"}}},
      .b_hat = {{{"13/160"}, {"0"}, {"2375/5984"}, {"5/16"}, {"12/85"}, {"3/44"}, {"0"}, {"0"}}},
      .order = 6,
      .embedded_order = 5,
      .fsal = false};
};
template <class T>
using Verner65 = ExplicitRungeKutta<T, Verner65Method>;

}  // namespace nbody
