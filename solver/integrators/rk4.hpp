#pragma once
// The classical Runge-Kutta method: order 4, four force evaluations per step.
#include "integrators/explicit_rk.hpp"

namespace nbody {

struct Rk4Method {
  static constexpr std::string_view name = "rk4";
  static constexpr std::string_view description = "classical Runge-Kutta, order 4, 4 force evaluations per step";
  static constexpr ButcherTableau<4> tableau{
      .c = {{{"0"}, {"1/2"}, {"1/2"}, {"1"}}},
      .a = {{{},
             {{{"1/2"}}},
             {{{"0"}, {"1/2"}}},
             {{{"0"}, {"0"}, {"1"}}}}},
      .b = {{{"1/6"}, {"1/3"}, {"1/3"}, {"1/6"}}},
      .b_hat = {},
      .order = 4,
      .embedded_order = 0,
      .fsal = false};
};
template <class T>
using Rk4 = ExplicitRungeKutta<T, Rk4Method>;

}  // namespace nbody
