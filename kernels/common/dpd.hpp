#pragma once
// Dissipative particle dynamics (Groot & Warren, J. Chem. Phys. 107, 4423 (1997)): the force of one
// pair and the random number it draws, host and device, so that the CPU and the GPU drivers
// compute the same pair the same way (HOOMD-blue's evaluator style).
//
// With r_ij = r_i - r_j, r = |r_ij|, e = r_ij / r, v_ij = v_i - v_j and w(r) = 1 - r / r_c (r < r_c):
//   conservative  F_C = a_AB w e                       pair energy a_AB r_c w^2 / 2
//   dissipative   F_D = -gamma w^2 (e . v_ij) e        (w_D = w_R^2)
//   random        F_R = sigma w theta_ij / sqrt(dt) e  (sigma^2 = 2 gamma kT)
// theta_ij has zero mean and unit variance, drawn by Philox4x32-10 (Random123) from the counter
// (min(i, j), max(i, j), step) and the key seed: both partners draw the same number, and
// every quantity above changes sign exactly with (i, j), so the force on j is bit for bit minus
// the force on i.
#include <Random123/philox.h>
#include <Random123/uniform.hpp>
#include <cstdint>

#include "host_device.hpp"
#include "real_math.hpp"

namespace nbody::particles {

// theta_ij: uniform on (-sqrt 3, sqrt 3) (zero mean, unit variance), the same for (i, j) and (j, i).
template <class T>
NBODY_HD T pair_random(std::uint32_t i, std::uint32_t j, std::uint64_t step, std::uint64_t seed) {
  using Philox = r123::Philox4x32;
  const Philox::ctr_type counter = {{i < j ? i : j, i < j ? j : i, static_cast<std::uint32_t>(step),
                                      static_cast<std::uint32_t>(step >> 32)}};
  const Philox::key_type key = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  const Philox::ctr_type bits = Philox()(counter, key);
  const T sqrt3 = T(1.7320508075688772935);
  if constexpr (sizeof(T) == sizeof(float))
    return sqrt3 * r123::uneg11<T>(bits[0]);
  else
    return sqrt3 * r123::uneg11<T>((static_cast<std::uint64_t>(bits[1]) << 32) | bits[0]);
}

template <class T>
struct DpdPair {
  T a;                   // conservative amplitude a_AB
  T gamma;               // friction
  T sigma_per_sqrt_dt;   // sigma / sqrt(dt) = sqrt(2 gamma kT / dt)
  T rc;                  // cut-off

  // The force on i from j: d = r_i - r_j (minimum image) with r2 = |d|^2 < rc^2, v = v_i - v_j;
  // adds it to f. Coincident particles (r = 0) have no direction and exert none.
  NBODY_HD void add_force(T dx, T dy, T dz, T r2, T vx, T vy, T vz, T theta, T f[3]) const {
    if (!(r2 > T(0))) return;
    const T r = sqrt(r2);
    const T w = T(1) - r / rc;
    const T e_dot_v = (dx * vx + dy * vy + dz * vz) / r;
    const T magnitude = a * w - gamma * w * w * e_dot_v + sigma_per_sqrt_dt * w * theta;  // along e
    const T s = magnitude / r;
    f[0] += s * dx, f[1] += s * dy, f[2] += s * dz;
  }
  // The conservative part's virial term d . F_C and the pair energy, for the pressure and energy.
  NBODY_HD T conservative_virial(T r2) const {
    const T r = sqrt(r2);
    return a * (T(1) - r / rc) * r;
  }
  NBODY_HD T energy(T r2) const {
    const T w = T(1) - sqrt(r2) / rc;
    return a * rc * w * w / T(2);
  }
};

}  // namespace nbody::particles
