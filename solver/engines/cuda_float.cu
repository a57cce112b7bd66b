// CUDA force kernels for float: every compiled variant of kernels/cuda/allpairs.cuh and the host
// side (cuda_backend.cuh) for this real type.
#include "engines/cuda_backend.cuh"

namespace nbody::cuda {
template class Backend<float>;
}  // namespace nbody::cuda
