#pragma once
// Registry entries of the GPU engines this build has (CUDA: NBODY_WITH_CUDA, OpenCL:
// NBODY_WITH_OPENCL, both set by cmake/gpu.cmake), appended after the CPU engines: one engine per
// kernel of each back end's list (engines/cuda/kernels.hpp, then the Barnes-Hut walks of
// engines/cuda/cuda_kdtree.hpp and engines/cuda/cuda_octree.hpp; engines/opencl/kernels.hpp, then those of engines/opencl/opencl_kdtree.hpp
// and engines/opencl/opencl_octree.hpp), in the
// real types its spec runs in, its launch knobs as its capabilities. Being listed does not promise
// a device: constructing an engine without one fails with a clear message (exit code 2).
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#if NBODY_WITH_CUDA
#include "engines/cuda/cuda_engines.hpp"
#include "engines/cuda/cuda_kdtree.hpp"
#include "engines/cuda/cuda_octree.hpp"
#endif
#if NBODY_WITH_OPENCL
#include "engines/opencl/opencl_engines.hpp"
#include "engines/opencl/opencl_kdtree.hpp"
#include "engines/opencl/opencl_octree.hpp"
#endif

namespace nbody {

namespace gpu_detail {
template <class T, class Kernel, template <class, class> class Engine>
EngineEntry<T> entry(Device device) {
  EngineCapabilities can;
  can.device = device;
  can.launch = Kernel::template knobs<T>();
  if constexpr (requires { Kernel::tree; }) can.tree = Kernel::tree, can.leaf_size = Kernel::leaf_size;
  if constexpr (requires { Kernel::block_forces; }) can.block_forces = Kernel::block_forces;
  if constexpr (requires { Kernel::pass_forces; }) can.pass_forces = Kernel::pass_forces;
  if constexpr (requires { Engine<T, Kernel>::body_potential_kind; }) can.potentials = Engine<T, Kernel>::body_potential_kind;
  // Memory (core/memory.hpp), measured as the growth of the peaks with N (CUDA on an H200, OpenCL on
  // PoCL, whose device memory is the host's): the bodies and accelerations staged on the host and
  // held on the device, a tree's nodes and keys; the runtime's own (CUDA's about 120 MB, PoCL's 80).
  const int kind = can.tree == TreeKind::kdtree ? 0 : can.tree == TreeKind::octree ? 1 : 2;  // kd-tree, octree, all pairs
  if (device == Device::cuda) {
    can.host_bytes = 120e6;
    can.host_reals = std::array{11, 7, 14}[kind];
    can.device_reals = std::array{39, 24, 7}[kind];
  } else {
    can.host_bytes = 80e6;
    can.host_reals = std::array{68, 68, 5}[kind];
  }
  return {Kernel::name, Kernel::description, std::move(can),
          [](const ForceLaw<T>& law) -> std::unique_ptr<ForceEngine<T>> { return std::make_unique<Engine<T, Kernel>>(law); }};
}
}  // namespace gpu_detail

template <class T>
std::vector<EngineEntry<T>> with_gpu_engines(std::vector<EngineEntry<T>> table) {
#if NBODY_WITH_CUDA
  cuda::Kernels::for_each([&]<class K>() {
    if constexpr (K::template runs_in<T>) table.push_back(gpu_detail::entry<T, K, CudaEngine>(Device::cuda));
  });
  cuda::TreeKernels::for_each([&]<class K>() {
    if constexpr (K::template runs_in<T>) table.push_back(gpu_detail::entry<T, K, CudaTreeEngine>(Device::cuda));
  });
  cuda::OctreeKernels::for_each([&]<class K>() {
    if constexpr (K::template runs_in<T>) table.push_back(gpu_detail::entry<T, K, CudaTreeEngine>(Device::cuda));
  });
#endif
#if NBODY_WITH_OPENCL
  opencl::Kernels::for_each([&]<class K>() {
    if constexpr (K::template runs_in<T>) table.push_back(gpu_detail::entry<T, K, OpenCLEngine>(Device::opencl));
  });
  opencl::TreeKernels::for_each([&]<class K>() {
    if constexpr (K::template runs_in<T>) table.push_back(gpu_detail::entry<T, K, OpenCLEngine>(Device::opencl));
  });
  opencl::OctreeKernels::for_each([&]<class K>() {
    if constexpr (K::template runs_in<T>) table.push_back(gpu_detail::entry<T, K, OpenCLEngine>(Device::opencl));
  });
#endif
  return table;
}

// The GPU engines this build has, in any precision, in registry order: `nbody --build-info` names
// them, `nbody tune` accepts them.
inline std::vector<std::string> gpu_engine_names() {
  std::vector<std::string> names;
  for (const auto& e : all_engines())
    if (e.device != Device::cpu) names.emplace_back(e.name);
  return names;
}

// The GPU back ends usable on this machine now (a device present, not only compiled in):
// "cuda", "opencl". `nbody --build-info` reports them as host.features (the experiment runner's
// `requires`).
inline std::vector<std::string> gpu_features() {
  std::vector<std::string> f;
#if NBODY_WITH_CUDA
  if (cuda::device_count() > 0) f.push_back("cuda");
#endif
#if NBODY_WITH_OPENCL
  if (opencl::device_count() > 0) f.push_back("opencl");
#endif
  return f;
}

// Whether an engine of this device could run here now (the device present); for the tests' skips.
inline bool device_available(Device d) {
  if (d == Device::cpu) return true;
  const auto f = gpu_features();
  return std::find(f.begin(), f.end(), std::string(device_name(d))) != f.end();
}

// Why an engine of this device cannot run here ("no cuda device on this machine"), or "" when it
// can: `nbody list engines` marks such engines, `nbody tune` refuses them.
inline std::string unavailable_reason(Device d) {
  return device_available(d) ? std::string() : "no " + std::string(device_name(d)) + " device on this machine";
}

// The free memory of the GPU an engine with these capabilities runs on (CUDA), for the memory check.
inline std::optional<std::uint64_t> free_gpu_memory(const EngineCapabilities& can) {
#if NBODY_WITH_CUDA
  if (can.device == Device::cuda && cuda::device_count() > 0) return cuda::free_memory();
#endif
  (void)can;
  return std::nullopt;
}

// The CUDA device this run would use (name, compute capability, multiprocessors, maximum clocks,
// memory, CUDA driver and runtime versions) as JSON, or null without CUDA or without a device:
// `nbody --build-info` reports it as host.cuda, so that every runner record names its GPU.
inline std::string cuda_device_json() {
#if NBODY_WITH_CUDA
  if (cuda::device_count() > 0) return cuda::device_json();
#endif
  return "null";
}

}  // namespace nbody
