#pragma once
// The CUDA kernels of seed S4's octree pipeline (kernels/common/octree.hpp), run every evaluation:
//   bounding cube   CUB's reduction of the bodies' box, then one thread;
//   keys            a Morton key per body, then CUB's radix sort of (key, index): key order, ties
//                   by index, as the host build;
//   bodies          gathered in key order (S4's sort: the walk reads neighbours' data together);
//   build           one cooperative launch, level by level with grid-wide barriers between the
//                   steps of a level (build_kernel);
//   moments         one cooperative launch, level by level from the deepest;
//   walk            one thread per body in key order, so that a warp walks neighbouring bodies.
// No warp is assumed to run in lock step, and a block waits on others only at the grid barriers
// of cooperative launches (every block resident by construction), so the pipeline cannot hang on
// any scheduler.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <type_traits>

#include "common/octree.hpp"
#include "cuda/device_math.cuh"

namespace nbody::cuda::octree_kernels {

using nbody::octree::Arrays;
using nbody::octree::Cube;
using nbody::octree::View;

inline __device__ unsigned thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// The bodies' bounding box: lo x, y, z and hi x, y, z (CUB's reduction of BoxOf with MergeBoxes).
template <class T>
struct Box {
  T lo[3], hi[3];
};
template <class T>
struct BoxOf {  // body i's own box
  const T* pos;
  unsigned n;
  __device__ Box<T> operator()(unsigned i) const {
    const T x = pos[i], y = pos[n + i], z = pos[2 * std::size_t(n) + i];
    return {{x, y, z}, {x, y, z}};
  }
};
struct MergeBoxes {
  template <class T>
  __device__ Box<T> operator()(const Box<T>& a, const Box<T>& b) const {
    return {{min(a.lo[0], b.lo[0]), min(a.lo[1], b.lo[1]), min(a.lo[2], b.lo[2])},
            {max(a.hi[0], b.hi[0]), max(a.hi[1], b.hi[1]), max(a.hi[2], b.hi[2])}};
  }
};

template <class T>
__global__ void cube_kernel(const Box<T>* __restrict__ box, Cube<T>* __restrict__ cube) {
  if (thread_index() == 0) *cube = octree::bounding_cube(box->lo[0], box->lo[1], box->lo[2], box->hi[0], box->hi[1], box->hi[2]);
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

// Whether node i (of at most k bodies per leaf) is split.
template <class T>
__device__ bool splits(const Arrays<T>& t, unsigned i, unsigned k) {
  return t.end[i] - t.first[i] > k && t.level[i] < octree::max_level;
}

// What the build leaves for the moments and the host: level l's nodes are [bound[l], bound[l + 1]);
// needed > 0 when the tree outgrew the node arrays (it needs at least that many; nothing is valid).
struct BuildResult {
  unsigned levels;
  unsigned bound[octree::max_level + 2];
  unsigned needed;
};

constexpr unsigned build_block = 256;

// The build, one cooperative launch: level by level from the root, each level in three phases
// separated by grid-wide barriers (every block is resident, cudaLaunchCooperativeKernel):
//   1. where each octant of each node that splits begins, a thread per (node, octant), so that
//      the binary searches of the few large nodes near the root run side by side
//      (at[9 (i - lb) + o], at[9 (i - lb) + 8] = the node's end);
//   2. each block counts the children of its run of the level's nodes;
//   3. each block places its run's children after those of the blocks before it (the sum of their
//      counts, read by every block) and writes them.
// Every block reads the same counts and so takes the same branch at the end of a level: none waits
// at a barrier that another has left.
template <class T>
__global__ void __launch_bounds__(build_block) build_kernel(Arrays<T> t, unsigned n, unsigned k, unsigned capacity,
                                                            unsigned* __restrict__ at, unsigned* __restrict__ block_count,
                                                            BuildResult* __restrict__ out) {
  using Scan = cub::BlockScan<unsigned, build_block>;
  using Reduce = cub::BlockReduce<unsigned, build_block>;
  __shared__ union {
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } temp;
  __shared__ unsigned before_total[2];
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const unsigned blocks = gridDim.x, b = blockIdx.x, tid = threadIdx.x;
  const std::size_t threads = std::size_t(blocks) * build_block, me = std::size_t(b) * build_block + tid;
  if (me == 0) {
    t.first[0] = 0, t.end[0] = n, t.level[0] = 0, t.child[0] = 0, t.nchild[0] = 0;
    out->bound[0] = 0, out->bound[1] = 1, out->levels = 1, out->needed = 0;
  }
  grid.sync();
  unsigned lb = 0, le = 1, levels = 1;
  for (;;) {
    const unsigned width = le - lb;
    for (std::size_t q = me; q < 8 * std::size_t(width); q += threads) {
      const unsigned i = lb + static_cast<unsigned>(q / 8), o = static_cast<unsigned>(q % 8);
      if (!splits(t, i, k)) continue;
      at[9 * std::size_t(i - lb) + o] = octree::octant_start(t.key, t.first[i], t.end[i], t.level[i], o);
      if (o == 0) at[9 * std::size_t(i - lb) + 8] = t.end[i];
    }
    grid.sync();

    // This block's run of nodes [from, to), walked in tiles of a node per thread (the same
    // number of tiles for every thread of the block: the block-wide sums below need them all).
    const unsigned run = (width + blocks - 1) / blocks;
    const unsigned from = lb + min(width, b * run), to = lb + min(width, b * run + run);
    unsigned mine = 0;
    for (unsigned base = from; base < to; base += build_block) {
      const unsigned i = base + tid;
      if (i >= to) continue;
      unsigned start[9];
      const unsigned c = splits(t, i, k) ? octree::children_of(at + 9 * std::size_t(i - lb), start) : 0u;
      t.nchild[i] = c;
      mine += c;
    }
    const unsigned block_total = Reduce(temp.reduce).Sum(mine);
    if (tid == 0) block_count[b] = block_total;
    grid.sync();

    unsigned before = 0, all = 0;
    for (unsigned j = tid; j < blocks; j += build_block) {
      const unsigned c = block_count[j];
      all += c;
      if (j < b) before += c;
    }
    before = Reduce(temp.reduce).Sum(before);
    __syncthreads();
    all = Reduce(temp.reduce).Sum(all);
    if (tid == 0) before_total[0] = before, before_total[1] = all;
    __syncthreads();
    before = before_total[0], all = before_total[1];
    if (all == 0) break;
    if (std::size_t(le) + all > capacity) {
      if (me == 0) out->needed = le + all;
      break;
    }
    unsigned next = le + before;  // the first child of this tile's first node that has children
    for (unsigned base = from; base < to; base += build_block) {
      const unsigned i = base + tid;
      const unsigned c = i < to ? t.nchild[i] : 0u;
      unsigned offset = 0, tile = 0;
      Scan(temp.scan).ExclusiveSum(c, offset, tile);
      __syncthreads();
      if (i < to) {
        t.child[i] = c ? next + offset : 0u;
        if (c) {
          unsigned start[9];
          octree::children_of(at + 9 * std::size_t(i - lb), start);
          const unsigned l = t.level[i];
          for (unsigned j = 0; j < c; ++j) {
            const unsigned h = next + offset + j;
            t.first[h] = start[j], t.end[h] = start[j + 1], t.level[h] = l + 1, t.child[h] = 0, t.nchild[h] = 0;
          }
        }
      }
      next += tile;
    }
    lb = le, le += all, ++levels;
    if (me == 0) out->bound[levels] = le, out->levels = levels;
    grid.sync();
  }
}

// The moments, one cooperative launch: level by level from the deepest (a node after its
// children, finished before the barrier).
template <class T>
__global__ void __launch_bounds__(build_block)
moments_kernel(Arrays<T> t, const BuildResult* __restrict__ built, const Cube<T>* __restrict__ cube, T theta) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  const unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned l = built->levels; l-- > 0;) {
    for (std::size_t i = built->bound[l] + std::size_t(me); i < built->bound[l + 1]; i += threads)
      octree::summarise(t, static_cast<unsigned>(i), *cube, theta);
    if (l > 0) grid.sync();
  }
}

