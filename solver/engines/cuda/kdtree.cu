// The CUDA tree engines' back end (kdtree.cuh) for float and double.
#include "engines/cuda/kdtree.cuh"

namespace nbody::cuda {
template class TreeBackend<float>;
template class TreeBackend<double>;
}  // namespace nbody::cuda
