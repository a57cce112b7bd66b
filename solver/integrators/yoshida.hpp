#pragma once
// Yoshida's symplectic compositions of the leapfrog (H. Yoshida, "Construction of higher order
// symplectic integrators", Phys. Lett. A 150 (1990) 262-268): a step of size h is the sequence of
// kick-drift-kick leapfrog steps of sizes w_1 h, ..., w_s h, with symmetric weights summing to 1.
// Symmetric compositions of a symmetric map stay symmetric and symplectic, so they keep the
// leapfrog's bounded energy error while raising the order.
//
//   yoshida4  the triple jump (w1, w0, w1), w1 = 1/(2 - 2^(1/3)), w0 = -2^(1/3) w1: order 4, with
//             w0 + 2 w1 = 1 and w0^3 + 2 w1^3 = 0.
//   yoshida6  (w3, w2, w1, w0, w1, w2, w3), Yoshida's solution A (his Table 1), w0 = 1 - 2(w1+w2+w3):
//             order 6. With g = the seven weights and q_i = the centre of sub-step i relative to the
//             centre of the step (sum of the earlier weights + w_i/2 - 1/2), the conditions are
//               sum g = 1,  sum g^3 = 0,  sum g^5 = 0,  sum g^3 q^2 = 0,
//             the last being the [A,[A,B]] term of the Baker-Campbell-Hausdorff expansion at h^5
//             (cf. Hairer, Lubich, Wanner, Geometric Numerical Integration, 2nd ed., Sect. V.3.2).
//             Table 1 prints 15 digits (the last ones off by a few units); the text below solves these
//             equations by Newton's method in 100-digit arithmetic (Boost cpp_bin_float_100)
//             starting from Table 1, and the tests check them to 1e-60.
//
// The acceleration at the end of a sub-step is the one at the start of the next (and of the next
// step), so a step costs s force evaluations: 3 for yoshida4, 7 for yoshida6.
#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "integrators/leapfrog.hpp"

namespace nbody {

namespace yoshida {

// 75 significant digits, computed from the defining equations above.
inline constexpr Coefficient y4_w1{"1.35120719195965763404768780897146082692199937621714482832870599768930264311"};
inline constexpr Coefficient y4_w0{"-1.70241438391931526809537561794292165384399875243428965665741199537860528622"};

inline constexpr Coefficient y6_w1{"-1.17767998417887100694641568096431573463926925263459848447536851379674155618"};
inline constexpr Coefficient y6_w2{"0.235573213359358133684793182978534601686468082103401119003493130956214712152"};
inline constexpr Coefficient y6_w3{"0.784513610477557263819497633866349875776824417451493384567947798951259974795"};
inline constexpr Coefficient y6_w0{"1.31518632068391121888424972823886251435195350615940796180785516777853373847"};

struct Order4 {
  static constexpr std::string_view name = "yoshida4";
  static constexpr std::string_view description =
      "Yoshida (1990) triple-jump composition of leapfrog, symplectic, order 4, 3 force evaluations per step";
  static constexpr std::string_view family = "composition of leapfrog";
  static constexpr int order = 4;
  static constexpr std::array<Coefficient, 3> weights{y4_w1, y4_w0, y4_w1};
};

struct Order6 {
  static constexpr std::string_view name = "yoshida6";
  static constexpr std::string_view description =
      "Yoshida (1990) 7-stage composition of leapfrog (solution A), symplectic, order 6, 7 force evaluations per step";
  static constexpr std::string_view family = "composition of leapfrog";
  static constexpr int order = 6;
  static constexpr std::array<Coefficient, 7> weights{y6_w3, y6_w2, y6_w1, y6_w0, y6_w1, y6_w2, y6_w3};
};

}  // namespace yoshida

template <class T>
using Yoshida4 = LeapfrogComposition<T, yoshida::Order4>;
template <class T>
using Yoshida6 = LeapfrogComposition<T, yoshida::Order6>;

}  // namespace nbody
