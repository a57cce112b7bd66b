// AVX-512 instantiation of the openmp-simd kernel (kernels/cpu/allpairs_simd.hpp). This file alone
// is compiled with -mavx512f -mfma (CMakeLists.txt); the engine calls it only on a CPU that has
// AVX-512F (solver/engines/openmp_simd.cpp checks cpuid). It includes nothing but the intrinsics
// and the kernel header (see there why).
#include "cpu/allpairs_simd.hpp"

#if NBODY_SIMD_X86

// GCC 12 warns that the "undefined" pass-through operand of its own _mm512_rsqrt14_* wrappers may
// be used uninitialised (GCC bug 105593; fixed in GCC 13): not our code, and not a real read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#ifndef NBODY_AVX512_R_DOUBLE
#define NBODY_AVX512_R_DOUBLE 3  // i vectors per block (register blocking), measured best
#endif
#ifndef NBODY_AVX512_R_FLOAT
#define NBODY_AVX512_R_FLOAT 3
#endif

namespace nbody::cpu {
namespace {

// 8 doubles; vrsqrt14pd (relative error < 2^-14) and two Newton steps: 2^-14 -> 2^-27 -> 2^-53.
struct Avx512d {
  using T = double;
  using V = __m512d;
  static constexpr int W = 8;
  static constexpr int newton_steps = 2;
  static NBODY_SIMD_INLINE V set1(T x) { return _mm512_set1_pd(x); }
  static NBODY_SIMD_INLINE V load(const T* p) { return _mm512_loadu_pd(p); }
  static NBODY_SIMD_INLINE V load_head(const T* p, int count, V fill) { return _mm512_mask_loadu_pd(fill, __mmask8((1u << count) - 1), p); }
  static NBODY_SIMD_INLINE void store(T* p, V v) { _mm512_storeu_pd(p, v); }
  static NBODY_SIMD_INLINE V sub(V a, V b) { return _mm512_sub_pd(a, b); }
  static NBODY_SIMD_INLINE V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static NBODY_SIMD_INLINE V fmadd(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static NBODY_SIMD_INLINE V fnmadd(V a, V b, V c) { return _mm512_fnmadd_pd(a, b, c); }
  static NBODY_SIMD_INLINE V max(V a, V b) { return _mm512_max_pd(a, b); }
  static NBODY_SIMD_INLINE V rsqrt0(V x) { return _mm512_rsqrt14_pd(x); }
  static NBODY_SIMD_INLINE V zero_lane(V v, int lane) { return _mm512_maskz_mov_pd(__mmask8(~(1u << lane)), v); }
};

// 16 floats; vrsqrt14ps (< 2^-14) and one Newton step: 2^-27, below float's 2^-24.
struct Avx512f {
  using T = float;
  using V = __m512;
  static constexpr int W = 16;
  static constexpr int newton_steps = 1;
  static NBODY_SIMD_INLINE V set1(T x) { return _mm512_set1_ps(x); }
  static NBODY_SIMD_INLINE V load(const T* p) { return _mm512_loadu_ps(p); }
  static NBODY_SIMD_INLINE V load_head(const T* p, int count, V fill) { return _mm512_mask_loadu_ps(fill, __mmask16((1u << count) - 1), p); }
  static NBODY_SIMD_INLINE void store(T* p, V v) { _mm512_storeu_ps(p, v); }
  static NBODY_SIMD_INLINE V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static NBODY_SIMD_INLINE V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static NBODY_SIMD_INLINE V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static NBODY_SIMD_INLINE V fnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
  static NBODY_SIMD_INLINE V max(V a, V b) { return _mm512_max_ps(a, b); }
  static NBODY_SIMD_INLINE V rsqrt0(V x) { return _mm512_rsqrt14_ps(x); }
  static NBODY_SIMD_INLINE V zero_lane(V v, int lane) { return _mm512_maskz_mov_ps(__mmask16(~(1u << lane)), v); }
};

}  // namespace

BlockKernel<double> avx512_kernel(const double*, int steps, bool aos, bool clamp) {
  return select_block_kernel<Avx512d, NBODY_AVX512_R_DOUBLE>(steps, aos, clamp);
}
BlockKernel<float> avx512_kernel(const float*, int steps, bool aos, bool clamp) {
  return select_block_kernel<Avx512f, NBODY_AVX512_R_FLOAT>(steps, aos, clamp);
}

}  // namespace nbody::cpu

#endif  // NBODY_SIMD_X86
