#pragma once
// Implementation of cuda::Backend<T> (backend.hpp): device buffers, the launch-shape pipeline that
// every kernel of cuda_kernels.hpp goes through (its choices, its spec's knobs, the compiled function's
// registers, shared memory and occupancy, the grid), its launch, and event timing. Included by
// one .cu file per real type, which instantiates it.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "cuda/potential.cuh"
#include "cuda/device_buffer.cuh"
#include "cuda/stream.cuh"
#include "engines/cuda/backend.hpp"
#include "engines/cuda/cuda_kernels.hpp"

namespace nbody::cuda {

// The CUDA engines count bodies in int, 3 n of them in one buffer: at most 2^29.
inline void check_body_count(std::size_t n) {
  if (n > (std::size_t(1) << 29)) throw InputError("the CUDA engines take at most 2^29 bodies, got " + std::to_string(n));
}

namespace detail {

// Resolves a requested shape for kernel K and n bodies: every knob set and checked, or
// InputError naming what is invalid and the valid values.
template <class K, class T>
Launch resolve(const Launch& req, std::size_t n, bool clamp) {
  const cudaDeviceProp& p = device_properties();
  const auto knobs = K::template knobs<T>();
  const auto limit = [&p](const Knob& k) { return k.field == &Launch::block ? p.maxThreadsPerBlock : p.maxGridSize[1]; };
  Launch l = req;
  Launcher<K>::template choose<T>(l, n, p);
  check_launch(K::name, knobs, req, l, limit, p.name);
  set_other_fields_neutral(knobs, l);

  const Variant v = Launcher<K>::template variant<T>(l, clamp);
  const std::string device = std::string(" (device: ") + p.name + ")";
  cudaFuncAttributes fa{};
  NBODY_CUDA_CHECK(cudaFuncGetAttributes(&fa, v.function));
  if (l.block > fa.maxThreadsPerBlock)
    invalid_launch(K::name, req,
                   "the kernel uses " + std::to_string(fa.numRegs) + " registers per thread, so at most " +
                       std::to_string(fa.maxThreadsPerBlock) + " threads per block can run" + device);
  if (v.shared_bytes + fa.sharedSizeBytes > p.sharedMemPerBlockOptin)
    invalid_launch(K::name, req,
                   "block=" + std::to_string(l.block) + " needs " + std::to_string(v.shared_bytes + fa.sharedSizeBytes) +
                       " bytes of shared memory, over the device's " + std::to_string(p.sharedMemPerBlockOptin) +
                       " per block" + device);
  if (v.shared_bytes > 48 * 1024)
    NBODY_CUDA_CHECK(cudaFuncSetAttribute(v.function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(v.shared_bytes)));
  int per_sm = 0;
  NBODY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.function, l.block, v.shared_bytes));
  if (per_sm == 0)
    invalid_launch(K::name, req, "no block of this shape fits on a multiprocessor (registers or shared memory)" + device);
  Launcher<K>::template finish<T>(l, n, p, per_sm);
  return l;
}

// A kernel of the list, for T: its resolution and its launch (null where it does not run in T).
template <class T>
struct KernelOps {
  std::string_view name;
  bool block_forces = false;
  Launch (*resolve)(const Launch&, std::size_t, bool) = nullptr;
  void (*launch)(const Launch&, const ForceArgs<T>&, Scratch<T>&, cudaStream_t) = nullptr;
  // Kernels with pass_forces (their spec says so): the passes of a resolved shape, and some of them.
  int (*pass_count)(const Launch&, std::size_t) = nullptr;
  void (*launch_passes)(const Launch&, const ForceArgs<T>&, Scratch<T>&, cudaStream_t, int, int, T*) = nullptr;
};

template <class T, class Kernel>
constexpr KernelOps<T> ops_of() {
  KernelOps<T> k{Kernel::name};
  if constexpr (requires { Kernel::block_forces; }) k.block_forces = Kernel::block_forces;
  if constexpr (Kernel::template runs_in<T>) {
    k.resolve = &resolve<Kernel, T>;
    k.launch = &Launcher<Kernel>::template launch<T>;
    if constexpr (requires { Kernel::pass_forces; }) {
      k.pass_count = &Launcher<Kernel>::template pass_count<T>;
      k.launch_passes = &Launcher<Kernel>::template launch_passes<T>;
    }
  }
  return k;
}
template <class T, class... K>
constexpr auto kernel_ops(KernelList<K...>*) {
  return std::array<KernelOps<T>, sizeof...(K)>{ops_of<T, K>()...};
}

}  // namespace detail

