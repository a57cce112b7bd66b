#pragma once
// The `openmp` engine in double-double: OpenMPEngine<dd> calls
// openmp_dd_accelerations instead of its generic scalar loop. Same engine, same force law
// (kernels/common/interaction.hpp), but parallel with OpenMP over bodies i AND vectorised by the
// compiler over bodies j: the positions and masses are split once per evaluation into hi[] and
// lo[] arrays (structure of arrays), and the pair loop is an `omp simd` loop over chunks of j
// written with the error-free transformations of common/double_double.hpp, each lane keeping its
// own double-double sums (solver/engines/openmp_dd_kernel.hpp: the shape, the flop count (152 per
// interaction, against 20 in double) and the error analysis).
//
// FMA makes double-double products cheap (two_prod = 2 flops instead of 17), but the project is
// built without -m flags (the binary runs on any x86-64), so the kernel is compiled three times,
// one translation unit each: openmp_dd_avx512.cpp (-mavx512f -mfma, 8 lanes), openmp_dd_avx2.cpp
// (-mavx2 -mfma, 4 lanes) and openmp_dd.cpp (baseline: SSE2 on x86-64, 2 lanes, Dekker products);
// the widest the CPU supports is picked at run time (__builtin_cpu_supports), as openmp-simd does.
// Every path agrees with a 50-digit reference to 1e-28 in the force-comparison norm (docs/design.md)
// (tests/test_dd_engine.cpp), not bit for bit with the scalar dd loop (different rounding order).
#include <cstddef>
#include <string_view>
#include <vector>

#include "common/double_double.hpp"
#include "physics/force_law.hpp"

namespace nbody {

namespace ddsimd {

enum class Isa { generic, avx2, avx512 };

std::string_view isa_name(Isa isa);  // "generic", "avx2", "avx512"
// Compiled into this binary and supported by this CPU (and its OS).
bool isa_supported(Isa isa);
// The supported instruction sets, widest first; the engine uses the first.
std::vector<Isa> supported_isas();
Isa best_isa();
// Lanes (bodies j per vector) of the kernel for `isa`.
int vector_width(Isa isa);

// One force evaluation with an explicit instruction set, otherwise as
// ForceEngine<dd>::accelerations (pos SoA x[n] y[n] z[n], acc written likewise, G applied).
// law.compensated is ignored (OpenMPEngine keeps its compensated reference loop for that).
// Throws std::invalid_argument for an instruction set this CPU (or build) lacks.
void accelerations(Isa isa, const ForceLaw<dd>& law, const dd* pos, const dd* mass, std::size_t n, dd* acc);

}  // namespace ddsimd

// What OpenMPEngine<dd> runs: ddsimd::accelerations on best_isa().
void openmp_dd_accelerations(const ForceLaw<dd>& law, const dd* pos, const dd* mass, std::size_t n, dd* acc);

}  // namespace nbody
