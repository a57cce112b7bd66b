#pragma once
// Parameters of the force law (see kernels/common/interaction.hpp for the formulas).
namespace nbody {

template <class T>
struct ForceLaw {
  T G{1};      // gravitational constant
  T eps2{0};   // Plummer softening length squared (--eps, default 0: none)
  T rmin2{0};  // squared minimum distance of seed S0's clamp (--r-min, default 0: no clamp)
  bool compensated = false;  // --compensated forces|both: Neumaier sums over the pair terms
};

}  // namespace nbody
