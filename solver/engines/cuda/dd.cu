// The CUDA back end for dd: every compiled variant of the force kernels (cuda_kernels.hpp) that run in
// dd, with their host side (backend.cuh).
// Compiled with --fmad=false (CMake): the error-free transformations of double-double
// arithmetic need every product rounded on its own; fused operations are written as fma.
#include "engines/cuda/backend.cuh"

namespace nbody::cuda {
template class Backend<::nbody::dd>;
}  // namespace nbody::cuda
