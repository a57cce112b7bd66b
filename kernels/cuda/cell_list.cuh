#pragma once
// The CUDA kernels of the short-range cell lists (seed S3), launched by the builders of
// solver/particles/cells/cell_list_cuda.cu. Every builder ends in the CPU CellList's arrays
// (particles/cells/cell_list.hpp): cell (n), start (cells + 1) and order (particle indices by cell,
// increasing within a cell).
//
// The bucket sorts' atomics leave a cell's particles in whatever order the hardware served them;
// sort_within_cells_kernel then puts each cell in increasing index. That result depends only on
// which particles a cell holds, never on the order of the atomics, so every builder gives the same
// arrays on every run and the neighbour order (and with it a run) is reproducible bit for bit.
//
// No warp is assumed to run in lock step (a block's threads meet only at __syncthreads and in
// CUB's block reductions and scans), and no block waits for another.
#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstddef>

#include "common/cell_grid.hpp"

namespace nbody::cuda::cell_kernels {

using particles::CellGrid;

constexpr unsigned block = 256;  // threads per block of every kernel here
constexpr unsigned empty = ~0u;  // the end of a list; an unused slot of a block's table

// A particle in a slot before its cell is sorted: its cell in the high word, its index in the low
// one. The sort within cells then reads its cell and its neighbours' slots side by side (no
// gather of cell[i] at random), and one comparison orders two particles of a cell by index.
using Slot = unsigned long long;
inline __device__ Slot slot_of(unsigned c, unsigned i) { return Slot(c) << 32 | i; }

inline __device__ unsigned thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

template <class T>
__device__ unsigned cell_of(const T* __restrict__ pos, unsigned n, unsigned i, const CellGrid<T>& grid) {
  return grid.cell_of(pos[i], pos[n + i], pos[2 * std::size_t(n) + i]);
}

// ---- S3's linked lists: head[c] is the last particle put into cell c, next[i] the one before i ----

// (a), (c): next[i] = atomicExch(&head[c], i), head[] all `empty` before. With count (c), each
// cell's particles are counted as they go in, which spares the conversion a walk of the lists.
template <class T>
__global__ void insert_kernel(const T* __restrict__ pos, unsigned n, CellGrid<T> grid, unsigned* __restrict__ cell,
                              unsigned* head, unsigned* __restrict__ next, unsigned* count) {
  const unsigned i = thread_index();
  if (i >= n) return;
  const unsigned c = cell_of(pos, n, i, grid);
  cell[i] = c;
  next[i] = atomicExch(&head[c], i);
  if (count) atomicAdd(&count[c], 1u);
}

// (b), S3's shared-memory variant. Each block first links its particles into local lists, one per
// cell that its particles fall in, then splices each local list into the global list of its cell
// with one atomicExch: a block makes one global atomic per distinct cell instead of one per
// particle, few when the particles arrive in cell order (as they do after a reorder by cell).
// The local lists live in a hash table of the block's cells in shared memory (open addressing,
// linear probing; a slot holds the cell, the first and the last particle of its list): it has
// twice as many slots as the block has threads, so it never fills, whatever the number of cells.
constexpr unsigned table_slots = 2 * block;  // a power of two
static_assert((table_slots & (table_slots - 1)) == 0);

template <class T>
__global__ void __launch_bounds__(block) shared_lists_kernel(const T* __restrict__ pos, unsigned n, CellGrid<T> grid,
                                                            unsigned* __restrict__ cell, unsigned* head, unsigned* next) {
  __shared__ unsigned key[table_slots], first[table_slots], last[table_slots];
  for (unsigned k = threadIdx.x; k < table_slots; k += blockDim.x) key[k] = empty, first[k] = empty;
  __syncthreads();
  const unsigned i = thread_index();
  if (i < n) {
    const unsigned c = cell_of(pos, n, i, grid);
    cell[i] = c;
    unsigned k = (c * 2654435761u) & (table_slots - 1);  // Knuth's multiplicative hash
    for (unsigned seen = atomicCAS(&key[k], empty, c); seen != empty && seen != c; seen = atomicCAS(&key[k], empty, c))
      k = (k + 1) & (table_slots - 1);
    const unsigned before = atomicExch(&first[k], i);
    next[i] = before;
    if (before == empty) last[k] = i;  // the first particle in: the local list's tail
  }
  __syncthreads();
  for (unsigned k = threadIdx.x; k < table_slots; k += blockDim.x)
    if (key[k] != empty) next[last[k]] = atomicExch(&head[key[k]], first[k]);  // local list in front of the global one
}

// Each list's length into count[c]; count[cells] = 0, so that the exclusive scan of the cells + 1
// counts ends in start[cells] = n.
__global__ void list_lengths_kernel(const unsigned* __restrict__ head, const unsigned* __restrict__ next,
                                           unsigned cells, unsigned* __restrict__ count) {
  const unsigned c = thread_index();
  if (c > cells) return;
  unsigned length = 0;
  if (c < cells)
    for (unsigned i = head[c]; i != empty; i = next[i]) ++length;
  count[c] = length;
}

// Each cell's list into its slots start[c] .. start[c + 1], in list order.
__global__ void unroll_lists_kernel(const unsigned* __restrict__ head, const unsigned* __restrict__ next,
                                    const unsigned* __restrict__ start, unsigned cells, Slot* __restrict__ slots) {
  const unsigned c = thread_index();
  if (c >= cells) return;
  unsigned s = start[c];
  for (unsigned i = head[c]; i != empty; i = next[i]) slots[s++] = slot_of(c, i);
}

// ---- (e) the counting sort ----

// Each particle's cell, counted; rank[i]: how many of its cell's particles were counted before it
// (its place in the cell until the cell is sorted), so that the scatter needs no second atomic.
template <class T>
__global__ void count_kernel(const T* __restrict__ pos, unsigned n, CellGrid<T> grid, unsigned* __restrict__ cell,
                             unsigned* count, unsigned* __restrict__ rank) {
  const unsigned i = thread_index();
  if (i >= n) return;
  const unsigned c = cell_of(pos, n, i, grid);
  cell[i] = c;
  rank[i] = atomicAdd(&count[c], 1u);
}

__global__ void scatter_kernel(const unsigned* __restrict__ cell, const unsigned* __restrict__ rank,
                               const unsigned* __restrict__ start, unsigned n, Slot* __restrict__ slots) {
  const unsigned i = thread_index();
  if (i >= n) return;
  const unsigned c = cell[i];
  slots[start[c] + rank[i]] = slot_of(c, i);
}

// ---- (g) fixed-capacity bins (HOOMD-blue's cell list) ----

// The bins are stored place-major: place a of cell c at bins[a * cells + c], so that a warp's
// threads, one per cell, read the same place of 32 neighbouring cells together, and the particles
// counted into a cell's first places (all of them, at the mean occupancy) write the first rows.

// Each particle's cell, counted; the particle goes into its cell's bin of `capacity` places at the
// place the count handed out, and a count past the capacity is kept in `overflow` (its largest),
// after which the builder builds again.
template <class T>
__global__ void bin_kernel(const T* __restrict__ pos, unsigned n, CellGrid<T> grid, unsigned cells, unsigned capacity,
                           unsigned* __restrict__ cell, unsigned* count, unsigned* __restrict__ bins, unsigned* overflow) {
  const unsigned i = thread_index();
  if (i >= n) return;
  const unsigned c = cell_of(pos, n, i, grid);
  cell[i] = c;
  const unsigned place = atomicAdd(&count[c], 1u);
  if (place < capacity) bins[std::size_t(place) * cells + c] = i;
  else atomicMax(overflow, place + 1);
}

// A thread per cell: its bin into its slots of order, in increasing index (each particle's slot is
// the number of the bin's particles with a smaller index). A cell costs its thread m^2
// comparisons; the builder keeps m within a bin's capacity (at most 64).
__global__ void bins_to_order_kernel(const unsigned* __restrict__ bins, const unsigned* __restrict__ start, unsigned cells,
                                     unsigned capacity, unsigned* __restrict__ order) {
  const unsigned c = thread_index();
  if (c >= cells) return;
  const unsigned first = start[c], m = start[c + 1] - first;
  if (m > capacity) return;  // overflowed: the build is done again
  for (unsigned a = 0; a < m; ++a) {
    const unsigned i = bins[std::size_t(a) * cells + c];
    unsigned rank = 0;
    for (unsigned b = 0; b < m; ++b) rank += bins[std::size_t(b) * cells + c] < i;
    order[first + rank] = i;
  }
}

// ---- (h) the two-level bucket sort ----
//
// The counting sort's atomics and scatter touch one word at random per particle. Here the
// particles are first sorted into buckets of 2^bits consecutive cells, a few hundred of them, which
// a block can count in shared memory, and then each bucket is sorted into its cells by one block in
// shared memory:
//   bucket_count_kernel   each block counts its chunk of particles per bucket in shared memory and
//                         reserves its share of each bucket with one global atomic per bucket;
//   bucket_scatter_kernel each block scans the bucket counts (a few hundred words) into the buckets'
//                         starts and writes its particles' slots into its shares: runs of
//                         neighbouring words, not single words at random;
//   bucket_sort_kernel    a block per bucket counts its cells, scans them into the cells' starts and
//                         puts each cell's particles in increasing index.
// The builder picks `bits` so that a bucket's particles fit the block's shared memory with a wide
// margin; a bucket that does not fit (particles crowded in space) is reported in the overflow word
// and the list is built again by the counting sort.
namespace two_level {
constexpr unsigned threads = 1024;       // per block, every kernel of the sort
constexpr unsigned max_bits = 10;        // a bucket: at most 2^10 cells, a thread per cell
constexpr unsigned max_buckets = 4096;   // the shared counters of the first two kernels (the builder
                                         // takes fewer: the last one's end is written too)
constexpr unsigned max_in_bucket = 4000; // a bucket's slots in the last kernel's shared memory
constexpr unsigned items = max_buckets / threads;
static_assert(1u << max_bits == threads && items * threads == max_buckets);

// The next place in counter[key] (shared memory): one atomic per thread, or with per_warp one per
// key among the threads of a warp that arrive together, each thread's place its rank among them.
// The sort takes one per thread: per warp is slower in random order and gains a few per cent only
// in cell order (evidence/gpu/probes/cell_build_two_level.cu).
template <bool per_warp>
__device__ unsigned take_place(unsigned* counter, unsigned key) {
  if constexpr (per_warp) {
    const auto peers = cooperative_groups::labeled_partition(cooperative_groups::coalesced_threads(), key);
    unsigned first = 0;
    if (peers.thread_rank() == 0) first = atomicAdd(&counter[key], peers.size());
    return peers.shfl(first, 0) + peers.thread_rank();
  } else {
    return atomicAdd(&counter[key], 1u);
  }
}
}  // namespace two_level

// Each particle's cell; per bucket, the block's count into share[block * buckets + bucket] as the
// block's first place in the bucket (returned by its atomic on count[bucket]).
template <class T, bool per_warp = false>
__global__ void __launch_bounds__(two_level::threads)
    bucket_count_kernel(const T* __restrict__ pos, unsigned n, CellGrid<T> grid, unsigned bits, unsigned buckets,
                        unsigned chunk, unsigned* __restrict__ cell, unsigned* count, unsigned* __restrict__ share) {
  __shared__ unsigned in_bucket[two_level::max_buckets];
  for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x) in_bucket[b] = 0;
  __syncthreads();
  const unsigned first = blockIdx.x * chunk, last = min(n, first + chunk);
  for (unsigned i = first + threadIdx.x; i < last; i += blockDim.x) {
    const unsigned c = cell_of(pos, n, i, grid);
    cell[i] = c;
    two_level::take_place<per_warp>(in_bucket, c >> bits);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x)
    share[std::size_t(blockIdx.x) * buckets + b] = in_bucket[b] ? atomicAdd(&count[b], in_bucket[b]) : 0u;
}