// The tree's shape: leaves, largest leaf and bodies in leaves into out[0..2] (zeroed before). A
// grid of any size strides over the nodes, each thread adding its own counts (any architecture:
// no warp-wide reductions, which need sm_80).
template <class T>
__global__ void shape_kernel(Arrays<T> t, unsigned nodes, unsigned* __restrict__ out) {
  unsigned leaves = 0, bodies = 0, largest = 0;
  for (std::size_t i = thread_index(); i < nodes; i += std::size_t(gridDim.x) * blockDim.x)
    if (t.nchild[i] == 0) {
      const unsigned size = t.end[i] - t.first[i];
      ++leaves, bodies += size, largest = max(largest, size);
    }
  if (leaves > 0) {
    atomicAdd(out, leaves);
    atomicMax(out + 1, largest);
    atomicAdd(out + 2, bodies);
  }
}

// One thread per body, in key order: its walk (common/octree.hpp), summing the acceleration with
// the device's arithmetic (Sum = AccelerationSum<T, DeviceMath<...>>) or the potential
// (PotentialSum<T>), stored to the body's input index in out (3n or n values), its number of terms
// and of nodes taken whole among them.
template <class T, class Sum>
__global__ void walk_kernel(View<T> t, const unsigned* __restrict__ body, unsigned n, T eps2, T rmin2, T G,
                            T* __restrict__ out, unsigned long long* __restrict__ terms, unsigned long long* __restrict__ cells) {
  const unsigned q = thread_index();
  if (q >= n) return;
  Sum sum;
  const octree::Terms counted = octree::walk(t, octree::Target<T>{t.bx[q], t.by[q], t.bz[q], q}, eps2, rmin2, sum);
  terms[q] = counted.cells + counted.bodies;
  cells[q] = counted.cells;
  sum.store(out, n, body[q], G);
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
// Two bodies per lane: the walk and each staged node serve twice the bodies for a somewhat larger
// box (more terms per body), fewer instructions in all (evidence/gpu/logs/octree_build_walk).
constexpr unsigned bodies_per_lane = 2, group_size = 32 * bodies_per_lane, pack_limit = 8 * group_size;

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
// memory; when one fills, every lane adds the whole list to its own bodies, all lanes reading the
// same node at once (a broadcast). The nodes still to test are a stack in global memory, one
// region per warp. The grid is persistent: each warp takes the next group from an atomic counter
// until none is left (costly groups do not hold up the others). What the lanes add up is the
// kernel's Sum, as for walk_kernel: the acceleration, or the potential by the same walk.
// Lanes cooperate only through __ballot_sync / __shfl_sync with the full mask and __syncwarp
// around the shared lists: nothing assumes lock step.
constexpr unsigned list_size = 64, stack_size = 8192;
constexpr unsigned full_mask = 0xffffffffu;

// Four values read as one (a 16-byte load for float, two for double).
template <class T>
struct alignas(4 * sizeof(T)) Four {
  T a, b, c, d;
};
// Node i's centre of mass and crit2 (node[4i .. 4i + 3], aligned).
template <class T>
__device__ Four<T> load_node(const T* node, unsigned i) {
  if constexpr (std::is_same_v<T, float>) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(node) + i);
    return {v.x, v.y, v.z, v.w};
  } else {
    const double2 u = __ldg(reinterpret_cast<const double2*>(node) + 2 * std::size_t(i));
    const double2 v = __ldg(reinterpret_cast<const double2*>(node) + 2 * std::size_t(i) + 1);
    return {u.x, u.y, v.x, v.y};
  }
}

