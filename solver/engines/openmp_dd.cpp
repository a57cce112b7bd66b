// The double-double `openmp` engine: run-time dispatch, the driver (hi/lo split, G) and the
// generic instruction "set" (baseline flags: SSE2 on x86-64, Dekker products without FMA). See
// openmp_dd.hpp and openmp_dd_kernel.hpp.
#include "engines/openmp_dd.hpp"

#include <stdexcept>
#include <string>

#include "core/parallel.hpp"
#include "engines/openmp_dd_kernel.hpp"

namespace nbody::ddsimd {

// FMA only where the baseline has it as an instruction (not on x86-64 without -mfma, where
// __builtin_fma would be a call into libm per lane).
#if defined(__FP_FAST_FMA)
void run_generic(const Args& a) { run<kWidthGeneric, true>(a); }
#else
void run_generic(const Args& a) { run<kWidthGeneric, false>(a); }
#endif

std::string_view isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    case Isa::generic: break;
  }
  return "generic";
}

bool isa_supported(Isa isa) {
#if NBODY_DD_X86
  // libgcc's checks include the OS's support of the register state (XGETBV).
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == Isa::avx512) return avx512;
  if (isa == Isa::avx2) return avx2;
#else
  if (isa != Isa::generic) return false;
#endif
  return true;
}

std::vector<Isa> supported_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::avx512, Isa::avx2, Isa::generic})
    if (isa_supported(isa)) out.push_back(isa);
  return out;
}

Isa best_isa() {
  static const Isa best = supported_isas().front();
  return best;
}

int vector_width(Isa isa) {
#if NBODY_DD_X86
  if (isa == Isa::avx512) return kWidthAvx512;
  if (isa == Isa::avx2) return kWidthAvx2;
#endif
  (void)isa;
  return kWidthGeneric;
}

void accelerations(Isa isa, const ForceLaw<dd>& law, const dd* pos, const dd* mass, std::size_t n, dd* acc) {
  if (!isa_supported(isa))
    throw std::invalid_argument("openmp (dd): this CPU (or build) lacks " + std::string(isa_name(isa)));
  if (n == 0) return;
  // Split into hi[] and lo[] arrays (O(n), timed with the rest): 8 input arrays of `padded`
  // values (n bodies, then zero-mass bodies at x = y = z = kFar up to a multiple of every W),
  // then 6 output arrays of n.
  const std::size_t padded = (n + kMaxWidth - 1) / kMaxWidth * kMaxWidth;
  thread_local std::vector<double> buf;
  buf.assign(8 * padded + 6 * n, 0.0);
  double* in[8];
  for (int k = 0; k < 8; ++k) in[k] = buf.data() + k * padded;
  for (std::size_t j = n; j < padded; ++j) in[0][j] = in[2][j] = in[4][j] = kFar;
  for (int k = 0; k < 3; ++k) {
    const dd* c = pos + k * n;
    for (std::size_t j = 0; j < n; ++j) in[2 * k][j] = c[j].hi, in[2 * k + 1][j] = c[j].lo;
  }
  for (std::size_t j = 0; j < n; ++j) in[6][j] = mass[j].hi, in[7][j] = mass[j].lo;
  double* out = buf.data() + 8 * padded;

  Args a{in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], n, padded,
         law.eps2.hi, law.eps2.lo, law.rmin2.hi, law.rmin2.lo,
         out, out + n, out + 2 * n, out + 3 * n, out + 4 * n, out + 5 * n, parallel_forces(n, kParallelFromBodiesDd)};
#if NBODY_DD_X86
  if (isa == Isa::avx512) run_avx512(a);
  else if (isa == Isa::avx2) run_avx2(a);
  else run_generic(a);
#else
  run_generic(a);
#endif
  for (int k = 0; k < 3; ++k)  // G once per body, as every engine (interaction.hpp)
    for (std::size_t i = 0; i < n; ++i) acc[k * n + i] = law.G * dd(out[2 * k * n + i], out[(2 * k + 1) * n + i]);
}

}  // namespace nbody::ddsimd

namespace nbody {

void openmp_dd_accelerations(const ForceLaw<dd>& law, const dd* pos, const dd* mass, std::size_t n, dd* acc) {
  ddsimd::accelerations(ddsimd::best_isa(), law, pos, mass, n, acc);
}

}  // namespace nbody
