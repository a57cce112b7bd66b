#pragma once
// The CUDA kernels of seed S4's octree pipeline (kernels/common/octree.hpp), run every evaluation:
//   bounding cube   (after CUB's min and max reductions) one thread;
//   keys            a Morton key per body, then CUB's radix sort of (key, index): key order, ties
//                   by index, as the host build;
//   bodies          gathered in key order (S4's sort: the walk reads neighbours' data together);
//   build           level by level: count each node's children, CUB's scan gives their places,
//                   then write them; the host reads the level's total to launch the next;
//   moments         level by level from the deepest (a node after its children, which the
//                   previous launch finished);
//   walk            one thread per body in key order, so that a warp walks neighbouring bodies.
// No thread waits on another block and no warp is assumed to run in lock step: every dependence
// is between launches, so the pipeline cannot hang on any scheduler.
#include <cuda_runtime.h>

#include "common/octree.hpp"
#include "cuda/device_math.cuh"

namespace nbody::cuda::octree_kernels {

using nbody::octree::Arrays;
using nbody::octree::Cube;
using nbody::octree::View;

inline __device__ unsigned thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// box: x, y, z minima then maxima.
template <class T>
__global__ void cube_kernel(const T* __restrict__ box, Cube<T>* __restrict__ cube) {
  if (thread_index() == 0) *cube = octree::bounding_cube(box[0], box[1], box[2], box[3], box[4], box[5]);
}

template <class T>
__global__ void keys_kernel(const T* __restrict__ pos, unsigned n, const Cube<T>* __restrict__ cube,
                            unsigned long long* __restrict__ key, unsigned* __restrict__ index) {
  const unsigned i = thread_index();
  if (i >= n) return;
  key[i] = octree::morton_key(pos[i], pos[n + i], pos[2 * std::size_t(n) + i], *cube);
  index[i] = i;
}

template <class T>
__global__ void gather_kernel(const unsigned* __restrict__ body, const T* __restrict__ pos, const T* __restrict__ mass,
                              unsigned n, T* __restrict__ bx, T* __restrict__ by, T* __restrict__ bz, T* __restrict__ bm) {
  const unsigned j = thread_index();
  if (j >= n) return;
  const unsigned i = body[j];
  bx[j] = pos[i], by[j] = pos[n + i], bz[j] = pos[2 * std::size_t(n) + i], bm[j] = mass[i];
}

template <class T>
__global__ void root_kernel(Arrays<T> t, unsigned n) {
  if (thread_index() != 0) return;
  t.first[0] = 0, t.end[0] = n, t.level[0] = 0, t.child[0] = 0, t.nchild[0] = 0;
}

// Whether node i (of at most k bodies per leaf) is split.
template <class T>
__device__ bool splits(const Arrays<T>& t, unsigned i, unsigned k) {
  return t.end[i] - t.first[i] > k && t.level[i] < octree::max_level;
}

// Nodes [lb, le) of one level: where each octant of each node that splits begins, a thread per
// (node, octant), so that the binary searches of the few large nodes near the root run side by
// side. at[9 (i - lb) + o]; at[9 (i - lb) + 8] = the node's end.
template <class T>
__global__ void octant_starts_kernel(Arrays<T> t, unsigned lb, unsigned le, unsigned k, unsigned* __restrict__ at) {
  const std::size_t q = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;  // up to 8 N
  if (q >= 8 * std::size_t(le - lb)) return;
  const unsigned i = lb + static_cast<unsigned>(q / 8), o = static_cast<unsigned>(q % 8);
  if (!splits(t, i, k)) return;
  at[9 * std::size_t(i - lb) + o] = octree::octant_start(t.key, t.first[i], t.end[i], t.level[i], o);
  if (o == 0) at[9 * std::size_t(i - lb) + 8] = t.end[i];
}

// How many children each node gets (0: a leaf).
template <class T>
__global__ void count_children_kernel(Arrays<T> t, unsigned lb, unsigned le, unsigned k, const unsigned* __restrict__ at,
                                      unsigned* __restrict__ count) {
  const unsigned i = lb + thread_index();
  if (i >= le) return;
  unsigned start[9];
  const unsigned c = splits(t, i, k) ? octree::children_of(at + 9 * std::size_t(i - lb), start) : 0u;
  t.nchild[i] = c;
  count[i - lb] = c;
}

// Their children, at le + (inclusive sum of the counts) - own count.
template <class T>
__global__ void make_children_kernel(Arrays<T> t, unsigned lb, unsigned le, const unsigned* __restrict__ at,
                                     const unsigned* __restrict__ inclusive) {
  const unsigned i = lb + thread_index();
  if (i >= le) return;
  const unsigned c = t.nchild[i];
  if (c == 0) {
    t.child[i] = 0;
    return;
  }
  const unsigned l = t.level[i];
  const unsigned first_child = le + inclusive[i - lb] - c;
  unsigned start[9];
  octree::children_of(at + 9 * std::size_t(i - lb), start);
  t.child[i] = first_child;
  for (unsigned j = 0; j < c; ++j) {
    const unsigned h = first_child + j;
    t.first[h] = start[j], t.end[h] = start[j + 1], t.level[h] = l + 1, t.child[h] = 0, t.nchild[h] = 0;
  }
}

template <class T>
__global__ void summarise_kernel(Arrays<T> t, unsigned lb, unsigned le, const Cube<T>* __restrict__ cube, T theta) {
  const unsigned i = lb + thread_index();
  if (i >= le) return;
  octree::summarise(t, i, *cube, theta);
}

// The tree's shape: leaves, largest leaf and bodies in leaves into out[0..2] (zeroed before). Every
// thread of a warp takes part in the warp's sums, out-of-range ones with zeros.
template <class T>
__global__ void shape_kernel(Arrays<T> t, unsigned nodes, unsigned* __restrict__ out) {
  const unsigned i = thread_index();
  const bool leaf = i < nodes && t.nchild[i] == 0;
  const unsigned size = leaf ? t.end[i] - t.first[i] : 0u;
  const unsigned leaves = __reduce_add_sync(0xffffffffu, leaf ? 1u : 0u);
  const unsigned bodies = __reduce_add_sync(0xffffffffu, size);
  const unsigned largest = __reduce_max_sync(0xffffffffu, size);
  if ((threadIdx.x & 31u) == 0) {
    atomicAdd(out, leaves);
    atomicMax(out + 1, largest);
    atomicAdd(out + 2, bodies);
  }
}

// One thread per body, in key order: its walk (common/octree.hpp with the device's arithmetic),
// its acceleration to its input index, its number of terms and of nodes taken whole among them.
template <class T, class M>
__global__ void walk_kernel(View<T> t, const unsigned* __restrict__ body, unsigned n, T eps2, T rmin2, T G,
                            T* __restrict__ acc, unsigned long long* __restrict__ terms, unsigned long long* __restrict__ cells) {
  const unsigned q = thread_index();
  if (q >= n) return;
  T ax(0), ay(0), az(0);
  const octree::Terms counted = octree::walk<T, M>(t, octree::Target<T>{t.bx[q], t.by[q], t.bz[q], q}, eps2, rmin2, ax, ay, az);
  terms[q] = counted.cells + counted.bodies;
  cells[q] = counted.cells;
  const unsigned i = body[q];
  acc[i] = G * ax;
  acc[n + i] = G * ay;
  acc[2 * std::size_t(n) + i] = G * az;
}

// y += a x over count values: the kicks and drifts of device-resident leapfrog steps.
template <class T>
__global__ void axpy_kernel(T* __restrict__ y, T a, const T* __restrict__ x, unsigned count) {
  const unsigned i = thread_index();
  if (i < count) y[i] += a * x[i];
}

}  // namespace nbody::cuda::octree_kernels

