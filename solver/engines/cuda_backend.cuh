#pragma once
// Implementation of cuda::Backend<T> (cuda_backend.hpp): device buffers, launch-shape
// resolution and validation, kernel selection over the compile-time variants, event timing.
// Included by one .cu file per real type, which instantiates it.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "cuda/allpairs.cuh"
#include "cuda/check.cuh"
#include "cuda/pairs.cuh"
#include "engines/cuda_backend.hpp"

namespace nbody::cuda {

namespace detail {

// The compiled variants. dd and qd code is large and register-hungry: fewer of them.
template <class T>
struct Variants {
  static constexpr std::array<int, 6> unrolls{1, 2, 4, 8, 16, 32};
  static constexpr std::array<int, 3> ipts{1, 2, 4};
};
template <>
struct Variants<float> {  // float has registers to spare for 8 bodies per thread
  static constexpr std::array<int, 6> unrolls{1, 2, 4, 8, 16, 32};
  static constexpr std::array<int, 4> ipts{1, 2, 4, 8};
};
template <>
struct Variants<dd> {
  static constexpr std::array<int, 3> unrolls{1, 2, 4};
  static constexpr std::array<int, 2> ipts{1, 2};
};
template <>
struct Variants<qd> {  // ~4x dd's registers: one body per thread, no unrolling
  static constexpr std::array<int, 1> unrolls{1};
  static constexpr std::array<int, 1> ipts{1};
};

template <class It>
std::string join(It b, It e) {
  std::string s;
  for (; b != e; ++b) s += (s.empty() ? "" : ", ") + std::to_string(*b);
  return s;
}

template <class T>
using TiledFn = void (*)(TiledArgs<T>);
template <class T>
using NaiveFn = void (*)(const Body4<T>*, int, T, T, T, T*);

template <class T, bool C, int U, int I>
constexpr TiledFn<T> tiled_fn() {
  constexpr bool ok_u = [] {
    for (int u : Variants<T>::unrolls)
      if (u == U) return true;
    return false;
  }();
  constexpr bool ok_i = [] {
    for (int i : Variants<T>::ipts)
      if (i == I) return true;
    return false;
  }();
  if constexpr (ok_u && ok_i)
    return &tiled_kernel<T, DeviceMath<C>, U, I>;
  else
    return nullptr;
}

template <class T, bool C, int I>
TiledFn<T> pick_u(int u) {
  switch (u) {
    case 1: return tiled_fn<T, C, 1, I>();
    case 2: return tiled_fn<T, C, 2, I>();
    case 4: return tiled_fn<T, C, 4, I>();
    case 8: return tiled_fn<T, C, 8, I>();
    case 16: return tiled_fn<T, C, 16, I>();
    case 32: return tiled_fn<T, C, 32, I>();
    default: return nullptr;
  }
}

template <class T>
TiledFn<T> pick_tiled(bool clamp, int u, int i) {
  auto by_i = [&]<bool C>() -> TiledFn<T> {
    switch (i) {
      case 1: return pick_u<T, C, 1>(u);
      case 2: return pick_u<T, C, 2>(u);
      case 4: return pick_u<T, C, 4>(u);
      case 8: return pick_u<T, C, 8>(u);
      default: return nullptr;
    }
  };
  return clamp ? by_i.template operator()<true>() : by_i.template operator()<false>();
}

// cuda-pairs: float and double (pairs_supported), bodies per thread 1, 2, 4, 8 (the rotation's inner
// loop is unrolled 8).
constexpr std::array<int, 4> pairs_ipts{1, 2, 4, 8};
// Device memory for one pass's slots when split= is not given: as many distances per pass as fit
// (N = 2^20 float, tiles of 2048 bodies: 256 distances in 4 passes, 65 slots of 12 MB).
constexpr std::size_t pairs_slot_budget = std::size_t(1) << 30;

// Number of passes over the tile distances 1..ntiles/2 and the distances per pass.
struct PairsPasses {
  int passes, per_pass;
};
inline PairsPasses pairs_passes(int split, std::size_t ntiles, std::size_t slot_bytes) {
  const int dmax = static_cast<int>(ntiles / 2);
  if (dmax == 0) return {1, 1};
  int per_pass = dmax;
  if (split > 0) per_pass = (dmax + split - 1) / split;
  else if ((per_pass + 1) * slot_bytes > pairs_slot_budget)
    per_pass = static_cast<int>(std::max<std::size_t>(2, pairs_slot_budget / slot_bytes) - 1);
  return {(dmax + per_pass - 1) / per_pass, per_pass};
}

template <class T>
using PairsFn = void (*)(PairsArgs<T>);

template <class T>
PairsFn<T> pick_pairs(bool clamp, int ipt) {
  if constexpr (!pairs_supported<T>) {
    return nullptr;
  } else {
    auto by_i = [&]<bool C>() -> PairsFn<T> {
      switch (ipt) {
        case 1: return &pairs_kernel<T, DeviceMath<C>, 1>;
        case 2: return &pairs_kernel<T, DeviceMath<C>, 2>;
        case 4: return &pairs_kernel<T, DeviceMath<C>, 4>;
        case 8: return &pairs_kernel<T, DeviceMath<C>, 8>;
        default: return nullptr;
      }
    };
    return clamp ? by_i.template operator()<true>() : by_i.template operator()<false>();
  }
}

template <class T>
NaiveFn<T> pick_naive(bool clamp) {
  return clamp ? &naive_kernel<T, DeviceMath<true>> : &naive_kernel<T, DeviceMath<false>>;
}

// Built-in defaults until `nbody tune` has measured better ones.
// min_piece_tiles: the default split gives each block at least this many tiles of j; one tile of
// qd interactions already keeps a warp busy for ~100 us at N = 512, so qd splits finer.
template <class T>
struct Defaults {
  static constexpr int block = 256, unroll = 4, ipt = 2, min_piece_tiles = 4;
};
template <>
struct Defaults<dd> {
  static constexpr int block = 128, unroll = 1, ipt = 1, min_piece_tiles = 4;
};
template <>
struct Defaults<qd> {
  static constexpr int block = 64, unroll = 1, ipt = 1, min_piece_tiles = 1;
};

// cuda-pairs (H100, N = 2^20, tools/gpu/logs/pairs_probe/): float 256 x 8, double 128 x 8.
template <class T>
struct PairsDefaults {
  static constexpr int block = 256, ipt = 8;
};
template <>
struct PairsDefaults<double> {
  static constexpr int block = 128, ipt = 8;
};

struct DeviceProps {
  cudaDeviceProp prop{};
  int device = 0;
};

inline const DeviceProps& props() {
  static const DeviceProps p = [] {
    DeviceProps d;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
      (void)cudaGetLastError();
      throw InputError(std::string("no CUDA device is available (") +
                       (err != cudaSuccess ? cudaGetErrorString(err) : "no device found") +
                       "): choose a CPU engine (`nbody list engines`)");
    }
    NBODY_CUDA_CHECK(cudaGetDevice(&d.device));
    NBODY_CUDA_CHECK(cudaGetDeviceProperties(&d.prop, d.device));
    return d;
  }();
  return p;
}

template <class U>
void device_free(U*& p) {
  if (p) cudaFree(p);  // in a destructor: no throw
  p = nullptr;
}

}  // namespace detail

