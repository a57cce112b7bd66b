// The CUDA back end for double: every compiled variant of the force kernels (cuda_kernels.hpp) and the
// device-resident stepping kernels, with their host sides (backend.cuh, resident_backend.cuh).
#include "engines/cuda/backend.cuh"
#include "engines/cuda/resident_backend.cuh"

namespace nbody::cuda {
template class Backend<double>;
template class ResidentBackend<double>;
}  // namespace nbody::cuda
