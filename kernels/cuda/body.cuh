#pragma once
// Position and mass of one body packed into one aligned vector (AoS, seed S2 / the CUDA Handbook):
// float 16 bytes (one 128-bit load), double 32 bytes (two), dd 64 bytes (four), qd 128 bytes. CUDA 13
// deprecates double4, so the type is our own aligned struct rather than the vector types.
#include <cuda_runtime.h>

#include "common/double_double.hpp"
#include "common/quad_double.hpp"

namespace nbody::cuda {

template <class T>
struct Body4;
template <>
struct alignas(16) Body4<float> {
  float x, y, z, m;
};
template <>
struct alignas(32) Body4<double> {
  double x, y, z, m;
};
template <>
struct alignas(16) Body4<dd> {
  dd x, y, z, m;
};
template <>
struct alignas(16) Body4<qd> {
  qd x, y, z, m;
};
static_assert(sizeof(Body4<float>) == 16 && sizeof(Body4<double>) == 32 && sizeof(Body4<dd>) == 64 &&
              sizeof(Body4<qd>) == 128);

// The I bodies of thread `tid` in a block whose bodies start at `first`: first + q*B + tid, q < I.
// Past n the last body stands in (its results are never written), so the inner loops need no test
// on i. Fully unrolled, the arrays live in registers.
template <class T, int I>
struct ThreadBodies {
  T x[I], y[I], z[I], m[I];
  __device__ ThreadBodies(const Body4<T>* bodies, int n, int first, int B, int tid) {
#pragma unroll
    for (int q = 0; q < I; ++q) {
      const int i = first + q * B + tid;
      const Body4<T> b = bodies[i < n ? i : n - 1];
      x[q] = b.x;
      y[q] = b.y;
      z[q] = b.z;
      m[q] = b.m;
    }
  }
};

// Loads that bypass L1 (partial sums written by other blocks of the same launch).
__device__ inline float load_cg(const float* p) { return __ldcg(p); }
__device__ inline double load_cg(const double* p) { return __ldcg(p); }
__device__ inline dd load_cg(const dd* p) { return dd(__ldcg(&p->hi), __ldcg(&p->lo)); }
__device__ inline qd load_cg(const qd* p) {
  return qd(__ldcg(&p->x[0]), __ldcg(&p->x[1]), __ldcg(&p->x[2]), __ldcg(&p->x[3]));
}

}  // namespace nbody::cuda
