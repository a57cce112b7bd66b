#pragma once
// The explicit-SIMD all-pairs kernel of the `openmp-simd` engine, written once over an
// instruction-set "ops" struct and compiled once per instruction set (one translation unit each:
// solver/engines/openmp_simd_avx512.cpp with -mavx512f, openmp_simd_avx2.cpp with -mavx2 -mfma,
// and the scalar ops in openmp_simd.cpp with the project's normal flags). The engine picks the
// widest one the CPU supports at run time.
//
// Shape (register blocking, "i in lanes, j broadcast"): one call computes a block of
// B = W * R bodies i (R vector registers of W lanes each), streaming every body j once through
// the block: x_j, y_j, z_j, m_j are broadcast to all lanes and each broadcast value is used by
// R * W interactions. The accumulators of the block stay in registers for the whole j loop, the
// sum over j runs in the same order as in `simple` (j = 0, 1, ..., n-1), so only the rounding
// of each pair term differs from the reference. No j remainder exists (j is never vectorised);
// the i remainder (n not a multiple of B) is a padded block whose dead lanes are discarded.
// Self-interaction is excluded by index, not by distance: in the diagonal range j in
// [i0, i0 + B) the lane with i == j gets w = 0.
//
// The force law is kernels/common/interaction.hpp's exactly: s^2 = |r_j - r_i|^2 + eps^2,
// clamped below at r_min^2, a_i += m_j (r_j - r_i) / s^3, G applied once per body at the end.
// 1/s comes from the instruction set's reciprocal-square-root approximation (vrsqrt14pd/ps:
// relative error < 2^-14; vrsqrtps: < 1.5 * 2^-12; an integer-exponent guess: < 3.5%), refined
// by `Steps` Newton steps y <- y (3/2 - s^2 y^2 / 2), each of which squares the relative error
// (times 3/2). Each ops struct ships the number of steps that reaches full precision
// (`newton_steps`); tests/test_cpu_engines.cpp checks that it does and that zero steps do not.
//
// Nothing here calls a non-inline, non-intrinsic function or a standard-library template: the
// same header is compiled with different -m flags in different translation units, and an
// out-of-line copy of a shared inline function compiled with AVX-512 could be picked by the
// linker for a caller on a CPU without it. Ops structs live in anonymous namespaces.
#include <cstddef>

#if defined(__GNUC__)
#define NBODY_SIMD_ALWAYS_INLINE __attribute__((always_inline))
#else
#define NBODY_SIMD_ALWAYS_INLINE
#endif
#define NBODY_SIMD_INLINE inline NBODY_SIMD_ALWAYS_INLINE

