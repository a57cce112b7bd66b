// A probe, not part of the solver: does evaluating each pair once (Newton's third law) beat the
// all-pairs tiled kernel at N = 2^20 on the H100? The tiled kernel is issue-bound at ~13.7
// instructions per interaction (tools/gpu/logs/regcap_probe/); a pair costs 16 FP + 1 MUFU for
// two interactions, plus the exchange of the j side between lanes.
//
// Scheme (deterministic, no atomics): bodies in tiles of P = B*I (a block's i-bodies, I per
// thread). Block a does its own tile (one-sided, j != i) and the tiles b = a+1 .. a+H (mod T,
// half of the others: every tile pair once). For each j-tile it stages B bodies in shared memory;
// warp w takes chunk (w+s) mod W of 32 of them at step s (a permutation, so no two warps share
// a chunk), lane l starts with j = l, and after each of 32 steps the j side's accumulators
// move one lane down (shuffle) while lane l reads the next j from shared memory. The j side of
// tile b from row a goes to slot d = b - a of a [H+1][3][n] buffer; a second kernel adds, per
// body, slot 0 (its own row) and slots 1..H in that order.
//
// Prints CSV: precision,kernel,block,I,shufflej,regs,spill,blocks_per_sm,seconds,interactions_per_s,
// max_abs_diff_over_max_acc,max_rel_diff (against the tiled kernel)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>

#include "cuda/allpairs.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

using namespace nbody::cuda;
using M = DeviceMath<false>;

template <class T>
__device__ __forceinline__ void pair(T xi, T yi, T zi, T mi, T xj, T yj, T zj, T mj, T eps2, T& ax, T& ay,
                                     T& az, T& bx, T& by, T& bz) {
  const T dx = xj - xi, dy = yj - yi, dz = zj - zi;
  const T s2 = M::dist2(dx, dy, dz, eps2, T(0));
  const T q = M::weight(T(1), s2);  // 1/s^3
  const T wj = mj * q, wi = mi * q;
  ax += wj * dx; ay += wj * dy; az += wj * dz;
  bx -= wi * dx; by -= wi * dy; bz -= wi * dz;
}

__host__ __device__ inline int band(int a, int ntiles) {  // tiles b = a+1..a+band(a) belong to row a
  const int half = ntiles / 2;
  return (ntiles % 2) ? half : (a < half ? half : half - 1);
}

template <class T, int B, int I, bool ShuffleJ>
__global__ void __launch_bounds__(B) pairs_kernel(const Body4<T>* __restrict__ bodies, int n, int ntiles, T eps2,
                                                  T* __restrict__ slots) {
  constexpr int W = B / 32;
  constexpr int P = B * I;
  __shared__ Body4<T> tile[B];
  __shared__ T jx[B], jy[B], jz[B];
  const int tid = threadIdx.x, w = tid >> 5, l = tid & 31;
  const int a = blockIdx.x;
  T xi[I], yi[I], zi[I], mi[I], ax[I], ay[I], az[I];
#pragma unroll
  for (int q = 0; q < I; ++q) {
    const Body4<T> b = bodies[a * P + q * B + tid];
    xi[q] = b.x; yi[q] = b.y; zi[q] = b.z; mi[q] = b.m;
    ax[q] = ay[q] = az[q] = T(0);
  }
  // own tile, one-sided
  for (int sub = 0; sub < I; ++sub) {
    tile[tid] = bodies[a * P + sub * B + tid];
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < B; ++k) {
      const Body4<T> bj = tile[k];
#pragma unroll
      for (int q = 0; q < I; ++q)
        if (q != sub || k != tid)
          nbody::accumulate_interaction<T, M>(xi[q], yi[q], zi[q], bj.x, bj.y, bj.z, bj.m, eps2, T(0), ax[q], ay[q], az[q]);
    }
    __syncthreads();
  }
  const int src = (l + 1) & 31;
  const int H = band(a, ntiles);
  for (int d = 1; d <= H; ++d) {
    const int b = (a + d) % ntiles;
    T* slot = slots + size_t(d) * 3 * n;
    for (int sub = 0; sub < I; ++sub) {
      const int j0 = b * P + sub * B;
      tile[tid] = bodies[j0 + tid];
      jx[tid] = jy[tid] = jz[tid] = T(0);
      __syncthreads();
      for (int s = 0; s < W; ++s) {
        const int c = ((w + s) % W) * 32;
        T gx = jx[c + l], gy = jy[c + l], gz = jz[c + l];
        Body4<T> bj = tile[c + l];
#pragma unroll 8
        for (int k = 0; k < 32; ++k) {
          if (!ShuffleJ && k) bj = tile[c + ((l + k) & 31)];
#pragma unroll
          for (int q = 0; q < I; ++q) pair(xi[q], yi[q], zi[q], mi[q], bj.x, bj.y, bj.z, bj.m, eps2, ax[q], ay[q], az[q], gx, gy, gz);
          gx = __shfl_sync(0xffffffffu, gx, src);
          gy = __shfl_sync(0xffffffffu, gy, src);
          gz = __shfl_sync(0xffffffffu, gz, src);
          if (ShuffleJ) {
            bj.x = __shfl_sync(0xffffffffu, bj.x, src);
            bj.y = __shfl_sync(0xffffffffu, bj.y, src);
            bj.z = __shfl_sync(0xffffffffu, bj.z, src);
            bj.m = __shfl_sync(0xffffffffu, bj.m, src);
          }
        }
        jx[c + l] = gx; jy[c + l] = gy; jz[c + l] = gz;
        __syncthreads();
      }
      slot[j0 + tid] = jx[tid];
      slot[n + j0 + tid] = jy[tid];
      slot[2 * n + j0 + tid] = jz[tid];
    }
  }
