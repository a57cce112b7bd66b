#pragma once
// Registry entries of the GPU engines this build has (CUDA: NBODY_WITH_CUDA, OpenCL:
// NBODY_WITH_OPENCL, both set by cmake/gpu.cmake), appended after the CPU engines, each only for
// the real types its kernels exist for. Being listed does not promise a device: constructing an
// engine without one fails with a clear message (exit code 2).
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/real.hpp"
#include "engines/engine.hpp"
#if NBODY_WITH_CUDA
#include "engines/cuda_engine.hpp"
#endif
#if NBODY_WITH_OPENCL
#include "engines/opencl_engine.hpp"
#endif

namespace nbody {

namespace gpu_detail {
template <template <class> class E, class T>
EngineEntry<T> gpu_entry() {
  using I = typename E<T>::info;
  return {I::name, I::description, [](const ForceLaw<T>& law) -> std::unique_ptr<ForceEngine<T>> {
            return std::make_unique<typename E<T>::type>(law);
          }};
}
}  // namespace gpu_detail

template <class T>
std::vector<EngineEntry<T>> with_gpu_engines(std::vector<EngineEntry<T>> table) {
#if NBODY_WITH_CUDA
  if constexpr (cuda_supports<T>) {
    table.push_back(gpu_detail::gpu_entry<CudaNaiveEngine, T>());
    table.push_back(gpu_detail::gpu_entry<CudaTiledEngine, T>());
    table.push_back(gpu_detail::gpu_entry<CudaSplitEngine, T>());
  }
  if constexpr (cuda::pairs_supported<T>) table.push_back(gpu_detail::gpu_entry<CudaPairsEngine, T>());
#endif
#if NBODY_WITH_OPENCL
  if constexpr (opencl_supports<T>) table.push_back(gpu_detail::gpu_entry<OpenCLTiledEngine, T>());
#endif
  return table;
}

// The GPU engines this build has, in any precision, in registry order (read from the entries
// above, so never a stale list): `nbody --build-info` names them, `nbody tune` accepts them.
inline std::vector<std::string> gpu_engine_names() {
  std::vector<std::string> names;
  auto add = [&names](const auto& entries) {
    for (const auto& e : entries)
      if (std::find(names.begin(), names.end(), e.name) == names.end()) names.emplace_back(e.name);
  };
#define NBODY_ADD_GPU_ENGINES(U) add(with_gpu_engines<U>({}));
  NBODY_FOR_EACH_PRECISION(NBODY_ADD_GPU_ENGINES)
#undef NBODY_ADD_GPU_ENGINES
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