template <class T>
struct Backend<T>::Impl {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  Body4<T>* d_bodies = nullptr;
  T* d_acc = nullptr;
  T* d_partial = nullptr;
  unsigned* d_tickets = nullptr;
  Body4<T>* h_bodies = nullptr;  // pinned staging
  T* h_acc = nullptr;
  std::size_t cap_n = 0, cap_partial = 0, cap_tickets = 0;
  float last_ms = -1;
  Launch last{};
  // The shape resolved for the last (kernel, request, n, clamp): resolving queries the kernel's
  // attributes and occupancy, tens of microseconds that small-N evaluations in a loop would repeat.
  struct Resolved {
    Kernel kernel;
    Launch request;
    std::size_t n;
    bool clamp;
    Launch shape;
  };
  std::optional<Resolved> resolved;

  Impl() {
    (void)detail::props();
    NBODY_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    NBODY_CUDA_CHECK(cudaEventCreate(&start));
    NBODY_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Impl() {
    detail::device_free(d_bodies);
    detail::device_free(d_acc);
    detail::device_free(d_partial);
    detail::device_free(d_tickets);
    if (h_bodies) cudaFreeHost(h_bodies);
    if (h_acc) cudaFreeHost(h_acc);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
  }

  // cuda-pairs: per pass the pair kernel (one block per row of tiles) and the ordered reduction.
  void launch_pairs(bool clamp, const Launch& l, const detail::PairsPasses& pp, int n, T G, T eps2, T rmin2) {
    const int P = l.block * l.ipt, rows = (n + P - 1) / P, dmax = rows / 2;
    const auto [passes, per_pass] = pp;
    const auto fn = detail::pick_pairs<T>(clamp, l.ipt);
    for (int pass = 0; pass < passes; ++pass) {
      const int d_first = 1 + pass * per_pass, d_last = std::min(dmax, d_first + per_pass - 1);
      fn<<<rows, l.block, 0, stream>>>(PairsArgs<T>{d_bodies, n, rows, eps2, rmin2, d_first, d_last, d_partial});
      NBODY_CUDA_CHECK_LAUNCH("cuda-pairs launch");
      pairs_reduce_kernel<T><<<(n + 255) / 256, 256, 0, stream>>>(d_partial, n, P, rows, d_first, d_last, pass == 0,
                                                                  pass == passes - 1, G, d_acc);
      NBODY_CUDA_CHECK_LAUNCH("cuda-pairs reduction launch");
    }
  }

  void reserve(std::size_t n, std::size_t partial, std::size_t tickets) {
    if (n > cap_n) {
      detail::device_free(d_bodies);
      detail::device_free(d_acc);
      if (h_bodies) NBODY_CUDA_CHECK(cudaFreeHost(h_bodies));
      if (h_acc) NBODY_CUDA_CHECK(cudaFreeHost(h_acc));
      h_bodies = nullptr;
      h_acc = nullptr;
      cap_n = 0;
      NBODY_CUDA_CHECK(cudaMalloc(&d_bodies, n * sizeof(Body4<T>)));
      NBODY_CUDA_CHECK(cudaMalloc(&d_acc, 3 * n * sizeof(T)));
      NBODY_CUDA_CHECK(cudaMallocHost(&h_bodies, n * sizeof(Body4<T>)));
      NBODY_CUDA_CHECK(cudaMallocHost(&h_acc, 3 * n * sizeof(T)));
      cap_n = n;
    }
    if (partial > cap_partial) {
      detail::device_free(d_partial);
      cap_partial = 0;
      NBODY_CUDA_CHECK(cudaMalloc(&d_partial, partial * sizeof(T)));
      cap_partial = partial;
    }
    if (tickets > cap_tickets) {
      detail::device_free(d_tickets);
      cap_tickets = 0;
      NBODY_CUDA_CHECK(cudaMalloc(&d_tickets, tickets * sizeof(unsigned)));
      NBODY_CUDA_CHECK(cudaMemset(d_tickets, 0, tickets * sizeof(unsigned)));
      cap_tickets = tickets;
    }
  }
};

template <class T>
Backend<T>::Backend() : impl_(std::make_unique<Impl>()) {}
template <class T>
Backend<T>::~Backend() = default;

template <class T>
double Backend<T>::last_kernel_seconds() const {
  return impl_->last_ms < 0 ? -1.0 : impl_->last_ms * 1e-3;
}
template <class T>
Launch Backend<T>::last_launch() const {
  return impl_->last;
}

namespace detail {

[[noreturn]] inline void invalid(Kernel k, const Launch& l, const std::string& why) {
  throw InputError(std::string("invalid launch shape for ") + engine_name(k) + " (" + to_string(l) + "): " + why);
}

}  // namespace detail

template <class T>
Launch Backend<T>::resolve(Kernel kernel, const Launch& req, std::size_t n, bool clamp) {
  using namespace detail;
  const cudaDeviceProp& p = props().prop;
  Launch l = req;
  const std::string dev = std::string(" (device: ") + p.name + ")";
  if (l.block < 0 || l.split < 0 || l.unroll < 0 || l.ipt < 0) invalid(kernel, req, "values must be positive");
  // Fewer bodies than one default block of threads per multiprocessor, shape not given: small
  // blocks of one body per thread, so that the few tiles spread over many multiprocessors (H100,
  // double, cuda-split: N = 512 16 us per evaluation against 83 us in one block of 256 x 2
  // bodies, N = 4096 40 us against 139 us; at N = 65536 the large-N default is 8 % faster).
  const bool small_n = n < static_cast<std::size_t>(p.multiProcessorCount) * Defaults<T>::block;
  if (kernel == Kernel::pairs) {
    if constexpr (!pairs_supported<T>)
      invalid(kernel, req, std::string("cuda-pairs runs in float and double, not ") + precision_name<T>() +
                               " (use cuda-tiled or cuda-split)");
    if (l.unroll > 1) invalid(kernel, req, "cuda-pairs takes block=, ipt= and split= (passes); it has no unroll= choice");
    l.unroll = 1;
    // Defaults from the N = 2^20 probe; for fewer bodies, smaller tiles until there are two rows
    // (blocks) per multiprocessor, halving what was not given: bodies per thread first.
    const bool auto_b = l.block == 0, auto_i = l.ipt == 0;
    if (auto_b) l.block = PairsDefaults<T>::block;
    if (auto_i) l.ipt = PairsDefaults<T>::ipt;
    const auto rows = [&] { return (n + static_cast<std::size_t>(l.block) * l.ipt - 1) / (static_cast<std::size_t>(l.block) * l.ipt); };
    while (rows() < 2 * static_cast<std::size_t>(p.multiProcessorCount) && ((auto_i && l.ipt > 1) || (auto_b && l.block > 32))) {
      if (auto_i && l.ipt > 1) l.ipt /= 2;
      else l.block /= 2;
    }
    if (l.block % 32 != 0 || l.block > pairs_max_block)
      invalid(kernel, req, "block=" + std::to_string(l.block) + ": cuda-pairs needs whole warps, a multiple of 32 up to " +
                               std::to_string(pairs_max_block) + " (valid: 32, 64, ..., " + std::to_string(pairs_max_block) + ")");
    if (std::find(pairs_ipts.begin(), pairs_ipts.end(), l.ipt) == pairs_ipts.end())
      invalid(kernel, req, "ipt=" + std::to_string(l.ipt) + " is not compiled (valid: " + join(pairs_ipts.begin(), pairs_ipts.end()) + ")");
  } else if (kernel != Kernel::naive && small_n) {
    if (l.block == 0) l.block = n < 2048 ? 32 : 64;
    if (l.ipt == 0) l.ipt = 1;
  }
  if (l.block == 0) l.block = Defaults<T>::block;
  if (l.block > p.maxThreadsPerBlock)
    invalid(kernel, req, "block=" + std::to_string(l.block) + " exceeds the device's limit of " +
                             std::to_string(p.maxThreadsPerBlock) + " threads per block (valid: 1.." +
                             std::to_string(p.maxThreadsPerBlock) + ")" + dev);
  const void* fn = nullptr;
  std::size_t smem = 0;
  if (kernel == Kernel::naive) {
    if ((l.split > 1) || (l.unroll > 1) || (l.ipt > 1))
      invalid(kernel, req, "cuda-naive takes only block= (split, unroll and ipt belong to cuda-tiled and cuda-split)");
    l.split = l.unroll = l.ipt = 1;
    fn = reinterpret_cast<const void*>(pick_naive<T>(clamp));
  } else if (kernel == Kernel::pairs) {
    fn = reinterpret_cast<const void*>(pick_pairs<T>(clamp, l.ipt));
  } else {
    if (l.unroll == 0) l.unroll = Defaults<T>::unroll;
    if (l.ipt == 0) l.ipt = Defaults<T>::ipt;
    const auto& uv = Variants<T>::unrolls;
    const auto& iv = Variants<T>::ipts;
    if (std::find(uv.begin(), uv.end(), l.unroll) == uv.end())
      invalid(kernel, req, "unroll=" + std::to_string(l.unroll) + " is not compiled (valid: " + join(uv.begin(), uv.end()) + ")");
    if (std::find(iv.begin(), iv.end(), l.ipt) == iv.end())
      invalid(kernel, req, "ipt=" + std::to_string(l.ipt) + " is not compiled (valid: " + join(iv.begin(), iv.end()) + ")");
    if (kernel == Kernel::tiled) {
      if (l.split > 1) invalid(kernel, req, "cuda-tiled runs split=1; the j-range split is cuda-split");
      l.split = 1;
    }
    fn = reinterpret_cast<const void*>(pick_tiled<T>(clamp, l.unroll, l.ipt));
    smem = static_cast<std::size_t>(l.block) * sizeof(Body4<T>);
  }
  cudaFuncAttributes fa{};
  NBODY_CUDA_CHECK(cudaFuncGetAttributes(&fa, fn));
  if (l.block > fa.maxThreadsPerBlock)
    invalid(kernel, req, "the kernel uses " + std::to_string(fa.numRegs) + " registers per thread, so at most " +
                             std::to_string(fa.maxThreadsPerBlock) + " threads per block can run" + dev);
  if (smem + fa.sharedSizeBytes > p.sharedMemPerBlockOptin)
    invalid(kernel, req, "block=" + std::to_string(l.block) + " needs " + std::to_string(smem + fa.sharedSizeBytes) +
                             " bytes of shared memory, over the device's " + std::to_string(p.sharedMemPerBlockOptin) +
                             " per block" + dev);
  if (smem > 48 * 1024)
    NBODY_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  int per_sm = 0;
  NBODY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, l.block, smem));
  if (per_sm == 0)
    invalid(kernel, req, "no block of this shape fits on a multiprocessor (registers or shared memory)" + dev);

  const std::size_t per_block = static_cast<std::size_t>(l.block) * l.ipt;
  const std::size_t gx = std::max<std::size_t>(1, (n + per_block - 1) / per_block);
  if (kernel == Kernel::pairs) {  // one block per tile of block x ipt bodies, split = passes
    if (gx > static_cast<std::size_t>(p.maxGridSize[0]))
      invalid(kernel, req, "grid of " + std::to_string(gx) + " blocks exceeds the device's limit of " +
                               std::to_string(p.maxGridSize[0]) + dev);
    l.split = pairs_passes(l.split, gx, 3 * n * sizeof(T)).passes;
    return l;
  }
  const std::size_t ntiles = std::max<std::size_t>(1, (n + l.block - 1) / l.block);
  if (kernel == Kernel::split && l.split == 0) {
    // Enough blocks for two full waves of the GPU, each piece at least min_piece_tiles long.
    const std::size_t target = 2 * static_cast<std::size_t>(per_sm) * p.multiProcessorCount;
    std::size_t s = gx >= target ? 1 : (target + gx - 1) / gx;
    s = std::min(s, std::max<std::size_t>(1, ntiles / Defaults<T>::min_piece_tiles));
    l.split = static_cast<int>(std::min<std::size_t>(s, static_cast<std::size_t>(p.maxGridSize[1])));
  }
  if (l.split == 0) l.split = 1;
  if (gx > static_cast<std::size_t>(p.maxGridSize[0]))
    invalid(kernel, req, "grid of " + std::to_string(gx) + " blocks exceeds the device's limit of " +
                             std::to_string(p.maxGridSize[0]) + dev);
  if (l.split > p.maxGridSize[1])
    invalid(kernel, req, "split=" + std::to_string(l.split) + " exceeds the device's grid limit of " +
                             std::to_string(p.maxGridSize[1]) + " in y" + dev);
  return l;
}

