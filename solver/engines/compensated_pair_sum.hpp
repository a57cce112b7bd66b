#pragma once
// `--compensated forces`: the acceleration of one body as compensated (Neumaier) sums of its pair
// terms, each term from the shared interaction function. The CPU engines call this instead of
// their plain loop when the force law asks for it; it is the reference summation, not a fast path.
#include <cstddef>

#include "common/interaction.hpp"
#include "common/compensated.hpp"
#include "physics/force_law.hpp"

namespace nbody {

// (ax, ay, az) = sum over j != i of the pair terms of body i (before G), pos SoA as in ForceEngine.
template <class T>
void compensated_pair_sum(const T* pos, const T* mass, std::size_t n, std::size_t i, const ForceLaw<T>& law, T& ax,
                          T& ay, T& az) {
  const T *x = pos, *y = pos + n, *z = pos + 2 * n;
  CompensatedSum<T> sx, sy, sz;
  for (std::size_t j = 0; j < n; ++j) {
    if (j == i) continue;
    T tx{0}, ty{0}, tz{0};  // the pair term alone: 0 + w dx is exact
    accumulate_interaction(x[i], y[i], z[i], x[j], y[j], z[j], mass[j], law.eps2, law.rmin2, tx, ty, tz);
    sx += tx, sy += ty, sz += tz;
  }
  ax = sx.value(), ay = sy.value(), az = sz.value();
}

}  // namespace nbody
