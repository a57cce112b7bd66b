#pragma once
// Device-resident stepping (solver/engines/resident.hpp): one cooperative kernel takes many steps
// of an explicit Runge-Kutta method (fixed step or PI-controlled) or of Adams-Bashforth, the
// state, the stages and the controller never leaving the device.
//
// Work split: block b owns the bodies [b * per_block, (b + 1) * per_block). Per force evaluation:
//   A  each block writes its own bodies' stage state (y + h sum_j a_ij k_j): positions into a
//      Body4 buffer, velocities into the stage vector k_i;
//   -- barrier over the grid --
//   B  each block computes the accelerations of its own bodies from all positions, `lanes`
//      threads per body (the j-range split over the lanes, summed in a fixed order).
// Phase B of one stage and phase A of the next touch only the block's own bodies, so one
// barrier per force evaluation suffices; the position buffers alternate between stages so that a
// block writing the next stage never overwrites positions another block is still reading. An
// adaptive step adds one barrier: the blocks publish partial sums of the error norm, and every block
// adds all of them in the same order and so takes the same decision (pi_judge, shared with the
// host). Data written by other blocks is read with ld.global.cg (L2), never from a stale L1 line.
//
// The barrier is a template parameter: GridBarrier, cooperative groups' grid-wide sync over a
// cooperative launch (any number of co-resident blocks), or ClusterBarrier, the hardware barrier
// of a thread-block cluster (Hopper, sm_90) when the whole grid is one cluster of at most 16
// blocks. On the H100 the grid sync costs microseconds, the cluster barrier much less, and at the
// small N where this kernel pays off, 16 multiprocessors do the arithmetic in about that time.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "common/interaction.hpp"
#include "cuda/body.cuh"
#include "cuda/device_math.cuh"
#include "integrators/pi_rule.hpp"

namespace nbody::cuda {

constexpr int kResidentMaxStages = 17;  // feagin10, the largest tableau of the project

// The kernels' grid-wide barrier; both order the memory accesses before it (release) against
// those after it (acquire) for every thread of the grid.
struct GridBarrier {
  __device__ static void sync() { cooperative_groups::this_grid().sync(); }
};
struct ClusterBarrier {  // the grid is one cluster
  __device__ static void sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::this_cluster().sync();
#else
    __trap();  // the host launches this variant only on devices with clusters (sm_90 and later)
#endif
  }
};

// What a call carries in and out (block 0 writes it back at the end).
template <class T>
struct ResidentControl {
  T t, h_next, h_last;
  PIMemory<T> pi;
  int y_index;  // the state is y[y_index]
  int head;     // the slot of k holding f(y) (Runge-Kutta: stage 0; Adams: f_n)
  int current;  // slot `head` holds f at the current state
  int underflow;
  unsigned long long steps, rejected, evaluations;
};

template <class T>
struct ResidentArgs {
  int n;
  T G, eps2, rmin2;
  int per_block;  // bodies owned by each block
  int lanes;      // threads per body in the force loop: a power of 2, at most blockDim.x
  int tile;       // bodies per shared-memory tile
  // The method: coef = a (stages x stages), b, e, e2 (stages each); Adams: b only.
  int adams, stages, fsal, adaptive, second_estimate;
  const T* coef;
  T atol, rtol;
  PIRule<T> rule;
  // Where to stop (ResidentSegment).
  T land_on, stop_when, t0, dt;
  unsigned long long max_steps, step_index;
  // Device memory.
  T* y[2];             // 6n each
  T* k;                // stages slots of 6n: k_i = [velocities, accelerations] of stage i
  Body4<T>* pos[2];    // positions and masses of a stage state
  T* partial;          // 2 x gridDim.x partial sums of the error norm
  int* nonfinite;      // 2 flags: accepted step s sets flag s % 2 when its state has a non-finite
                       // component; alternating, so that a block setting the flag of step s + 1
                       // never races a block still reading that of step s
  ResidentControl<T>* ctl;
};

template <class T>
__device__ __forceinline__ Body4<T> load_body_cg(const Body4<T>* p) {
  return Body4<T>{__ldcg(&p->x), __ldcg(&p->y), __ldcg(&p->z), __ldcg(&p->m)};
}