// A warp's shared memory: the two lists, and the data of the nodes or bodies being added (each
// lane loads one, then every lane reads them all: one round trip to memory per 32 terms, and one
// shared load per four values).
template <class T>
struct WarpShared {
  unsigned cells[list_size], leaves[list_size];
  Four<T> point[list_size];       // x, y, z, mass
  Four<T> quad[list_size][2];     // xx yy zz xy, xz yz, 1 (0: a point, no quadrupole), unused
};
template <class T>
constexpr std::size_t shared_bytes(unsigned block) {
  return std::size_t(block / 32) * sizeof(WarpShared<T>);
}

// A lane's bodies: position, sum (walk_kernel's Sum), key-order position (a lane past its group's
// end mirrors the group's first body and writes nothing).
template <class T, class Sum>
struct Lane {
  T x[bodies_per_lane], y[bodies_per_lane], z[bodies_per_lane];
  Sum sum[bodies_per_lane];
  unsigned self[bodies_per_lane];
  bool valid[bodies_per_lane];
};

template <class T, class Sum>
__device__ void add_cells(const View<T>& t, WarpShared<T>& w, unsigned count, unsigned lane, Lane<T, Sum>& me, T eps2,
                          T rmin2) {
  for (unsigned j = lane; j < count; j += 32) {
    const unsigned i = w.cells[j];
    const Four<T> c = load_node(t.node, i);
    w.point[j] = {c.a, c.b, c.c, __ldg(t.mass + i)};
    if (t.quad) {
      T q[6];
      const bool point = !(c.d > T(0));  // a lone body: no quadrupole, the pair term
      for (int k = 0; k < 6; ++k) q[k] = point ? T(0) : __ldg(t.quad + 6 * i + k);
      w.quad[j][0] = {q[0], q[1], q[2], q[3]};
      w.quad[j][1] = {q[4], q[5], point ? T(0) : T(1), T(0)};
    }
  }
  __syncwarp();
#pragma unroll 4
  for (unsigned j = 0; j < count; ++j) {
    const Four<T> p = w.point[j];
    const T cx = p.a, cy = p.b, cz = p.c, m = p.d;
    T q[6];
    bool multipole = false;  // the same for every lane: j is
    if (t.quad) {
      const Four<T> u = w.quad[j][0], v = w.quad[j][1];
      q[0] = u.a, q[1] = u.b, q[2] = u.c, q[3] = u.d, q[4] = v.a, q[5] = v.b;
      multipole = v.c != T(0);
    }
#pragma unroll
    for (unsigned b = 0; b < bodies_per_lane; ++b) {
      const T dx = cx - me.x[b], dy = cy - me.y[b], dz = cz - me.z[b];
      if (multipole)  // q itself, not a pointer chosen at run time: the array stays in registers
        octree::add_node(me.sum[b], m, q, dx, dy, dz, eps2, rmin2);
      else
        octree::add_node(me.sum[b], m, static_cast<const T*>(nullptr), dx, dy, dz, eps2, rmin2);
    }
  }
  __syncwarp();
}

