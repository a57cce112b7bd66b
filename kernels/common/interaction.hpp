#pragma once
// The one body-body interaction of the project, a template over the real type T, host and device:
// `simple`, `openmp`, `openmp-block` and every CUDA kernel call it. Three engines restate its
// arithmetic because their form cannot call a template: openmp-simd (explicit SIMD intrinsics,
// kernels/cpu/allpairs_simd.hpp), openmp's double-double kernel (error-free transformations in
// vector registers, solver/engines/openmp_dd_kernel.hpp) and the OpenCL kernels (OpenCL C,
// kernels/opencl/interaction.cl); the registry-driven test holds every engine to `simple`
// (docs/design.md, "Numerics rules"). sqrt is called unqualified so that every real type supplies
// its own (real_math.hpp for float and double, the dd and quad overloads, Boost's by ADL).
//
// Force law: a_i += G m_j (r_j - r_i) / s^3 with s^2 = max(|r_j - r_i|^2 + eps^2, r_min^2).
// eps is Plummer softening (eps2 = eps^2, default 0); r_min is seed S0's minimum-distance clamp
// (rmin2 = r_min^2, 0 = off; S0 used r_min^2 = 1e-8). G is applied once per body by the caller.
// The matching pair potential is pair_potential_kernel below: change one, change both.
#include <cmath>
#include <cstddef>

#include "host_device.hpp"
#include "real_math.hpp"

namespace nbody {

// The two steps of the force law that a back end may evaluate its own way: s^2 (with the clamp)
// and m / s^3. ExactMath defines them and is what the CPU engines use; the CUDA kernels pass
// kernels/cuda/device_math.cuh (FMAs, hardware rsqrt refined to full precision), which computes
// the same function to rounding (tests/test_engines.cpp).
struct ExactMath {
  template <class T>
  NBODY_HD static T dist2(T dx, T dy, T dz, T eps2, T rmin2) {
    const T s2 = dx * dx + dy * dy + dz * dz + eps2;   // 6 flops
    return s2 < rmin2 ? rmin2 : s2;                    // clamp, S0's NBODY_MIN_R
  }
  template <class T>
  NBODY_HD static T weight(T mj, T s2) {
    const T inv_s = T(1) / sqrt(s2);                   // 2 flops
    return mj * inv_s * inv_s * inv_s;                 // 3 flops
  }
};

// Adds m_j (r_j - r_i) / s^3 to (ax, ay, az). 20 flops by the usual convention
// (sqrt and division counted as one each, as in NVIDIA's nbody sample and seed S2).
template <class T, class Math = ExactMath>
NBODY_HD void accumulate_interaction(T xi, T yi, T zi, T xj, T yj, T zj, T mj, T eps2, T rmin2,
                                     T& ax, T& ay, T& az) {
  const T dx = xj - xi;                        // 3 flops
  const T dy = yj - yi;
  const T dz = zj - zi;
  const T s2 = Math::dist2(dx, dy, dz, eps2, rmin2);
  const T w = Math::weight(mj, s2);
  ax += w * dx;                                // 6 flops
  ay += w * dy;
  az += w * dz;
}

// The same law applied to both bodies of a pair at once (Newton's third law), for engines that
// evaluate each pair once (cuda-pairs): (ax, ay, az) += m_j d / s^3 as above, (bx, by, bz) -= m_i d / s^3
// with d = r_j - r_i. 1/s^3 is formed once (Math::weight with unit mass), so each body's term may
// differ from accumulate_interaction's in the last bit. 28 flops for two interactions (40 as two calls of
// accumulate_interaction).
template <class T, class Math = ExactMath>
NBODY_HD void accumulate_pair_interaction(T xi, T yi, T zi, T mi, T xj, T yj, T zj, T mj, T eps2, T rmin2,
                                          T& ax, T& ay, T& az, T& bx, T& by, T& bz) {
  const T dx = xj - xi;                        // 3 flops
  const T dy = yj - yi;
  const T dz = zj - zi;
  const T s2 = Math::dist2(dx, dy, dz, eps2, rmin2);
  const T q = Math::weight(T(1), s2);          // 1/s^3
  const T wj = mj * q;                         // 2 flops
  const T wi = mi * q;
  ax += wj * dx;                               // 12 flops
  ay += wj * dy;
  az += wj * dz;
  bx -= wi * dx;
  by -= wi * dy;
  bz -= wi * dz;
}

// k(s) such that the pair potential energy is -G m_i m_j k. For s >= r_min, k = 1/s (softened
// Newton); inside the clamp the force is m_j d / r_min^3, whose potential (continuous at r_min)
// is that of a uniform sphere: k = (3 r_min^2 - s^2) / (2 r_min^3).
template <class T>
NBODY_HD T unclamped_potential_kernel(T s2) {
  return T(1) / sqrt(s2);
}
template <class T>
NBODY_HD T pair_potential_kernel(T dx, T dy, T dz, T eps2, T rmin2) {
  const T s2 = dx * dx + dy * dy + dz * dz + eps2;
  if (s2 >= rmin2) return unclamped_potential_kernel(s2);
  const T rmin = sqrt(rmin2);
  return (T(3) * rmin2 - s2) / (T(2) * rmin2 * rmin);
}

// What a sum over pair terms adds up, so that code that visits the terms (the trees' walks) is
// written once for both: the acceleration (accumulate_interaction's terms) or the potential (k
// times the mass per term, phi = -G times the sum). add(): body j's term for body i; store(): the
// sum of body i into out (SoA over n bodies), G applied.
template <class T, class Math = ExactMath>
struct AccelerationSum {
  T x{0}, y{0}, z{0};
  NBODY_HD void add(T xi, T yi, T zi, T xj, T yj, T zj, T mj, T eps2, T rmin2) {
    accumulate_interaction<T, Math>(xi, yi, zi, xj, yj, zj, mj, eps2, rmin2, x, y, z);
  }
  NBODY_HD void store(T* out, std::size_t n, std::size_t i, T G) const {
    out[i] = G * x;
    out[n + i] = G * y;
    out[2 * n + i] = G * z;
  }
};
template <class T>
struct PotentialSum {
  T k{0};
  NBODY_HD void add(T xi, T yi, T zi, T xj, T yj, T zj, T mj, T eps2, T rmin2) {
    k += mj * pair_potential_kernel(xj - xi, yj - yi, zj - zi, eps2, rmin2);
  }
  NBODY_HD void store(T* out, std::size_t, std::size_t i, T G) const { out[i] = -G * k; }
};

}  // namespace nbody
