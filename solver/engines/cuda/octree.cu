// The CUDA octree engine's back end (octree.cuh) for float and double.
#include "engines/cuda/octree.cuh"

namespace nbody::cuda {
template class OctreeBackend<float>;
template class OctreeBackend<double>;
}  // namespace nbody::cuda
