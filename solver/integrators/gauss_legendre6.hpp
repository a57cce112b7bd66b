#pragma once
// The 3-stage Gauss-Legendre collocation method (Butcher 1964, "Implicit Runge-Kutta processes";
// Hairer & Wanner, "Solving ODEs II", Sect. IV.5, Table 5.2): order 6 = 2s, symmetric and
// symplectic (b_i a_ij + b_j a_ji = b_i b_j). Nodes c = 1/2 -+ sqrt(15)/10 and 1/2.
// The irrational coefficients are 70-digit decimals computed in 110-digit arithmetic (Python
// decimal) from the closed forms in the comments; tests/test_implicit_extrapolation.cpp checks
// B(6), C(3), D(3) and the symplecticity condition to 1e-60 in 100-digit arithmetic.
#include "integrators/implicit_rk.hpp"

namespace nbody {

struct GaussLegendre6Method {
  static constexpr std::string_view name = "gauss-legendre6";
  static constexpr bool symplectic = true;
  static constexpr std::string_view description =
      "Gauss-Legendre 3-stage collocation, order 6, implicit, symmetric and symplectic; stages solved to round-off by "
      "fixed-point iteration (3 force evaluations per sweep)";
  static constexpr ImplicitTableau<3> tableau{
      .c = {{{"0.1127016653792583114820734600217600389167078294708409173412426233886517"},  // 1/2 - sqrt(15)/10
             {"1/2"},
             {"0.8872983346207416885179265399782399610832921705291590826587573766113483"}}},  // 1/2 + sqrt(15)/10
      .a = {{{{{"5/36"},
               {"-0.03597666752493890345639547109660441849997255813055049955028269551867665"},  // 2/9 - sqrt(15)/15
               {"0.009789444015308326049580042229475568527791498712502528002636430018439452"}}},  // 5/36 - sqrt(15)/30
             {{{"0.3002631949808645924380249472131555393402606266093718399967044624769507"},  // 5/36 + sqrt(15)/24
               {"2/9"},
               {"-0.02248541720308681466024716943537776156248284883159406221892668469917291"}}},  // 5/36 - sqrt(15)/24
             {{{"0.2679883337624694517281977355483022092499862790652752497751413477593383"},  // 5/36 + sqrt(15)/30
               {"0.4804211119693833479008399155410488629444170025749949439947271399631211"},  // 2/9 + sqrt(15)/15
               {"5/36"}}}}},
      .b = {{{"5/18"}, {"4/9"}, {"5/18"}}},
      .order = 6};
};
template <class T>
using GaussLegendre6 = ImplicitRungeKutta<T, GaussLegendre6Method>;

}  // namespace nbody
