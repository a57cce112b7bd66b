#pragma once
// Each pair once (Newton's third law): the kernel of cuda-pairs (its spec and launch:
// solver/engines/cuda/cuda_pairs.hpp). The all-pairs kernels (naive.cuh, tiled.cuh) spend about 13
// instructions per interaction (12 FP32 + 1 rsqrt in float) and are bound by instruction issue
// (the paper's E24); accumulate_pair_interaction serves both bodies of a pair with 16 + 1, so
// N(N-1)/2 pair evaluations do the work of N(N-1) interactions. The price is the other body's sum, which lives in another thread; here it moves
// between lanes and is summed in a fixed order, without atomics, so results do not vary run to run.
//
// Tiles of P = blockDim.x * I bodies (a block's i-bodies, I per thread); ntiles = ceil(n / P). Block
// `row` takes its own tile one-sided (j != i) and the tiles row+d (mod ntiles) for d = 1..pair_band:
// every pair of distinct tiles exactly once. For such a j-tile, blockDim.x bodies at a time go to
// shared memory; at step s warp w takes chunk (w + s) mod W of 32 of them (a permutation: no two
// warps share a chunk between barriers); lane l starts at j = l of the chunk and after each of 32
// steps passes its j-side sums one lane down (shuffle) and reads the next j from shared memory.
// The j-side sums of tile row+d go to slot 1 + d - d_first of a [slots][3][n] buffer, the rows' own
// sums to slot 0; pairs_reduce_kernel adds them per body in the order slot 0, d = d_first..d_last.
// The distances are done in passes [d_first, d_last] (`split=` passes; the buffer holds one pass),
// each pass's sum added onto the previous passes' sums. MPI ranks split the passes (mpi:cuda-pairs):
// each keeps its passes' sums, and the ranks add them on in pass order, one after the other
// (pass_fold_kernel), which is the order of one process.
#include <cuda_runtime.h>

#include "common/interaction.hpp"
#include "cuda/body.cuh"
#include "cuda/device_math.cuh"

