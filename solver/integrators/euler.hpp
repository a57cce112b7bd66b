#pragma once
// Explicit Euler: y_{n+1} = y_n + h f(y_n). Order 1, one force evaluation per step.
#include "integrators/explicit_rk.hpp"

namespace nbody {

struct EulerMethod {
  static constexpr std::string_view name = "euler";
  static constexpr std::string_view description = "explicit Euler, order 1, 1 force evaluation per step";
  static constexpr ButcherTableau<1> tableau{.c = {}, .a = {}, .b = {{{"1"}}}, .b_hat = {}, .order = 1, .embedded_order = 0, .fsal = false};
};
template <class T>
using Euler = ExplicitRungeKutta<T, EulerMethod>;

}  // namespace nbody