// Each block: the buckets' starts (block 0 writes them out, bucket_start[buckets] = n), then each of
// its particles' slot into its share of its bucket, in the order of the shared atomics.
template <bool per_warp = false>
__global__ void __launch_bounds__(two_level::threads)
    bucket_scatter_kernel(const unsigned* __restrict__ cell, unsigned n, unsigned bits, unsigned buckets, unsigned chunk,
                          const unsigned* __restrict__ count, const unsigned* __restrict__ share,
                          unsigned* __restrict__ bucket_start, Slot* __restrict__ slots) {
  using Scan = cub::BlockScan<unsigned, two_level::threads>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ unsigned next[two_level::max_buckets];
  unsigned counts[two_level::items], starts[two_level::items];
  for (unsigned k = 0; k < two_level::items; ++k) {
    const unsigned b = threadIdx.x * two_level::items + k;
    counts[k] = b < buckets ? count[b] : 0u;
  }
  Scan(temp).ExclusiveSum(counts, starts);
  for (unsigned k = 0; k < two_level::items; ++k) {
    const unsigned b = threadIdx.x * two_level::items + k;
    if (b < buckets) next[b] = starts[k] + share[std::size_t(blockIdx.x) * buckets + b];
    if (blockIdx.x == 0 && b <= buckets) bucket_start[b] = b < buckets ? starts[k] : n;
  }
  __syncthreads();
  const unsigned first = blockIdx.x * chunk, last = min(n, first + chunk);
  for (unsigned i = first + threadIdx.x; i < last; i += blockDim.x) {
    const unsigned c = cell[i];
    slots[two_level::take_place<per_warp>(next, c >> bits)] = slot_of(c, i);
  }
}

