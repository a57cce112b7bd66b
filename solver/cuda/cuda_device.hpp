#pragma once
// The CUDA device this process uses: how many there are, which one, and what it is. Plain C++, so
// that the registry, the command line and the tests compile without nvcc; implemented in
// cuda_device.cu. For nvcc also its properties, queried once.
#include <string>

namespace nbody::cuda {

// Number of usable CUDA devices, 0 when there is none or no driver (never throws).
int device_count() noexcept;
// Why there is no device (the runtime's message), for the skip and error messages.
std::string no_device_reason();
// Makes `device` (0 .. device_count() - 1) the one this process's CUDA work runs on (MPI: one GPU
// per rank); before any of it starts. Otherwise device 0.
void use_device(int device);
// The device in use: name, compute capability, SMs, clocks, memory, driver and runtime versions (JSON).
std::string device_json();
std::string device_name();
// Device name and CUDA driver version: the key of the tuning cache.
std::string device_key();
// The free memory of the device in use, in bytes.
unsigned long long free_memory();

}  // namespace nbody::cuda

#ifdef __CUDACC__
#include <cuda_runtime.h>

#include "core/error.hpp"
#include "cuda/check.cuh"

namespace nbody::cuda {

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

}  // namespace nbody::cuda
#endif
