// AVX2 + FMA instantiation of the openmp-simd kernel (kernels/cpu/allpairs_simd.hpp). This file
// alone is compiled with -mavx2 -mfma (CMakeLists.txt); the engine calls it only on a CPU that
// has both (solver/engines/openmp_simd.cpp checks cpuid). It includes nothing but the intrinsics
// and the kernel header (see there why).
#include "cpu/allpairs_simd.hpp"

#if NBODY_SIMD_X86

#include <immintrin.h>

#ifndef NBODY_AVX2_R_DOUBLE
#define NBODY_AVX2_R_DOUBLE 2  // i vectors per block (register blocking; 16 ymm registers)
#endif
#ifndef NBODY_AVX2_R_FLOAT
#define NBODY_AVX2_R_FLOAT 2
#endif

namespace nbody::cpu {
namespace {

// 4 doubles. AVX2 has no double reciprocal square root: the first guess halves the exponent with
// integer arithmetic on the bits (y0 = bits(0x5fe6eb50c7b537a9 - bits(s^2) / 2), relative error
// < 3.5% for every normal s^2), then four Newton steps:
// 3.5e-2 -> 1.8e-3 -> 4.6e-6 -> 3.2e-11 -> 1.5e-21. (A float vrsqrtps guess would need
// conversions and fail for s^2 outside float's range.)
struct Avx2d {
  using T = double;
  using V = __m256d;
  static constexpr int W = 4;
  static constexpr int newton_steps = 4;
  static NBODY_SIMD_INLINE V set1(T x) { return _mm256_set1_pd(x); }
  static NBODY_SIMD_INLINE V load(const T* p) { return _mm256_loadu_pd(p); }
  static NBODY_SIMD_INLINE V load_head(const T* p, int count, V fill) {
    const __m256i live = _mm256_cmpgt_epi64(_mm256_set1_epi64x(count), _mm256_setr_epi64x(0, 1, 2, 3));
    return _mm256_blendv_pd(fill, _mm256_maskload_pd(p, live), _mm256_castsi256_pd(live));
  }
  static NBODY_SIMD_INLINE void store(T* p, V v) { _mm256_storeu_pd(p, v); }
  static NBODY_SIMD_INLINE V sub(V a, V b) { return _mm256_sub_pd(a, b); }
  static NBODY_SIMD_INLINE V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static NBODY_SIMD_INLINE V fmadd(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static NBODY_SIMD_INLINE V fnmadd(V a, V b, V c) { return _mm256_fnmadd_pd(a, b, c); }
  static NBODY_SIMD_INLINE V max(V a, V b) { return _mm256_max_pd(a, b); }
  static NBODY_SIMD_INLINE V rsqrt0(V x) {
    const __m256i bits = _mm256_castpd_si256(x);
    return _mm256_castsi256_pd(_mm256_sub_epi64(_mm256_set1_epi64x(0x5fe6eb50c7b537a9LL), _mm256_srli_epi64(bits, 1)));
  }
  static NBODY_SIMD_INLINE V zero_lane(V v, int lane) {
    const __m256i lanes = _mm256_setr_epi64x(0, 1, 2, 3);
    const __m256i self = _mm256_cmpeq_epi64(lanes, _mm256_set1_epi64x(lane));
    return _mm256_andnot_pd(_mm256_castsi256_pd(self), v);
  }
};

// 8 floats; vrsqrtps (relative error < 1.5 * 2^-12) and one Newton step: ~2^-22.
struct Avx2f {
  using T = float;
  using V = __m256;
  static constexpr int W = 8;
  static constexpr int newton_steps = 1;
  static NBODY_SIMD_INLINE V set1(T x) { return _mm256_set1_ps(x); }
  static NBODY_SIMD_INLINE V load(const T* p) { return _mm256_loadu_ps(p); }
  static NBODY_SIMD_INLINE V load_head(const T* p, int count, V fill) {
    const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_blendv_ps(fill, _mm256_maskload_ps(p, live), _mm256_castsi256_ps(live));
  }
  static NBODY_SIMD_INLINE void store(T* p, V v) { _mm256_storeu_ps(p, v); }
  static NBODY_SIMD_INLINE V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static NBODY_SIMD_INLINE V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static NBODY_SIMD_INLINE V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static NBODY_SIMD_INLINE V fnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
  static NBODY_SIMD_INLINE V max(V a, V b) { return _mm256_max_ps(a, b); }
  static NBODY_SIMD_INLINE V rsqrt0(V x) { return _mm256_rsqrt_ps(x); }
  static NBODY_SIMD_INLINE V zero_lane(V v, int lane) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i self = _mm256_cmpeq_epi32(lanes, _mm256_set1_epi32(lane));
    return _mm256_andnot_ps(_mm256_castsi256_ps(self), v);
  }
};

}  // namespace

BlockKernel<double> avx2_kernel(const double*, int steps, bool aos, bool clamp) {
  return select_block_kernel<Avx2d, NBODY_AVX2_R_DOUBLE>(steps, aos, clamp);
}
BlockKernel<float> avx2_kernel(const float*, int steps, bool aos, bool clamp) {
  return select_block_kernel<Avx2f, NBODY_AVX2_R_FLOAT>(steps, aos, clamp);
}

}  // namespace nbody::cpu

#endif  // NBODY_SIMD_X86