// The bodies of the listed leaves, 32 at a time through shared memory (a leaf may hold more);
// adds to terms[b] the terms of the lane's body b.
template <class T, class Sum>
__device__ void add_leaves(const View<T>& t, WarpShared<T>& w, unsigned count, unsigned lane, Lane<T, Sum>& me, T eps2,
                           T rmin2, unsigned* terms) {
  for (unsigned j = 0; j < count; ++j) {
    const unsigned i = w.leaves[j], e = __ldg(t.end + i);
    for (unsigned base = __ldg(t.first + i); base < e; base += 32) {
      const unsigned src = base + lane, size = e - base < 32 ? e - base : 32;
      if (src < e) w.point[lane] = {__ldg(t.bx + src), __ldg(t.by + src), __ldg(t.bz + src), __ldg(t.bm + src)};
      __syncwarp();
      for (unsigned k = 0; k < size; ++k) {
        const Four<T> p = w.point[k];
#pragma unroll
        for (unsigned b = 0; b < bodies_per_lane; ++b) {
          if (base + k == me.self[b]) continue;
          me.sum[b].add(me.x[b], me.y[b], me.z[b], p.a, p.b, p.c, p.d, eps2, rmin2);
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
  const T dx = max(max(lo[0] - x, x - hi[0]), T(0));  // lo <= hi: at most one difference is positive
  const T dy = max(max(lo[1] - y, y - hi[1]), T(0));
  const T dz = max(max(lo[2] - z, z - hi[2]), T(0));
  return dx * dx + dy * dy + dz * dz;
}

template <class T, class Sum>
__global__ void group_walk_kernel(View<T> t, const unsigned* __restrict__ body, unsigned n, T eps2, T rmin2, T G,
                                  T* __restrict__ out, unsigned long long* __restrict__ terms,
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
    Lane<T, Sum> me;
#pragma unroll
    for (unsigned b = 0; b < bodies_per_lane; ++b) {
      const unsigned q = gb + 32 * b + lane;
      me.valid[b] = q < ge;
      me.self[b] = me.valid[b] ? q : gb;
      me.x[b] = t.bx[me.self[b]], me.y[b] = t.by[me.self[b]], me.z[b] = t.bz[me.self[b]];
      me.sum[b] = Sum{};
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
        const Four<T> com = load_node(t.node, i);  // centre of mass, crit2
        accept = box_distance2(com.a, com.b, com.c, lo, hi) > com.d;
        point = !(com.d > T(0));
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
      if (children) {  // at most 8: stores at fixed offsets from one address
        const unsigned first_child = __ldg(t.child + i);
        unsigned* const to = stack + top + before;
#pragma unroll
        for (unsigned c = 0; c < 8; ++c)
          if (c < children) to[c] = first_child + c;
      }
      top += pushed;
      __syncwarp();  // the lists and the stack written before any lane reads them
      if (ncell >= list_size - 32 || (top == 0 && ncell > 0)) {
        add_cells(t, ws, ncell, lane, me, eps2, rmin2);
        ncell = 0;
      }
      if (nleaf >= list_size - 32 || (top == 0 && nleaf > 0)) {
        add_leaves(t, ws, nleaf, lane, me, eps2, rmin2, leaf_terms);
        nleaf = 0;
      }
      __syncwarp();  // the lists read before the next round writes them
    }
#pragma unroll
    for (unsigned b = 0; b < bodies_per_lane; ++b) {
      if (!me.valid[b]) continue;
      const unsigned q = me.self[b];
      terms[q] = cell_terms + point_terms + leaf_terms[b];
      cell_count[q] = cell_terms;
      me.sum[b].store(out, n, body[q], G);
    }
  }
}

}  // namespace nbody::cuda::octree_kernels
