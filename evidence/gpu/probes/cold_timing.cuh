#pragma once
// Shared by the cell-list probes beside this file: a checked CUDA call (CK) and the median device
// time of some work from a cold L2, as nvbench measures by default (a scratch buffer twice the
// L2 written before each repeat, outside the timed part).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

struct ColdTimer {
  cudaStream_t stream{};
  cudaEvent_t begin{}, end{};  // work may record `begin` again to leave its own set-up out
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;

  ColdTimer() {
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    scratch_bytes = 2 * std::size_t(l2);
    CK(cudaMalloc(&scratch, scratch_bytes));
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CK(cudaEventCreate(&begin));
    CK(cudaEventCreate(&end));
  }

  // The median of `repeats` timings of work() (on `stream`) in ms, after one untimed warm-up.
  template <class Work>
  double median_ms(Work&& work, int repeats = 50) {
    std::vector<double> ms;
    for (int r = 0; r <= repeats; ++r) {
      CK(cudaMemsetAsync(scratch, 0, scratch_bytes, stream));
      CK(cudaEventRecord(begin, stream));
      work();
      CK(cudaEventRecord(end, stream));
      CK(cudaEventSynchronize(end));
      float t = 0;
      CK(cudaEventElapsedTime(&t, begin, end));
      if (r) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }
};
