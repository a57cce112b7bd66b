#pragma once
// Device memory of U, owned, grown on demand: the buffers of the CUDA engines, cell lists and the
// particle methods' drivers.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "core/device_memory.hpp"
#include "cuda/check.cuh"

namespace nbody::cuda {

template <class U>
struct DeviceBuffer {
  U* p = nullptr;
  std::size_t capacity = 0;

  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p && cudaFree(p) == cudaSuccess) note_device_allocation(-bytes());  // in a destructor: no throw
  }

  // Room for `count` values: a larger allocation replaces a smaller one (by at least half again:
  // a buffer that grew grows again), its contents undefined but for the first `keep` values,
  // copied over on `stream`. Returns whether the memory moved.
  bool reserve(std::size_t count, std::size_t keep = 0, cudaStream_t stream = nullptr) {
    count = std::max<std::size_t>(count, 1);
    if (count <= capacity) return false;
    const std::size_t want = p ? std::max(count, capacity + capacity / 2) : count;
    if (!keep && p) {  // free first: the peak stays at the new size
      NBODY_CUDA_CHECK(cudaFree(p));
      note_device_allocation(-bytes());
      p = nullptr, capacity = 0;
    }
    U* q = nullptr;
    NBODY_CUDA_CHECK(cudaMalloc(&q, want * sizeof(U)));
    note_device_allocation(static_cast<std::int64_t>(want * sizeof(U)));
    if (p) {
      NBODY_CUDA_CHECK(cudaMemcpyAsync(q, p, std::min(keep, capacity) * sizeof(U), cudaMemcpyDeviceToDevice, stream));
      NBODY_CUDA_CHECK(cudaStreamSynchronize(stream));
      NBODY_CUDA_CHECK(cudaFree(p));
      note_device_allocation(-bytes());
    }
    p = q, capacity = want;
    return true;
  }
  std::int64_t bytes() const { return static_cast<std::int64_t>(capacity * sizeof(U)); }
};

template <class U>
void swap(DeviceBuffer<U>& a, DeviceBuffer<U>& b) noexcept {
  std::swap(a.p, b.p);
  std::swap(a.capacity, b.capacity);
}

}  // namespace nbody::cuda
