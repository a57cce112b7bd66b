// A probe, not part of the solver: can a cell-list build at N = 2^20 in random order (E18: 0.072
// ms at best, target 0.06 ms) avoid the per-particle random accesses that dominate the solver's
// builders (evidence/gpu/logs/cell_build_graph: the count's atomics and the scatter)? A two-level
// bucket sort:
//   A  each block counts its particles into buckets of 2^B consecutive cells in shared memory and
//      reserves its share of each bucket with one global atomic per bucket (not per particle);
//   B  one block scans the bucket counts;
//   C  each block scatters its particles' (cell, index) pairs to its shares: runs of a few
//      neighbouring words, not single words at random;
//   D  a block per bucket counts its cells in shared memory, scans them, writes their starts, and
//      writes each cell's particles in increasing index (the CPU's list, element for element).
// Timed from a cold L2 (median of 50) on a stream and as one CUDA graph, checked against the CPU.
// Build (from the repository root): nvcc -O3 -std=c++20 -arch=sm_90 -I kernels -I solver
//   evidence/gpu/probes/cell_build_two_level.cu -o cell_build_two_level
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cold_timing.cuh"
#include "common/cell_grid.hpp"

using nbody::shortrange::CellGrid;
using nbody::shortrange::PeriodicBox;

namespace {

constexpr unsigned threads = 1024;    // per block, every kernel
constexpr unsigned bucket_bits = 10;  // a bucket: 2^10 consecutive cells
constexpr unsigned bucket_cells = 1u << bucket_bits;
constexpr unsigned max_buckets = 4096;   // shared-memory counters of kernels A and C
constexpr unsigned max_in_bucket = 4000; // kernel D's shared copy of a bucket's pairs (the mean: 3130)
using Pair = unsigned long long;         // cell << 32 | index

// A: cell of each particle (written), bucket counts of the block, its share of each bucket.
__global__ void __launch_bounds__(threads) count_buckets(const float* __restrict__ pos, unsigned n, CellGrid<float> grid,
                                                         unsigned buckets, unsigned chunk, unsigned* __restrict__ cell,
                                                         unsigned* bucket_count, unsigned* __restrict__ block_base) {
  __shared__ unsigned hist[max_buckets];
  for (unsigned b = threadIdx.x; b < buckets; b += threads) hist[b] = 0;
  __syncthreads();
  const unsigned first = blockIdx.x * chunk, last = min(n, first + chunk);
  for (unsigned i = first + threadIdx.x; i < last; i += threads) {
    const unsigned c = grid.cell_of(pos[i], pos[n + i], pos[2 * std::size_t(n) + i]);
    cell[i] = c;
    atomicAdd(&hist[c >> bucket_bits], 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < buckets; b += threads)
    block_base[std::size_t(blockIdx.x) * buckets + b] = hist[b] ? atomicAdd(&bucket_count[b], hist[b]) : 0u;
}

// B: bucket starts (exclusive scan of the counts; bucket_start[buckets] = n), one block.
__global__ void __launch_bounds__(threads) scan_buckets(const unsigned* __restrict__ bucket_count, unsigned buckets,
                                                        unsigned* __restrict__ bucket_start) {
  using Scan = cub::BlockScan<unsigned, threads>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ unsigned carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (unsigned base = 0; base <= buckets; base += threads) {
    const unsigned b = base + threadIdx.x;
    const unsigned v = b < buckets ? bucket_count[b] : 0u;
    unsigned before, total;
    Scan(temp).ExclusiveSum(v, before, total);
    if (b <= buckets) bucket_start[b] = carry + before;
    __syncthreads();
    if (threadIdx.x == 0) carry += total;
    __syncthreads();
  }
}

// C: each particle's (cell, index) into its block's share of its bucket.
__global__ void __launch_bounds__(threads) scatter_pairs(const unsigned* __restrict__ cell, unsigned n, unsigned buckets,
                                                         unsigned chunk, const unsigned* __restrict__ bucket_start,
                                                         const unsigned* __restrict__ block_base, Pair* __restrict__ pairs) {
  __shared__ unsigned base[max_buckets];
  for (unsigned b = threadIdx.x; b < buckets; b += threads)
    base[b] = bucket_start[b] + block_base[std::size_t(blockIdx.x) * buckets + b];
  __syncthreads();
  const unsigned first = blockIdx.x * chunk, last = min(n, first + chunk);
  for (unsigned i = first + threadIdx.x; i < last; i += threads) {
    const unsigned c = cell[i];
    pairs[atomicAdd(&base[c >> bucket_bits], 1u)] = Pair(c) << 32 | i;
  }
}

// D: a block per bucket: its cells' counts, starts, and particles in increasing index.
__global__ void __launch_bounds__(threads) order_bucket(const Pair* __restrict__ pairs, const unsigned* __restrict__ bucket_start,
                                                        unsigned cells, unsigned n, unsigned* __restrict__ start,
                                                        unsigned* __restrict__ order, unsigned* overflow) {
  using Scan = cub::BlockScan<unsigned, threads>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ unsigned count[bucket_cells], offset[bucket_cells], fill[bucket_cells];
  __shared__ Pair local[max_in_bucket];
  const unsigned b = blockIdx.x, s0 = bucket_start[b], m = bucket_start[b + 1] - s0, cell0 = b << bucket_bits;
  if (m > max_in_bucket) {  // a probe: say so and leave
    if (threadIdx.x == 0) atomicMax(overflow, m);
    return;
  }
  static_assert(bucket_cells == threads, "a thread per cell of the bucket");
  count[threadIdx.x] = 0, fill[threadIdx.x] = 0;
  __syncthreads();
  for (unsigned k = threadIdx.x; k < m; k += threads) atomicAdd(&count[unsigned(pairs[s0 + k] >> 32) - cell0], 1u);
  __syncthreads();
  unsigned before;
  Scan(temp).ExclusiveSum(count[threadIdx.x], before);
  offset[threadIdx.x] = before;
  if (cell0 + threadIdx.x < cells) start[cell0 + threadIdx.x] = s0 + before;
  if (b == gridDim.x - 1 && threadIdx.x == 0) start[cells] = n;
  __syncthreads();
  for (unsigned k = threadIdx.x; k < m; k += threads) {
    const Pair p = pairs[s0 + k];
    const unsigned lc = unsigned(p >> 32) - cell0;
    local[offset[lc] + atomicAdd(&fill[lc], 1u)] = p;
  }
  __syncthreads();
  for (unsigned k = threadIdx.x; k < m; k += threads) {
    const Pair p = local[k];
    const unsigned lc = unsigned(p >> 32) - cell0, first = offset[lc], end = first + count[lc];
    unsigned rank = 0;
    for (unsigned q = first; q < end; ++q) rank += local[q] < p;
    order[s0 + first + rank] = unsigned(p);
  }
}

}  // namespace

int main() {
  const unsigned n = 1u << 20;
  const float side = std::cbrt(float(n) / 3.0f);
  const PeriodicBox<float> box{{side, side, side}};
  const CellGrid<float> grid = CellGrid<float>::make(box, 1.0f);
  const unsigned cells = grid.cells(), buckets = (cells + bucket_cells - 1) / bucket_cells;
  const unsigned blocks_a = 256, chunk = (n + blocks_a - 1) / blocks_a;
  if (buckets > max_buckets) return std::fprintf(stderr, "too many buckets\n"), 1;
  std::vector<float> host(3 * std::size_t(n));
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> u(0.0f, side);
  for (auto& x : host) x = std::min(u(rng), std::nextafter(side, 0.0f));

  float* pos;
  unsigned *cell, *bucket_count, *block_base, *bucket_start, *start, *order, *overflow;
  Pair* pairs;
  CK(cudaMalloc(&pos, host.size() * sizeof(float)));
  CK(cudaMemcpy(pos, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&cell, n * sizeof(unsigned)));
  CK(cudaMalloc(&order, n * sizeof(unsigned)));
  CK(cudaMalloc(&pairs, n * sizeof(Pair)));
  CK(cudaMalloc(&bucket_count, (buckets + 1) * sizeof(unsigned)));
  CK(cudaMalloc(&bucket_start, (buckets + 1) * sizeof(unsigned)));
  CK(cudaMalloc(&block_base, std::size_t(blocks_a) * buckets * sizeof(unsigned)));
  CK(cudaMalloc(&start, (cells + 1) * sizeof(unsigned)));
  CK(cudaMalloc(&overflow, sizeof(unsigned)));
  CK(cudaMemset(overflow, 0, sizeof(unsigned)));
  ColdTimer timer;
  const cudaStream_t s = timer.stream;
  const auto build = [&] {
    CK(cudaMemsetAsync(bucket_count, 0, (buckets + 1) * sizeof(unsigned), s));
    count_buckets<<<blocks_a, threads, 0, s>>>(pos, n, grid, buckets, chunk, cell, bucket_count, block_base);
    CK(cudaGetLastError());
    scan_buckets<<<1, threads, 0, s>>>(bucket_count, buckets, bucket_start);
    CK(cudaGetLastError());
    scatter_pairs<<<blocks_a, threads, 0, s>>>(cell, n, buckets, chunk, bucket_start, block_base, pairs);
    CK(cudaGetLastError());
    order_bucket<<<buckets, threads, 0, s>>>(pairs, bucket_start, cells, n, start, order, overflow);
    CK(cudaGetLastError());
  };
  const auto timed = [&](auto&& work) { return timer.median_ms(work); };
  const double stream = timed(build);
  cudaGraph_t g;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  build();
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&exec, g, 0));
  const double graph = timed([&] { CK(cudaGraphLaunch(exec, s)); });
  CK(cudaStreamSynchronize(s));

  // The CPU's list (shortrange/cell_list.hpp's counting sort, index order within a cell).
  std::vector<unsigned> ref_cell(n), ref_start(cells + 1, 0), ref_order(n);
  for (unsigned i = 0; i < n; ++i) {
    ref_cell[i] = grid.cell_of(host[i], host[n + i], host[2 * std::size_t(n) + i]);
    ++ref_start[ref_cell[i] + 1];
  }
  for (unsigned c = 0; c < cells; ++c) ref_start[c + 1] += ref_start[c];
  std::vector<unsigned> next(ref_start.begin(), ref_start.end() - 1);
  for (unsigned i = 0; i < n; ++i) ref_order[next[ref_cell[i]]++] = i;
  std::vector<unsigned> got_cell(n), got_start(cells + 1), got_order(n);
  unsigned over = 0;
  CK(cudaMemcpy(got_cell.data(), cell, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got_start.data(), start, (cells + 1) * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got_order.data(), order, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&over, overflow, sizeof over, cudaMemcpyDeviceToHost));
  const bool same = over == 0 && got_cell == ref_cell && got_start == ref_start && got_order == ref_order;
  std::printf("n,cells,buckets,stream_ms,graph_ms,same_as_cpu,overflow\n%u,%u,%u,%.5f,%.5f,%d,%u\n", n, cells, buckets, stream,
              graph, int(same), over);
  return same ? 0 : 1;
}