// Where stage j's vector lives: slot j, except that stages 0 and S-1 trade slots on every
// accepted step of a FSAL method (f(y_new) becomes the next step's first stage).
template <class T>
struct StageSlots {
  T* base;
  std::size_t m;  // 6n
  int stages, slot0, slot_last;
  __device__ T* operator[](int j) const { return base + (j == 0 ? slot0 : j == stages - 1 ? slot_last : j) * m; }
};

// Adams: f_{n-j}, the history value j steps back, lives in slot (head + j) % K.
template <class T>
struct HistorySlots {
  T* base;
  std::size_t m;
  int head, K;
  __device__ T* operator[](int j) const { return base + ((head + j) % K) * m; }
};

// v[j] = k_j[K] for j < count, every load issued before any is used: one memory latency per
// phase instead of one per stage (the stages' values are not in any cache when they are read).
template <class T, class Slots>
__device__ __forceinline__ void load_stages(T (&v)[kResidentMaxStages], int count, const Slots& k, int K) {
#pragma unroll
  for (int j = 0; j < kResidentMaxStages; ++j)
    if (j < count) v[j] = k[j][K];
}
// sum_{j < count} w_j v_j, in the order of ExplicitRungeKutta (j ascending, from 0).
template <class T>
__device__ __forceinline__ T dot(const T* w, const T (&v)[kResidentMaxStages], int count) {
  T sum(0);
#pragma unroll
  for (int j = 0; j < kResidentMaxStages; ++j)
    if (j < count) sum += w[j] * v[j];
  return sum;
}

// Phase A for the own bodies [first, last): s = y + h sum_{j<i} row_j k_j (s = y when i == 0),
// positions into pos, velocities into kvel (the first half of the stage vector), and the whole
// stage state into out when out is given. Summed in the order of ExplicitRungeKutta::trial.
template <class T, class Slots>
__device__ void stage_state(int n, int first, int last, int i, const T* row, const T* y, T h, const Slots& k,
                            Body4<T>* pos, T* kvel, T* out) {
  const int count = last - first;
  for (int q = threadIdx.x; q < 6 * count; q += blockDim.x) {
    const int c = q / count, body = first + q % count, K = c * n + body;
    T v = y[K];
    if (i > 0) {
      T kv[kResidentMaxStages];
      load_stages(kv, i, k, K);
      v = y[K] + h * dot(row, kv, i);
    }
    if (c < 3)
      (&pos[body].x)[c] = v;
    else if (kvel)
      kvel[(c - 3) * n + body] = v;
    if (out) out[K] = v;
  }
}

// Phase B: acc[c n + i] = G sum_j m_j (r_j - r_i) / s^3 for the own bodies, from pos (all n).
// `lanes` threads per body (a power of 2 up to blockDim.x) split its j-range; their sums are
// combined by a fixed butterfly within a warp and then, for more than 32 lanes, warp by warp in
// order through shared memory (red: 3 values per warp), so the result is the same every time.
// The j loop is unrolled so that several interactions are in flight per thread: at small N the
// time of a stage is the latency of its longest thread, not the arithmetic.
template <class T, class M>
__device__ void own_forces(const ResidentArgs<T>& a, int first, int last, const Body4<T>* pos, T* acc, Body4<T>* tile,
                           T* red) {
  const int L = a.lanes, per_pass = blockDim.x / L;
  const int slot = threadIdx.x / L, lane = threadIdx.x % L;
  const int width = L < 32 ? L : 32;
  for (int base = first; base < last; base += per_pass) {
    const int i = base + slot;
    const bool active = i < last;
    const Body4<T> bi = load_body_cg(pos + (active ? i : first));
    T ax(0), ay(0), az(0);
    for (int j0 = 0; j0 < a.n; j0 += a.tile) {
      const int count = min(a.tile, a.n - j0);
      __syncthreads();  // the previous tile is consumed
#pragma unroll 4
      for (int q = threadIdx.x; q < count; q += blockDim.x) tile[q] = load_body_cg(pos + j0 + q);
      __syncthreads();
#pragma unroll 4
      for (int q = lane; q < count; q += L) {
        const Body4<T> bj = tile[q];
        if (j0 + q != i)
          accumulate_interaction<T, M>(bi.x, bi.y, bi.z, bj.x, bj.y, bj.z, bj.m, a.eps2, a.rmin2, ax, ay, az);
      }
    }
    for (int offset = width / 2; offset > 0; offset /= 2) {
      ax += __shfl_xor_sync(0xffffffffu, ax, offset, width);
      ay += __shfl_xor_sync(0xffffffffu, ay, offset, width);
      az += __shfl_xor_sync(0xffffffffu, az, offset, width);
    }
    if (L > 32) {  // the warps of one body, in order
      const int warp = threadIdx.x / 32;
      if (threadIdx.x % 32 == 0) {
        red[3 * warp] = ax;
        red[3 * warp + 1] = ay;
        red[3 * warp + 2] = az;
      }
      __syncthreads();
      if (lane == 0) {
        ax = ay = az = T(0);
        for (int w = warp; w < warp + L / 32; ++w) {
          ax += red[3 * w];
          ay += red[3 * w + 1];
          az += red[3 * w + 2];
        }
      }
      __syncthreads();
    }
    if (active && lane == 0) {
      acc[i] = a.G * ax;
      acc[a.n + i] = a.G * ay;
      acc[2 * a.n + i] = a.G * az;
    }
  }
}

