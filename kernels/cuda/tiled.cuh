#pragma once
// The shared-memory tiled kernel of cuda-tiled and cuda-split (seeds S1, S2, S4; NVIDIA's nbody
// sample), templated on the real type T, the arithmetic policy M (device_math.cuh), the inner-loop
// unroll factor U (seed S2's Table 14-1) and the bodies per thread I. It calls the one shared
// accumulate_interaction of kernels/common/interaction.hpp. Its specs and launch:
// solver/engines/cuda/cuda_tiled.hpp.
//
// Inputs: bodies as Body4<T> (x, y, z, m), n of them. Output: acc, SoA (x[n] y[n] z[n]), G applied.
// Any n works: partial tiles are handled by a counted loop, threads past n load a valid body and
// write nothing. The self-interaction j == i is skipped exactly as in `simple` (only the tile that
// holds a block's own bodies pays for the test), so no softening is needed.
#include <cuda_runtime.h>

#include "common/interaction.hpp"
#include "cuda/body.cuh"
#include "cuda/device_math.cuh"

namespace nbody::cuda {

template <class T>
struct TiledArgs {
  const Body4<T>* bodies;
  int n;
  T eps2, rmin2, G;
  T* acc;              // 3n, SoA
  T* partial;          // split > 1: [split][3][n] partial sums (without G)
  unsigned* tickets;   // split > 1: one counter per blockIdx.x, zero between launches
  int tiles_per_split; // j-tiles (of blockDim.x bodies) each blockIdx.y handles
  int i_begin, i_end;  // the bodies i computed (all: 0, n); the j-range is always all n
};

// Shared-memory tiles (S2, S4): each block stages blockDim.x bodies at a time in shared memory and
// every thread interacts its I bodies with the whole tile. With gridDim.y = split > 1 the j-range
// is cut into `split` contiguous pieces, one per blockIdx.y (S1's BLOCK_STRIDE); each block writes
// its partial sums, and the last block of a column to finish (a ticket counter) adds the pieces
// in the fixed order 0..split-1, so the result does not depend on which block ran when.
template <class T, class M, int U, int I>
__global__ void tiled_kernel(TiledArgs<T> a) {
  extern __shared__ __align__(32) unsigned char smem_raw[];
  Body4<T>* tile = reinterpret_cast<Body4<T>*>(smem_raw);
  __shared__ bool last_block;

  const int B = blockDim.x;
  const int tid = threadIdx.x;
  const int n = a.n;
  const int first = a.i_begin + blockIdx.x * (B * I);  // this block's bodies: first + q*B + tid, q < I

  const ThreadBodies<T, I> own(a.bodies, n, first, B, tid);
  T ax[I], ay[I], az[I];
#pragma unroll
  for (int q = 0; q < I; ++q) ax[q] = ay[q] = az[q] = T(0);

  const int ntiles = (n + B - 1) / B;
  const int t_begin = blockIdx.y * a.tiles_per_split;
  const int t_end = min(ntiles, t_begin + a.tiles_per_split);
  for (int t = t_begin; t < t_end; ++t) {
    const int j0 = t * B;
    if (j0 + tid < n) tile[tid] = a.bodies[j0 + tid];
    __syncthreads();
    const int count = min(B, n - j0);
    const bool holds_own = j0 < first + B * I && j0 + count > first;
    if (count == B && !holds_own) {
#pragma unroll U
      for (int k = 0; k < B; ++k) {
        const Body4<T> bj = tile[k];
#pragma unroll
        for (int q = 0; q < I; ++q)
          accumulate_interaction<T, M>(own.x[q], own.y[q], own.z[q], bj.x, bj.y, bj.z, bj.m, a.eps2, a.rmin2, ax[q], ay[q], az[q]);
      }
    } else {
      for (int k = 0; k < count; ++k) {
        const Body4<T> bj = tile[k];
        const int j = j0 + k;
#pragma unroll
        for (int q = 0; q < I; ++q)
          if (j != first + q * B + tid)
            accumulate_interaction<T, M>(own.x[q], own.y[q], own.z[q], bj.x, bj.y, bj.z, bj.m, a.eps2, a.rmin2, ax[q], ay[q], az[q]);
      }
    }
    __syncthreads();
  }

  if (gridDim.y == 1) {
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int i = first + q * B + tid;
      if (i < a.i_end) {
        a.acc[i] = a.G * ax[q];
        a.acc[n + i] = a.G * ay[q];
        a.acc[2 * n + i] = a.G * az[q];
      }
    }
    return;
  }

  // Split: publish this piece, then the last block of the column sums all pieces in order.
  T* piece = a.partial + static_cast<size_t>(blockIdx.y) * 3 * n;
#pragma unroll
  for (int q = 0; q < I; ++q) {
    const int i = first + q * B + tid;
    if (i < a.i_end) {
      piece[i] = ax[q];
      piece[n + i] = ay[q];
      piece[2 * n + i] = az[q];
    }
  }
  __threadfence();
  __syncthreads();
  if (tid == 0) last_block = atomicAdd(&a.tickets[blockIdx.x], 1u) == gridDim.y - 1;
  __syncthreads();
  if (!last_block) return;
  __threadfence();
#pragma unroll
  for (int q = 0; q < I; ++q) {
    const int i = first + q * B + tid;
    if (i < a.i_end) {
      T sx(0), sy(0), sz(0);
      for (unsigned s = 0; s < gridDim.y; ++s) {
        const T* p = a.partial + static_cast<size_t>(s) * 3 * n;
        sx += load_cg(p + i);
        sy += load_cg(p + n + i);
        sz += load_cg(p + 2 * n + i);
      }
      a.acc[i] = a.G * sx;
      a.acc[n + i] = a.G * sy;
      a.acc[2 * n + i] = a.G * sz;
    }
  }
  if (tid == 0) a.tickets[blockIdx.x] = 0;  // ready for the next launch
}

}  // namespace nbody::cuda