#pragma unroll
  for (int q = 0; q < I; ++q) {
    const int i = a * P + q * B + tid;
    slots[i] = ax[q]; slots[n + i] = ay[q]; slots[2 * n + i] = az[q];
  }
}

template <class T>
__global__ void reduce_kernel(const T* __restrict__ slots, int n, int P, int ntiles, T G, T* __restrict__ acc) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int b = i / P;
  T sx = slots[i], sy = slots[n + i], sz = slots[2 * n + i];
  const int dmax = ntiles / 2;
  for (int d = 1; d <= dmax; ++d) {
    const int a = (b - d + ntiles) % ntiles;
    if (d > band(a, ntiles)) continue;
    const T* s = slots + size_t(d) * 3 * n;
    sx += s[i]; sy += s[n + i]; sz += s[2 * n + i];
  }
  acc[i] = G * sx; acc[n + i] = G * sy; acc[2 * n + i] = G * sz;
}

template <class T>
struct Run {
  const Body4<T>* bodies; int n; T* acc; T* slots; std::vector<T> ref; const char* prec;
};

template <class T>
void report(Run<T>& r, const char* kernel, int B, int I, int shf, const cudaFuncAttributes& attr, int per_sm,
            double s) {
  std::vector<T> out(3 * size_t(r.n));
  CK(cudaMemcpy(out.data(), r.acc, out.size() * sizeof(T), cudaMemcpyDeviceToHost));
  double amax = 0, dmax = 0, rmax = 0;
  if (!r.ref.empty()) {
    for (size_t i = 0; i < out.size(); ++i) amax = std::fmax(amax, std::fabs(double(r.ref[i])));
    for (int i = 0; i < r.n; ++i) {
      double d2 = 0, a2 = 0;
      for (int c = 0; c < 3; ++c) {
        const double d = double(out[c * size_t(r.n) + i]) - double(r.ref[c * size_t(r.n) + i]);
        d2 += d * d; a2 += double(r.ref[c * size_t(r.n) + i]) * double(r.ref[c * size_t(r.n) + i]);
        dmax = std::fmax(dmax, std::fabs(d));
      }
      rmax = std::fmax(rmax, std::sqrt(d2 / a2));
    }
  } else {
    r.ref = out;
  }
  std::printf("%s,%s,%d,%d,%d,%d,%zu,%d,%.6f,%.4e,%.3e,%.3e\n", r.prec, kernel, B, I, shf, attr.numRegs,
              attr.localSizeBytes, per_sm, s, double(r.n) * double(r.n - 1) / s, amax > 0 ? dmax / amax : 0.0, rmax);
  std::fflush(stdout);
}

