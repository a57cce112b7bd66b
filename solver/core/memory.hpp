#pragma once
// Memory for N bodies, estimated and checked before anything is allocated, so that a count too
// large for the machine is refused in one line (exit 2) instead of failing in the allocator,
// swapping or taking the GPU's memory from under another job; --skip-memory-check overrides it.
// The estimate is the program itself plus, per body, the reals its parts keep: the state (7), the
// integrator's vectors and the engine's arrays (their registry entries say how many), and the text
// of a state file written at once. Runs report it beside the measured peak (their summary's
// "memory"); tests/runner/test_memory_estimate.py keeps the two within 1.5x.
#include <cstdint>
#include <optional>
#include <string>

#include "core/real.hpp"

namespace nbody {

// The resident size of nbody with no bodies: the binary, its libraries, OpenMP's threads (measured
// at about 18 MB; a command that writes files holds more of HDF5's and the C library's buffers).
inline constexpr double program_bytes = 24e6;

// The reals a command keeps per body, on the host and on a GPU, and the bytes of text per body of
// a state file it builds in memory before writing it.
struct BodyMemory {
  double host_reals = 7;  // mass, position, velocity
  double device_reals = 0;
  double text_bytes = 0;
  double host_bytes = 0;  // whatever N (a GPU runtime's), besides the program's
};

// The bytes of text of one body's row in a state file (8 fields: digits, sign, point, exponent, comma).
template <class T>
constexpr double state_text_bytes() {
  return 8.0 * (RealTraits<T>::digits * 0.30103 + 12);
}

struct MemoryNeed {
  double host_bytes = 0, device_bytes = 0;
};

template <class T>
MemoryNeed memory_need(std::uint64_t n, const BodyMemory& b) {
  const double bodies = static_cast<double>(n);
  return {program_bytes + b.host_bytes + bodies * (b.host_reals * sizeof(T) + b.text_bytes), bodies * b.device_reals * sizeof(T)};
}

// The memory this process can still get: MemAvailable (/proc/meminfo), or less where a cgroup
// (container, batch job) limits it; nothing when neither can be read.
std::optional<std::uint64_t> available_memory();
// The peak resident size of this process so far (VmHWM, /proc/self/status).
std::optional<std::uint64_t> peak_memory();

// Throws InputError, naming `what` (e.g. "--n 1000000000000"), the estimate and the override, when
// `need` exceeds the host memory available or the free memory of the GPU (`device_free`, where the
// engine runs on one). Does nothing when `skip` (--skip-memory-check).
void check_memory(const MemoryNeed& need, const std::string& what, bool skip,
                  std::optional<std::uint64_t> device_free = std::nullopt);

// "1.23 GB"
std::string bytes_text(double bytes);

}  // namespace nbody
