#pragma once
// cuda-tiled and cuda-split, one kernel (kernels/cuda/tiled.cuh) with two specs: cuda-split cuts
// each body's j-range into split= pieces, one per blockIdx.y, summed in a fixed order. Their specs
// and (for nvcc) their launch.
#include <array>

#include "common/double_double.hpp"
#include "common/quad_double.hpp"
#include "engines/launch.hpp"

namespace nbody::cuda {

struct Tiled {
  static constexpr std::string_view name = "cuda-tiled";
  static constexpr std::string_view description =
      "CUDA, shared-memory tiles of packed (x,y,z,m), unrolled inner loop (S2, S4)";
  template <class T>
  static constexpr bool runs_in = one_of<T, float, double, dd, qd>;
  static constexpr bool block_forces = true;  // blocks of bodies i against all j: any range of bodies

  // The compiled variants: inner-loop unroll factors and bodies per thread. dd and qd code is large
  // and register-hungry: fewer of them (qd, ~4x dd's registers: one body per thread, no unrolling);
  // float has registers to spare for 8 bodies per thread.
  template <class T>
  static constexpr auto unrolls() {
    if constexpr (std::is_same_v<T, dd>) return std::array{1, 2, 4};
    else if constexpr (std::is_same_v<T, qd>) return std::array{1};
    else return std::array{1, 2, 4, 8, 16, 32};
  }
  template <class T>
  static constexpr auto ipts() {
    if constexpr (std::is_same_v<T, float>) return std::array{1, 2, 4, 8};
    else if constexpr (std::is_same_v<T, dd>) return std::array{1, 2};
    else if constexpr (std::is_same_v<T, qd>) return std::array{1};
    else return std::array{1, 2, 4};
  }
  // Unroll and bodies per thread when not given, until `nbody tune` has measured better ones.
  template <class T>
  static constexpr int default_unroll = one_of<T, float, double> ? 4 : 1;
  template <class T>
  static constexpr int default_ipt = one_of<T, float, double> ? 2 : 1;

  template <class T>
  static std::vector<Knob> knobs() {
    constexpr auto u = unrolls<T>();
    constexpr auto i = ipts<T>();
    return {block_knob(),
            Knob::list(&Launch::unroll, "unroll", "unroll factor of the inner loop", {u.begin(), u.end()}, {1, 4, 8, 16}),
            Knob::list(&Launch::ipt, "ipt", "bodies per thread", {i.begin(), i.end()}, {1, 2, 4})};
  }
};

struct Split {
  static constexpr std::string_view name = "cuda-split";
  static constexpr std::string_view description =
      "CUDA, tiles with each body's j-range split over blocks, summed in a fixed order (S1)";
  template <class T>
  static constexpr bool runs_in = Tiled::runs_in<T>;
  static constexpr bool block_forces = true;
  // The automatic split gives each block at least this many tiles of j; one tile of qd
  // interactions already keeps a warp busy for long, so qd splits finer.
  template <class T>
  static constexpr int min_piece_tiles = std::is_same_v<T, qd> ? 1 : 4;

  template <class T>
  static std::vector<Knob> knobs() {
    std::vector<Knob> k = Tiled::knobs<T>();
    k.insert(k.begin() + 1, Knob::range(&Launch::split, "split", "pieces of each body's j-range (blocks in y)", 1, 1, 0, {0}));
    return k;
  }
};

}  // namespace nbody::cuda

#ifdef __CUDACC__
#include <algorithm>

#include "cuda/device_math.cuh"
#include "cuda/tiled.cuh"
#include "engines/cuda/launch.cuh"

namespace nbody::cuda {

template <class Kernel>
struct TiledLauncher {
  static constexpr bool splits = std::is_same_v<Kernel, Split>;

  template <class T>
  using Fn = void (*)(TiledArgs<T>);