// Sum of v over the block in a fixed tree (scratch: blockDim.x values, a power of 2); thread 0
// gets it.
template <class T>
__device__ T block_sum(T v, T* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
    __syncthreads();
  }
  const T total = scratch[0];
  __syncthreads();
  return total;
}

// The sum of the blocks' published values p[0..blocks), in the same order in every block.
template <class T>
__device__ T sum_over_blocks(const T* p, int blocks, T* shared_out) {
  if (threadIdx.x < 32) {
    T s(0);
    for (int b = threadIdx.x; b < blocks; b += 32) s += __ldcg(p + b);
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
    if (threadIdx.x == 0) *shared_out = s;
  }
  __syncthreads();
  const T total = *shared_out;
  __syncthreads();
  return total;
}

template <class T>
__device__ int* nonfinite_flag(const ResidentArgs<T>& a, unsigned long long step) {
  return a.nonfinite + (step & 1);
}

template <class T>
__device__ bool finite_value(T x) {
  return x - x == T(0);
}

// The state's and control's common set-up and write-back.
template <class T>
__device__ void load_coefficients(const ResidentArgs<T>& a, T* coef, int count) {
  for (int q = threadIdx.x; q < count; q += blockDim.x) coef[q] = a.coef[q];
  __syncthreads();
}

template <class T>
__device__ void write_back(const ResidentArgs<T>& a, const ResidentControl<T>& c) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *a.ctl = c;
}

// Both kernels' dynamic shared memory: a tile of a.tile bodies, then blockDim.x reals of scratch.
template <class T>
__device__ Body4<T>* shared_tile() {
  extern __shared__ __align__(32) unsigned char smem_raw[];
  return reinterpret_cast<Body4<T>*>(smem_raw);
}

