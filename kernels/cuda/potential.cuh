#pragma once
// The potential of the bodies at target points (`nbody potential`) or at the bodies themselves
// (ForceEngine::body_potentials): one thread per target, the bodies in tiles of the block's size
// through shared memory, each target's sum taken in body order, phi = -G sum_j m_j k(|x_j - p|)
// with the force law's pair potential (kernels/common/interaction.hpp, softening and clamp
// included); a body's own term left out when the targets are the bodies; with Compensated, the sum
// in Neumaier's compensation (common/compensated.hpp), as the CPU's direct sum. Launched by
// cuda::Backend<T>::potentials (backend.cuh): any block size, dynamic shared memory
// blockDim.x * sizeof(Body4<T>).
#include <cuda_runtime.h>

#include "common/compensated.hpp"
#include "common/interaction.hpp"
#include "cuda/body.cuh"
#include "cuda/device_math.cuh"

namespace nbody::cuda {

// at: the m targets (3m, SoA), or null: the n bodies themselves (m = n).
template <class T, bool Compensated>
__global__ void potential_kernel(const Body4<T>* __restrict__ bodies, int n, const T* __restrict__ at, int m, T G, T eps2,
                                 T rmin2, T* __restrict__ phi) {
  extern __shared__ __align__(16) unsigned char potential_tile_bytes[];
  Body4<T>* tile = reinterpret_cast<Body4<T>*>(potential_tile_bytes);
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = t < m;  // the others load tiles and pass the barriers, writing nothing
  const int self = at || !active ? -1 : t;  // the body left out
  T px(0), py(0), pz(0);
  if (active) {
    if (at) {
      px = at[t], py = at[m + t], pz = at[2 * m + t];
    } else {
      const Body4<T> b = bodies[t];
      px = b.x, py = b.y, pz = b.z;
    }
  }
  T sum(0), correction(0);
  for (int first = 0; first < n; first += blockDim.x) {
    if (first + static_cast<int>(threadIdx.x) < n) tile[threadIdx.x] = bodies[first + threadIdx.x];
    __syncthreads();
    const int count = min(static_cast<int>(blockDim.x), n - first);
    for (int k = 0; k < count; ++k) {
      if (first + k == self) continue;
      const Body4<T> b = tile[k];
      const T term = b.m * pair_potential_kernel(b.x - px, b.y - py, b.z - pz, eps2, rmin2);
      if constexpr (Compensated) neumaier_add(sum, correction, term);
      else sum = sum + term;
    }
    __syncthreads();
  }
  if (active) phi[t] = -G * (Compensated ? sum + correction : sum);
}

}  // namespace nbody::cuda