namespace nbody::cpu {

// Arguments of one force evaluation. The i bodies are read from SoA arrays; the j stream from
// jx[jstride * j] (jy, jz, jm likewise): jstride 1 for SoA arrays, 4 for packed {x, y, z, m}
// records (the AoS variant). Results: G * a_i in ax, ay, az (n values each).
template <class T>
struct AllPairsArgs {
  const T *xi, *yi, *zi;
  const T *jx, *jy, *jz, *jm;
  std::size_t n;
  std::size_t i_end;  // the bodies i end here (n, or the end of a block of mpi:openmp-simd)
  T eps2, rmin2, G;
  T *ax, *ay, *az;
};

// One block kernel: bodies i0 .. min(i0 + block, i_end) - 1.
template <class T>
using BlockFn = void (*)(const AllPairsArgs<T>&, std::size_t i0);

// (Aggregates without default member initialisers: trivial, so that no constructor is ever
// emitted out of line from a translation unit compiled with wider instructions.)
template <class T>
struct BlockKernel {
  BlockFn<T> fn;             // null: no such kernel (value-initialise: BlockKernel<T>{})
  BlockFn<T> fn_one;         // the same with R = 1 (W bodies per call), for fewer bodies than a block
  std::size_t block;         // bodies per call, W * R
  int width;                 // lanes W
  int newton_steps;          // the steps this kernel does
};

// The block kernel. Ops: T, V (vector), W (lanes), and static functions set1, load,
// load_head(p, count, fill) (lanes below count from p, nothing beyond them read, the others from
// fill), store, sub, mul, fmadd(a, b, c) = a b + c, fnmadd(a, b, c) = c - a b, max(a, b) =
// a > b ? a : b (b when either is NaN, as MAXPD: max(rmin2, s2) keeps a NaN s2 as
// interaction.hpp's clamp does), rsqrt0 (the initial approximation), zero_lane(v, lane).
template <class Ops, int R, int Steps, int JStride, bool Clamp>
void allpairs_block(const AllPairsArgs<typename Ops::T>& a, std::size_t i0) {
  using T = typename Ops::T;
  using V = typename Ops::V;
  constexpr int W = Ops::W;
  constexpr int B = W * R;
  const std::size_t n = a.n;
  const std::size_t count = a.i_end - i0 < std::size_t(B) ? a.i_end - i0 : std::size_t(B);

  V xi[R], yi[R], zi[R], ax[R], ay[R], az[R];
  if (count == std::size_t(B)) {
    for (int r = 0; r < R; ++r) {
      xi[r] = Ops::load(a.xi + i0 + r * W);
      yi[r] = Ops::load(a.yi + i0 + r * W);
      zi[r] = Ops::load(a.zi + i0 + r * W);
    }
  } else {  // the last, partial block: dead lanes are copies of body i0, their results dropped
    // (masked loads: nothing past the bodies is read, and no narrow stores to reload wide)
    const V x0 = Ops::set1(a.xi[i0]), y0 = Ops::set1(a.yi[i0]), z0 = Ops::set1(a.zi[i0]);
    for (int r = 0; r < R; ++r) {
      const int live = int(count) - r * W < W ? int(count) - r * W : W;
      xi[r] = live > 0 ? Ops::load_head(a.xi + i0 + r * W, live, x0) : x0;
      yi[r] = live > 0 ? Ops::load_head(a.yi + i0 + r * W, live, y0) : y0;
      zi[r] = live > 0 ? Ops::load_head(a.zi + i0 + r * W, live, z0) : z0;
    }
  }
  for (int r = 0; r < R; ++r) ax[r] = ay[r] = az[r] = Ops::set1(T(0));

  const V eps2 = Ops::set1(a.eps2), rmin2 = Ops::set1(a.rmin2), half = Ops::set1(T(0.5));
  const T *jx = a.jx, *jy = a.jy, *jz = a.jz, *jm = a.jm;

  // One body j against the R * W bodies of the block. Flops per interaction (per lane), counting
  // the instructions executed (an fma as 2): 3 sub + 3 fma (6) + 1 rsqrt + 3 mul + 3 fma (6) = 19,
  // + 1 max with the clamp, + 1 mul + 5 per Newton step when Steps > 0 (AVX-512 double, 2 steps:
  // 30; float, 1 step: 25). The reported GFLOP/s use the usual convention of 20 per interaction.
  auto interact = [&](std::size_t j, int self_r, int self_lane) NBODY_SIMD_ALWAYS_INLINE {
    const V xj = Ops::set1(jx[JStride * j]), yj = Ops::set1(jy[JStride * j]);
    const V zj = Ops::set1(jz[JStride * j]), mj = Ops::set1(jm[JStride * j]);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const V dx = Ops::sub(xj, xi[r]);            // 3 flops
      const V dy = Ops::sub(yj, yi[r]);
      const V dz = Ops::sub(zj, zi[r]);
      V s2 = Ops::fmadd(dx, dx, eps2);             // 6 flops (3 fma)
      s2 = Ops::fmadd(dy, dy, s2);
      s2 = Ops::fmadd(dz, dz, s2);
      if constexpr (Clamp) s2 = Ops::max(rmin2, s2);  // S0's clamp (only when r_min > 0)
      V y = Ops::rsqrt0(s2);                       // ~1/s: 1 approximation
      if constexpr (Steps > 0) {
        const V hs = Ops::mul(half, s2);           // 1 flop
#pragma GCC unroll 8
        for (int k = 0; k < Steps; ++k) {          // Newton: y += y (1/2 - (s^2/2) y^2), 5 flops
          const V hy = Ops::mul(hs, y);
          const V e = Ops::fnmadd(hy, y, half);
          y = Ops::fmadd(y, e, y);
        }
      }
      V w = Ops::mul(Ops::mul(mj, y), Ops::mul(y, y));  // m_j / s^3: 3 flops
      if (r == self_r) w = Ops::zero_lane(w, self_lane);
      ax[r] = Ops::fmadd(w, dx, ax[r]);            // 6 flops (3 fma)
      ay[r] = Ops::fmadd(w, dy, ay[r]);
      az[r] = Ops::fmadd(w, dz, az[r]);
    }
  };

