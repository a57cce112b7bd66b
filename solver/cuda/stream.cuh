#pragma once
// A CUDA stream of one's own on the device in use, with the copies to and from it and an event
// timer: the work of a back end (a force evaluation, a tree's build, a cell list, a DPD or SPH
// step) goes into its stream, and the device's own time of its parts is taken between marks,
// events recorded on the stream, never by a host clock.
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/cuda_device.hpp"

namespace nbody::cuda {

// Non-blocking (it never waits for the legacy default stream), with Marks events. Every call is
// checked (RunError); no device is an InputError, before anything is made.
template <std::size_t Marks = 0>
class Stream {
 public:
  Stream() {
    (void)device_properties();
    NBODY_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    try {
      for (cudaEvent_t& e : marks_) NBODY_CUDA_CHECK(cudaEventCreate(&e));
    } catch (...) {
      release();
      throw;
    }
  }
  ~Stream() { release(); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  operator cudaStream_t() const { return stream_; }

  // count values from host memory to the device, or back, after the work given so far; the host
  // memory must stay as it is until the stream has done them.
  template <class U>
  void to_device(U* device, const U* host, std::size_t count) const {
    if (count) NBODY_CUDA_CHECK(cudaMemcpyAsync(device, host, count * sizeof(U), cudaMemcpyHostToDevice, stream_));
  }
  template <class U>
  void to_host(U* host, const U* device, std::size_t count) const {
    if (count) NBODY_CUDA_CHECK(cudaMemcpyAsync(host, device, count * sizeof(U), cudaMemcpyDeviceToHost, stream_));
  }
  template <class U>
  void to_host(std::vector<U>& host, const U* device, std::size_t count) const {
    host.resize(count);
    to_host(host.data(), device, count);
  }

  // Returns when the stream has done all its work.
  void synchronize() const { NBODY_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  // Mark k after the work given so far; wait(k) returns when the stream has passed it.
  void mark(std::size_t k) { NBODY_CUDA_CHECK(cudaEventRecord(marks_.at(k), stream_)); }
  void wait(std::size_t k) const { NBODY_CUDA_CHECK(cudaEventSynchronize(marks_.at(k))); }
  // The device's time from mark `from` to mark `to`, both passed, in milliseconds.
  float milliseconds(std::size_t from, std::size_t to) const {
    float ms = 0;
    NBODY_CUDA_CHECK(cudaEventElapsedTime(&ms, marks_.at(from), marks_.at(to)));
    return ms;
  }

 private:
  void release() noexcept {  // in a destructor: no throw
    for (cudaEvent_t e : marks_)
      if (e) cudaEventDestroy(e);
    if (stream_) cudaStreamDestroy(stream_);
  }

  cudaStream_t stream_ = nullptr;
  std::array<cudaEvent_t, Marks> marks_{};
};

}  // namespace nbody::cuda
