#pragma once
// Implementation of cuda::ResidentBackend<T> (resident_backend.hpp): device buffers, the launch
// shape of the cooperative stepping kernel (kernels/cuda/resident.cuh), and one call = one launch.
// Included by float.cu and double.cu, which instantiate it.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "cuda/check.cuh"
#include "cuda/device_buffer.cuh"
#include "cuda/resident.cuh"
#include "cuda/stream.cuh"
#include "engines/cuda/launch.cuh"
#include "engines/cuda/resident_backend.hpp"

namespace nbody::cuda {

template <class T>
struct ResidentBackend<T>::Impl {
  Stream<> stream;
  T G{1}, eps2{0}, rmin2{0};
  Launch requested{};
  std::string shape;
  // Device memory, grown as needed.
  DeviceBuffer<T> d_y;           // 3 x 6n
  DeviceBuffer<T> d_k;           // slots x 6n
  DeviceBuffer<Body4<T>> d_pos;  // 4 x n
  DeviceBuffer<T> d_partial, d_coef;
  DeviceBuffer<int> d_flags;
  DeviceBuffer<ResidentControl<T>> d_ctl;
  std::vector<Body4<T>> h_bodies;

  Impl() {
    d_coef.reserve((kResidentMaxStages + 3) * kResidentMaxStages);
    d_flags.reserve(kResidentFlags);
    d_ctl.reserve(1);
  }

