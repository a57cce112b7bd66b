// CUDA kernels for float: every compiled variant of the force kernels (kernels/cuda/allpairs.cuh) and
// the device-resident stepping kernels (kernels/cuda/resident.cuh), with their host sides
// (cuda_backend.cuh, cuda_resident.cuh) for this real type.
#include "engines/cuda_backend.cuh"
#include "engines/cuda_resident.cuh"

namespace nbody::cuda {
template class Backend<float>;
template class ResidentBackend<float>;
}  // namespace nbody::cuda