template <class T>
void Backend<T>::compute(Kernel kernel, const Launch& req, const T* pos, const T* mass, std::size_t n, T G, T eps2,
                         T rmin2, T* acc) {
  using namespace detail;
  if (n > (std::size_t(1) << 29)) throw InputError("the CUDA engines take at most 2^29 bodies, got " + std::to_string(n));
  const bool clamp = rmin2 > T(0);
  Impl& m = *impl_;
  const auto& r = m.resolved;
  if (!r || r->kernel != kernel || !(r->request == req) || r->n != n || r->clamp != clamp)
    m.resolved = typename Impl::Resolved{kernel, req, n, clamp, resolve(kernel, req, n, clamp)};
  const Launch l = m.resolved->shape;
  m.last = l;
  m.last_ms = -1;
  if (n == 0) return;
  const int ni = static_cast<int>(n);
  const std::size_t per_block = static_cast<std::size_t>(l.block) * l.ipt;
  const unsigned gx = static_cast<unsigned>((n + per_block - 1) / per_block);
  const std::size_t ntiles = (n + l.block - 1) / l.block;
  const bool split = (kernel == Kernel::tiled || kernel == Kernel::split) && l.split > 1;
  const PairsPasses pp = pairs_passes(l.split, gx, 3 * n * sizeof(T));  // cuda-pairs: slot 0 + one per distance
  const std::size_t partial = kernel == Kernel::pairs ? (1 + static_cast<std::size_t>(pp.per_pass)) * 3 * n
                              : split                 ? static_cast<std::size_t>(l.split) * 3 * n
                                                      : 0;
  m.reserve(n, partial, split ? gx : 0);

  for (std::size_t i = 0; i < n; ++i) m.h_bodies[i] = Body4<T>{pos[i], pos[n + i], pos[2 * n + i], mass[i]};
  NBODY_CUDA_CHECK(cudaMemcpyAsync(m.d_bodies, m.h_bodies, n * sizeof(Body4<T>), cudaMemcpyHostToDevice, m.stream));
  NBODY_CUDA_CHECK(cudaEventRecord(m.start, m.stream));
  if (kernel == Kernel::naive) {
    const unsigned grid = static_cast<unsigned>((n + l.block - 1) / l.block);
    pick_naive<T>(clamp)<<<grid, l.block, 0, m.stream>>>(m.d_bodies, ni, eps2, rmin2, G, m.d_acc);
    NBODY_CUDA_CHECK_LAUNCH("cuda-naive launch");
  } else if (kernel == Kernel::pairs) {
    if constexpr (pairs_supported<T>) m.launch_pairs(clamp, l, pp, ni, G, eps2, rmin2);
  } else {
    TiledArgs<T> a{m.d_bodies, ni, eps2, rmin2, G, m.d_acc, m.d_partial, m.d_tickets,
                   static_cast<int>((ntiles + l.split - 1) / l.split)};
    const dim3 grid(gx, static_cast<unsigned>(l.split));
    const std::size_t smem = static_cast<std::size_t>(l.block) * sizeof(Body4<T>);
    pick_tiled<T>(clamp, l.unroll, l.ipt)<<<grid, l.block, smem, m.stream>>>(a);
    NBODY_CUDA_CHECK_LAUNCH(kernel == Kernel::tiled ? "cuda-tiled launch" : "cuda-split launch");
  }
  NBODY_CUDA_CHECK(cudaEventRecord(m.stop, m.stream));
  NBODY_CUDA_CHECK(cudaMemcpyAsync(m.h_acc, m.d_acc, 3 * n * sizeof(T), cudaMemcpyDeviceToHost, m.stream));
  NBODY_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  float ms = 0;
  NBODY_CUDA_CHECK(cudaEventElapsedTime(&ms, m.start, m.stop));
  m.last_ms = ms;
  std::memcpy(acc, m.h_acc, 3 * n * sizeof(T));
}

}  // namespace nbody::cuda
