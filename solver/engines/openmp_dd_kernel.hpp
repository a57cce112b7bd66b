#pragma once
// The double-double all-pairs kernel of the `openmp` engine for T = dd (solver/engines/openmp_dd.hpp
// explains the engine; this is its inner loop). Written once as plain C++ over the lane count W
// and compiled once per instruction set, each in its own translation unit: openmp_dd_avx512.cpp
// (-mavx512f -mfma, W = 8), openmp_dd_avx2.cpp (-mavx2 -mfma, W = 4) and openmp_dd.cpp (the
// project's baseline flags, SSE2 on x86-64, W = 2, products split the Dekker way instead of FMA).
// No intrinsics: the `omp simd` loop below is vectorised by the compiler.
//
// Shape: OpenMP threads over bodies i; for each i the bodies j are taken in chunks of W (one
// vector per chunk, "j in lanes") and every lane keeps its own double-double partial sums of the
// three acceleration components (per-lane accumulators: OpenMP has no `+` reduction for a pair
// of doubles); the W lane sums are added up at the end (accurate double-double additions, fixed
// order, so the result does not depend on the thread count). The j data come as hi[] and lo[]
// arrays (structure of arrays, split once per evaluation by the driver), padded to a multiple of
// the widest W with bodies of mass 0 far away (kFar), whose terms are exactly zero, so that the
// last chunk needs no mask and its vector loads stay in bounds; body i itself (no
// self-interaction) is made such a body in a copy of its own chunk. No lane is ever masked, and
// no lane computes an inf or a NaN (s^2 = 0 for j == i without softening would).
//
// Force law: kernels/common/interaction.hpp's exactly: s^2 = |r_j - r_i|^2 + eps^2, clamped below
// at r_min^2, a_i += m_j (r_j - r_i) / s^3 (G once per body, by the driver). The arithmetic is that
// of common/double_double.hpp (the error-free transformations two_sum, quick_two_sum, two_prod;
// QD's accurate addition for the differences), fused where the operands allow it; pairs that
// only enter products are left unnormalised (|lo| a few ulp of hi, which the fma-based products
// take as they are):
//
//   operation                               flops (per interaction and lane; sqrt, div = 1 each)
//   dx, dy, dz = r_j - r_i                  3 x 17  accurate dd subtraction (QD's ieee_add, its
//                                                   last normalisation left to the products)
//   s^2 = dx^2 + dy^2 + dz^2 (+ eps^2)      31 (+8) squares as hi/lo pairs (3 x 4), two_sum of the
//                                                   three positive his (12), lo sum (4),
//                                                   quick_two_sum (3); eps^2: one two_sum + 2
//   clamp (r_min > 0 only)                  (+5)    dd compare and select
//   y = 1/s                                 13      y0 = 1/sqrt(s^2.hi) in double (2), one Newton
//                                                   step y = y0 + y0 (1 - s^2 y0^2)/2 with the
//                                                   residual formed from exact products (11)
//   w = m_j y^3                             12      y^2 (4), m_j y (4), product (4)
//   a += w d (three components)             3 x 15  product (4) + QD's sloppy addition (11)
//   total                                   152 (+8 softening, +5 clamp)
// against 20 for the double interaction (interaction.hpp's convention).
//
// Accuracy (relative to the exact force of the given dd positions and masses): the differences
// are accurate to 2^-105 relative (QD's ieee_add); s^2 and the products to a few 2^-106; 1/s: y0
// has relative error d <= 2^-51.5, one Newton step leaves (3/2) d^2 <= 2^-102 plus rounding of
// order 2^-105, so w = m_j/s^3 is right to about 1e-30 relative; each accumulation (sloppy add)
// errs by at most 2^-105 (|sum| + |term|), which in the force-comparison norm (docs/design.md) (divided by sum_j |a_ij|)
// adds up to at most (n / W) 2^-105. tests/test_dd_engine.cpp checks 1e-28 against 50 digits.
//
// Nothing here calls a non-inline function or a standard-library template, and everything lives
// in an anonymous namespace: the header is compiled with different -m flags in different
// translation units, and an out-of-line copy of a shared inline function (common/double_double.hpp's
// operators, std::fma) compiled with AVX-512 could be picked by the linker for a caller on a CPU
// without it. Hence the local copies of the error-free transformations below. The project's
// -ffp-contract=off keeps every + and * rounded once (the transformations need it).
#include <cstddef>

