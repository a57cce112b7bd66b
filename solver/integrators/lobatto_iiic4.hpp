#pragma once
// The 3-stage Lobatto IIIC method (Chipman 1971; Hairer & Wanner, "Solving ODEs II", Sect. IV.5):
// order 4 = 2s - 2, L-stable and stiffly accurate (last row of A = b), neither symmetric
// nor symplectic. Nodes c = 0, 1/2, 1; all coefficients rational. It satisfies B(4), C(2), D(2),
// checked exactly in tests/test_implicit_extrapolation.cpp.
#include "integrators/implicit_rk.hpp"

namespace nbody {

struct LobattoIIIC4Method {
  static constexpr std::string_view name = "lobatto-iiic4";
  static constexpr bool symplectic = false;
  static constexpr std::string_view description =
      "Lobatto IIIC 3-stage, order 4, implicit, L-stable; stages solved to round-off by fixed-point iteration "
      "(3 force evaluations per sweep)";
  static constexpr ImplicitTableau<3> tableau{
      .c = {{{"0"}, {"1/2"}, {"1"}}},
      .a = {{{{{"1/6"}, {"-1/3"}, {"1/6"}}},
             {{{"1/6"}, {"5/12"}, {"-1/12"}}},
             {{{"1/6"}, {"2/3"}, {"1/6"}}}}},
      .b = {{{"1/6"}, {"2/3"}, {"1/6"}}},
      .order = 4};
};
template <class T>
using LobattoIIIC4 = ImplicitRungeKutta<T, LobattoIIIC4Method>;

}  // namespace nbody
