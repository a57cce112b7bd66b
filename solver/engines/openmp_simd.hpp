#pragma once
// The optimised CPU engine (seed S0's "openmp + block + optimisation", taken to the hardware):
// structure-of-arrays, explicit SIMD with run-time dispatch (AVX-512F, AVX2 + FMA, scalar),
// register blocking over several vectors of bodies i, and a reciprocal square root
// approximation refined by Newton steps to full precision. The kernel is
// kernels/cpu/allpairs_simd.hpp (its header comment explains the shape and the flop count); each
// instruction set is its own translation unit (openmp_simd_avx512.cpp, openmp_simd_avx2.cpp,
// openmp_simd.cpp) compiled with its own -m flags, so that the binary still runs on any x86-64.
// Threads: OpenMP over blocks of bodies i.
//
// float and double only (the registry lists it for those); it matches `simple` to 1e-13 in
// double and ~1e-6 in float in the force-comparison norm of docs/design.md (tests/test_cpu_engines.cpp).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "engines/engine.hpp"

namespace nbody {

namespace simd {

enum class Isa { scalar, avx2, avx512 };

std::string_view isa_name(Isa isa);
// Compiled into this binary and supported by this CPU (and its OS).
bool isa_supported(Isa isa);
// The supported instruction sets, widest first; the engine uses the first.
std::vector<Isa> supported_isas();
Isa best_isa();

// The number of Newton steps the kernel of (isa, T) ships with.
template <class T>
int shipped_newton_steps(Isa isa);
// Lanes per vector of (isa, T).
template <class T>
int vector_width(Isa isa);

// One force evaluation with an explicit instruction set and number of Newton steps (0 ..
// shipped; -1: shipped), j bodies read from SoA arrays or (aos) from packed {x, y, z, m}
// records; otherwise as ForceEngine::accelerations. `scratch` holds the packed records (aos).
// Throws std::invalid_argument for an instruction set this CPU lacks or too many steps.
// accelerations_of: the bodies [first, first + count) alone (ForceEngine::accelerations_of).
template <class T>
void accelerations_of(Isa isa, int newton_steps, bool aos, const ForceLaw<T>& law, const T* pos, const T* mass,
                      std::size_t n, std::size_t first, std::size_t count, T* acc, std::vector<T>& scratch);
template <class T>
void accelerations(Isa isa, int newton_steps, bool aos, const ForceLaw<T>& law, const T* pos, const T* mass,
                   std::size_t n, T* acc, std::vector<T>& scratch) {
  accelerations_of<T>(isa, newton_steps, aos, law, pos, mass, n, 0, n, acc, scratch);
}

}  // namespace simd

template <class T, bool AoS = false>
class OpenMPSimdEngine final : public ForceEngine<T> {
 public:
  struct info {
    static constexpr std::string_view name = AoS ? "openmp-simd-aos" : "openmp-simd";
    static constexpr std::string_view description =
        AoS ? "openmp-simd reading bodies j from packed {x,y,z,m} records (array of structures; E08)"
            : "all pairs, OpenMP + explicit SIMD (AVX-512/AVX2/scalar, run-time dispatch), "
              "register blocking, rsqrt + Newton";
    static EngineCapabilities capabilities() {
      EngineCapabilities c;
      c.simd = simd::isa_name(simd::best_isa());
      c.block_forces = true;
      c.host_reals = AoS ? 7 : 3;  // the bodies packed as {x,y,z,m}, or as SoA
      return c;
    }
  };
  explicit OpenMPSimdEngine(const ForceLaw<T>& law) : ForceEngine<T>(law), isa_(simd::best_isa()) {}

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    simd::accelerations<T>(isa_, -1, AoS, this->law_, pos, mass, n, acc, scratch_);
  }
  void accelerations_of(const T* pos, const T* mass, std::size_t n, std::size_t first, std::size_t count, T* acc) override {
    simd::accelerations_of<T>(isa_, -1, AoS, this->law_, pos, mass, n, first, count, acc, scratch_);
  }
  // The instruction set this engine dispatches to (its capabilities name it).
  simd::Isa isa() const { return isa_; }

 private:
  simd::Isa isa_;
  std::vector<T> scratch_;
};

template <class T>
using OpenMPSimdAosEngine = OpenMPSimdEngine<T, true>;

}  // namespace nbody
