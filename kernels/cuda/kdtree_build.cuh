#pragma once
// The kd-tree of kernels/common/kdtree.hpp built on the GPU: the same tree as the host's
// build_heap_tree (solver/engines/kdtree/heap_tree.hpp), the same bodies on each side of every
// split, the same moments to rounding. The host side (the order of the launches):
// engines/cuda/kdtree_backend.cuh.
//
// Algorithm. The bodies are sorted once per axis by (coordinate + 0, body index), CUB's stable
// radix sort over the indices in order: the host's total order. A node's bodies are then a
// contiguous range of tree positions [first, end) in each of the three sorted arrays: the same
// set in three orders. Level by level, the first split - first entries of the split axis's array
// go left; every body is flagged left or right from that array, and the other arrays are stably
// partitioned within each node's range (an exclusive scan of the flags gives every body its new
// place), so that each keeps its order for the children (the split axis's array already is, where
// the whole level splits on one axis). A level costs a few passes over at most 3N indices, with no
// sort and no data-dependent loop: O(N) memory traffic per level, all nodes of the level at once,
// and no thread waits for another. At the end the x array is the tree order
// (within a leaf, x order: the host sorts its leaves so).
//
// Moments: leaves from their bodies (kdtree::moments, as the host), internal nodes bottom-up from
// their children (mass and centre of mass; the host sums the bodies, so they agree to rounding),
// then the radius about the centre as the largest distance of the node's bodies, an exact maximum
// (the same value as the host's, up to the centre's rounding) kept as the bits of a non-negative
// float, which order as unsigned integers: atomicMax, order-independent.
#include <cuda_runtime.h>

#include <type_traits>

#include "common/kdtree.hpp"

namespace nbody::cuda::kdtree_build {

// The heap's shape (kdtree::HeapShape) on the device, for n bodies in m leaves, as tables: no
// kernel computes a rank (a 64-bit division).
struct Shape {
  const unsigned* node_first;  // per node: its first tree position
  const unsigned* node_end;    // per node: one past its last
  const unsigned* leaf_at;     // per tree position: the leaf (node) that holds it
  unsigned n, m;

  __device__ unsigned first(unsigned i) const { return node_first[i]; }
  __device__ unsigned end(unsigned i) const { return node_end[i]; }
  __device__ unsigned split(unsigned i) const { return node_first[2 * i + 1]; }
  // The internal node of depth d that holds tree position j, 0 when j's leaf is at depth d or above.
  __device__ unsigned node_at(unsigned j, unsigned d) const {
    const unsigned leaf = leaf_at[j], depth = 31 - __clz(leaf);
    return depth > d ? leaf >> (depth - d) : 0;
  }
};

// The three arrays of body indices, each sorted by its axis within every node's range.
struct Sorted {
  unsigned* axis[3];
};

// key[i] = coordinate + 0 (-0 and +0 one key), index[i] = i: the input of an axis's sort.
template <class T>
__global__ void sort_keys_kernel(const T* __restrict__ coord, unsigned n, T* __restrict__ key, unsigned* __restrict__ index) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  key[i] = coord[i] + T(0);
  index[i] = i;
}

// The split axis of each node of one level: the depth's (x, y, z cycling), or the longest side of
// the node's bounding box as on the host (the first and last of each sorted range).
template <class T>
__global__ void split_axis_kernel(Shape s, unsigned level_first, unsigned level_end, bool longest, const T* __restrict__ pos,
                                  Sorted sorted, unsigned char* __restrict__ axis) {
  const unsigned i = level_first + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= level_end) return;
  unsigned a = (31 - __clz(level_first)) % 3;
  if (longest) {
    const unsigned b = s.first(i), e = s.end(i);
    T extent[3];
    for (unsigned k = 0; k < 3; ++k) {
      const T* c = pos + static_cast<std::size_t>(k) * s.n;
      extent[k] = c[sorted.axis[k][e - 1]] - c[sorted.axis[k][b]];
    }
    a = extent[1] > extent[0] ? 1 : 0;
    if (extent[2] > extent[a]) a = 2;
  }
  axis[i] = static_cast<unsigned char>(a);
}

// left[body] for the bodies of the level's internal nodes: its rank on the node's axis is below the split.
__global__ void split_side_kernel(Shape s, unsigned depth, Sorted sorted, const unsigned char* __restrict__ axis,
                                         unsigned char* __restrict__ left) {
  const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= s.n) return;
  const unsigned i = s.node_at(j, depth);
  if (i == 0) return;
  left[sorted.axis[axis[i]][j]] = j < s.split(i);
}

// The arrays one level partitions: `count` of them, from[c] into to[c]. An array sorted on the
// axis that every node of the level splits on is already partitioned (its first split - first
// entries of each node are the left ones) and is not among them.
struct Moving {
  const unsigned* from[3];
  unsigned* to[3];
  unsigned count;
};

// flags[c n + j] = 1 when body from[c][j] goes left (0 outside the level's internal nodes).
__global__ void split_flags_kernel(Shape s, unsigned depth, Moving mv, const unsigned char* __restrict__ left,
                                   unsigned* __restrict__ flags) {
  const unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= mv.count * s.n) return;
  const unsigned c = q / s.n, j = q % s.n;
  flags[q] = s.node_at(j, depth) != 0 && left[mv.from[c][j]];
}

