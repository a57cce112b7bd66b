// A probe, not part of the solver: does capping registers (compile with -maxrregcount=R) raise
// the float tiled kernel's interactions/s at N = 2^20 by raising occupancy? Times
// tiled_kernel<float, DeviceMath<false>, 16, I> (the engine's own kernel, split = 1) for
// I = 1, 2, 4 and blocks of 256 and 512 with CUDA events, every call checked; prints CSV:
// maxrreg,I,block,regs,spill_bytes(local),blocks_per_sm,seconds,interactions_per_s
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/allpairs.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

using namespace nbody::cuda;
#ifndef MAXRREG
#define MAXRREG 0
#endif

template <int I>
void probe(const Body4<float>* bodies, float* acc, int n) {
  auto kernel = tiled_kernel<float, DeviceMath<false>, 16, I>;
  cudaFuncAttributes attr;
  CK(cudaFuncGetAttributes(&attr, kernel));
  for (int B : {256, 512}) {
    TiledArgs<float> a{bodies, n, 0.0f, 0.0f, 1.0f, acc, nullptr, nullptr, (n + B - 1) / B};
    const dim3 grid((n + B * I - 1) / (B * I), 1);
    const size_t shmem = B * sizeof(Body4<float>);
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, B, shmem));
    kernel<<<grid, B, shmem>>>(a);  // warm-up
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    const int reps = 5;
    CK(cudaEventRecord(t0));
    for (int r = 0; r < reps; ++r) kernel<<<grid, B, shmem>>>(a);
    CK(cudaGetLastError());
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, t0, t1));
    const double s = ms / 1e3 / reps;
    std::printf("%d,%d,%d,%d,%zu,%d,%.6f,%.4e\n", MAXRREG, I, B, attr.numRegs, attr.localSizeBytes, per_sm, s,
                double(n) * double(n - 1) / s);
  }
}

int main() {
  const int n = 1 << 20;
  std::vector<Body4<float>> h(n);
  srand(1);
  for (auto& b : h) b = {rand() / float(RAND_MAX), rand() / float(RAND_MAX), rand() / float(RAND_MAX), 1.0f / n};
  Body4<float>* bodies;
  float* acc;
  CK(cudaMalloc(&bodies, n * sizeof(Body4<float>)));
  CK(cudaMalloc(&acc, 3 * size_t(n) * sizeof(float)));
  CK(cudaMemcpy(bodies, h.data(), n * sizeof(Body4<float>), cudaMemcpyHostToDevice));
  probe<1>(bodies, acc, n);
  probe<2>(bodies, acc, n);
  probe<4>(bodies, acc, n);
  // a checksum, so that the runs computed something
  std::vector<float> out(3 * size_t(n));
  CK(cudaMemcpy(out.data(), acc, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : out) sum += v;
  std::fprintf(stderr, "checksum %.6e\n", sum);
}
