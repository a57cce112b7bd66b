// The device queries of cuda_device.hpp.
#include "cuda/cuda_device.hpp"

#include <cuda_runtime.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cuda/check.cuh"

namespace nbody::cuda {

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

void use_device(int device) { NBODY_CUDA_CHECK(cudaSetDevice(device)); }

std::string device_name() {
  if (device_count() == 0) return "none";
  int dev = 0;
  NBODY_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  NBODY_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  return p.name;
}

unsigned long long free_memory() {
  std::size_t free = 0, total = 0;
  NBODY_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
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
