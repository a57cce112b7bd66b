// CUDA force kernels for dd: every compiled variant of kernels/cuda/allpairs.cuh and the host
// side (cuda_backend.cuh) for this real type.
// Compiled with --fmad=false (CMake): the error-free transformations of double-double
// arithmetic need every product rounded on its own; fused operations are written as fma.
#include "engines/cuda_backend.cuh"

namespace nbody::cuda {
template class Backend<::nbody::dd>;
}  // namespace nbody::cuda