// Explicit Runge-Kutta: fixed steps of dt, or PI-controlled steps clamped to land on land_on.
template <class T, class M, class Barrier>
__global__ void __launch_bounds__(512) resident_rk_kernel(ResidentArgs<T> a) {
  Body4<T>* tile = shared_tile<T>();
  T* scratch = reinterpret_cast<T*>(tile + a.tile);  // blockDim.x values
  __shared__ T coef[(kResidentMaxStages + 3) * kResidentMaxStages];
  __shared__ T total;

  const int n = a.n, S = a.stages;
  const std::size_t m = 6 * static_cast<std::size_t>(n);
  const int first = min(n, static_cast<int>(blockIdx.x) * a.per_block), last = min(n, first + a.per_block);
  load_coefficients(a, coef, S * S + 3 * S);
  const T* A = coef;
  const T* b = coef + S * S;
  const T* e = b + S;
  const T* e2 = e + S;

  ResidentControl<T> c = *a.ctl;
  c.steps = c.rejected = c.evaluations = 0;
  c.underflow = 0;
  StageSlots<T> k{a.k, m, S, c.head, c.head == 0 ? S - 1 : 0};
  const T* y = a.y[c.y_index];
  T* y_new = a.y[1 - c.y_index];
  int pb = 0;
  bool checked = false;  // fixed steps: the flag of the last accepted step was read in this step
  // One force evaluation of stage i. Returns true when the run must stop: the first evaluation of
  // a fixed step reads whether the last accepted state was non-finite (blown up).
  auto evaluate = [&](int i, const T* row, T h, T* out) {
    stage_state(n, first, last, i, row, y, h, k, a.pos[pb], k[i], out);
    Barrier::sync();
    if (!a.adaptive && !checked) {
      checked = true;
      if (c.steps > 0 && *reinterpret_cast<volatile int*>(nonfinite_flag(a, c.steps - 1))) return true;
    }
    own_forces<T, M>(a, first, last, a.pos[pb], k[i] + 3 * n, tile, scratch);
    __syncthreads();  // the block's own accelerations are read by its other threads next
    pb ^= 1;
    ++c.evaluations;
    return false;
  };

  for (;;) {
    const T remaining = a.land_on - c.t;
    T h = a.adaptive ? (remaining < c.h_next ? remaining : c.h_next) : a.dt;
    checked = false;
    if (!c.current) {
      if (evaluate(0, A, h, nullptr)) goto done;  // row unused at stage 0
      c.current = 1;
    }
    for (;;) {  // trials of this step
      for (int i = 1; i < S; ++i) {
        const bool fsal_stage = a.fsal && i == S - 1;  // evaluated at y_new, which it writes
        if (evaluate(i, fsal_stage ? b : A + i * S, h, fsal_stage ? y_new : nullptr)) goto done;
      }
      const int count = last - first;
      if (!a.fsal)
        for (int q = threadIdx.x; q < 6 * count; q += blockDim.x) {
          const int K = (q / count) * n + first + q % count;
          T kv[kResidentMaxStages];
          load_stages(kv, S, k, K);
          y_new[K] = y[K] + h * dot(b, kv, S);
        }
      __syncthreads();
      if (!a.adaptive) {
        for (int q = threadIdx.x; q < 6 * count; q += blockDim.x)
          if (!finite_value(y_new[(q / count) * n + first + q % count])) atomicOr(nonfinite_flag(a, c.steps), 1);
        break;
      }
      // Hairer's scaled RMS norm of h sum_j e_j k_j (and of the second estimate), as error_norm.
      T s1(0), s2(0);
      for (int q = threadIdx.x; q < 6 * count; q += blockDim.x) {
        const int K = (q / count) * n + first + q % count;
        T kv[kResidentMaxStages];
        load_stages(kv, S, k, K);
        const T d1 = dot(e, kv, S), d2 = a.second_estimate ? dot(e2, kv, S) : T(0);
        const T y0 = abs(y[K]), y1 = abs(y_new[K]);
        const T sc = a.atol + a.rtol * (y0 < y1 ? y1 : y0);
        const T q1 = h * d1 / sc, q2 = h * d2 / sc;
        s1 += q1 * q1;
        s2 += q2 * q2;
      }
      s1 = block_sum(s1, scratch);
      s2 = block_sum(s2, scratch);
      if (threadIdx.x == 0) {
        __stcg(a.partial + blockIdx.x, s1);
        __stcg(a.partial + gridDim.x + blockIdx.x, s2);
      }
      Barrier::sync();
      const T e1 = sqrt(sum_over_blocks(a.partial, gridDim.x, &total) / T(m));
      T err = e1;
      if (a.second_estimate) {  // DOP853's combination (Dop853Method::combined_error)
        const T e3 = sqrt(sum_over_blocks(a.partial + gridDim.x, gridDim.x, &total) / T(m));
        const T denominator = e1 * e1 + e3 * e3 / T(100);
        err = denominator > T(0) ? e1 * e1 / sqrt(denominator) : T(0);
      }
      T h_next;
      if (pi_judge(a.rule, c.pi, err, h, h_next)) {
        c.h_next = h_next;
        break;
      }
      ++c.rejected;
      if (h_next < a.rule.h_min) {
        c.h_next = h_next;
        c.underflow = 1;
        goto done;
      }
      h = h_next;
    }
    // Accept: y_new becomes the state.
    c.y_index ^= 1;
    y = a.y[c.y_index];
    y_new = a.y[1 - c.y_index];
    if (a.fsal) {
      const int s = k.slot0;
      k.slot0 = k.slot_last;
      k.slot_last = s;
    } else {
      c.current = 0;
    }
    ++c.steps;
    c.h_last = h;
    if (a.adaptive)
      c.t = h == remaining ? a.land_on : c.t + h;
    else
      c.t = a.t0 + T(a.step_index + c.steps) * a.dt;
    if (c.steps >= a.max_steps || c.t >= a.stop_when || (a.adaptive && c.t == a.land_on)) break;
  }
done:
  c.head = k.slot0;
  write_back(a, c);
}

