#pragma once
// cuda-naive: its spec and (for nvcc) its launch. The kernel: kernels/cuda/naive.cuh.
#include "engines/launch.hpp"
#include "common/double_double.hpp"
#include "common/quad_double.hpp"

namespace nbody::cuda {

struct Naive {
  static constexpr std::string_view name = "cuda-naive";
  static constexpr std::string_view description =
      "CUDA, one thread per body, j read from global memory (seed S1's basic kernel)";
  template <class T>
  static constexpr bool runs_in = one_of<T, float, double, dd, qd>;
  static constexpr bool block_forces = true;  // one thread per body: any range of bodies
  template <class T>
  static std::vector<Knob> knobs() {
    return {block_knob()};
  }
};

}  // namespace nbody::cuda

#ifdef __CUDACC__
#include "cuda/naive.cuh"
#include "engines/cuda/launch.cuh"

namespace nbody::cuda {

template <>
struct Launcher<Naive> {
  template <class T>
  static auto function(bool clamp) {
    return clamp ? &naive_kernel<T, DeviceMath<true>> : &naive_kernel<T, DeviceMath<false>>;
  }
  template <class T>
  static void choose(Launch& l, std::size_t, const cudaDeviceProp&) {
    if (l.block == 0) l.block = default_block<T>;
  }
  template <class T>
  static Variant variant(const Launch&, bool clamp) {
    return {reinterpret_cast<const void*>(function<T>(clamp)), 0};
  }
  template <class T>
  static void finish(Launch& l, std::size_t n, const cudaDeviceProp& p, int) {
    check_grid<Naive>(l, blocks_for(n, l.block), p.maxGridSize[0], p);
  }
  template <class T>
  static void launch(const Launch& l, const ForceArgs<T>& a, Scratch<T>&, cudaStream_t stream) {
    function<T>(a.clamp)<<<blocks_for(a.count, l.block), l.block, 0, stream>>>(a.bodies, a.n, a.first, a.first + a.count, a.eps2, a.rmin2, a.G, a.acc);
    NBODY_CUDA_CHECK_LAUNCH("cuda-naive launch");
  }
};

}  // namespace nbody::cuda
#endif
