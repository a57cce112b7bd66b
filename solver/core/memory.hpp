#pragma once
// Memory for N bodies, checked before anything is allocated, so that a count too large for the
// machine is refused in one line (exit 2) instead of failing in the allocator or swapping.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/real.hpp"

namespace nbody {

// An upper bound of the bytes a command keeps per body in T: 256 reals (the state is 7; the
// integrators keep up to about 160 in state-sized vectors: stages, extrapolation tables, Adams
// history, gauss-radau15's predictor and corrector, measured as the growth of the resident size
// with N) and twice the text of the body's row in a state file (8 fields, as the output is built).
template <class T>
constexpr std::uint64_t bytes_per_body() {
  constexpr std::uint64_t field = RealTraits<T>::digits * 30103ull / 100000 + 12;  // digits, sign, point, exponent, comma
  return 256 * sizeof(T) + 2 * 8 * field;
}

// The memory this process can still get: MemAvailable (/proc/meminfo), or less where a cgroup
// (container, batch job) limits it; nothing when neither can be read.
std::optional<std::uint64_t> available_memory();

// Throws InputError, naming `what` (e.g. "--n 1000000000000") and the memory needed, when n
// bodies at `bytes_per_body` each (in `precision`) do not fit in the available memory.
void check_memory_for_bodies(std::uint64_t n, std::uint64_t bytes_per_body, std::string_view precision, const std::string& what);

// The same for n bodies in T.
template <class T>
void check_memory_for_bodies(std::uint64_t n, const std::string& what) {
  check_memory_for_bodies(n, bytes_per_body<T>(), RealTraits<T>::name, what);
}

}  // namespace nbody
