#pragma once
// cuda-naive's kernel: one thread per body, j read straight from global memory (seed S1's first
// version). Templated on the real type T and the arithmetic policy M (device_math.cuh); it calls
// the one shared accumulate_interaction of kernels/common/interaction.hpp. Its spec and launch:
// solver/engines/cuda/cuda_naive.hpp.
//
// Inputs: bodies as Body4<T> (x, y, z, m), n of them. Output: acc, SoA (x[n] y[n] z[n]), G applied.
// The self-interaction j == i is skipped exactly as in `simple`, so no softening is needed.
#include <cuda_runtime.h>

#include "common/interaction.hpp"
#include "cuda/body.cuh"
#include "cuda/device_math.cuh"

namespace nbody::cuda {

// One thread per body, j read straight from global memory (S1's first version).
template <class T, class M>
__global__ void naive_kernel(const Body4<T>* __restrict__ bodies, int n, int i_begin, int i_end, T eps2, T rmin2, T G,
                             T* __restrict__ acc) {
  const int i = i_begin + blockIdx.x * blockDim.x + threadIdx.x;  // the bodies [i_begin, i_end) of n
  if (i >= i_end) return;
  const Body4<T> bi = bodies[i];
  T ax(0), ay(0), az(0);
  for (int j = 0; j < i; ++j) {
    const Body4<T> bj = bodies[j];
    accumulate_interaction<T, M>(bi.x, bi.y, bi.z, bj.x, bj.y, bj.z, bj.m, eps2, rmin2, ax, ay, az);
  }
  for (int j = i + 1; j < n; ++j) {
    const Body4<T> bj = bodies[j];
    accumulate_interaction<T, M>(bi.x, bi.y, bi.z, bj.x, bj.y, bj.z, bj.m, eps2, rmin2, ax, ay, az);
  }
  acc[i] = G * ax;
  acc[n + i] = G * ay;
  acc[2 * n + i] = G * az;
}

}  // namespace nbody::cuda
