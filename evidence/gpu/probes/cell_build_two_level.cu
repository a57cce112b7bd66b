// A probe, not part of the solver: variants of the solver's two-level bucket sort (the `two-level`
// cell-list builder, kernels/cuda/cell_list.cuh), at N = 2^20, density 3, float, in random order
// and in cell order (S3's order after a step, less the step):
//   per warp   its first two kernels take one shared-memory atomic per particle on its bucket's
//              counter; in cell order a warp's particles fall in one or two buckets, whose atomics
//              are served one after the other. Aggregated per warp (take_place<true>: one atomic per
//              bucket and warp), do they gain there, and what does it cost in random order?
//   graph      the build (a memset and three kernels) launched as one CUDA graph instead of on a
//              stream: how much of the time is launch gaps?
// Each variant is timed from a cold L2 (median of 50) and checked against the CPU's list.
// Arguments (for a run under compute-sanitizer): log2 of N (20) and the repeats timed (50).
// (Its first version, git show e410ba1:evidence/gpu/probes/cell_build_two_level.cu, a four-kernel
// prototype, is what evidence/gpu/logs/cell_build_two_level holds.)
// Build (from the repository root): nvcc -O3 -std=c++20 -arch=sm_90 -I kernels -I solver
//   evidence/gpu/probes/cell_build_two_level.cu -o cell_build_two_level
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

// A cell list as the CPU's counting sort makes it (shortrange/cell_list.hpp): cell, start, order.
struct List {
  std::vector<unsigned> cell, start, order;
};

List cpu_list(const std::vector<float>& p, unsigned n, const CellGrid<float>& grid) {
  const unsigned cells = grid.cells();
  List l{std::vector<unsigned>(n), std::vector<unsigned>(cells + 1, 0), std::vector<unsigned>(n)};
  for (unsigned i = 0; i < n; ++i) ++l.start[(l.cell[i] = grid.cell_of(p[i], p[n + i], p[2 * std::size_t(n) + i])) + 1];
  for (unsigned c = 0; c < cells; ++c) l.start[c + 1] += l.start[c];
  std::vector<unsigned> next(l.start.begin(), l.start.end() - 1);
  for (unsigned i = 0; i < n; ++i) l.order[next[l.cell[i]]++] = i;
  return l;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned n = 1u << (argc > 1 ? std::atoi(argv[1]) : 20);
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 50;
  const float side = std::cbrt(float(n) / 3.0f);
  const PeriodicBox<float> box{{side, side, side}};
  const CellGrid<float> grid = CellGrid<float>::make(box, 1.0f);
  const unsigned cells = grid.cells(), bits = 10, buckets = (cells + 1023) >> bits;  // the solver's shape at 2^20
  const unsigned blocks = std::min(256u, (n + 4095) / 4096), chunk = (n + blocks - 1) / blocks;
  std::vector<float> random(3 * std::size_t(n));
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> u(0.0f, side);
  for (auto& x : random) x = std::min(u(rng), std::nextafter(side, 0.0f));
  const List random_list = cpu_list(random, n, grid);
  std::vector<float> in_cell_order(random.size());
  for (unsigned s = 0; s < n; ++s)
    for (int a = 0; a < 3; ++a)
      in_cell_order[a * std::size_t(n) + s] = random[a * std::size_t(n) + random_list.order[s]];

  float* pos;
  unsigned *cell, *count, *share, *bucket_start, *start, *order;
  Slot* slots;
  CK(cudaMalloc(&pos, random.size() * sizeof(float)));
  CK(cudaMalloc(&cell, n * sizeof(unsigned)));
  CK(cudaMalloc(&order, n * sizeof(unsigned)));
  CK(cudaMalloc(&slots, n * sizeof(Slot)));
  CK(cudaMalloc(&count, (buckets + 1) * sizeof(unsigned)));
  CK(cudaMalloc(&bucket_start, (buckets + 1) * sizeof(unsigned)));
  CK(cudaMalloc(&share, std::size_t(blocks) * buckets * sizeof(unsigned)));
  CK(cudaMalloc(&start, (cells + 1) * sizeof(unsigned)));
  ColdTimer timer;
  const cudaStream_t s = timer.stream;
  std::printf("order,atomics,launch,ms,same_as_cpu\n");
  int failures = 0;
  for (const auto* input : {&random, &in_cell_order}) {
    CK(cudaMemcpy(pos, input->data(), input->size() * sizeof(float), cudaMemcpyHostToDevice));
    const List ref = cpu_list(*input, n, grid);
    for (const bool per_warp : {false, true})
      for (const bool graph : {false, true}) {
        const auto build = [&] {
          CK(cudaMemsetAsync(count, 0, (buckets + 1) * sizeof(unsigned), s));
          if (per_warp)
            bucket_count_kernel<float, true>
                <<<blocks, two_level::threads, 0, s>>>(pos, n, grid, bits, buckets, chunk, cell, count, share);
          else
            bucket_count_kernel<float, false>
                <<<blocks, two_level::threads, 0, s>>>(pos, n, grid, bits, buckets, chunk, cell, count, share);
          CK(cudaGetLastError());
          if (per_warp)
            bucket_scatter_kernel<true><<<blocks, two_level::threads, 0, s>>>(cell, n, bits, buckets, chunk, count,
                                                                              share, bucket_start, slots);
          else
            bucket_scatter_kernel<false><<<blocks, two_level::threads, 0, s>>>(cell, n, bits, buckets, chunk, count,
                                                                               share, bucket_start, slots);
          CK(cudaGetLastError());
          bucket_sort_kernel<<<buckets, two_level::threads, 0, s>>>(slots, bucket_start, bits, cells, n, start, order,
                                                                    count + buckets);
          CK(cudaGetLastError());
        };
        double ms = 0;
        if (graph) {
          cudaGraph_t g;
          cudaGraphExec_t exec;
          CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
          build();
          CK(cudaStreamEndCapture(s, &g));
          CK(cudaGraphInstantiate(&exec, g, 0));
          ms = timer.median_ms([&] { CK(cudaGraphLaunch(exec, s)); }, repeats);
          CK(cudaStreamSynchronize(s));
          CK(cudaGraphExecDestroy(exec));
          CK(cudaGraphDestroy(g));
        } else {
          ms = timer.median_ms(build, repeats);
        }
        CK(cudaStreamSynchronize(s));
        List got{std::vector<unsigned>(n), std::vector<unsigned>(cells + 1), std::vector<unsigned>(n)};
        unsigned overflow = 0;
        CK(cudaMemcpy(got.cell.data(), cell, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(got.start.data(), start, (cells + 1) * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(got.order.data(), order, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&overflow, count + buckets, sizeof overflow, cudaMemcpyDeviceToHost));
        const bool same = !overflow && got.cell == ref.cell && got.start == ref.start && got.order == ref.order;
        failures += !same;
        std::printf("%s,%s,%s,%.5f,%d\n", input == &random ? "random" : "cell", per_warp ? "per-warp" : "per-thread",
                    graph ? "graph" : "stream", ms, int(same));
      }
  }
  return failures ? 1 : 0;
}
