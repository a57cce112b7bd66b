// Type-independent host helpers of the CUDA engines: device queries and launch-shape text.
#include <cuda_runtime.h>

#include <charconv>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "cuda/check.cuh"
#include "engines/cuda_backend.hpp"

namespace nbody::cuda {

Launch parse_launch(std::string_view spec) {
  Launch l;
  std::size_t pos = 0;
  while (pos < spec.size()) {
    std::size_t end = spec.find(',', pos);
    if (end == std::string_view::npos) end = spec.size();
    const std::string_view item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    const std::string_view val = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
    int v = 0;
    const auto r = std::from_chars(val.data(), val.data() + val.size(), v);
    if (eq == std::string_view::npos || val.empty() || r.ec != std::errc() || r.ptr != val.data() + val.size())
      throw InputError("--launch: '" + std::string(item) + "' is not KEY=INTEGER (keys: block, split, unroll, ipt, cluster)");
    if (key == "block") l.block = v;
    else if (key == "split") l.split = v;
    else if (key == "unroll") l.unroll = v;
    else if (key == "ipt") l.ipt = v;
    else if (key == "cluster") l.cluster = v;
    else throw InputError("--launch: unknown key '" + std::string(key) + "' (valid: block, split, unroll, ipt, cluster)");
    if (v < 1) throw InputError("--launch: " + std::string(key) + " must be at least 1, got " + std::to_string(v));
  }
  return l;
}

std::string to_string(const Launch& l) {
  auto f = [](int v) { return v == 0 ? std::string("auto") : std::to_string(v); };
  return "block=" + f(l.block) + ",split=" + f(l.split) + ",unroll=" + f(l.unroll) + ",ipt=" + f(l.ipt) +
         (l.cluster ? ",cluster=" + f(l.cluster) : "");
}

int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

std::string no_device_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  (void)cudaGetLastError();
  if (err != cudaSuccess) return cudaGetErrorString(err);
  return count == 0 ? "no CUDA device found" : "";
}

std::string device_name() {
  if (device_count() == 0) return "none";
  cudaDeviceProp p{};
  NBODY_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  return p.name;
}

std::string device_key() {
  int driver = 0;
  cudaDriverGetVersion(&driver);
  return device_name() + " (CUDA driver " + std::to_string(driver) + ")";
}

std::string device_json() {
  nlohmann::json j;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  j["cuda_runtime_version"] = runtime;
  j["cuda_driver_api_version"] = driver;
  if (device_count() == 0) {
    j["device"] = nullptr;
    j["reason"] = no_device_reason();
    return j.dump();
  }
  int dev = 0;
  NBODY_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  NBODY_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    NBODY_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
  };
  j["device"] = p.name;
  j["compute_capability"] = std::to_string(p.major) + "." + std::to_string(p.minor);
  j["multiprocessors"] = p.multiProcessorCount;
  j["max_sm_clock_khz"] = attr(cudaDevAttrClockRate);
  j["max_memory_clock_khz"] = attr(cudaDevAttrMemoryClockRate);
  j["memory_bus_width_bits"] = p.memoryBusWidth;
  j["global_memory_bytes"] = p.totalGlobalMem;
  j["l2_bytes"] = p.l2CacheSize;
  j["shared_memory_per_block_optin"] = p.sharedMemPerBlockOptin;
  j["max_threads_per_block"] = p.maxThreadsPerBlock;
  j["pci_bus_id"] = p.pciBusID;
  return j.dump();
}

}  // namespace nbody::cuda