namespace nbody::cuda {

constexpr int pairs_max_block = 256;  // shared arrays below; blocks are whole warps up to this

// Row a owns the tiles a+1 .. a+pair_band(a) (mod ntiles): with an odd count every row has
// (ntiles-1)/2; with an even count the pairs at distance ntiles/2 go to the first half of the rows.
__host__ __device__ inline int pair_band(int a, int ntiles) {
  const int half = ntiles / 2;
  return (ntiles % 2) ? half : (a < half ? half : half - 1);
}

// After each step lane l takes over lane src = l+1's j-side sums (its j moves on by one lane too).
template <class T>
__device__ inline void pass_j_sums_down(T& gx, T& gy, T& gz, int src) {
  gx = __shfl_sync(0xffffffffu, gx, src);
  gy = __shfl_sync(0xffffffffu, gy, src);
  gz = __shfl_sync(0xffffffffu, gz, src);
}

template <class T>
struct PairsArgs {
  const Body4<T>* bodies;
  int n, ntiles;
  T eps2, rmin2;
  int d_first, d_last;  // this pass's tile distances; the pass with d_first == 1 also does the own tile
  T* slots;             // [2 + d_last - d_first][3][n]
};

template <class T, class M, int I>
__global__ void __launch_bounds__(pairs_max_block) pairs_kernel(PairsArgs<T> a) {
  __shared__ Body4<T> tile[pairs_max_block];
  __shared__ T jx[pairs_max_block], jy[pairs_max_block], jz[pairs_max_block];
  const int B = blockDim.x, W = B / 32;
  const int tid = threadIdx.x, w = tid / 32, l = tid % 32;
  const int n = a.n, P = B * I;
  const int row = blockIdx.x, i0 = row * P;

  const ThreadBodies<T, I> own(a.bodies, n, i0, B, tid);
  T ax[I], ay[I], az[I];
#pragma unroll
  for (int q = 0; q < I; ++q) ax[q] = ay[q] = az[q] = T(0);

  if (a.d_first == 1) {  // own tile, one-sided: j != i
    for (int sub = 0; sub < I && i0 + sub * B < n; ++sub) {
      const int j0 = i0 + sub * B, count = min(B, n - j0);
      if (tid < count) tile[tid] = a.bodies[j0 + tid];
      __syncthreads();
      for (int k = 0; k < count; ++k) {
        const Body4<T> bj = tile[k];
#pragma unroll
        for (int q = 0; q < I; ++q)
          if (q != sub || k != tid)
            accumulate_interaction<T, M>(own.x[q], own.y[q], own.z[q], bj.x, bj.y, bj.z, bj.m, a.eps2, a.rmin2, ax[q], ay[q], az[q]);
      }
      __syncthreads();
    }
  }

  const int src = (l + 1) % 32;  // the lane whose j-side sums come to this lane after a step
  const int d_end = min(a.d_last, pair_band(row, a.ntiles));
  for (int d = a.d_first; d <= d_end; ++d) {
    const int col = (row + d) % a.ntiles;
    T* slot = a.slots + static_cast<size_t>(1 + d - a.d_first) * 3 * n;
    const bool whole = i0 + P <= n && (col + 1) * P <= n;  // no body of either tile missing
    for (int sub = 0; sub < I && col * P + sub * B < n; ++sub) {
      const int j0 = col * P + sub * B, count = min(B, n - j0);
      if (tid < count) tile[tid] = a.bodies[j0 + tid];
      jx[tid] = jy[tid] = jz[tid] = T(0);
      __syncthreads();
      for (int s = 0; s < W; ++s) {
        const int c = ((w + s) % W) * 32;
        T gx = jx[c + l], gy = jy[c + l], gz = jz[c + l];
        if (whole) {
#pragma unroll 8
          for (int k = 0; k < 32; ++k) {
            const Body4<T> bj = tile[c + (l + k) % 32];
#pragma unroll
            for (int q = 0; q < I; ++q)
              accumulate_pair_interaction<T, M>(own.x[q], own.y[q], own.z[q], own.m[q], bj.x, bj.y, bj.z, bj.m, a.eps2, a.rmin2,
                                                ax[q], ay[q], az[q], gx, gy, gz);
            pass_j_sums_down(gx, gy, gz, src);
          }
        } else {  // the last tile: skip bodies past n on either side
          for (int k = 0; k < 32; ++k) {
            const int jl = c + (l + k) % 32;
            const Body4<T> bj = tile[jl];
#pragma unroll
            for (int q = 0; q < I; ++q)
              if (jl < count && i0 + q * B + tid < n)
                accumulate_pair_interaction<T, M>(own.x[q], own.y[q], own.z[q], own.m[q], bj.x, bj.y, bj.z, bj.m, a.eps2,
                                                  a.rmin2, ax[q], ay[q], az[q], gx, gy, gz);
            pass_j_sums_down(gx, gy, gz, src);
          }
        }
        jx[c + l] = gx;
        jy[c + l] = gy;
        jz[c + l] = gz;
        __syncthreads();
      }
      if (tid < count) {
        slot[j0 + tid] = jx[tid];
        slot[n + j0 + tid] = jy[tid];
        slot[2 * n + j0 + tid] = jz[tid];
      }
    }
  }

#pragma unroll
  for (int q = 0; q < I; ++q) {
    const int i = i0 + q * B + tid;
    if (i < n) {
      a.slots[i] = ax[q];
      a.slots[n + i] = ay[q];
      a.slots[2 * n + i] = az[q];
    }
  }
}

// The pass's sum of each body (3n, SoA): slot 0 + the j-side slots of this pass in the order of d,
// added to the previous passes' sums unless first (acc = acc + pass sum), times G on the last pass.
// With first and not last it leaves the pass's sum alone in acc: MPI ranks that split the passes
// keep them so (pass_fold_kernel adds them on).
template <class T>
__global__ void pairs_reduce_kernel(const T* __restrict__ slots, int n, int P, int ntiles, int d_first, int d_last,
                                    bool first, bool last, T G, T* __restrict__ acc) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int col = i / P;
  T sx = slots[i], sy = slots[n + i], sz = slots[2 * n + i];
  for (int d = d_first; d <= d_last; ++d) {
    if (d > pair_band((col - d + ntiles) % ntiles, ntiles)) continue;  // row col-d does not own this tile
    const T* s = slots + static_cast<size_t>(1 + d - d_first) * 3 * n;
    sx += s[i];
    sy += s[n + i];
    sz += s[2 * n + i];
  }
  if (!first) sx = acc[i] + sx, sy = acc[n + i] + sy, sz = acc[2 * n + i] + sz;
  acc[i] = last ? G * sx : sx;
  acc[n + i] = last ? G * sy : sy;
  acc[2 * n + i] = last ? G * sz : sz;
}

// acc = the pass sums `sums` (count x 3n, in pass order) added onto acc one after the other, as the
// reduction of one process adds them (the first onto nothing when first), times G when last.
template <class T>
__global__ void pass_fold_kernel(const T* __restrict__ sums, int count, int n, bool first, bool last, T G,
                                 T* __restrict__ acc) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T s[3];
  for (int c = 0; c < 3; ++c) {
    const T* sum = sums + static_cast<size_t>(c) * n + i;
    s[c] = first ? sum[0] : acc[c * n + i] + sum[0];
    for (int k = 1; k < count; ++k) s[c] = s[c] + sum[static_cast<size_t>(k) * 3 * n];
    acc[c * n + i] = last ? G * s[c] : s[c];
  }
}

}  // namespace nbody::cuda