template <class T>
struct Backend<T>::Impl {
  static constexpr auto kernels = detail::kernel_ops<T>(static_cast<Kernels*>(nullptr));

  enum Mark { start, stop };     // around the kernels of an evaluation
  Stream<2> stream;
  DeviceBuffer<Body4<T>> d_bodies;
  DeviceBuffer<T> d_acc;
  Body4<T>* h_bodies = nullptr;  // pinned staging
  T* h_acc = nullptr;
  std::size_t cap_n = 0;
  Scratch<T> scratch;
  DeviceBuffer<T> d_targets, d_phi;  // potentials(): the points and the results
  float last_ms = -1;
  Launch last{};
  // The shape resolved for the last (kernel, request, n, clamp): resolving queries the kernel's
  // attributes and occupancy, tens of microseconds that small-N evaluations in a loop would repeat.
  struct Resolved {
    std::size_t kernel;
    Launch request;
    std::size_t n;
    bool clamp;
    Launch shape;
  };
  std::optional<Resolved> resolved;
  DeviceBuffer<T> d_pass_sums;  // compute_passes(): this rank's pass sums, 3n each, for fold_passes()
  int kept_passes = 0;

  // A kernel with pass_forces, or why not.
  static const detail::KernelOps<T>& pass_kernel(std::size_t kernel, std::size_t n) {
    const detail::KernelOps<T>& k = kernels.at(kernel);
    if (!k.launch_passes) throw std::logic_error(std::string(k.name) + " has no passes to split (no pass_forces)");
    check_body_count(n);
    return k;
  }
  // The shape of kernel k for (request, n, clamp), resolved once and kept for the next call.
  const Launch& shape(std::size_t kernel, const Launch& req, std::size_t n, bool clamp) {
    const auto& r = resolved;
    if (!r || r->kernel != kernel || !(r->request == req) || r->n != n || r->clamp != clamp)
      resolved = Resolved{kernel, req, n, clamp, kernels.at(kernel).resolve(req, n, clamp)};
    return resolved->shape;
  }

  Impl() = default;
  ~Impl() {
    if (h_bodies) cudaFreeHost(h_bodies);  // in a destructor: no throw
    if (h_acc) cudaFreeHost(h_acc);
  }

  void reserve(std::size_t n) {
    if (n <= cap_n) return;
    if (h_bodies) NBODY_CUDA_CHECK(cudaFreeHost(h_bodies));
    if (h_acc) NBODY_CUDA_CHECK(cudaFreeHost(h_acc));
    h_bodies = nullptr;
    h_acc = nullptr;
    cap_n = 0;
    d_bodies.reserve(n);
    d_acc.reserve(3 * n);
    NBODY_CUDA_CHECK(cudaMallocHost(&h_bodies, n * sizeof(Body4<T>)));
    NBODY_CUDA_CHECK(cudaMallocHost(&h_acc, 3 * n * sizeof(T)));
    cap_n = n;
  }

