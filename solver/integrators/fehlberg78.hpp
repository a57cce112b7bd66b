#pragma once
// Runge-Kutta-Fehlberg 7(8): E. Fehlberg, "Classical fifth-, sixth-, seventh-, and eighth-order
// Runge-Kutta formulas with stepsize control", NASA Technical Report R-287 (1968), the RK7(8)
// formula. Seed S0's code (nbody_butcher_table_rkf) has a13,10 = 19/41 instead of Fehlberg's 12/41,
// so its row 13 does not even sum to c13 = 1 and its "order 8" solution converges at order 1;
// tests/test_tableaux.cpp would catch that. Thirteen stages; the
// 7th-order weights use stages 1-11, the 8th-order ones stages 6-13, so the error estimate is
// 41/840 (k1 + k11 - k12 - k13). It advances the 8th-order solution, as seed S0's code does
// (Fehlberg's own formulas advance the 7th and use the 8th only for the estimate, which then
// measures the error of the 7th-order solution: with the 8th advanced it is an upper bound).
// Thirteen force evaluations per step.
#include "integrators/explicit_rk.hpp"

namespace nbody {

struct Fehlberg78Method {
  static constexpr std::string_view name = "fehlberg78";
  static constexpr std::string_view description =
      "Runge-Kutta-Fehlberg 7(8), advances the 8th-order solution, 13 force evaluations per step";
  static constexpr ButcherTableau<13> tableau{
      .c = {{{"0"}, {"2/27"}, {"1/9"}, {"1/6"}, {"5/12"}, {"1/2"}, {"5/6"}, {"1/6"}, {"2/3"}, {"1/3"}, {"1"}, {"0"},
             {"1"}}},
      .a = {{{},
             {{{"2/27"}}},
             {{{"1/36"}, {"1/12"}}},
             {{{"1/24"}, {"0"}, {"1/8"}}},
             {{{"5/12"}, {"0"}, {"-25/16"}, {"25/16"}}},
             {{{"1/20"}, {"0"}, {"0"}, {"1/4"}, {"1/5"}}},
             {{{"-25/108"}, {"0"}, {"0"}, {"125/108"}, {"-65/27"}, {"125/54"}}},
             {{{"31/300"}, {"0"}, {"0"}, {"0"}, {"61/225"}, {"-2/9"}, {"13/900"}}},
             {{{"2"}, {"0"}, {"0"}, {"-53/6"}, {"704/45"}, {"-107/9"}, {"67/90"}, {"3"}}},
             {{{"-91/108"}, {"0"}, {"0"}, {"23/108"}, {"-976/135"}, {"311/54"}, {"-19/60"}, {"17/6"}, {"-1/12"}}},
             {{{"2383/4100"}, {"0"}, {"0"}, {"-341/164"}, {"4496/1025"}, {"-301/82"}, {"2133/4100"}, {"45/82"},
               {"45/164"}, {"18/41"}}},
             {{{"3/205"}, {"0"}, {"0"}, {"0"}, {"0"}, {"-6/41"}, {"-3/205"}, {"-3/41"}, {"3/41"}, {"6/41"}, {"0"}}},
             {{{"-1777/4100"}, {"0"}, {"0"}, {"-341/164"}, {"4496/1025"}, {"-289/82"}, {"2193/4100"}, {"51/82"},
               {"33/164"}, {"12/41"}, {"0"}, {"1"}}}}},
      .b = {{{"0"}, {"0"}, {"0"}, {"0"}, {"0"}, {"34/105"}, {"9/35"}, {"9/35"}, {"9/280"}, {"9/280"}, {"0"},
             {"41/840"}, {"41/840"}}},
      .b_hat = {{{"41/840"}, {"0"}, {"0"}, {"0"}, {"0"}, {"34/105"}, {"9/35"}, {"9/35"}, {"9/280"}, {"9/280"},
                 {"41/840"}, {"0"}, {"0"}}},
      .order = 8,
      .embedded_order = 7,
      .fsal = false};
};
template <class T>
using Fehlberg78 = ExplicitRungeKutta<T, Fehlberg78Method>;

}  // namespace nbody