  const std::size_t diag_end = i0 + count;
  for (std::size_t j = 0; j < i0; ++j) interact(j, -1, 0);
  for (std::size_t j = i0; j < diag_end; ++j) interact(j, int(j - i0) / W, int(j - i0) % W);
  for (std::size_t j = diag_end; j < n; ++j) interact(j, -1, 0);

  const V G = Ops::set1(a.G);
  if (count == std::size_t(B)) {
    for (int r = 0; r < R; ++r) {
      Ops::store(a.ax + i0 + r * W, Ops::mul(G, ax[r]));
      Ops::store(a.ay + i0 + r * W, Ops::mul(G, ay[r]));
      Ops::store(a.az + i0 + r * W, Ops::mul(G, az[r]));
    }
  } else {
    alignas(64) T ox[B], oy[B], oz[B];
    for (int r = 0; r < R; ++r) {
      Ops::store(ox + r * W, Ops::mul(G, ax[r]));
      Ops::store(oy + r * W, Ops::mul(G, ay[r]));
      Ops::store(oz + r * W, Ops::mul(G, az[r]));
    }
    for (std::size_t l = 0; l < count; ++l) a.ax[i0 + l] = ox[l], a.ay[i0 + l] = oy[l], a.az[i0 + l] = oz[l];
  }
}

// allpairs_block for the layout of the j stream (SoA arrays or packed records) and the clamp.
template <class Ops, int R, int Steps>
BlockFn<typename Ops::T> block_fn(bool aos, bool clamp) {
  return aos ? (clamp ? &allpairs_block<Ops, R, Steps, 4, true> : &allpairs_block<Ops, R, Steps, 4, false>)
             : (clamp ? &allpairs_block<Ops, R, Steps, 1, true> : &allpairs_block<Ops, R, Steps, 1, false>);
}

// The kernel for a number of Newton steps chosen at run time (0 .. MaxSteps; the tests use
// fewer steps than shipped to show that the refinement is needed), the layout of the j stream
// (SoA arrays or packed records) and whether the clamp is on. Each lane does the same operations
// whatever R is, so fn and fn_one give a body the same bits.
template <class Ops, int R, int Steps = Ops::newton_steps>
BlockKernel<typename Ops::T> select_block_kernel(int steps, bool aos, bool clamp) {
  using T = typename Ops::T;
  if (steps < 0) steps = Ops::newton_steps;
  if constexpr (Steps < 0) {
    return BlockKernel<T>{};
  } else {
    if (steps != Steps) return select_block_kernel<Ops, R, Steps - 1>(steps, aos, clamp);
    BlockKernel<T> k{};
    k.block = std::size_t(Ops::W) * R;
    k.width = Ops::W;
    k.newton_steps = Steps;
    k.fn = block_fn<Ops, R, Steps>(aos, clamp);
    k.fn_one = block_fn<Ops, 1, Steps>(aos, clamp);
    return k;
  }
}

// The instruction sets compiled in: each returns the kernel for T (chosen by the tag pointer's
// type), `steps` Newton steps (< 0: the shipped number; more than shipped: fn == nullptr), the
// j layout and the clamp. Defined in solver/engines/openmp_simd_avx512.cpp, openmp_simd_avx2.cpp
// (x86-64 only: NBODY_SIMD_X86) and openmp_simd.cpp (scalar, everywhere).
#if defined(__x86_64__) && defined(__GNUC__)
#define NBODY_SIMD_X86 1
BlockKernel<double> avx512_kernel(const double*, int steps, bool aos, bool clamp);
BlockKernel<float> avx512_kernel(const float*, int steps, bool aos, bool clamp);
BlockKernel<double> avx2_kernel(const double*, int steps, bool aos, bool clamp);
BlockKernel<float> avx2_kernel(const float*, int steps, bool aos, bool clamp);
#else
#define NBODY_SIMD_X86 0
#endif
BlockKernel<double> scalar_kernel(const double*, int steps, bool aos, bool clamp);
BlockKernel<float> scalar_kernel(const float*, int steps, bool aos, bool clamp);

}  // namespace nbody::cpu
