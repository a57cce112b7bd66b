#pragma once
// Heun's method, the explicit trapezoidal rule (Heun 1900; Hairer, Norsett & Wanner, "Solving
// ODEs I", 2nd ed., Sect. II.1): an Euler predictor, then the trapezoidal corrector
// with the slopes at both ends. Order 2, two force evaluations per step. Seed S0's `trapeze`
// iterates the corrector once more (three evaluations, still order 2); this is the classical
// one-correction form.
#include "integrators/explicit_rk.hpp"

namespace nbody {

struct TrapezeMethod {
  static constexpr std::string_view name = "trapeze";
  static constexpr std::string_view description =
      "Heun's predictor-corrector (explicit trapezoidal rule), order 2, 2 force evaluations per step";
  static constexpr ButcherTableau<2> tableau{
      .c = {{{"0"}, {"1"}}},
      .a = {{{}, {{{"1"}}}}},
      .b = {{{"1/2"}, {"1/2"}}},
      .b_hat = {},
      .order = 2,
      .embedded_order = 0,
      .fsal = false};
};
template <class T>
using Trapeze = ExplicitRungeKutta<T, TrapezeMethod>;

}  // namespace nbody