#if defined(__GNUC__)
#define NBODY_DD_INLINE inline __attribute__((always_inline))
#else
#define NBODY_DD_INLINE inline
#endif

namespace nbody::ddsimd {

// Where the padding (and body i in its own chunk) sits: far enough that s^2 > 0 for any real
// body (no inf or NaN in a lane), near enough that s^2 ~ 3e200 and 1/s^3 ~ 2e-301 stay normal
// numbers (no slow subnormals). With mass 0 its term is exactly +0: the lane sums are unchanged.
inline constexpr double kFar = 1e100;

// Arguments of one evaluation: the j data as split hi/lo arrays (n bodies, then padding up to
// `padded`, a multiple of kMaxWidth: bodies of mass 0 at x = y = z = kFar, whose terms are
// exactly zero), the force law's eps^2 and r_min^2 as hi/lo pairs, and the per-body sums
// sum_j m_j (r_j - r_i) / s^3 as hi/lo arrays (written, n values each; G not applied), and
// whether the bodies i are shared among the OpenMP threads (the driver's core/parallel.hpp
// decides: that header's functions are not for this one, see below).
struct Args {
  const double *xh, *xl, *yh, *yl, *zh, *zl, *mh, *ml;
  std::size_t n, padded;
  double eps2h, eps2l, rmin2h, rmin2l;
  double *axh, *axl, *ayh, *ayl, *azh, *azl;
  bool parallel;
};

namespace {

// ---- error-free transformations (common/double_double.hpp's, as local always-inline copies) ----

// s + e == a + b exactly (Knuth). 6 flops.
NBODY_DD_INLINE void two_sum(double a, double b, double& s, double& e) {
  const double t = a + b;
  const double bb = t - a;
  e = (a - (t - bb)) + (b - bb);
  s = t;
}
// s + e == a + b exactly when |a| >= |b| or a == 0 (Dekker). 3 flops.
NBODY_DD_INLINE void quick_two_sum(double a, double b, double& s, double& e) {
  const double t = a + b;
  e = b - (t - a);
  s = t;
}
// p + e == a * b exactly: one fma (Fma) or Dekker's product of Veltkamp halves (no FMA in the
// baseline instruction set; 17 flops). 2 flops with FMA.
template <bool Fma>
NBODY_DD_INLINE void two_prod(double a, double b, double& p, double& e) {
  const double q = a * b;
  if constexpr (Fma) {
    e = __builtin_fma(a, b, -q);
  } else {
    constexpr double split = 134217729.0;  // 2^27 + 1
    const double ta = split * a, tb = split * b;
    const double ah = ta - (ta - a), al = a - ah;
    const double bh = tb - (tb - b), bl = b - bh;
    e = ((ah * bh - q) + ah * bl + al * bh) + al * bl;
  }
  p = q;
}
// a b + c, one rounding with FMA, two without (used only for low-order terms, where either is
// accurate enough).
template <bool Fma>
NBODY_DD_INLINE double mul_add(double a, double b, double c) {
  if constexpr (Fma) {
    return __builtin_fma(a, b, c);
  } else {
    return a * b + c;
  }
}
// (sh, sl) = (ah, al) + (bh, bl), QD's ieee_add (accurate under cancellation). 20 flops.
NBODY_DD_INLINE void add_accurate(double ah, double al, double bh, double bl, double& sh, double& sl) {
  double s1, s2, t1, t2;
  two_sum(ah, bh, s1, s2);
  two_sum(al, bl, t1, t2);
  s2 += t1;
  quick_two_sum(s1, s2, s1, s2);
  s2 += t2;
  quick_two_sum(s1, s2, sh, sl);
}
// (dh, dl) = (ah, al) - (bh, bl) as QD's ieee_add, but without its final normalisation: the
// result is used only as a factor of the products below, which take (dh, dl) with |dl| a few
// ulp of dh as well. 17 flops.
NBODY_DD_INLINE void sub_accurate_pair(double ah, double al, double bh, double bl, double& dh, double& dl) {
  double s1, s2, t1, t2;
  two_sum(ah, -bh, s1, s2);
  two_sum(al, -bl, t1, t2);
  s2 += t1;
  quick_two_sum(s1, s2, s1, s2);
  dh = s1;
  dl = s2 + t2;
}
// (sh, sl) += (bh, bl), QD's sloppy_add: error <= 2^-105 (|s| + |b|), i.e. accurate in the
// absolute terms of the force-comparison norm; b need not be normalised. 11 flops.
NBODY_DD_INLINE void add_sloppy(double& sh, double& sl, double bh, double bl) {
  double s, e;
  two_sum(sh, bh, s, e);
  e = (e + sl) + bl;
  quick_two_sum(s, e, sh, sl);
}
// (ph, pl) = (ah, al) (bh, bl) without normalisation (|pl| a few ulp of ph; a.lo b.lo dropped,
// as QD does). 4 flops.
template <bool Fma>
NBODY_DD_INLINE void mul_pair(double ah, double al, double bh, double bl, double& ph, double& pl) {
  double e;
  two_prod<Fma>(ah, bh, ph, e);
  e = mul_add<Fma>(ah, bl, e);
  pl = mul_add<Fma>(al, bh, e);
}
// (ph, pl) = (ah, al)^2 without normalisation. 4 flops.
template <bool Fma>
NBODY_DD_INLINE void sqr_pair(double ah, double al, double& ph, double& pl) {
  double e;
  two_prod<Fma>(ah, ah, ph, e);
  pl = mul_add<Fma>(ah + ah, al, e);
}

// Per-lane accumulators of one body i.
template <int W>
struct Lanes {
  double xh[W], xl[W], yh[W], yl[W], zh[W], zl[W];
};

// The j data of one chunk: 8 columns (x, y, z, m as hi and lo), each read at [0, W).
struct Cols {
  const double *xh, *xl, *yh, *yl, *zh, *zl, *mh, *ml;
};

// The W bodies of `c` against body i (position (xih, xil), ...), into the lane sums.
template <int W, bool Fma, bool Soft, bool Clamp>
NBODY_DD_INLINE void chunk(const Cols& c, const Args& a, double xih, double xil, double yih, double yil, double zih,
                           double zil, Lanes<W>& s) {
  const double *xh = c.xh, *xl = c.xl, *yh = c.yh, *yl = c.yl, *zh = c.zh, *zl = c.zl, *mh = c.mh, *ml = c.ml;
  const double e2h = a.eps2h, e2l = a.eps2l, r2h = a.rmin2h, r2l = a.rmin2l;
#pragma omp simd simdlen(W)
  for (int l = 0; l < W; ++l) {
    // Differences r_j - r_i: 3 x 17 flops.
    double dxh, dxl, dyh, dyl, dzh, dzl;
    sub_accurate_pair(xh[l], xl[l], xih, xil, dxh, dxl);
    sub_accurate_pair(yh[l], yl[l], yih, yil, dyh, dyl);
    sub_accurate_pair(zh[l], zl[l], zih, zil, dzh, dzl);

    // s^2 = dx^2 + dy^2 + dz^2 + eps^2: every term >= 0, so no cancellation: the three squares as
    // (hi, lo) pairs (12), an exact two_sum chain over the his (12), the los and the two_sum
    // errors in double (4), one normalisation (3): 31 flops (+ 8 with softening).
    double px, ex, py, ey, pz, ez;
    sqr_pair<Fma>(dxh, dxl, px, ex);
    sqr_pair<Fma>(dyh, dyl, py, ey);
    sqr_pair<Fma>(dzh, dzl, pz, ez);
    double sum, c1, c2;
    two_sum(px, py, sum, c1);
    two_sum(sum, pz, sum, c2);
    double lo = ((ex + ey) + (ez + c1)) + c2;
    if constexpr (Soft) {
      double c3;
      two_sum(sum, e2h, sum, c3);
      lo = (lo + c3) + e2l;
    }
    double s2h, s2l;
    quick_two_sum(sum, lo, s2h, s2l);
    if constexpr (Clamp) {  // s^2 < r_min^2 ? r_min^2 : s^2, the dd comparison (5 flops)
      const bool below = (s2h < r2h) | ((s2h == r2h) & (s2l < r2l));
      s2h = below ? r2h : s2h;
      s2l = below ? r2l : s2l;
    }
    // y = 1/s: y0 = 1/sqrt(s^2.hi) in double (2 flops), then one Newton step for the reciprocal
    // square root, y = y0 + y0 r / 2 with r = 1 - s^2 y0^2, whose residual is formed from exact
    // products: y0^2 = p + e (2), s2h p = h + he (2), 1 - h exact (Sterbenz: h = 1 + O(2^-51)),
    // the cross terms s2h e + s2l p in double (2; s2l e ~ 2^-106 dropped), r (3), the correction
    // (2), kept as the pair (y0, correction): 13 flops.
    const double y0 = 1.0 / __builtin_sqrt(s2h);
    double p, e, h, he;
    two_prod<Fma>(y0, y0, p, e);
    two_prod<Fma>(s2h, p, h, he);
    const double cross = mul_add<Fma>(s2l, p, s2h * e);
    const double r = ((1.0 - h) - he) - cross;
    const double yh = y0, yl = (0.5 * y0) * r;  // |yl| <= ~2^-51 yh: a pair the products take

    // w = m_j y^3: y^2 (4), m_j y (4), their product (4): 12 flops (a pair, unnormalised).
    double qh, ql, th, tl, wh, wl;
    sqr_pair<Fma>(yh, yl, qh, ql);
    mul_pair<Fma>(mh[l], ml[l], yh, yl, th, tl);
    mul_pair<Fma>(th, tl, qh, ql, wh, wl);

    // a += w d: the product as a pair (4) and a sloppy addition (11), three times: 45 flops.
    double bh, bl;
    mul_pair<Fma>(wh, wl, dxh, dxl, bh, bl);
    add_sloppy(s.xh[l], s.xl[l], bh, bl);
    mul_pair<Fma>(wh, wl, dyh, dyl, bh, bl);
    add_sloppy(s.yh[l], s.yl[l], bh, bl);
    mul_pair<Fma>(wh, wl, dzh, dzl, bh, bl);
    add_sloppy(s.zh[l], s.zl[l], bh, bl);
  }
}

NBODY_DD_INLINE Cols cols(const Args& a, std::size_t j0) {
  return Cols{a.xh + j0, a.xl + j0, a.yh + j0, a.yl + j0, a.zh + j0, a.zl + j0, a.mh + j0, a.ml + j0};
}

// The whole evaluation for one instruction set: bodies i each alone, on the OpenMP threads or,
// when a.parallel is false, on the calling thread (the same bits).
template <int W, bool Fma, bool Soft, bool Clamp>
void allpairs(const Args& a) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(a.n);
  const auto body = [&a](std::size_t i) {
    const double xih = a.xh[i], xil = a.xl[i], yih = a.yh[i], yil = a.yl[i], zih = a.zh[i], zil = a.zl[i];
    alignas(64) Lanes<W> s;
    for (int l = 0; l < W; ++l) s.xh[l] = s.xl[l] = s.yh[l] = s.yl[l] = s.zh[l] = s.zl[l] = 0.0;
    // Every chunk but the one holding j == i straight from the arrays (whose padding is
    // zero-mass bodies far away, see Args); that one from a copy in which body i is such a body
    // too, so that its term is exactly zero without a mask in the loop.
    const std::size_t own = i / W, chunks = a.padded / W;
    for (std::size_t k = 0; k < own; ++k) chunk<W, Fma, Soft, Clamp>(cols(a, k * W), a, xih, xil, yih, yil, zih, zil, s);
    {
      alignas(64) double copy[8][W];
      const Cols src = cols(a, own * W);
      const double* from[8] = {src.xh, src.xl, src.yh, src.yl, src.zh, src.zl, src.mh, src.ml};
      for (int q = 0; q < 8; ++q)
        for (int l = 0; l < W; ++l) copy[q][l] = from[q][l];
      const int me = static_cast<int>(i - own * W);
      copy[0][me] = copy[2][me] = copy[4][me] = kFar;
      copy[1][me] = copy[3][me] = copy[5][me] = copy[6][me] = copy[7][me] = 0.0;
      const Cols mine{copy[0], copy[1], copy[2], copy[3], copy[4], copy[5], copy[6], copy[7]};
      chunk<W, Fma, Soft, Clamp>(mine, a, xih, xil, yih, yil, zih, zil, s);
    }
    for (std::size_t k = own + 1; k < chunks; ++k)
      chunk<W, Fma, Soft, Clamp>(cols(a, k * W), a, xih, xil, yih, yil, zih, zil, s);
    // The W lane sums, added in lane order with the accurate addition.
    double xh = s.xh[0], xl = s.xl[0], yh = s.yh[0], yl = s.yl[0], zh = s.zh[0], zl = s.zl[0];
    for (int l = 1; l < W; ++l) {
      add_accurate(xh, xl, s.xh[l], s.xl[l], xh, xl);
      add_accurate(yh, yl, s.yh[l], s.yl[l], yh, yl);
      add_accurate(zh, zl, s.zh[l], s.zl[l], zh, zl);
    }
    a.axh[i] = xh, a.axl[i] = xl, a.ayh[i] = yh, a.ayl[i] = yl, a.azh[i] = zh, a.azl[i] = zl;
  };
  if (a.parallel) {
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) body(static_cast<std::size_t>(i));
  } else {
    for (std::ptrdiff_t i = 0; i < n; ++i) body(static_cast<std::size_t>(i));
  }
}

