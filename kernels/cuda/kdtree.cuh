#pragma once
// The CUDA Barnes-Hut walks on seed S0's kd-tree: one thread per body, each walking the tree by
// the shared walks of kernels/common/kdtree.hpp with the device's arithmetic (DeviceMath). The
// engines (their specs and host side: solver/engines/cuda/cuda_kdtree.hpp) differ in the threads'
// order and in how the nodes are read:
//   InputOrder: thread q takes body q (S0's "cycle"), else tree position q ("nested": the threads
//               of a warp walk neighbouring bodies, so nearly the same nodes);
//   Load:       kdtree::PlainLoad, or LdgLoad (the read-only data path, one 4-wide fetch per node);
//   Stackless:  walk_stackless (index arithmetic) instead of walk_stack.
// Output: acc (SoA, body order, G applied) and each thread's number of terms.
#include <cuda_runtime.h>

#include "common/kdtree.hpp"
#include "cuda/device_math.cuh"

namespace nbody::cuda {

// Node reads through the read-only data cache: x, y, z and crit2 in one 16-byte fetch (float4),
// two for double (double2; node i's four values are 32-byte aligned).
struct LdgLoad {
  __device__ static kdtree::Node<float> node(const kdtree::HeapView<float>& t, unsigned i) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(t.node) + i);
    return {v.x, v.y, v.z, v.w};
  }
  __device__ static kdtree::Node<double> node(const kdtree::HeapView<double>& t, unsigned i) {
    const double2* p = reinterpret_cast<const double2*>(t.node) + 2 * static_cast<std::size_t>(i);
    const double2 a = __ldg(p), b = __ldg(p + 1);
    return {a.x, a.y, b.x, b.y};
  }
  template <class T>
  __device__ static T mass(const kdtree::HeapView<T>& t, unsigned i) {
    return __ldg(t.mass + i);
  }
};

template <class T, class M, class Load, bool InputOrder, bool Stackless>
__global__ void kdtree_walk_kernel(kdtree::HeapView<T> t, const unsigned* __restrict__ body,
                                   const unsigned* __restrict__ position, const T* __restrict__ pos, unsigned n, T eps2,
                                   T rmin2, T G, T* __restrict__ acc, unsigned long long* __restrict__ terms) {
  const unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const unsigned i = InputOrder ? q : body[q];      // body index
  const unsigned p = InputOrder ? position[q] : q;  // tree position
  const kdtree::Target<T> r = InputOrder ? kdtree::Target<T>{pos[i], pos[n + i], pos[2 * static_cast<std::size_t>(n) + i], p}
                                         : kdtree::Target<T>{t.bx[p], t.by[p], t.bz[p], p};
  AccelerationSum<T, M> a;
  terms[q] = Stackless ? kdtree::walk_stackless<Load>(t, r, eps2, rmin2, a) : kdtree::walk_stack<Load>(t, r, eps2, rmin2, a);
  a.store(acc, n, i, G);
}

}  // namespace nbody::cuda
