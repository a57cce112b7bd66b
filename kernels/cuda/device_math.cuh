#pragma once
// The GPU's way of evaluating the two expensive steps of the force law of
// kernels/common/interaction.hpp (s^2 with the clamp, and m / s^3), plugged into the shared
// accumulate_interaction as its Math policy. They compute the same function as ExactMath there,
// to rounding; tests/test_engines.cpp checks every engine against `simple`.
//
//  - s^2 = fma(dx, dx, fma(dy, dy, fma(dz, dz, eps^2))): three FMAs instead of four operations.
//  - The clamp s^2 >= r_min^2 is compiled in only when r_min > 0 (Clamp = true); with r_min = 0
//    it cannot change s^2 >= 0, and leaving it out saves a compare and a select per pair.
//  - float: m r^3 with r = rsqrt.approx.ftz.f32 (the hardware MUFU.RSQ, relative error ~2^-22),
//    as NVIDIA's nbody sample and seed S2 do.
//  - double: r0 = rsqrt.approx.ftz.f64 (MUFU.RSQ64H, ~20 correct bits), e = 1 - s^2 r0^2, and
//    m / s^3 = m r0^3 (1 - e)^(-3/2) = m r0^3 (1 + 3/2 e + 15/8 e^2 + O(e^3)): 7 DP operations
//    for m / s^3 (against ~40 for an IEEE sqrt and division), relative error ~2^-53 + 2.2 e^3.
//  - dd: the double result above as the seed of one double-double Newton step,
//    r = r1 + r1 (1 - s^2 r1^2) / 2, error ~2^-103, then m r^3 in double-double.
//  - qd: 1/s by quad_double.hpp's rsqrt (three Newton steps from the double root), m r^3 in qd.
// Zero distance (two bodies at one point, no softening) gives inf/NaN as ExactMath does.
#include <cuda_runtime.h>

#include <type_traits>

#include "common/double_double.hpp"
#include "common/quad_double.hpp"

namespace nbody::cuda {

__device__ __forceinline__ float rsqrt_approx(float x) {
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ double rsqrt_approx(double x) {
  double r;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  return r;
}

template <bool Clamp>
struct DeviceMath {
  template <class T>
  __device__ __forceinline__ static T dist2(T dx, T dy, T dz, T eps2, T rmin2) {
    T s2;
    if constexpr (std::is_same_v<T, float>)
      s2 = __fmaf_rn(dx, dx, __fmaf_rn(dy, dy, __fmaf_rn(dz, dz, eps2)));
    else if constexpr (std::is_same_v<T, double>)
      s2 = __fma_rn(dx, dx, __fma_rn(dy, dy, __fma_rn(dz, dz, eps2)));
    else
      s2 = dx * dx + dy * dy + dz * dz + eps2;  // dd, qd: as ExactMath
    if constexpr (Clamp) s2 = s2 < rmin2 ? rmin2 : s2;
    return s2;
  }

  __device__ __forceinline__ static float weight(float mj, float s2) {
    const float r = rsqrt_approx(s2);
    return (mj * r) * (r * r);  // two levels of dependent multiplies, not three
  }

  __device__ __forceinline__ static double weight(double mj, double s2) {
    const double r0 = rsqrt_approx(s2);
    const double r2 = r0 * r0;
    const double e = __fma_rn(-s2, r2, 1.0);  // 1 - s^2 r0^2, |e| ~ 2^-19
    const double h = e * __fma_rn(e, 1.875, 1.5);
    const double m3 = mj * r0 * r2;
    return __fma_rn(m3, h, m3);
  }

  // 1/sqrt(s) to about 2^-52 (double seed of the dd step).
  __device__ __forceinline__ static double inv_sqrt(double s) {
    const double r0 = rsqrt_approx(s);
    const double e = __fma_rn(-s, r0 * r0, 1.0);
    return __fma_rn(r0, e * __fma_rn(e, 0.375, 0.5), r0);
  }

  __device__ __forceinline__ static dd weight(const dd& mj, const dd& s2) {
    const double r1 = inv_sqrt(s2.hi);
    const dd q = (s2 * r1) * r1;                   // s^2 r1^2, near 1
    const double h = (1.0 - q.hi) - q.lo;          // 1 - s^2 r1^2 (1 - q.hi is exact)
    double lo;
    const double hi = eft::quick_two_sum(r1, 0.5 * r1 * h, lo);
    const dd r(hi, lo);
    return mj * (r * (r * r));
  }

  __device__ __forceinline__ static qd weight(const qd& mj, const qd& s2) {
    const qd r = rsqrt(s2);  // quad_double.hpp: Newton from the double root, no division
    return mj * (r * (r * r));
  }
};

}  // namespace nbody::cuda