// The four variants of the force law (softening on/off, clamp on/off): a term that is zero is
// compiled out rather than computed (softening: 8 flops, clamp: 5 per interaction).
template <int W, bool Fma>
void run(const Args& a) {
  const bool soft = a.eps2h != 0.0 || a.eps2l != 0.0;
  const bool clamp = a.rmin2h > 0.0;
  if (soft && clamp) allpairs<W, Fma, true, true>(a);
  else if (soft) allpairs<W, Fma, true, false>(a);
  else if (clamp) allpairs<W, Fma, false, true>(a);
  else allpairs<W, Fma, false, false>(a);
}

}  // namespace

// The instruction sets: each runs one evaluation (a.n >= 1). Defined in openmp_dd_avx512.cpp and
// openmp_dd_avx2.cpp (x86-64 with GCC or Clang only: NBODY_DD_X86) and openmp_dd.cpp (generic).
#if defined(__x86_64__) && defined(__GNUC__)
#define NBODY_DD_X86 1
void run_avx512(const Args& a);
void run_avx2(const Args& a);
inline constexpr int kWidthAvx512 = 8;
inline constexpr int kWidthAvx2 = 4;
#else
#define NBODY_DD_X86 0
#endif
void run_generic(const Args& a);
inline constexpr int kWidthGeneric = 2;
inline constexpr int kMaxWidth = 8;  // the padding of the j arrays covers every W

}  // namespace nbody::ddsimd
