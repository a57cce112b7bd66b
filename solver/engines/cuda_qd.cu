// CUDA force kernels for qd: the one compiled variant of kernels/cuda/allpairs.cuh (no unrolling,
// one body per thread) and the host side (cuda_backend.cuh) for this real type.
// Compiled with --fmad=false (CMake), as dd: the error-free transformations need every product
// rounded on its own.
#include "engines/cuda_backend.cuh"

namespace nbody::cuda {
template class Backend<::nbody::qd>;
}  // namespace nbody::cuda
