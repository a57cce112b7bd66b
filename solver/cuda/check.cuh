#pragma once
// Every CUDA runtime call and every launch of the project goes through these checks: a failure
// becomes an exception naming the call, the file and line, and the runtime's message (never a
// silent wrong or "fast" result).
#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace nbody::cuda {

[[noreturn]] inline void fail(cudaError_t err, const char* what, const char* file, int line) {
  throw RunError(std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                 "): " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

}  // namespace nbody::cuda

#define NBODY_CUDA_CHECK(call)                                                   \
  do {                                                                           \
    const cudaError_t nbody_cuda_err_ = (call);                                  \
    if (nbody_cuda_err_ != cudaSuccess) ::nbody::cuda::fail(nbody_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a <<<...>>> launch: the launch itself (bad configuration, missing kernel image) fails
// synchronously and is reported by cudaGetLastError; faults inside the kernel surface at the
// next synchronising call, which is checked too.
#define NBODY_CUDA_CHECK_LAUNCH(what)                                            \
  do {                                                                           \
    const cudaError_t nbody_cuda_err_ = cudaGetLastError();                      \
    if (nbody_cuda_err_ != cudaSuccess) ::nbody::cuda::fail(nbody_cuda_err_, what, __FILE__, __LINE__); \
  } while (0)
