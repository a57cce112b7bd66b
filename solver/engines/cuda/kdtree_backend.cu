// The CUDA tree engines' back end (kdtree_backend.cuh) for float and double.
#include "engines/cuda/kdtree_backend.cuh"

namespace nbody::cuda {
template class TreeBackend<float>;
template class TreeBackend<double>;
}  // namespace nbody::cuda