  void reserve(std::size_t n, std::size_t slots, std::size_t blocks) {
    d_y.reserve(18 * n);
    d_pos.reserve(4 * n);
    d_k.reserve(slots * 6 * n);
    d_partial.reserve(2 * blocks);
  }
};

template <class T>
ResidentBackend<T>::ResidentBackend() : impl_(std::make_unique<Impl>()) {}
template <class T>
ResidentBackend<T>::~ResidentBackend() = default;

template <class T>
void ResidentBackend<T>::set_law(T G, T eps2, T rmin2) {
  impl_->G = G;
  impl_->eps2 = eps2;
  impl_->rmin2 = rmin2;
}
template <class T>
void ResidentBackend<T>::set_launch(const Launch& requested) {
  impl_->requested = requested;
}
template <class T>
std::string ResidentBackend<T>::last_shape() const {
  return impl_->shape;
}

namespace detail {

static_assert(Resident::max_block == kResidentMaxBlock);

[[noreturn]] inline void invalid_resident(const Launch& l, const std::string& why) { invalid_launch(Resident::name, l, why); }

template <class T, class Barrier>
const void* stepping_kernel(bool adams, bool clamp) {
  if (adams)
    return clamp ? reinterpret_cast<const void*>(&resident_adams_kernel<T, DeviceMath<true>, Barrier>)
                 : reinterpret_cast<const void*>(&resident_adams_kernel<T, DeviceMath<false>, Barrier>);
  return clamp ? reinterpret_cast<const void*>(&resident_rk_kernel<T, DeviceMath<true>, Barrier>)
               : reinterpret_cast<const void*>(&resident_rk_kernel<T, DeviceMath<false>, Barrier>);
}

}  // namespace detail

template <class T>
void ResidentBackend<T>::advance(const ResidentMethod<T>& method, ResidentSegment<T>& seg) {
  using namespace detail;
  Impl& m = *impl_;
  const cudaDeviceProp& p = device_properties();
  const std::size_t n = seg.n;
  const int S = method.stages;
  if (S < 1 || S > kResidentMaxStages)
    throw InputError("device-resident steps take methods of 1 to " + std::to_string(kResidentMaxStages) + " stages, got " +
                     std::to_string(S));
  if (n == 0 || n > (std::size_t(1) << 26))
    throw InputError("device-resident steps take 1 to 2^26 bodies, got " + std::to_string(n));

  // The barrier (kernels/cuda/resident.cuh): the cooperative grid-wide sync, or with cluster=K the
  // hardware barrier of one thread-block cluster of at most K blocks.
  const Launch& req = m.requested;
  check_launch(Resident::name, Resident::knobs(), req, req, [](const Knob&) { return 0; }, p.name);
  const bool has_clusters = p.major >= 9;
  if (req.cluster > 1 && !has_clusters)
    invalid_resident(req, std::string("cluster= needs thread-block clusters (compute capability 9.0 or later); ") + p.name +
                              " has " + std::to_string(p.major) + "." + std::to_string(p.minor) + ": use cluster=1");
  const bool use_cluster = req.cluster > 1;
  if (!use_cluster && !p.cooperativeLaunch)
    throw InputError(std::string("device-resident steps need cooperative launches, which ") + p.name +
                     " does not support: use --stepping host");

  // The launch shape: block threads, `lanes` threads per body, blocks co-resident on the device.
  const int block = req.block ? req.block : Resident::max_block;
  const int cluster_cap = req.cluster > 1 ? req.cluster : Resident::max_cluster_blocks;
  int lanes = req.split;
  if (lanes == 0) {
    // Up to 64 threads per body, so that the blocks number about one per multiprocessor (the
    // kernels hold one block each, by registers) or, in a cluster, fill it; more blocks of fewer
    // threads per body wait longer at the barrier of every evaluation (the paper's E05 section).
    const std::size_t target = use_cluster ? cluster_cap : p.multiProcessorCount;
    lanes = 1;
    while (lanes * 2 <= std::min(64, block) && n * std::size_t(lanes * 2) <= std::size_t(block) * target) lanes *= 2;
  }
  if (lanes > block) invalid_resident(req, "split= (threads per body) must be at most block=");
  const void* fn = use_cluster ? stepping_kernel<T, ClusterBarrier>(method.adams, m.rmin2 > T(0))
                               : stepping_kernel<T, GridBarrier>(method.adams, m.rmin2 > T(0));
  // Two tiles (the two evaluations of a round) of up to 16 KB each, and the scratch.
  const int tile = static_cast<int>(std::min<std::size_t>(n, std::max<std::size_t>(block, 16384 / sizeof(Body4<T>))));
  const std::size_t smem = 2 * tile * sizeof(Body4<T>) + block * sizeof(T);
  cudaFuncAttributes fa{};
  NBODY_CUDA_CHECK(cudaFuncGetAttributes(&fa, fn));
  if (block > fa.maxThreadsPerBlock)
    invalid_resident(req, "the kernel uses " + std::to_string(fa.numRegs) + " registers per thread, so at most " +
                              std::to_string(fa.maxThreadsPerBlock) + " threads per block can run (device: " + p.name + ")");
  const std::size_t per_pass = block / lanes;
  const std::size_t wanted = blocks_for(n, per_pass);
  std::size_t blocks = 0;
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute cluster_dim{};
  if (use_cluster) {
    // More than 8 blocks per cluster is "non-portable" (the H100 allows 16) and must be asked for.
    NBODY_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = m.stream;
    cfg.gridDim = dim3(Resident::max_cluster_blocks);
    int largest = 0;
    NBODY_CUDA_CHECK(cudaOccupancyMaxPotentialClusterSize(&largest, fn, &cfg));
    if (largest < 2) invalid_resident(req, std::string("no cluster of two such blocks fits on ") + p.name + ": use cluster=1");
    if (req.cluster > largest)
      invalid_resident(req, "at most " + std::to_string(largest) + " blocks of this shape form one cluster on " + p.name);
    blocks = std::min<std::size_t>(std::min(cluster_cap, largest), wanted);
    cfg.gridDim = dim3(static_cast<unsigned>(blocks));
    cluster_dim.id = cudaLaunchAttributeClusterDimension;
    cluster_dim.val.clusterDim.x = static_cast<unsigned>(blocks);
    cluster_dim.val.clusterDim.y = cluster_dim.val.clusterDim.z = 1;
    cfg.attrs = &cluster_dim;
    cfg.numAttrs = 1;
    int clusters = 0;
    NBODY_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, fn, &cfg));
    if (clusters < 1) invalid_resident(req, std::string("a cluster of this shape does not fit on ") + p.name);
  } else {
    int per_sm = 0;
    NBODY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, block, smem));
    if (per_sm == 0) invalid_resident(req, std::string("no block of this shape fits on a multiprocessor (device: ") + p.name + ")");
    blocks = std::min(static_cast<std::size_t>(per_sm) * p.multiProcessorCount, wanted);
  }
  const std::size_t per_block = (n + blocks - 1) / blocks;
  m.shape = "resident block=" + std::to_string(block) + ",split=" + std::to_string(lanes) + ", " + std::to_string(blocks) +
            (use_cluster ? " blocks in one cluster" : " blocks, grid sync");

  // Upload: coefficients, masses, state, the method's memory.
  const int slots = method.adams ? S + 1 : S;  // Adams: the history ring (kernels/cuda/resident.cuh)
  m.reserve(n, slots, blocks);
  std::vector<T> coef((kResidentMaxStages + 3) * kResidentMaxStages, T(0));
  if (method.adams) {
    std::copy(method.b.begin(), method.b.end(), coef.begin());
  } else {
    std::copy(method.a.begin(), method.a.end(), coef.begin());
    std::copy(method.b.begin(), method.b.end(), coef.begin() + S * S);
    std::copy(method.e.begin(), method.e.end(), coef.begin() + S * S + S);
    std::copy(method.e2.begin(), method.e2.end(), coef.begin() + S * S + 2 * S);
  }
  m.stream.to_device(m.d_coef.p, coef.data(), coef.size());
  m.h_bodies.assign(4 * n, Body4<T>{});
  for (std::size_t i = 0; i < 4 * n; ++i) m.h_bodies[i].m = seg.mass[i % n];
  m.stream.to_device(m.d_pos.p, m.h_bodies.data(), 4 * n);
  const std::size_t m6 = 6 * n;
  m.stream.to_device(m.d_y.p, seg.y, m6);
  const std::size_t uploads = method.adams ? seg.history.size() : (seg.history_current ? 1 : 0);
  for (std::size_t j = 0; j < uploads; ++j)
    m.stream.to_device(m.d_k.p + j * m6, seg.history[j], m6);
  NBODY_CUDA_CHECK(cudaMemsetAsync(m.d_flags.p, 0, kResidentFlags * sizeof(int), m.stream));
  ResidentControl<T> ctl{};
  ctl.t = seg.t;
  ctl.h_next = seg.h_next;
  ctl.pi = seg.pi;
  ctl.y_index = 0;
  ctl.head = 0;
  ctl.current = seg.history_current ? 1 : 0;
  m.stream.to_device(m.d_ctl.p, &ctl, 1);

  ResidentArgs<T> a{};
  a.n = static_cast<int>(n);
  a.G = m.G;
  a.eps2 = m.eps2;
  a.rmin2 = m.rmin2;
  a.per_block = static_cast<int>(per_block);
  a.lanes = lanes;
  a.tile = tile;
  a.adams = method.adams;
  a.stages = S;
  a.ring = slots;
  a.fsal = method.fsal;
  a.adaptive = method.adaptive;
  a.second_estimate = !method.e2.empty();
  a.coef = m.d_coef.p;
  a.atol = method.atol;
  a.rtol = method.rtol;
  a.rule = method.rule;
  a.land_on = seg.land_on;
  a.stop_when = seg.stop_when;
  a.t0 = seg.t0;
  a.dt = seg.dt;
  a.max_steps = seg.max_steps;
  a.step_index = seg.step_index;
  for (int j = 0; j < 3; ++j) a.y[j] = m.d_y.p + j * m6;
  a.k = m.d_k.p;
  for (int j = 0; j < 4; ++j) a.pos[j] = m.d_pos.p + j * n;
  a.partial = m.d_partial.p;
  a.nonfinite = m.d_flags.p;
  a.ctl = m.d_ctl.p;
  void* args[] = {&a};
  if (use_cluster)
    NBODY_CUDA_CHECK(cudaLaunchKernelExC(&cfg, fn, args));
  else
    NBODY_CUDA_CHECK(cudaLaunchCooperativeKernel(fn, dim3(static_cast<unsigned>(blocks)), dim3(block), args, smem, m.stream));
  NBODY_CUDA_CHECK_LAUNCH("device-resident stepping launch");

  m.stream.to_host(&ctl, m.d_ctl.p, 1);
  m.stream.synchronize();
  NBODY_CUDA_CHECK(cudaMemcpy(seg.y, m.d_y.p + ctl.y_index * m6, m6 * sizeof(T), cudaMemcpyDeviceToHost));
  if (method.adams) {
    for (std::size_t j = 0; j < seg.history.size(); ++j)
      NBODY_CUDA_CHECK(cudaMemcpy(seg.history[j], m.d_k.p + ((ctl.head + j) % slots) * m6, m6 * sizeof(T), cudaMemcpyDeviceToHost));
  } else if (ctl.current) {
    NBODY_CUDA_CHECK(cudaMemcpy(seg.history[0], m.d_k.p + ctl.head * m6, m6 * sizeof(T), cudaMemcpyDeviceToHost));
  }
  seg.t = ctl.t;
  seg.h_next = ctl.h_next;
  seg.h_last = ctl.h_last;
  seg.pi = ctl.pi;
  seg.history_current = ctl.current != 0;
  seg.steps = ctl.steps;
  seg.rejected = ctl.rejected;
  seg.evaluations = ctl.evaluations;
  seg.underflow = ctl.underflow != 0;
}

}  // namespace nbody::cuda