// A block per bucket: its slots into shared memory by cell (counted and scanned there), each cell's
// start, and each cell's particles into order in increasing index (a slot's rank among its cell's
// slots). A bucket of more than max_in_bucket slots leaves its largest count in *overflow.
__global__ void __launch_bounds__(two_level::threads)
    bucket_sort_kernel(const Slot* __restrict__ slots, const unsigned* __restrict__ bucket_start, unsigned bits,
                       unsigned cells, unsigned n, unsigned* __restrict__ start, unsigned* __restrict__ order,
                       unsigned* overflow) {
  using Scan = cub::BlockScan<unsigned, two_level::threads>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ unsigned in_cell[two_level::threads], first[two_level::threads], filled[two_level::threads];
  __shared__ Slot local[two_level::max_in_bucket];
  const unsigned b = blockIdx.x, from = bucket_start[b], m = bucket_start[b + 1] - from, cell0 = b << bits;
  if (m > two_level::max_in_bucket) {  // the same for the whole block: no thread waits at a barrier below
    if (threadIdx.x == 0) atomicMax(overflow, m);
    return;
  }
  const unsigned t = threadIdx.x;  // the bucket's cell t, when t < 2^bits
  in_cell[t] = 0, filled[t] = 0;
  __syncthreads();
  for (unsigned k = t; k < m; k += blockDim.x) atomicAdd(&in_cell[unsigned(slots[from + k] >> 32) - cell0], 1u);
  __syncthreads();
  unsigned before;
  Scan(temp).ExclusiveSum(in_cell[t], before);
  first[t] = before;
  if (t < (1u << bits) && cell0 + t < cells) start[cell0 + t] = from + before;
  if (b == gridDim.x - 1 && t == 0) start[cells] = n;
  __syncthreads();
  for (unsigned k = t; k < m; k += blockDim.x) {
    const Slot s = slots[from + k];
    const unsigned c = unsigned(s >> 32) - cell0;
    local[first[c] + atomicAdd(&filled[c], 1u)] = s;
  }
  __syncthreads();
  for (unsigned k = t; k < m; k += blockDim.x) {
    const Slot s = local[k];
    const unsigned c = unsigned(s >> 32) - cell0, end = first[c] + in_cell[c];
    unsigned rank = 0;
    for (unsigned q = first[c]; q < end; ++q) rank += local[q] < s;  // same cell: the order of the indices
    order[from + first[c] + rank] = unsigned(s);
  }
}

