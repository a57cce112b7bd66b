#pragma once
// The explicit midpoint rule (Runge 1895; Hairer, Norsett & Wanner, "Solving ODEs I", 2nd ed.,
// Sect. II.1): an Euler half step to the midpoint, whose slope then takes the whole
// step. Order 2, two force evaluations per step.
#include "integrators/explicit_rk.hpp"

namespace nbody {

struct MidpointMethod {
  static constexpr std::string_view name = "midpoint";
  static constexpr std::string_view description =
      "explicit midpoint rule (Runge), order 2, 2 force evaluations per step";
  static constexpr ButcherTableau<2> tableau{
      .c = {{{"0"}, {"1/2"}}},
      .a = {{{}, {{{"1/2"}}}}},
      .b = {{{"0"}, {"1"}}},
      .b_hat = {},
      .order = 2,
      .embedded_order = 0,
      .fsal = false};
};
template <class T>
using Midpoint = ExplicitRungeKutta<T, MidpointMethod>;

}  // namespace nbody