  // The n bodies packed as Body4 through the pinned staging buffer and sent to d_bodies on the stream.
  void upload_bodies(const T* pos, const T* mass, std::size_t n) {
    reserve(std::max<std::size_t>(n, 1));  // none (a potential of no bodies): a buffer all the same
    for (std::size_t i = 0; i < n; ++i) h_bodies[i] = Body4<T>{pos[i], pos[n + i], pos[2 * n + i], mass[i]};
    stream.to_device(d_bodies.p, h_bodies, n);
  }
  // Waits for the stream; last_ms: the device time between the marks start and stop.
  void finish_timed() {
    stream.synchronize();
    last_ms = stream.milliseconds(start, stop);
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

template <class T>
void Backend<T>::compute(std::size_t kernel, const Launch& req, const T* pos, const T* mass, std::size_t n,
                         std::size_t first, std::size_t count, T G, T eps2, T rmin2, T* acc) {
  Impl& m = *impl_;
  const detail::KernelOps<T>& k = Impl::kernels.at(kernel);
  if ((first != 0 || count != n) && !k.block_forces)
    throw std::logic_error(std::string(k.name) + " computes all bodies at once (no block_forces)");
  if (!k.launch) throw InputError(std::string(k.name) + " is not compiled for this real type (its spec's runs_in)");
  check_body_count(n);
  const bool clamp = rmin2 > T(0);
  const Launch l = m.shape(kernel, req, n, clamp);
  m.last = l;
  m.last_ms = -1;
  if (n == 0) return;
  m.upload_bodies(pos, mass, n);
  m.stream.mark(Impl::start);
  if (count == 0) return;
  k.launch(l, ForceArgs<T>{m.d_bodies.p, static_cast<int>(n), G, eps2, rmin2, clamp, m.d_acc.p, static_cast<int>(first), static_cast<int>(count)},
           m.scratch, m.stream);
  m.stream.mark(Impl::stop);
  for (std::size_t c = 0; c < 3; ++c)  // the block's rows of x, y and z
    m.stream.to_host(m.h_acc + c * n + first, m.d_acc.p + c * n + first, count);
  m.finish_timed();
  for (std::size_t c = 0; c < 3; ++c) std::memcpy(acc + c * n + first, m.h_acc + c * n + first, count * sizeof(T));
}

template <class T>
int Backend<T>::pass_count(std::size_t kernel, const Launch& req, std::size_t n, T rmin2) {
  const detail::KernelOps<T>& k = Impl::pass_kernel(kernel, n);
  return k.pass_count(impl_->shape(kernel, req, n, rmin2 > T(0)), n);
}

template <class T>
void Backend<T>::compute_passes(std::size_t kernel, const Launch& req, const T* pos, const T* mass, std::size_t n,
                                int pass_first, int pass_end, T G, T eps2, T rmin2) {
  Impl& m = *impl_;
  const detail::KernelOps<T>& k = Impl::pass_kernel(kernel, n);
  const bool clamp = rmin2 > T(0);
  const Launch l = m.shape(kernel, req, n, clamp);
  m.last = l;
  m.last_ms = -1;
  m.kept_passes = 0;
  if (n == 0 || pass_end <= pass_first) return;
  m.upload_bodies(pos, mass, n);
  m.d_pass_sums.reserve(static_cast<std::size_t>(pass_end - pass_first) * 3 * n);
  m.stream.mark(Impl::start);
  k.launch_passes(l, ForceArgs<T>{m.d_bodies.p, static_cast<int>(n), G, eps2, rmin2, clamp, m.d_acc.p, 0, static_cast<int>(n)},
                  m.scratch, m.stream, pass_first, pass_end, m.d_pass_sums.p);
  m.stream.mark(Impl::stop);
  m.finish_timed();
  m.kept_passes = pass_end - pass_first;
}

template <class T>
void Backend<T>::fold_passes(std::size_t n, bool first, bool last, T G, T* acc) {
  Impl& m = *impl_;
  if (n == 0 || m.kept_passes == 0) return;  // none here: acc goes on as it came
  const std::size_t bytes = 3 * n * sizeof(T);
  if (!first) {
    std::memcpy(m.h_acc, acc, bytes);
    m.stream.to_device(m.d_acc.p, m.h_acc, 3 * n);
  }
  pass_fold_kernel<T><<<blocks_for(n, 256), 256, 0, m.stream>>>(m.d_pass_sums.p, m.kept_passes, static_cast<int>(n), first,
                                                                last, G, m.d_acc.p);
  NBODY_CUDA_CHECK_LAUNCH("cuda-pairs pass fold launch");
  m.stream.to_host(m.h_acc, m.d_acc.p, 3 * n);
  m.stream.synchronize();
  std::memcpy(acc, m.h_acc, bytes);
}

template <class T>
void Backend<T>::potentials(const T* pos, const T* mass, std::size_t n, const T* at, std::size_t m, T G, T eps2, T rmin2,
                            bool compensated, T* phi) {
  Impl& s = *impl_;
  check_body_count(n);
  if (m > (std::size_t(1) << 29)) throw InputError("the CUDA potential takes at most 2^29 points, got " + std::to_string(m));
  const bool timed = at != nullptr;  // at the bodies: a diagnostic between evaluations, which keeps their time
  if (timed) s.last_ms = -1;
  if (m == 0) return;
  s.upload_bodies(pos, mass, n);
  if (at) {
    s.d_targets.reserve(3 * m);
    s.stream.to_device(s.d_targets.p, at, 3 * m);
  }
  s.d_phi.reserve(m);
  constexpr int block = 128;
  const auto kernel = compensated ? &potential_kernel<T, true> : &potential_kernel<T, false>;
  if (timed) s.stream.mark(Impl::start);
  kernel<<<blocks_for(m, block), block, block * sizeof(Body4<T>), s.stream>>>(
      s.d_bodies.p, static_cast<int>(n), at ? s.d_targets.p : nullptr, static_cast<int>(m), G, eps2, rmin2, s.d_phi.p);
  NBODY_CUDA_CHECK_LAUNCH("potential_kernel");
  if (timed) s.stream.mark(Impl::stop);
  s.stream.to_host(phi, s.d_phi.p, m);
  if (timed) s.finish_timed();
  else s.stream.synchronize();
}

}  // namespace nbody::cuda