// ---- (f) the radix sort's keys and cell starts ----

// The sort's keys (the cells) and values (the indices).
template <class T>
__global__ void keys_kernel(const T* __restrict__ pos, unsigned n, CellGrid<T> grid, unsigned* __restrict__ cell,
                            unsigned* __restrict__ index) {
  const unsigned i = thread_index();
  if (i >= n) return;
  cell[i] = cell_of(pos, n, i, grid);
  index[i] = i;
}

// start from the sorted keys (NVIDIA's cellStart; its cellEnd is start[c + 1]): slot p starts the
// cells after its predecessor's cell up to its own, the last slot ends the rest, so that every
// entry, empty cells' too, is written once.
__global__ void cell_starts_kernel(const unsigned* __restrict__ sorted_cell, unsigned n, unsigned cells,
                                          unsigned* __restrict__ start) {
  const unsigned p = thread_index();
  if (p >= n) return;
  const unsigned c = sorted_cell[p];
  for (unsigned k = p == 0 ? 0 : sorted_cell[p - 1] + 1; k <= c; ++k) start[k] = p;
  if (p == n - 1)
    for (unsigned k = c + 1; k <= cells; ++k) start[k] = n;
}

// ---- (d) the incremental re-sort of the previous build (cell, start, order) ----

// Each particle's new cell; one that left its cell is counted out of the old cell, into the new
// one, and in moved (a block's sum, one atomic).
template <class T>
__global__ void __launch_bounds__(block) classify_kernel(const T* __restrict__ pos, unsigned n, CellGrid<T> grid,
                                                        const unsigned* __restrict__ cell, unsigned* __restrict__ new_cell,
                                                        unsigned* leavers, unsigned* arrivals, unsigned* moved) {
  using Sum = cub::BlockReduce<unsigned, block>;
  __shared__ typename Sum::TempStorage sum;
  const unsigned i = thread_index();
  unsigned left = 0;
  if (i < n) {  // no return before the block's reduction: every thread takes part
    const unsigned c = cell_of(pos, n, i, grid), old = cell[i];
    new_cell[i] = c;
    if (c != old) {
      left = 1;
      atomicAdd(&leavers[old], 1u);
      atomicAdd(&arrivals[c], 1u);
    }
  }
  const unsigned total = Sum(sum).Sum(left);
  if (threadIdx.x == 0 && total) atomicAdd(moved, total);
}

