// The CUDA octree engine's back end (octree_backend.cuh) for float and double.
#include "engines/cuda/octree_backend.cuh"

namespace nbody::cuda {
template class OctreeBackend<float>;
template class OctreeBackend<double>;
}  // namespace nbody::cuda
