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
#include "engines/cuda/check.cuh"
#include "engines/launch.hpp"

namespace nbody::cuda {

template <class Kernel>
struct Launcher;

// The properties of the device in use, queried once; InputError when there is no device.
inline const cudaDeviceProp& device_properties() {
  static const cudaDeviceProp p = [] {
    cudaDeviceProp d{};
    int count = 0, device = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
      (void)cudaGetLastError();
      throw InputError(std::string("no CUDA device is available (") +
                       (err != cudaSuccess ? cudaGetErrorString(err) : "no device found") +
                       "): choose a CPU engine (`nbody list engines`)");
    }
    NBODY_CUDA_CHECK(cudaGetDevice(&device));
    NBODY_CUDA_CHECK(cudaGetDeviceProperties(&d, device));
    return d;
  }();
  return p;
}

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

// Makes p hold at least `count` values of U (device memory): a larger buffer replaces a smaller
// one, its contents undefined. Returns whether it did.
template <class U>
bool grow(U*& p, std::size_t& capacity, std::size_t count) {
  if (count <= capacity) return false;
  if (p) NBODY_CUDA_CHECK(cudaFree(p));
  p = nullptr;
  capacity = 0;
  NBODY_CUDA_CHECK(cudaMalloc(&p, count * sizeof(U)));
  capacity = count;
  return true;
}

// Device memory a kernel may ask for per evaluation, kept and grown across evaluations.
template <class T>
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (partial_) cudaFree(partial_);  // in a destructor: no throw
    if (tickets_) cudaFree(tickets_);
  }
  // At least `count` values of T (contents undefined).
  T* partial(std::size_t count) {
    grow(partial_, partial_count_, count);
    return partial_;
  }
  // At least `count` counters, zero on first use; a kernel leaves them zero when it ends.
  unsigned* tickets(std::size_t count) {
    if (grow(tickets_, tickets_count_, count)) NBODY_CUDA_CHECK(cudaMemset(tickets_, 0, count * sizeof(unsigned)));
    return tickets_;
  }

 private:
  T* partial_ = nullptr;
  unsigned* tickets_ = nullptr;
  std::size_t partial_count_ = 0, tickets_count_ = 0;
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
