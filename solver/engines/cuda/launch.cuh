#pragma once
// What a CUDA force kernel's launch (the __CUDACC__ part of its spec, engines/cuda/cuda_NAME.hpp) works
// with: the device, its arguments, device scratch, and the interface Launcher<Kernel> that
// Backend<T>::compute (backend.cuh) calls. nvcc only.
//
// Launcher<Kernel> has four static member templates over the real type T:
//   void choose(Launch& l, std::size_t n, const cudaDeviceProp& p)
//       fills the knobs left at 0 that do not depend on the compiled function (defaults, small-N
//       shapes); the result is then checked against the spec's knobs;
//   Variant variant(const Launch& l, bool clamp)
//       the compiled kernel for this shape (with the clamp r_min > 0 or without) and its dynamic
//       shared memory; its registers, shared memory and occupancy are then checked;
//   void finish(Launch& l, std::size_t n, const cudaDeviceProp& p, int blocks_per_sm)
//       the knobs that depend on occupancy, and the grid's limits;
//   void launch(const Launch& l, const ForceArgs<T>& a, Scratch<T>& s, cudaStream_t stream)
//       one evaluation: its launches (each checked), on `stream`.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "cuda/body.cuh"
#include "cuda/check.cuh"
#include "cuda/cuda_device.hpp"
#include "cuda/device_buffer.cuh"
#include "cuda/grid_size.hpp"
#include "engines/launch.hpp"

namespace nbody::cuda {

template <class Kernel>
struct Launcher;

// The block size the kernels take when neither --launch nor the tuning cache gives one (and N is
// not small): dd and qd code is large and register-hungry.
template <class T>
constexpr int default_block = std::is_same_v<T, dd> ? 128 : std::is_same_v<T, qd> ? 64 : 256;

// A compiled kernel and the dynamic shared memory a block of the shape needs.
struct Variant {
  const void* function = nullptr;
  std::size_t shared_bytes = 0;
};

// One evaluation's inputs and output, on the device.
template <class T>
struct ForceArgs {
  const Body4<T>* bodies;  // n of them
  int n;
  T G, eps2, rmin2;
  bool clamp;  // rmin2 > 0
  T* acc;      // 3n, SoA
  int first, count;  // the bodies whose accelerations are wanted (all: 0, n); only kernels with block_forces take fewer
};

// Device memory a kernel may ask for per evaluation, kept and grown across evaluations.
template <class T>
class Scratch {
 public:
  // At least `count` values of T (contents undefined).
  T* partial(std::size_t count) {
    partial_.reserve(count);
    return partial_.p;
  }
  // At least `count` counters, zero on first use; a kernel leaves them zero when it ends.
  unsigned* tickets(std::size_t count) {
    if (tickets_.reserve(count)) NBODY_CUDA_CHECK(cudaMemset(tickets_.p, 0, tickets_.capacity * sizeof(unsigned)));
    return tickets_.p;
  }

 private:
  DeviceBuffer<T> partial_;
  DeviceBuffer<unsigned> tickets_;
};

// "grid of G blocks exceeds the device's limit of L": the common grid check of finish().
template <class Kernel>
void check_grid(const Launch& l, std::size_t blocks, std::size_t limit, const cudaDeviceProp& p, const char* axis = "") {
  if (blocks > limit)
    invalid_launch(Kernel::name, l,
                   "grid of " + std::to_string(blocks) + " blocks" + axis + " exceeds the device's limit of " +
                       std::to_string(limit) + " (device: " + p.name + ")");
}

}  // namespace nbody::cuda
