#pragma once
// The potential of the bodies at target points (`nbody potential`): one thread per target, the
// bodies in tiles of the block's size through shared memory, each target's sum taken in body order,
// phi = -G sum_j m_j k(|x_j - p|) with the force law's pair potential (kernels/common/interaction.hpp,
// softening and clamp included). Launched by cuda::Backend<T>::potentials (backend.cuh): any block
// size, dynamic shared memory blockDim.x * sizeof(Body4<T>).
#include <cuda_runtime.h>

#include "common/interaction.hpp"
#include "cuda/body.cuh"
#include "cuda/device_math.cuh"

namespace nbody::cuda {

template <class T>
__global__ void potential_kernel(const Body4<T>* __restrict__ bodies, int n, const T* __restrict__ at, int m, T G, T eps2,
                                 T rmin2, T* __restrict__ phi) {
  extern __shared__ __align__(16) unsigned char potential_tile_bytes[];
  Body4<T>* tile = reinterpret_cast<Body4<T>*>(potential_tile_bytes);
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = t < m;  // the others load tiles and pass the barriers, writing nothing
  const T px = active ? at[t] : T(0), py = active ? at[m + t] : T(0), pz = active ? at[2 * m + t] : T(0);
  T sum(0);
  for (int first = 0; first < n; first += blockDim.x) {
    if (first + static_cast<int>(threadIdx.x) < n) tile[threadIdx.x] = bodies[first + threadIdx.x];
    __syncthreads();
    const int count = min(static_cast<int>(blockDim.x), n - first);
    for (int k = 0; k < count; ++k) {
      const Body4<T> b = tile[k];
      sum = sum + b.m * pair_potential_kernel(b.x - px, b.y - py, b.z - pz, eps2, rmin2);
    }
    __syncthreads();
  }
  if (active) phi[t] = -G * sum;
}

}  // namespace nbody::cuda