// Adams-Bashforth of order K = stages at fixed steps of dt: f_n = f(y_n) into the history ring,
// y_{n+1} = y_n + h sum_j b_j f_{n-j}. One force evaluation and one barrier per step.
template <class T, class M, class Barrier>
__global__ void __launch_bounds__(512) resident_adams_kernel(ResidentArgs<T> a) {
  Body4<T>* tile = shared_tile<T>();
  T* scratch = reinterpret_cast<T*>(tile + a.tile);  // blockDim.x values
  __shared__ T coef[kResidentMaxStages];

  const int n = a.n, K = a.stages;
  const std::size_t m = 6 * static_cast<std::size_t>(n);
  const int first = min(n, static_cast<int>(blockIdx.x) * a.per_block), last = min(n, first + a.per_block);
  const int count = last - first;
  load_coefficients(a, coef, K);

  ResidentControl<T> c = *a.ctl;
  c.steps = c.rejected = c.evaluations = 0;
  c.underflow = 0;
  const T* y = a.y[c.y_index];
  T* y_new = a.y[1 - c.y_index];
  int pb = 0;
  stage_state<T>(n, first, last, 0, nullptr, y, a.dt, HistorySlots<T>{a.k, m, c.head, K}, a.pos[pb], nullptr, nullptr);
  Barrier::sync();
  for (;;) {
    if (!c.current) {  // f_n = f(y_n) becomes the newest history value, over the oldest
      c.head = (c.head + K - 1) % K;
      T* f = a.k + c.head * m;
      for (int q = threadIdx.x; q < 3 * count; q += blockDim.x) {
        const int V = (q / count) * n + first + q % count;
        f[V] = y[3 * n + V];
      }
      own_forces<T, M>(a, first, last, a.pos[pb], f + 3 * n, tile, scratch);
      __syncthreads();
      ++c.evaluations;
    }
    // y_{n+1} = y_n + h sum_j b_j f_{n-j} (summed as AdamsBase::advance), positions for the next f.
    const T h = a.dt;
    for (int q = threadIdx.x; q < 6 * count; q += blockDim.x) {
      const int comp = q / count, body = first + q % count, Q = comp * n + body;
      T f[kResidentMaxStages];
      load_stages(f, K, HistorySlots<T>{a.k, m, c.head, K}, Q);
      const T v = y[Q] + h * dot(coef, f, K);
      y_new[Q] = v;
      if (comp < 3) (&a.pos[pb ^ 1][body].x)[comp] = v;
      if (!finite_value(v)) atomicOr(nonfinite_flag(a, c.steps), 1);
    }
    Barrier::sync();
    pb ^= 1;
    const bool blew_up = *reinterpret_cast<volatile int*>(nonfinite_flag(a, c.steps));
    c.y_index ^= 1;
    y = a.y[c.y_index];
    y_new = a.y[1 - c.y_index];
    c.current = 0;
    ++c.steps;
    c.h_last = h;
    c.t = a.t0 + T(a.step_index + c.steps) * a.dt;
    if (blew_up || c.steps >= a.max_steps || c.t >= a.stop_when) break;
  }
  write_back(a, c);
}

}  // namespace nbody::cuda
