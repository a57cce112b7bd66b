// The CUDA back end for float: every compiled variant of the force kernels (kernels.hpp) and the
// device-resident stepping kernels, with their host sides (backend.cuh, resident.cuh).
#include "engines/cuda/backend.cuh"
#include "engines/cuda/resident.cuh"

namespace nbody::cuda {
template class Backend<float>;
template class ResidentBackend<float>;
}  // namespace nbody::cuda
