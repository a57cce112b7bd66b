#pragma once
// The GPU memory nbody's own allocations hold (cuda/device_buffer.cuh reports each), and its peak:
// what a run's summary sets beside the memory estimate (core/memory.hpp). Header-only, plain C++:
// the CUDA library and the host code share the one counter (inline variables).
#include <atomic>
#include <cstdint>

namespace nbody {

inline std::atomic<std::int64_t> device_memory_held{0};
inline std::atomic<std::uint64_t> device_memory_peak{0};

// An allocation (bytes > 0) or a release (bytes < 0) of device memory.
inline void note_device_allocation(std::int64_t bytes) {
  const std::int64_t now = device_memory_held += bytes;
  for (std::uint64_t peak = device_memory_peak.load(); now > 0 && std::uint64_t(now) > peak;)
    if (device_memory_peak.compare_exchange_weak(peak, std::uint64_t(now))) break;
}
// The most device memory held at once so far, in bytes.
inline std::uint64_t device_allocation_peak() { return device_memory_peak.load(); }

}  // namespace nbody