namespace nbody::cuda::octree_kernels {

// Groups of the grouped walk: cells of the tree, at most group_size bodies each (bodies_per_lane
// per lane of a warp). The children of at most group_size bodies of a node of more, packed in key
// order into groups of at most group_size (siblings, so a group's box stays within its parent's
// cell) when the parent holds at most pack_limit bodies, else each a group of its own: small
// siblings under a large parent lie in a large cell beside its dense part, and one group spanning
// them would open that part down to its bodies (a single warp summing a sizeable fraction of N);
// the root when it has at most group_size; a larger leaf (coincident bodies at the deepest
// level) in pieces of group_size. Node i's groups: count[i], each node's written by its own thread.
constexpr unsigned bodies_per_lane = 1, group_size = 32 * bodies_per_lane, pack_limit = 8 * group_size;

// Calls emit(first, end) for each group of node i, in order; returns their number.
template <class T, class Emit>
__device__ unsigned node_groups(const Arrays<T>& t, unsigned i, Emit emit) {
  const unsigned size = t.end[i] - t.first[i];
  if (size <= group_size) {
    if (i != octree::root) return 0;
    emit(t.first[i], t.end[i]);
    return 1;
  }
  unsigned groups = 0;
  if (t.nchild[i] == 0) {
    for (unsigned b = t.first[i]; b < t.end[i]; b += group_size) emit(b, min(b + group_size, t.end[i])), ++groups;
    return groups;
  }
  const bool pack = size <= pack_limit;
  unsigned open_first = 0, open_end = 0;  // the group being packed; empty when equal
  for (unsigned k = t.child[i]; k < t.child[i] + t.nchild[i]; ++k) {
    const unsigned f = t.first[k], e = t.end[k];
    const bool small = e - f <= group_size;
    if (open_end > open_first && (!small || !pack || open_end - open_first + (e - f) > group_size))
      emit(open_first, open_end), ++groups, open_first = open_end = 0;
    if (!small) continue;
    if (open_end == open_first) open_first = f;
    open_end = e;
  }
  if (open_end > open_first) emit(open_first, open_end), ++groups;
  return groups;
}

template <class T>
__global__ void group_count_kernel(Arrays<T> t, unsigned nodes, unsigned* __restrict__ count) {
  const unsigned i = thread_index();
  if (i >= nodes) return;
  count[i] = node_groups(t, i, [](unsigned, unsigned) {});
}

// groups[2g], groups[2g + 1]: group g's bodies [first, end); node i's groups end at end[i] (the
// inclusive sum of the counts).
template <class T>
__global__ void group_write_kernel(Arrays<T> t, unsigned nodes, const unsigned* __restrict__ count,
                                   const unsigned* __restrict__ end, unsigned* __restrict__ groups) {
  const unsigned i = thread_index();
  if (i >= nodes) return;
  unsigned g = end[i] - count[i];
  node_groups(t, i, [&](unsigned f, unsigned e) {
    groups[2 * g] = f;
    groups[2 * g + 1] = e;
    ++g;
  });
}

// The grouped walk (the fast engine): a warp walks the tree once for a group (above), bodies_per_lane
// bodies per lane, testing 32 nodes at a time against the group's bounding box:
// a node is taken whole when its centre of mass is farther than sqrt(crit2) from every point of
// the box (so from every body of the group: S4's rule holds for each), a leaf that is not is
// summed directly, other nodes are opened. Taken nodes and opened leaves go to two lists in shared
// memory; when one fills, every lane adds the whole list to its own body, all lanes reading the
// same node at once (a broadcast). The nodes still to test are a stack in global memory, one
// region per warp. The grid is persistent: each warp takes the next group from an atomic counter
// until none is left (costly groups do not hold up the others).
// Lanes cooperate only through __ballot_sync / __shfl_sync with the full mask and __syncwarp
// around the shared lists: nothing assumes lock step.
constexpr unsigned list_size = 64, stack_size = 8192;
constexpr unsigned full_mask = 0xffffffffu;

// A warp's shared memory: the two lists, and the data of the nodes or bodies being added (each
// lane loads one, then every lane reads them all: one round trip to memory per 32 terms).
template <class T>
struct WarpShared {
  unsigned cells[list_size], leaves[list_size];
  T x[list_size], y[list_size], z[list_size], m[list_size], q[6][list_size];
};
template <class T>
constexpr std::size_t shared_bytes(unsigned block) {
  return std::size_t(block / 32) * sizeof(WarpShared<T>);
}

// A lane's bodies: position, acceleration, key-order position (a lane past its group's end
// mirrors the group's first body and writes nothing).
template <class T>
struct Lane {
  T x[bodies_per_lane], y[bodies_per_lane], z[bodies_per_lane];
  T ax[bodies_per_lane], ay[bodies_per_lane], az[bodies_per_lane];
  unsigned self[bodies_per_lane];
  bool valid[bodies_per_lane];
};

template <class T, class M>
__device__ void add_cells(const View<T>& t, WarpShared<T>& w, unsigned count, unsigned lane, Lane<T>& me, T eps2, T rmin2) {
  for (unsigned j = lane; j < count; j += 32) {
    const unsigned i = w.cells[j];
    w.x[j] = __ldg(t.node + 4 * i), w.y[j] = __ldg(t.node + 4 * i + 1), w.z[j] = __ldg(t.node + 4 * i + 2);
    w.m[j] = __ldg(t.mass + i);
    if (t.quad) {
      const bool point = !(__ldg(t.node + 4 * i + 3) > T(0));
      for (int k = 0; k < 6; ++k) w.q[k][j] = point ? T(0) : __ldg(t.quad + 6 * i + k);
    }
  }
  __syncwarp();
  for (unsigned j = 0; j < count; ++j) {
    const T cx = w.x[j], cy = w.y[j], cz = w.z[j], m = w.m[j];
    T q[6];
    if (t.quad)
      for (int k = 0; k < 6; ++k) q[k] = w.q[k][j];  // a point's quadrupole was staged as zeros
#pragma unroll
    for (unsigned b = 0; b < bodies_per_lane; ++b) {
      const T dx = cx - me.x[b], dy = cy - me.y[b], dz = cz - me.z[b];
      const T s2 = M::dist2(dx, dy, dz, eps2, rmin2);
      if (t.quad) {
        octree::accumulate_multipole(m, q, dx, dy, dz, s2, M::weight(T(1), s2), me.ax[b], me.ay[b], me.az[b]);
      } else {
        const T wt = M::weight(m, s2);
        me.ax[b] += wt * dx, me.ay[b] += wt * dy, me.az[b] += wt * dz;
      }
    }
  }
  __syncwarp();
}

// The bodies of the listed leaves, 32 at a time through shared memory (a leaf may hold more);
// adds to terms[b] the terms of the lane's body b.
template <class T, class M>
__device__ void add_leaves(const View<T>& t, WarpShared<T>& w, unsigned count, unsigned lane, Lane<T>& me, T eps2, T rmin2,
                           unsigned* terms) {
  for (unsigned j = 0; j < count; ++j) {
    const unsigned i = w.leaves[j], e = __ldg(t.end + i);
    for (unsigned base = __ldg(t.first + i); base < e; base += 32) {
      const unsigned src = base + lane, size = e - base < 32 ? e - base : 32;
      if (src < e)
        w.x[lane] = __ldg(t.bx + src), w.y[lane] = __ldg(t.by + src), w.z[lane] = __ldg(t.bz + src), w.m[lane] = __ldg(t.bm + src);
      __syncwarp();
      for (unsigned k = 0; k < size; ++k) {
#pragma unroll
        for (unsigned b = 0; b < bodies_per_lane; ++b) {
          if (base + k == me.self[b]) continue;
          accumulate_interaction<T, M>(me.x[b], me.y[b], me.z[b], w.x[k], w.y[k], w.z[k], w.m[k], eps2, rmin2, me.ax[b],
                                       me.ay[b], me.az[b]);
          ++terms[b];
        }
      }
      __syncwarp();
    }
  }
}

// The squared distance from (x, y, z) to the box [lo, hi].
template <class T>
__device__ T box_distance2(T x, T y, T z, const T lo[3], const T hi[3]) {
  const T dx = x < lo[0] ? lo[0] - x : (x > hi[0] ? x - hi[0] : T(0));
  const T dy = y < lo[1] ? lo[1] - y : (y > hi[1] ? y - hi[1] : T(0));
  const T dz = z < lo[2] ? lo[2] - z : (z > hi[2] ? z - hi[2] : T(0));
  return dx * dx + dy * dy + dz * dz;
}

template <class T, class M>
__global__ void group_walk_kernel(View<T> t, const unsigned* __restrict__ body, unsigned n, T eps2, T rmin2, T G,
                                  T* __restrict__ acc, unsigned long long* __restrict__ terms,
                                  unsigned long long* __restrict__ cell_count, unsigned* __restrict__ stacks,
                                  const unsigned* __restrict__ group, unsigned groups, unsigned* __restrict__ counters) {
  extern __shared__ __align__(16) unsigned char shared_memory[];
  const unsigned lane = threadIdx.x & 31u, warp_in_block = threadIdx.x >> 5;
  const unsigned warp = blockIdx.x * (blockDim.x >> 5) + warp_in_block;
  WarpShared<T>& ws = reinterpret_cast<WarpShared<T>*>(shared_memory)[warp_in_block];
  unsigned* cells = ws.cells;
  unsigned* leaves = ws.leaves;
  unsigned* stack = stacks + std::size_t(warp) * stack_size;
  unsigned* const next_group = counters;
  unsigned* const overflow = counters + 1;
  for (;;) {
    unsigned g = 0;
    if (lane == 0) g = atomicAdd(next_group, 1u);
    g = __shfl_sync(full_mask, g, 0);
    if (g >= groups) break;
    const unsigned gb = group[2 * g], ge = group[2 * g + 1];
    Lane<T> me;
#pragma unroll
    for (unsigned b = 0; b < bodies_per_lane; ++b) {
      const unsigned q = gb + 32 * b + lane;
      me.valid[b] = q < ge;
      me.self[b] = me.valid[b] ? q : gb;
      me.x[b] = t.bx[me.self[b]], me.y[b] = t.by[me.self[b]], me.z[b] = t.bz[me.self[b]];
      me.ax[b] = me.ay[b] = me.az[b] = T(0);
    }
    T lo[3] = {me.x[0], me.y[0], me.z[0]}, hi[3] = {me.x[0], me.y[0], me.z[0]};
#pragma unroll
    for (unsigned b = 1; b < bodies_per_lane; ++b) {
      lo[0] = min(lo[0], me.x[b]), lo[1] = min(lo[1], me.y[b]), lo[2] = min(lo[2], me.z[b]);
      hi[0] = max(hi[0], me.x[b]), hi[1] = max(hi[1], me.y[b]), hi[2] = max(hi[2], me.z[b]);
    }
    for (unsigned s = 16; s > 0; s >>= 1)
      for (int k = 0; k < 3; ++k) {
        lo[k] = min(lo[k], __shfl_xor_sync(full_mask, lo[k], s));
        hi[k] = max(hi[k], __shfl_xor_sync(full_mask, hi[k], s));
      }
    // Terms: nodes of several bodies taken whole; lone bodies taken whole; bodies of opened leaves.
    unsigned cell_terms = 0, point_terms = 0, leaf_terms[bodies_per_lane] = {}, ncell = 0, nleaf = 0, top = 1;
    if (lane == 0) stack[0] = octree::root;
    __syncwarp();
    while (top > 0) {
      const unsigned take = top < 32 ? top : 32;
      top -= take;
      const unsigned i = lane < take ? stack[top + lane] : 0u;
      __syncwarp();  // every lane has read its node before the pushes below overwrite the slots
      bool accept = false, leaf = false, point = false;
      unsigned children = 0;
      if (lane < take) {
        const T cx = __ldg(t.node + 4 * i), cy = __ldg(t.node + 4 * i + 1), cz = __ldg(t.node + 4 * i + 2);
        const T crit2 = __ldg(t.node + 4 * i + 3);
        accept = box_distance2(cx, cy, cz, lo, hi) > crit2;
        point = !(crit2 > T(0));
        const unsigned c = __ldg(t.nchild + i);
        leaf = !accept && c == 0;
        children = accept || leaf ? 0u : c;
      }
      const unsigned below = (1u << lane) - 1u;
      const unsigned accepted = __ballot_sync(full_mask, accept), opened_leaves = __ballot_sync(full_mask, leaf);
      const unsigned points = __ballot_sync(full_mask, accept && point);
      cell_terms += __popc(accepted & ~points);
      point_terms += __popc(points);
      if (accept) cells[ncell + __popc(accepted & below)] = i;
      if (leaf) leaves[nleaf + __popc(opened_leaves & below)] = i;
      ncell += __popc(accepted);
      nleaf += __popc(opened_leaves);
      // The children of opened nodes onto the stack, at an exclusive prefix sum of their counts.
      unsigned before = children;
      for (unsigned s = 1; s < 32; s <<= 1) {
        const unsigned v = __shfl_up_sync(full_mask, before, s);
        if (lane >= s) before += v;
      }
      const unsigned pushed = __shfl_sync(full_mask, before, 31);
      before -= children;
      if (top + pushed > stack_size) {  // cannot happen for trees of <= 21 levels; never a silent loss
        if (lane == 0) atomicExch(overflow, 1u);
        break;
      }
      if (children) {
        const unsigned first_child = __ldg(t.child + i);
        for (unsigned c = 0; c < children; ++c) stack[top + before + c] = first_child + c;
      }
      top += pushed;
      __syncwarp();  // the lists and the stack written before any lane reads them
      if (ncell >= list_size - 32 || (top == 0 && ncell > 0)) {
        add_cells<T, M>(t, ws, ncell, lane, me, eps2, rmin2);
        ncell = 0;
      }
      if (nleaf >= list_size - 32 || (top == 0 && nleaf > 0)) {
        add_leaves<T, M>(t, ws, nleaf, lane, me, eps2, rmin2, leaf_terms);
        nleaf = 0;
      }
      __syncwarp();  // the lists read before the next round writes them
    }
#pragma unroll
    for (unsigned b = 0; b < bodies_per_lane; ++b) {
      if (!me.valid[b]) continue;
      const unsigned q = me.self[b], i = body[q];
      terms[q] = cell_terms + point_terms + leaf_terms[b];
      cell_count[q] = cell_terms;
      acc[i] = G * me.ax[b];
      acc[n + i] = G * me.ay[b];
      acc[2 * std::size_t(n) + i] = G * me.az[b];
    }
  }
}

}  // namespace nbody::cuda::octree_kernels
