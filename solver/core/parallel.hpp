#pragma once
// Whether a CPU force evaluation (the openmp engines, the CPU tree engines) runs on the OpenMP
// threads or on the calling thread alone. Waking the team and meeting at its closing barrier
// costs about a microsecond per evaluation; for a few bodies that is many times the evaluation,
// and an IAS15 run of two bodies is nothing but such evaluations. Below the size where the team
// starts to pay, the engines loop on the calling thread without entering a parallel region (an
// `if (false)` clause would still make libgomp build a team of one).
//
// Measured by experiments/E07_small_n.toml (results: results/E07_small_n.csv): the time of one
// evaluation against N = 2, 4, 8, ... on one thread and on every thread with the team forced
// (NBODY_PARALLEL_FROM=1). Each threshold is the smallest N of that sweep from which the team was
// faster, for every engine it serves, in repeated runs on a quiet machine.
//
// Each body's sum is computed alone and in the same order on whichever thread, so both paths
// give the same bits.
#include <cstddef>
#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace nbody {

// The all-pairs engines (measured in double; float takes the same) and the CPU tree engines.
inline constexpr std::size_t kParallelFromBodies = 128;
// `openmp` in double-double: an interaction costs about ten double ones, so the team pays sooner.
inline constexpr std::size_t kParallelFromBodiesDd = 64;

// NBODY_PARALLEL_FROM where set (a whole number >= 1: every engine takes the team from that many
// bodies; E07_small_n's forced-team points set 1), else 0. Read once.
inline std::size_t parallel_from_override() {
  static const std::size_t from = [] {
    const char* set = std::getenv("NBODY_PARALLEL_FROM");
    const std::string text = set ? set : "";
    if (text.empty()) return std::size_t(0);
    if (text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos || std::stoull(text) < 1)
      throw InputError("NBODY_PARALLEL_FROM must be a whole number >= 1, got '" + text + "'");
    return static_cast<std::size_t>(std::stoull(text));
  }();
  return from;
}

// Whether an evaluation of `bodies` bodies is worth the thread team (from: the engine's threshold).
inline bool parallel_forces(std::size_t bodies, std::size_t from = kParallelFromBodies) {
  const std::size_t forced = parallel_from_override();
  return bodies >= (forced ? forced : from);
}

// f(k) for k in [0, count), iterations independent (f(k) writes only what belongs to k): on the
// OpenMP threads when `parallel`, else a plain loop on the calling thread. Chunk 0: a static
// schedule (iterations of equal cost); Chunk > 0: a dynamic one, Chunk iterations at a time.
template <int Chunk = 0, class F>
void for_each_index(std::ptrdiff_t count, bool parallel, F&& f) {
  if (!parallel) {
    for (std::ptrdiff_t k = 0; k < count; ++k) f(k);
  } else if constexpr (Chunk == 0) {
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t k = 0; k < count; ++k) f(k);
  } else {
#pragma omp parallel for schedule(dynamic, Chunk)
    for (std::ptrdiff_t k = 0; k < count; ++k) f(k);
  }
}

}  // namespace nbody
