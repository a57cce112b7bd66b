#pragma once
// Dormand & Prince (1980) 5(4): seven stages, first-same-as-last (6 force evaluations per
// accepted step). It advances the 5th-order solution (local extrapolation), as Hairer's DOPRI5
// does; seed S0's code advanced the 4th-order one.
#include "integrators/explicit_rk.hpp"

namespace nbody {

struct Dopri5Method {
  static constexpr std::string_view name = "dopri5";
  static constexpr std::string_view description =
      "Dormand-Prince 5(4), advances the 5th-order solution; --dt (fixed) or --tol (PI controller)";
  static constexpr ButcherTableau<7> tableau{
      .c = {{{"0"}, {"1/5"}, {"3/10"}, {"4/5"}, {"8/9"}, {"1"}, {"1"}}},
      .a = {{{},
             {{{"1/5"}}},
             {{{"3/40"}, {"9/40"}}},
             {{{"44/45"}, {"-56/15"}, {"32/9"}}},
             {{{"19372/6561"}, {"-25360/2187"}, {"64448/6561"}, {"-212/729"}}},
             {{{"9017/3168"}, {"-355/33"}, {"46732/5247"}, {"49/176"}, {"-5103/18656"}}},
             {{{"35/384"}, {"0"}, {"500/1113"}, {"125/192"}, {"-2187/6784"}, {"11/84"}}}}},
      .b = {{{"35/384"}, {"0"}, {"500/1113"}, {"125/192"}, {"-2187/6784"}, {"11/84"}, {"0"}}},
      .b_hat = {{{"5179/57600"}, {"0"}, {"7571/16695"}, {"393/640"}, {"-92097/339200"}, {"187/2100"}, {"1/40"}}},
      .order = 5,
      .embedded_order = 4,
      .fsal = true};
};
template <class T>
using Dopri5 = ExplicitRungeKutta<T, Dopri5Method>;

}  // namespace nbody
