// openmp-simd: run-time dispatch, the OpenMP driver and the scalar instruction "set" (the
// fallback for CPUs without AVX2; the same kernel with one lane). See openmp_simd.hpp.
#include "engines/openmp_simd.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/parallel.hpp"
#include "cpu/allpairs_simd.hpp"

namespace nbody::cpu {
namespace {

// One lane, plain C++. The first guess of 1/sqrt(s^2) halves the exponent on the integer bits
// (relative error < 3.5% for every normal s^2); three Newton steps reach float's precision
// (3.5e-2 -> 1.8e-3 -> 4.6e-6 -> 3.2e-11), four double's (-> 1.5e-21).
template <class Real, class Bits, Bits Magic, int Steps>
struct ScalarOps {
  using T = Real;
  using V = Real;
  static constexpr int W = 1;
  static constexpr int newton_steps = Steps;
  static V set1(T x) { return x; }
  static V load(const T* p) { return *p; }
  static V load_head(const T* p, int count, V fill) { return count > 0 ? *p : fill; }
  static void store(T* p, V v) { *p = v; }
  static V sub(V a, V b) { return a - b; }
  static V mul(V a, V b) { return a * b; }
  static V fmadd(V a, V b, V c) { return a * b + c; }  // two roundings: no FMA instruction assumed
  static V fnmadd(V a, V b, V c) { return c - a * b; }
  static V max(V a, V b) { return a > b ? a : b; }
  static V rsqrt0(V x) {
    Bits bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits = Magic - (bits >> 1);
    std::memcpy(&x, &bits, sizeof bits);
    return x;
  }
  static V zero_lane(V, int) { return V(0); }
};
using ScalarD = ScalarOps<double, std::uint64_t, 0x5fe6eb50c7b537a9ULL, 4>;
using ScalarF = ScalarOps<float, std::uint32_t, 0x5f375a86U, 3>;

}  // namespace

BlockKernel<double> scalar_kernel(const double*, int steps, bool aos, bool clamp) {
  return select_block_kernel<ScalarD, 4>(steps, aos, clamp);
}
BlockKernel<float> scalar_kernel(const float*, int steps, bool aos, bool clamp) {
  return select_block_kernel<ScalarF, 4>(steps, aos, clamp);
}

}  // namespace nbody::cpu

namespace nbody::simd {

std::string_view isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    case Isa::scalar: break;
  }
  return "scalar";
}

bool isa_supported(Isa isa) {
#if NBODY_SIMD_X86
  // libgcc's checks include the OS's support of the register state (XGETBV).
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == Isa::avx512) return avx512;
  if (isa == Isa::avx2) return avx2;
#else
  if (isa != Isa::scalar) return false;
#endif
  return true;
}

std::vector<Isa> supported_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::avx512, Isa::avx2, Isa::scalar})
    if (isa_supported(isa)) out.push_back(isa);
  return out;
}

Isa best_isa() { return supported_isas().front(); }

namespace {

template <class T>
cpu::BlockKernel<T> kernel_for(Isa isa, int steps, bool aos, bool clamp) {
  if (!isa_supported(isa))
    throw std::invalid_argument("openmp-simd: this CPU (or build) lacks " + std::string(isa_name(isa)));
  const T* tag = nullptr;
#if NBODY_SIMD_X86
  if (isa == Isa::avx512) return cpu::avx512_kernel(tag, steps, aos, clamp);
  if (isa == Isa::avx2) return cpu::avx2_kernel(tag, steps, aos, clamp);
#endif
  return cpu::scalar_kernel(tag, steps, aos, clamp);
}

}  // namespace

template <class T>
int shipped_newton_steps(Isa isa) {
  return kernel_for<T>(isa, -1, false, false).newton_steps;
}

template <class T>
int vector_width(Isa isa) {
  return kernel_for<T>(isa, -1, false, false).width;
}

template <class T>
void accelerations_of(Isa isa, int newton_steps, bool aos, const ForceLaw<T>& law, const T* pos, const T* mass,
                      std::size_t n, std::size_t first, std::size_t count, T* acc, std::vector<T>& scratch) {
  // The clamp costs one instruction per interaction: compiled out when r_min = 0, where
  // max(0, s^2) = s^2 for every s^2 >= 0 (and NaN stays NaN), so the result is the same.
  const cpu::BlockKernel<T> k = kernel_for<T>(isa, newton_steps, aos, law.rmin2 > T(0));
  if (k.fn == nullptr)
    throw std::invalid_argument("openmp-simd: " + std::to_string(newton_steps) + " Newton steps requested, " +
                                std::string(isa_name(isa)) + " ships " + std::to_string(shipped_newton_steps<T>(isa)));
  if (count == 0) return;
  const T *x = pos, *y = pos + n, *z = pos + 2 * n;
  cpu::AllPairsArgs<T> a{x, y, z, x, y, z, mass, n, first + count, law.eps2, law.rmin2, law.G, acc, acc + n, acc + 2 * n};
  if (aos) {  // pack the j stream into {x, y, z, m} records (O(N), part of the timed work)
    scratch.resize(4 * n);
    for (std::size_t j = 0; j < n; ++j) {
      scratch[4 * j] = x[j], scratch[4 * j + 1] = y[j], scratch[4 * j + 2] = z[j], scratch[4 * j + 3] = mass[j];
    }
    a.jx = scratch.data(), a.jy = scratch.data() + 1, a.jz = scratch.data() + 2, a.jm = scratch.data() + 3;
  }
  // Each body's lanes do the same operations wherever its block starts and however many vectors
  // the block has, so any split of the bodies gives the same bits. Fewer bodies than a block (a
  // few-body system) take one vector at a time instead of a block of mostly dead lanes.
  const bool one = count < k.block;
  const cpu::BlockFn<T> fn = one ? k.fn_one : k.fn;
  const std::size_t block = one ? std::size_t(k.width) : k.block;
  const std::ptrdiff_t blocks = static_cast<std::ptrdiff_t>((count + block - 1) / block);
  for_each_index(blocks, parallel_forces(count), [&](std::ptrdiff_t b) { fn(a, first + static_cast<std::size_t>(b) * block); });
}

#define NBODY_SIMD_INSTANTIATE(T)                                                                         \
  template int shipped_newton_steps<T>(Isa);                                                              \
  template int vector_width<T>(Isa);                                                                      \
  template void accelerations_of<T>(Isa, int, bool, const ForceLaw<T>&, const T*, const T*, std::size_t,      \
                                    std::size_t, std::size_t, T*, std::vector<T>&);
NBODY_SIMD_INSTANTIATE(float)
NBODY_SIMD_INSTANTIATE(double)

}  // namespace nbody::simd