template <class T, int U, int I>
void tiled(Run<T>& r, int B) {
  auto kernel = tiled_kernel<T, M, U, I>;
  cudaFuncAttributes attr;
  CK(cudaFuncGetAttributes(&attr, kernel));
  TiledArgs<T> a{r.bodies, r.n, T(0), T(0), T(1), r.acc, nullptr, nullptr, (r.n + B - 1) / B};
  const dim3 grid((r.n + B * I - 1) / (B * I), 1);
  const size_t shmem = B * sizeof(Body4<T>);
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, B, shmem));
  kernel<<<grid, B, shmem>>>(a);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0)); CK(cudaEventCreate(&t1));
  const int reps = 3;
  CK(cudaEventRecord(t0));
  for (int k = 0; k < reps; ++k) kernel<<<grid, B, shmem>>>(a);
  CK(cudaGetLastError());
  CK(cudaEventRecord(t1));
  CK(cudaEventSynchronize(t1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, t0, t1));
  report(r, "tiled", B, I, 0, attr, per_sm, ms / 1e3 / reps);
}

template <class T, int B, int I, bool Shf>
void pairs(Run<T>& r) {
  constexpr int P = B * I;
  if (r.n % P) return;
  const int ntiles = r.n / P;
  auto kernel = pairs_kernel<T, B, I, Shf>;
  cudaFuncAttributes attr;
  CK(cudaFuncGetAttributes(&attr, kernel));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, B, 0));
  auto launch = [&] {
    kernel<<<ntiles, B>>>(r.bodies, r.n, ntiles, T(0), r.slots);
    CK(cudaGetLastError());
    reduce_kernel<T><<<(r.n + 255) / 256, 256>>>(r.slots, r.n, P, ntiles, T(1), r.acc);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0)); CK(cudaEventCreate(&t1));
  const int reps = 3;
  CK(cudaEventRecord(t0));
  for (int k = 0; k < reps; ++k) launch();
  CK(cudaEventRecord(t1));
  CK(cudaEventSynchronize(t1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, t0, t1));
  report(r, "pairs", B, I, Shf, attr, per_sm, ms / 1e3 / reps);
}

template <class T>
void all(const char* prec, int n, size_t slot_bytes) {
  std::vector<Body4<T>> h(n);
  srand(1);
  for (auto& b : h) b = {T(rand() / double(RAND_MAX)), T(rand() / double(RAND_MAX)), T(rand() / double(RAND_MAX)), T(1.0 / n)};
  Run<T> r{nullptr, n, nullptr, nullptr, {}, prec};
  Body4<T>* bodies;
  CK(cudaMalloc(&bodies, n * sizeof(Body4<T>)));
  CK(cudaMalloc(&r.acc, 3 * size_t(n) * sizeof(T)));
  CK(cudaMalloc(&r.slots, slot_bytes));
  CK(cudaMemcpy(bodies, h.data(), n * sizeof(Body4<T>), cudaMemcpyHostToDevice));
  r.bodies = bodies;
  if constexpr (std::is_same_v<T, float>) tiled<T, 16, 2>(r, 512);
  else tiled<T, 8, 2>(r, 512);
  pairs<T, 256, 4, false>(r);
  pairs<T, 256, 4, true>(r);
  pairs<T, 512, 4, false>(r);
  pairs<T, 256, 8, false>(r);
  pairs<T, 128, 8, false>(r);
  pairs<T, 512, 2, false>(r);
  pairs<T, 256, 2, false>(r);
  CK(cudaFree(bodies)); CK(cudaFree(r.acc)); CK(cudaFree(r.slots));
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);
  // largest buffer: P = 512 -> (n/512/2 + 1) slots of 3n
  const size_t slots = size_t(n / 512 / 2 + 1);
  std::printf("precision,kernel,block,I,shufflej,regs,spill,blocks_per_sm,seconds,interactions_per_s,max_abs_diff_over_max_acc,max_rel_diff\n");
  all<float>("float", n, slots * 3 * n * sizeof(float));
  all<double>("double", n, slots * 3 * n * sizeof(double));
}