// The stable partition of every node's range in each moving array: left bodies first, each side
// in its order. before[q] = number of left flags before q (exclusive scan of flags).
__global__ void split_scatter_kernel(Shape s, unsigned depth, Moving mv, const unsigned* __restrict__ flags,
                                     const unsigned* __restrict__ before) {
  const unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= mv.count * s.n) return;
  const unsigned c = q / s.n, j = q % s.n;
  const unsigned i = s.node_at(j, depth);
  unsigned to = j;
  if (i != 0) {
    const unsigned b = s.first(i);
    const unsigned lefts = before[q] - before[q - (j - b)];  // left bodies in [b, j) of this array
    to = flags[q] ? b + lefts : s.split(i) + (j - b - lefts);
  }
  mv.to[c][to] = mv.from[c][j];
}

// The bodies in tree order, and the maps between body index and tree position.
template <class T>
__global__ void tree_order_kernel(const unsigned* __restrict__ order, const T* __restrict__ pos, const T* __restrict__ mass,
                                  unsigned n, T* __restrict__ bx, T* __restrict__ by, T* __restrict__ bz, T* __restrict__ bm,
                                  unsigned* __restrict__ body, unsigned* __restrict__ position) {
  const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const unsigned i = order[j];
  body[j] = i;
  position[i] = j;
  bx[j] = pos[i];
  by[j] = pos[n + i];
  bz[j] = pos[2 * static_cast<std::size_t>(n) + i];
  bm[j] = mass[i];
}

// The tree's arrays, written by the moment kernels.
template <class T>
struct NodeArrays {
  kdtree::HeapView<T> view;  // bodies in tree order and leaf ranges (read)
  T* node;                   // 4 per node
  T* mass;                   // 1 per node
  T lambda;                  // --lambda-crit in T
  bool open_all;             // lambda = infinity
};

// Leaves m .. 2m-1: moments and crit2 from their bodies, as the host.
template <class T>
__global__ void leaf_moments_kernel(NodeArrays<T> t) {
  const unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned m = t.view.m;
  if (p >= m) return;
  const kdtree::Moments<T> c = kdtree::moments(t.view, t.view.leaf_first[p], t.view.leaf_last[p]);
  T* out = t.node + 4 * static_cast<std::size_t>(m + p);
  out[0] = c.x;
  out[1] = c.y;
  out[2] = c.z;
  out[3] = kdtree::critical_distance2(c.r2, t.lambda, t.open_all);
  t.mass[m + p] = c.mass;
}

// Internal nodes of one level, their children done: mass and centre of mass.
template <class T>
__global__ void internal_moments_kernel(NodeArrays<T> t, unsigned level_first, unsigned level_end) {
  const unsigned i = level_first + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= level_end) return;
  const T ml = t.mass[2 * i], mr = t.mass[2 * i + 1], M = ml + mr;
  const T* l = t.node + 8 * static_cast<std::size_t>(i);
  T* out = t.node + 4 * static_cast<std::size_t>(i);
  for (int k = 0; k < 3; ++k) out[k] = (ml * l[k] + mr * l[4 + k]) / M;
  t.mass[i] = M;
}

// A non-negative float's bits, which order as the values do.
template <class T>
using OrderedBits = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
__device__ inline unsigned ordered_bits(float x) { return __float_as_uint(x); }
__device__ inline unsigned long long ordered_bits(double x) { return static_cast<unsigned long long>(__double_as_longlong(x)); }
__device__ inline float from_ordered_bits(unsigned b) { return __uint_as_float(b); }
__device__ inline double from_ordered_bits(unsigned long long b) { return __longlong_as_double(static_cast<long long>(b)); }

// r2[i] = max over the bodies of internal node i of the squared distance to its centre (as bits;
// zero before). A thread takes `chunk` consecutive tree positions, depth by depth; consecutive
// positions mostly share their node, so it flushes its running maximum only when the node changes.
template <class T>
__global__ void radius_kernel(Shape s, NodeArrays<T> t, unsigned chunk, OrderedBits<T>* __restrict__ r2) {
  const unsigned long long from = (static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x) * chunk;
  if (from >= s.n) return;
  const unsigned first = static_cast<unsigned>(from), last = min(s.n, first + chunk);
  for (unsigned d = 0;; ++d) {
    unsigned node = 0;
    OrderedBits<T> best = 0;
    bool any = false;
    for (unsigned j = first; j < last; ++j) {
      const unsigned i = s.node_at(j, d);
      if (i == 0) continue;
      any = true;
      if (i != node) {
        if (node) atomicMax(r2 + node, best);
        node = i;
        best = 0;
      }
      const T* c = t.node + 4 * static_cast<std::size_t>(i);
      const T dx = t.view.bx[j] - c[0], dy = t.view.by[j] - c[1], dz = t.view.bz[j] - c[2];
      const OrderedBits<T> b = ordered_bits(dx * dx + dy * dy + dz * dz);
      if (b > best) best = b;
    }
    if (node) atomicMax(r2 + node, best);
    if (!any) return;  // every leaf of the chunk is above this depth, so above the next ones too
  }
}

// crit2 of the internal nodes 1 .. m-1 from their radii.
template <class T>
__global__ void internal_crit2_kernel(NodeArrays<T> t, const OrderedBits<T>* __restrict__ r2) {
  const unsigned i = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= t.view.m) return;
  t.node[4 * static_cast<std::size_t>(i) + 3] = kdtree::critical_distance2(from_ordered_bits(r2[i]), t.lambda, t.open_all);
}

}  // namespace nbody::cuda::kdtree_build