// The new counts: the old ones less the leavers, plus the arrivals; count[cells] = 0 (as above).
__global__ void recount_kernel(const unsigned* __restrict__ start, const unsigned* __restrict__ leavers,
                                      const unsigned* __restrict__ arrivals, unsigned cells, unsigned* __restrict__ count) {
  const unsigned c = thread_index();
  if (c > cells) return;
  count[c] = c < cells ? start[c + 1] - start[c] - leavers[c] + arrivals[c] : 0u;
}

// The particles that stayed: to the front of their cell's new slots, in their old order (increasing
// index) with the leavers taken out; a cell that lost none just shifts. A thread per old slot.
__global__ void keep_stayers_kernel(const unsigned* __restrict__ order, const unsigned* __restrict__ start,
                                           const unsigned* __restrict__ cell, const unsigned* __restrict__ new_cell,
                                    const unsigned* __restrict__ leavers, const unsigned* __restrict__ new_start,
                                    unsigned n, Slot* __restrict__ slots) {
  const unsigned s = thread_index();
  if (s >= n) return;
  const unsigned i = order[s], c = cell[i];
  if (new_cell[i] != c) return;
  const unsigned first = start[c];
  unsigned rank = s - first;
  if (leavers[c]) {
    rank = 0;
    for (unsigned q = first; q < s; ++q) rank += new_cell[order[q]] == c;
  }
  slots[new_start[c] + rank] = slot_of(c, i);
}

// The particles that changed cell: into the slots after their new cell's stayers, in the order of
// the atomics (the cell is sorted next).
__global__ void insert_movers_kernel(const unsigned* __restrict__ cell, const unsigned* __restrict__ new_cell,
                                            const unsigned* __restrict__ start, const unsigned* __restrict__ leavers,
                                     const unsigned* __restrict__ new_start, unsigned n, unsigned* filled,
                                     Slot* __restrict__ slots) {
  const unsigned i = thread_index();
  if (i >= n) return;
  const unsigned c = new_cell[i];
  if (c == cell[i]) return;
  const unsigned stayers = start[c + 1] - start[c] - leavers[c];
  slots[new_start[c] + stayers + atomicAdd(&filled[c], 1u)] = slot_of(c, i);
}

// ---- Shared by the builders ----

// slots (each cell's particles in any order within start[c] .. start[c + 1]) into order, each cell
// in increasing index: slot p's particle goes to its cell's first slot plus the number of the
// cell's particles with a smaller index. Indices are distinct, so these ranks are the cell's slots,
// each once. A thread per slot with a loop over its cell: any cell size, and no thread left alone
// with a crowded cell (a degenerate box of one cell costs n^2 comparisons spread over the device).
// touched (or null): only the cells c with touched[c] != 0 are sorted, the others' slots copied.
__global__ void sort_within_cells_kernel(const Slot* __restrict__ slots, const unsigned* __restrict__ start,
                                         const unsigned* __restrict__ touched, unsigned n, unsigned* __restrict__ order) {
  const unsigned p = thread_index();
  if (p >= n) return;
  const Slot mine = slots[p];
  const auto c = unsigned(mine >> 32), i = unsigned(mine);
  if (touched && !touched[c]) {
    order[p] = i;
    return;
  }
  const unsigned first = start[c], end = start[c + 1];
  unsigned rank = 0;
  for (unsigned q = first; q < end; ++q) rank += slots[q] < mine;  // same cell: the order of the indices
  order[first + rank] = i;
}

// Per-particle data into cell order: out[k n + s] = in[k n + order[s]] for each of the
// `components` arrays of n values (SoA), so that a cell's particles are read together.
template <class T>
__global__ void gather_kernel(const unsigned* __restrict__ order, const T* __restrict__ in, unsigned n, unsigned components,
                              T* __restrict__ out) {
  const unsigned s = thread_index();
  if (s >= n) return;
  const unsigned i = order[s];
  for (unsigned k = 0; k < components; ++k) out[k * std::size_t(n) + s] = in[k * std::size_t(n) + i];
}

}  // namespace nbody::cuda::cell_kernels