  template <class T, bool C, int U, int I>
  static constexpr Fn<T> compiled() {
    constexpr auto us = Tiled::unrolls<T>();
    constexpr auto is = Tiled::ipts<T>();
    if constexpr (std::find(us.begin(), us.end(), U) != us.end() && std::find(is.begin(), is.end(), I) != is.end())
      return &tiled_kernel<T, DeviceMath<C>, U, I>;
    else
      return nullptr;
  }
  template <class T, bool C, int I>
  static Fn<T> by_unroll(int u) {
    switch (u) {
      case 1: return compiled<T, C, 1, I>();
      case 2: return compiled<T, C, 2, I>();
      case 4: return compiled<T, C, 4, I>();
      case 8: return compiled<T, C, 8, I>();
      case 16: return compiled<T, C, 16, I>();
      case 32: return compiled<T, C, 32, I>();
      default: return nullptr;
    }
  }
  template <class T, bool C>
  static Fn<T> by_ipt(int u, int i) {
    switch (i) {
      case 1: return by_unroll<T, C, 1>(u);
      case 2: return by_unroll<T, C, 2>(u);
      case 4: return by_unroll<T, C, 4>(u);
      case 8: return by_unroll<T, C, 8>(u);
      default: return nullptr;
    }
  }
  template <class T>
  static Fn<T> function(const Launch& l, bool clamp) {
    return clamp ? by_ipt<T, true>(l.unroll, l.ipt) : by_ipt<T, false>(l.unroll, l.ipt);
  }

  template <class T>
  static void choose(Launch& l, std::size_t n, const cudaDeviceProp& p) {
    // Fewer bodies than one default block of threads per multiprocessor, shape not given: small
    // blocks of one body per thread, so that the few tiles spread over many multiprocessors.
    if (n < static_cast<std::size_t>(p.multiProcessorCount) * default_block<T>) {
      if (l.block == 0) l.block = n < 2048 ? 32 : 64;
      if (l.ipt == 0) l.ipt = 1;
    }
    if (l.block == 0) l.block = default_block<T>;
    if (l.unroll == 0) l.unroll = Tiled::default_unroll<T>;
    if (l.ipt == 0) l.ipt = Tiled::default_ipt<T>;
  }
  template <class T>
  static Variant variant(const Launch& l, bool clamp) {
    return {reinterpret_cast<const void*>(function<T>(l, clamp)), static_cast<std::size_t>(l.block) * sizeof(Body4<T>)};
  }
  template <class T>
  static void finish(Launch& l, std::size_t n, const cudaDeviceProp& p, int blocks_per_sm) {
    const std::size_t gx = std::max<std::size_t>(1, blocks_for(n, static_cast<std::size_t>(l.block) * l.ipt));
    const std::size_t ntiles = std::max<std::size_t>(1, blocks_for(n, l.block));
    if (splits && l.split == 0) {
      // Enough blocks for two full waves of the GPU, each piece at least min_piece_tiles long.
      const std::size_t target = 2 * static_cast<std::size_t>(blocks_per_sm) * p.multiProcessorCount;
      std::size_t s = gx >= target ? 1 : (target + gx - 1) / gx;
      s = std::min(s, std::max<std::size_t>(1, ntiles / Split::min_piece_tiles<T>));
      l.split = static_cast<int>(std::min<std::size_t>(s, static_cast<std::size_t>(p.maxGridSize[1])));
    }
    if (l.split == 0) l.split = 1;
    check_grid<Kernel>(l, gx, p.maxGridSize[0], p);
  }
  template <class T>
  static void launch(const Launch& l, const ForceArgs<T>& a, Scratch<T>& s, cudaStream_t stream) {
    const std::size_t n = a.n, per_block = static_cast<std::size_t>(l.block) * l.ipt;
    const unsigned gx = blocks_for(a.count, per_block);
    const std::size_t ntiles = blocks_for(n, l.block);
    const bool pieces = l.split > 1;
    TiledArgs<T> t{a.bodies, a.n, a.eps2, a.rmin2, a.G, a.acc,
                   pieces ? s.partial(static_cast<std::size_t>(l.split) * 3 * n) : nullptr, pieces ? s.tickets(gx) : nullptr,
                   static_cast<int>((ntiles + l.split - 1) / l.split), a.first, a.first + a.count};
    const dim3 grid(gx, static_cast<unsigned>(l.split));
    const std::size_t smem = static_cast<std::size_t>(l.block) * sizeof(Body4<T>);
    function<T>(l, a.clamp)<<<grid, l.block, smem, stream>>>(t);
    NBODY_CUDA_CHECK_LAUNCH(splits ? "cuda-split launch" : "cuda-tiled launch");
  }
};

template <>
struct Launcher<Tiled> : TiledLauncher<Tiled> {};
template <>
struct Launcher<Split> : TiledLauncher<Split> {};

}  // namespace nbody::cuda
#endif
