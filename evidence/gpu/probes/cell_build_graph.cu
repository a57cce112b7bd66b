// A probe, not part of the solver: how much of a cell-list build at N = 2^20 in random order (E18:
// 0.077 ms by the counting sort, 0.072 ms by the bins, against a target of 0.06 ms) is the cost of
// launching its six operations one after another, and how much the kernels' own work? Times the
// counting sort of kernels/cuda/cell_list.cuh (memset, count, CUB's scan, scatter, sort within
// cells) from a cold L2, the median of 50:
//   stream     the operations launched on a stream, as the solver does
//   graph      the same captured once into a CUDA graph and launched as one
//   no-memset  the graph without the memset of the counts (a lower bound for folding it into the
//              previous build)
//   each       every operation alone between two events (their sum: the kernels' own time)
// and checks that stream and graph give the same order array.
// Build (from the repository root): nvcc -O3 -std=c++20 -arch=sm_90 -I kernels -I solver
//   evidence/gpu/probes/cell_build_graph.cu -o cell_build_graph
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cold_timing.cuh"
#include "cuda/cell_list.cuh"

using namespace nbody::cuda::cell_kernels;
using nbody::shortrange::CellGrid;
using nbody::shortrange::PeriodicBox;

namespace {

unsigned blocks_for(std::size_t count) { return unsigned((count + block - 1) / block); }

struct Build {
  unsigned n, cells;
  CellGrid<float> grid;
  float* pos;
  unsigned *cell, *count, *rank, *start, *order;
  Slot* slots;
  void* temp;
  std::size_t temp_bytes;

  void memset_counts(cudaStream_t s) const { CK(cudaMemsetAsync(count, 0, (cells + 1) * sizeof(unsigned), s)); }
  void count_cells(cudaStream_t s) const {
    count_kernel<<<blocks_for(n), block, 0, s>>>(pos, n, grid, cell, count, rank);
    CK(cudaGetLastError());
  }
  void scan(cudaStream_t s) const {
    std::size_t bytes = temp_bytes;
    CK(cub::DeviceScan::ExclusiveSum(temp, bytes, count, start, int(cells + 1), s));
  }
  void scatter(cudaStream_t s) const {
    scatter_kernel<<<blocks_for(n), block, 0, s>>>(cell, rank, start, n, slots);
    CK(cudaGetLastError());
  }
  void sort(cudaStream_t s) const {
    sort_within_cells_kernel<<<blocks_for(n), block, 0, s>>>(slots, start, nullptr, n, order);
    CK(cudaGetLastError());
  }
  void all(cudaStream_t s, bool with_memset) const {
    if (with_memset) memset_counts(s);
    count_cells(s), scan(s), scatter(s), sort(s);
  }
};

}  // namespace

int main() {
  const unsigned n = 1u << 20;
  const float side = std::cbrt(float(n) / 3.0f);
  const PeriodicBox<float> box{{side, side, side}};
  Build b{};
  b.n = n;
  b.grid = CellGrid<float>::make(box, 1.0f);
  b.cells = b.grid.cells();
  std::vector<float> host(3 * std::size_t(n));
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> u(0.0f, side);
  for (auto& x : host) x = std::min(u(rng), std::nextafter(side, 0.0f));
  CK(cudaMalloc(&b.pos, host.size() * sizeof(float)));
  CK(cudaMemcpy(b.pos, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (unsigned** p : {&b.cell, &b.rank, &b.order}) CK(cudaMalloc(p, n * sizeof(unsigned)));
  for (unsigned** p : {&b.count, &b.start}) CK(cudaMalloc(p, (b.cells + 1) * sizeof(unsigned)));
  CK(cudaMalloc(&b.slots, n * sizeof(Slot)));
  CK(cub::DeviceScan::ExclusiveSum(nullptr, b.temp_bytes, b.count, b.start, int(b.cells + 1)));
  CK(cudaMalloc(&b.temp, b.temp_bytes));
  ColdTimer timer;
  const cudaStream_t s = timer.stream;
  const auto timed = [&](auto&& work) { return timer.median_ms(work); };

  // The graphs: the build captured with and without the memset.
  cudaGraphExec_t graph[2];
  for (int with_memset = 0; with_memset < 2; ++with_memset) {
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    b.all(s, with_memset);
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&graph[with_memset], g, 0));
    CK(cudaGraphDestroy(g));
  }

  const double stream = timed([&] { b.all(s, true); });
  std::vector<unsigned> by_stream(n), by_graph(n);
  CK(cudaMemcpy(by_stream.data(), b.order, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const double in_graph = timed([&] { CK(cudaGraphLaunch(graph[1], s)); });
  CK(cudaMemcpy(by_graph.data(), b.order, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const double no_memset = timed([&] {
    CK(cudaMemsetAsync(b.count, 0, (b.cells + 1) * sizeof(unsigned), s));  // outside the graph, but timed
    CK(cudaEventRecord(timer.begin, s));  // restart the clock after it
    CK(cudaGraphLaunch(graph[0], s));
  });
  // Each operation alone, its input left by a full build before it.
  double each[5];
  const char* names[5] = {"memset", "count", "scan", "scatter", "sort"};
  for (int k = 0; k < 5; ++k) {
    each[k] = timed([&] {
      switch (k) {
        case 0: b.memset_counts(s); break;
        case 1:
          b.memset_counts(s);
          CK(cudaEventRecord(timer.begin, s));  // the count alone, after its memset
          b.count_cells(s);
          break;
        case 2: b.scan(s); break;
        case 3: b.scatter(s); break;
        case 4: b.sort(s); break;
      }
    });
  }
  std::printf("n,cells,stream_ms,graph_ms,graph_without_memset_ms,same_order");
  for (const char* name : names) std::printf(",%s_ms", name);
  std::printf("\n%u,%u,%.5f,%.5f,%.5f,%d", n, b.cells, stream, in_graph, no_memset, int(by_stream == by_graph));
  for (double t : each) std::printf(",%.5f", t);
  std::printf("\n");
  return by_stream == by_graph ? 0 : 1;
}
