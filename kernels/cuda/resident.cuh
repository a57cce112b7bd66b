#pragma once
// Device-resident stepping (solver/engines/resident.hpp): one cooperative kernel takes many steps
// of an explicit Runge-Kutta method (fixed step or PI-controlled) or of Adams-Bashforth, the
// state, the stages and the controller never leaving the device.
//
// Work split: block b owns the bodies [b * per_block, (b + 1) * per_block). One round:
//   A  each block writes its own bodies' stage positions into Body4 buffers;
//   -- barrier over the grid --
//   B  each block computes the accelerations of its own bodies from all positions, `lanes`
//      threads per body (the j-range split over the lanes, summed in a fixed order).
// Two force evaluations per round, so one barrier per two evaluations. The system is of second
// order (x' = v, v' = a(x)): a stage's positions x + h sum_l a_il V_l need the stage velocities
// V_l = v + h sum_m a_lm A_m of the earlier stages, so the accelerations only up to stage i - 2:
// stages i and i + 1 are evaluated together once the accelerations up to i - 1 are known, which
// the previous round provided. Adams-Bashforth likewise takes two steps per round (x_{n+1} needs
// v_n, which needs the accelerations up to f_{n-1}). The arithmetic and its order are those of
// the host (every stage value is summed as ExplicitRungeKutta::trial and AdamsBase::advance do),
// only the rounds are fewer. Phase B of one round and phase A of the next touch only the block's
// own bodies and stage data; the position buffers alternate between two pairs so that a block
// writing the next round never overwrites positions another block is still reading. An
// adaptive step adds one barrier: the blocks publish partial sums of the error norm, and every
// block adds all of them in the same order and so takes the same decision (pi_judge, shared with
// the host). Data written by other blocks is read with ld.global.cg (L2), never from a stale L1
// line.
//
// The barrier is a template parameter: GridBarrier, cooperative groups' grid-wide sync over a
// cooperative launch (any number of co-resident blocks), or ClusterBarrier, the hardware barrier
// of a thread-block cluster (Hopper, sm_90) when the whole grid is one cluster of at most 16
// blocks (--launch cluster=K). A cluster's few multiprocessors lose more in arithmetic than its
// barrier saves (the measurements: evidence/README.md), so the grid sync is the default.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "common/interaction.hpp"
#include "common/step_control.hpp"
#include "cuda/body.cuh"
#include "cuda/device_math.cuh"

namespace nbody::cuda {

constexpr int kResidentMaxStages = 17;  // feagin10, the largest tableau of the project
// Threads per block at most: the kernels then have 255 registers per thread and do not spill (at
// 512, the Runge-Kutta kernel spilled ~600 bytes per thread). One block per multiprocessor.
constexpr int kResidentMaxBlock = 256;

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

constexpr int kResidentFlags = 4;  // non-finite flags, one per step modulo 4

template <class T>
struct ResidentArgs {
  int n;
  T G, eps2, rmin2;
  int per_block;  // bodies owned by each block
  int lanes;      // threads per body in the force loop: a power of 2, at most blockDim.x
  int tile;       // bodies per shared-memory tile (two tiles: one per evaluation of a round)
  // The method: coef = a (stages x stages), b, e, e2 (stages each); Adams: b only.
  int adams, stages, fsal, adaptive, second_estimate;
  int ring;  // Adams: history slots in k, stages + 1 (a round adds two values before one is dropped)
  const T* coef;
  T atol, rtol;
  PIRule<T> rule;
  // Where to stop (ResidentSegment).
  T land_on, stop_when, t0, dt;
  unsigned long long max_steps, step_index;
  // Device memory.
  T* y[3];             // 6n each (Runge-Kutta uses two: y and y_new)
  T* k;                // slots of 6n: k_i = [velocities, accelerations] of stage i (Adams: f values)
  Body4<T>* pos[4];    // positions and masses of stage states, two pairs used by alternate rounds
  T* partial;          // 2 x gridDim.x partial sums of the error norm
  int* nonfinite;      // kResidentFlags flags: accepted step s sets flag s % 4 when its state has a
                       // non-finite component. A round sets the flags of (at most) two steps and
                       // then reads them after the next barrier: with four, no block sets a flag
                       // that a slower block is still reading.
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

// Phase B: acc_s[c n + i] = G sum_j m_j (r_j - r_i) / s^3 for the own bodies, from pos_s (all n),
// for Sets = 1 or 2 position sets at once (the two evaluations of a round share the pass over j,
// two independent chains per thread). `lanes` threads per body (a power of 2 up to blockDim.x)
// split its j-range; their sums are combined by a fixed butterfly within a warp and then, for more
// than 32 lanes, warp by warp in order through shared memory (red: 3 Sets values per warp), so the
// result is the same every time and the same for either Sets. The tile is held as four arrays (x,
// y, z, m) per set: the lanes of a body read consecutive j, which as 32-byte Body4 records would
// fall into the same shared-memory banks (8-way conflicts at 32 lanes in double).
template <class T, class M, int Sets>
__device__ void own_forces(const ResidentArgs<T>& a, int first, int last, const Body4<T>* pos0, const Body4<T>* pos1,
                           T* acc0, T* acc1, T* tile, T* red) {
  const Body4<T>* pos[2] = {pos0, pos1};
  T* acc[2] = {acc0, acc1};
  const int L = a.lanes, per_pass = blockDim.x / L;
  const int slot = threadIdx.x / L, lane = threadIdx.x % L;
  const int width = L < 32 ? L : 32;
  for (int base = first; base < last; base += per_pass) {
    const int i = base + slot;
    const bool active = i < last;
    Body4<T> bi[Sets];
    T ax[Sets], ay[Sets], az[Sets];
#pragma unroll
    for (int s = 0; s < Sets; ++s) {
      bi[s] = load_body_cg(pos[s] + (active ? i : first));
      ax[s] = ay[s] = az[s] = T(0);
    }
    for (int j0 = 0; j0 < a.n; j0 += a.tile) {
      const int count = min(a.tile, a.n - j0);
      __syncthreads();  // the previous tile is consumed
#pragma unroll
      for (int s = 0; s < Sets; ++s)
        for (int q = threadIdx.x; q < count; q += blockDim.x) {
          const Body4<T> b = load_body_cg(pos[s] + j0 + q);
          T* t = tile + 4 * s * a.tile;
          t[q] = b.x;
          t[a.tile + q] = b.y;
          t[2 * a.tile + q] = b.z;
          t[3 * a.tile + q] = b.m;
        }
      __syncthreads();
#pragma unroll 4
      for (int q = lane; q < count; q += L) {
        if (j0 + q == i) continue;
#pragma unroll
        for (int s = 0; s < Sets; ++s) {
          const T* t = tile + 4 * s * a.tile;
          accumulate_interaction<T, M>(bi[s].x, bi[s].y, bi[s].z, t[q], t[a.tile + q], t[2 * a.tile + q], t[3 * a.tile + q],
                                       a.eps2, a.rmin2, ax[s], ay[s], az[s]);
        }
      }
    }
#pragma unroll
    for (int s = 0; s < Sets; ++s)
      for (int offset = width / 2; offset > 0; offset /= 2) {
        ax[s] += __shfl_xor_sync(0xffffffffu, ax[s], offset, width);
        ay[s] += __shfl_xor_sync(0xffffffffu, ay[s], offset, width);
        az[s] += __shfl_xor_sync(0xffffffffu, az[s], offset, width);
      }
    if (L > 32) {  // the warps of one body, in order
      const int warp = threadIdx.x / 32;
      if (threadIdx.x % 32 == 0)
#pragma unroll
        for (int s = 0; s < Sets; ++s) {
          red[3 * (Sets * warp + s)] = ax[s];
          red[3 * (Sets * warp + s) + 1] = ay[s];
          red[3 * (Sets * warp + s) + 2] = az[s];
        }
      __syncthreads();
      if (lane == 0)
#pragma unroll
        for (int s = 0; s < Sets; ++s) {
          ax[s] = ay[s] = az[s] = T(0);
          for (int w = warp; w < warp + L / 32; ++w) {
            ax[s] += red[3 * (Sets * w + s)];
            ay[s] += red[3 * (Sets * w + s) + 1];
            az[s] += red[3 * (Sets * w + s) + 2];
          }
        }
      __syncthreads();
    }
    if (active && lane == 0)
#pragma unroll
      for (int s = 0; s < Sets; ++s) {
        acc[s][i] = a.G * ax[s];
        acc[s][a.n + i] = a.G * ay[s];
        acc[s][2 * a.n + i] = a.G * az[s];
      }
  }
}

// One or two evaluations (positions pos0, pos1 -> accelerations acc0, acc1).
template <class T, class M>
__device__ void own_forces_of(bool two, const ResidentArgs<T>& a, int first, int last, const Body4<T>* pos0,
                              const Body4<T>* pos1, T* acc0, T* acc1, T* tile, T* red) {
  if (two)
    own_forces<T, M, 2>(a, first, last, pos0, pos1, acc0, acc1, tile, red);
  else
    own_forces<T, M, 1>(a, first, last, pos0, pos0, acc0, acc0, tile, red);
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
  return a.nonfinite + (step % kResidentFlags);
}
template <class T>
__device__ bool blew_up(const ResidentArgs<T>& a, unsigned long long step) {
  return *reinterpret_cast<volatile int*>(nonfinite_flag(a, step)) != 0;
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

// Both kernels' dynamic shared memory: two tiles of a.tile bodies (4 a.tile reals each), then
// blockDim.x reals of scratch.
template <class T>
struct SharedMemory {
  T* tile;
  T* scratch;
};
template <class T>
__device__ SharedMemory<T> shared_memory(const ResidentArgs<T>& a) {
  extern __shared__ __align__(32) unsigned char smem_raw[];
  T* tile = reinterpret_cast<T*>(smem_raw);
  return {tile, tile + 8 * a.tile};
}

// Explicit Runge-Kutta: fixed steps of dt, or PI-controlled steps clamped to land on land_on.
// Rounds evaluate stages (0, 1), (2, 3), ... (from stage 1 when f(y) is known: FSAL or a retrial).
template <class T, class M, class Barrier>
__global__ void __launch_bounds__(kResidentMaxBlock) resident_rk_kernel(ResidentArgs<T> a) {
  const auto [tile, scratch] = shared_memory(a);
  __shared__ T coef[(kResidentMaxStages + 3) * kResidentMaxStages];
  __shared__ T total;

  const int n = a.n, S = a.stages;
  const std::size_t m = 6 * static_cast<std::size_t>(n);
  const int first = min(n, static_cast<int>(blockIdx.x) * a.per_block), last = min(n, first + a.per_block);
  const int count = last - first;
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
  int pair = 0;          // the position buffers of this round: pos[2 pair], pos[2 pair + 1]
  int velocities_to = 0;  // the stage velocities V_0 .. V_{velocities_to - 1} of this trial are known
  bool checked = false;   // fixed steps: the flag of the last accepted step was read in this step

  // Row i of the tableau (a FSAL method's last row is b: that stage is evaluated at y_new).
  auto row = [&](int i) { return a.fsal && i == S - 1 ? b : A + i * S; };
  // Stage i's component K (a position: x + h sum_l a_il V_l; a velocity: v + h sum_l a_il A_l),
  // summed as ExplicitRungeKutta::trial; the FSAL stage's is also y_new's.
  auto stage_value = [&](int i, T h, int K) {
    T v = y[K];
    if (i > 0) {
      T kv[kResidentMaxStages];
      load_stages(kv, i, k, K);
      v = y[K] + h * dot(row(i), kv, i);
    }
    if (a.fsal && i == S - 1) y_new[K] = v;
    return v;
  };
  // For the thread's (body, dimension): the stage velocities not known yet up to stage `to`, into
  // the first half of the stage vectors.
  auto velocities = [&](int to, T h, int X) {
    for (int i = velocities_to; i <= to; ++i) k[i][X] = stage_value(i, h, X + 3 * n);
  };
  // One round: the positions of stages p and p + 1 (if p + 1 < S), one barrier, their forces. Returns
  // true when the run must stop: the first round of a fixed step reads whether the last accepted
  // state was non-finite (blown up).
  auto round = [&](int p, T h) {
    const bool two = p + 1 < S;
    Body4<T>* P0 = a.pos[2 * pair];
    Body4<T>* P1 = a.pos[2 * pair + 1];
    for (int q = threadIdx.x; q < 3 * count; q += blockDim.x) {
      const int d = q / count, body = first + q % count, X = d * n + body;
      velocities(p, h, X);  // V_p: needs the accelerations up to p - 1
      (&P0[body].x)[d] = stage_value(p, h, X);
      if (two) (&P1[body].x)[d] = stage_value(p + 1, h, X);  // needs V_p
    }
    velocities_to = p + 1;
    Barrier::sync();
    if (!a.adaptive && !checked) {
      checked = true;
      if (c.steps > 0 && blew_up(a, c.steps - 1)) return true;
    }
    own_forces_of<T, M>(two, a, first, last, P0, P1, k[p] + 3 * n, two ? k[p + 1] + 3 * n : nullptr, tile, scratch);
    __syncthreads();  // the block's own accelerations are read by its other threads next
    pair ^= 1;
    c.evaluations += two ? 2 : 1;
    return false;
  };

  for (;;) {
    const T remaining = a.land_on - c.t;
    T h = a.adaptive ? (remaining < c.h_next ? remaining : c.h_next) : a.dt;
    checked = false;
    for (;;) {  // trials of this step
      const int from = c.current ? 1 : 0;  // k_0 = f(y) is kept across trials
      velocities_to = from;
      c.current = 1;
      for (int p = from; p < S; p += 2)
        if (round(p, h)) goto done;
      // The last velocities, and y_new = y + h sum_j b_j k_j unless the FSAL stage wrote it.
      for (int q = threadIdx.x; q < 3 * count; q += blockDim.x) {
        const int X = (q / count) * n + first + q % count;
        velocities(S - 1, h, X);
        if (!a.fsal)
          for (const int K : {X, X + 3 * n}) {
            T kv[kResidentMaxStages];
            load_stages(kv, S, k, K);
            y_new[K] = y[K] + h * dot(b, kv, S);
          }
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
      if (a.second_estimate)  // DOP853's combination, as on the host
        err = dop853_combined_error(e1, sqrt(sum_over_blocks(a.partial + gridDim.x, gridDim.x, &total) / T(m)));
      T h_next;
      const bool accepted = pi_judge(a.rule, c.pi, err, h, h_next);
      if (!accepted) ++c.rejected;
      if (controller_collapsed(c.t, h, h_next, a.rule.h_min, a.rule.epsilon)) {
        c.h_next = h_next;
        c.underflow = 1;
        goto done;
      }
      if (accepted) {
        c.h_next = h_next;
        break;
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

// Adams-Bashforth of order K = stages at fixed steps of dt: y_{n+1} = y_n + h sum_j b_j f_{n-j},
// f_n = (v_n, a(x_n)), the history in a ring of K + 1 slots of k (f_{n-j} in slot (head + j) % ring).
// A round from the state y_m evaluates a(x_m) and, when a second step follows, a(x_{m+1}) (x_{m+1}
// needs only v_m and the older f), then takes those steps. The states rotate through three
// buffers, so that the state before a step found non-finite at the next barrier is still there.
template <class T, class M, class Barrier>
__global__ void __launch_bounds__(kResidentMaxBlock) resident_adams_kernel(ResidentArgs<T> a) {
  const auto [tile, scratch] = shared_memory(a);
  __shared__ T coef[kResidentMaxStages];

  const int n = a.n, K = a.stages, R = a.ring;
  const std::size_t m = 6 * static_cast<std::size_t>(n);
  const int first = min(n, static_cast<int>(blockIdx.x) * a.per_block), last = min(n, first + a.per_block);
  const int count = last - first;
  load_coefficients(a, coef, K);

  ResidentControl<T> c = *a.ctl;
  c.steps = c.rejected = c.evaluations = 0;
  c.underflow = 0;
  const int entry_index = c.y_index;
  auto state = [&](unsigned long long steps) { return a.y[(entry_index + steps) % 3]; };  // after `steps` steps
  auto f = [&](int j) { return a.k + ((c.head + j) % R) * m; };                          // f_{n-j}
  const T h = a.dt;
  // Component Q of y + h sum_j b_j f_{n-j}, f_n in slot `head` except its component Q, given as f0
  // (its slot may not be written yet); summed as AdamsBase::advance.
  auto advanced = [&](const T* y, int head, T f0, int Q) {
    T v[kResidentMaxStages];
    v[0] = f0;
#pragma unroll
    for (int j = 1; j < kResidentMaxStages; ++j)
      if (j < K) v[j] = a.k[((head + j) % R) * m + Q];
    return y[Q] + h * dot(coef, v, K);
  };
  auto stops_after = [&](unsigned long long steps) {
    return steps >= a.max_steps || a.t0 + T(a.step_index + steps) * a.dt >= a.stop_when;
  };
  // One step from state(c.steps) with f_n in slot head: all components of the next state.
  auto step = [&]() {
    const T* y = state(c.steps);
    T* y1 = state(c.steps + 1);
    for (int q = threadIdx.x; q < 6 * count; q += blockDim.x) {
      const int Q = (q / count) * n + first + q % count;
      const T v = advanced(y, c.head, f(0)[Q], Q);
      y1[Q] = v;
      if (!finite_value(v)) atomicOr(nonfinite_flag(a, c.steps), 1);
    }
    ++c.steps;
    __syncthreads();  // the next phase reads the new state in another thread order
  };
  unsigned long long checked = 0;  // the steps whose flags were read
  // After a barrier: the first unread step found non-finite ends the call with the state it made.
  auto blown_up = [&]() {
    for (; checked < c.steps; ++checked)
      if (blew_up(a, checked)) {
        c.steps = checked + 1;
        return true;
      }
    return false;
  };

  int pair = 0;
  if (c.current && !stops_after(0)) {  // f_n is known: its step needs no evaluation
    step();
    c.current = 0;
  }
  while (!c.current && !stops_after(c.steps)) {
    const bool two = !stops_after(c.steps + 1);
    const T* y = state(c.steps);
    T* y1 = state(c.steps + 1);
    Body4<T>* P0 = a.pos[2 * pair];
    Body4<T>* P1 = a.pos[2 * pair + 1];
    // f_m and f_{m+1} go into the two free slots before head (R = K + 1: the oldest value f_{m-K},
    // which no step of this round needs, is overwritten by f_{m+1}).
    const int slot_m = (c.head + R - 1) % R, slot_m1 = (c.head + R - 2) % R;
    // Positions x_m and, for a second step, x_{m+1} (= y_{m+1}'s, written now), with f_m's velocity
    // part v_m.
    for (int q = threadIdx.x; q < 3 * count; q += blockDim.x) {
      const int d = q / count, body = first + q % count, X = d * n + body;
      (&P0[body].x)[d] = y[X];
      if (two) {
        const T x1 = advanced(y, slot_m, y[X + 3 * n], X);
        y1[X] = x1;
        (&P1[body].x)[d] = x1;
      }
    }
    Barrier::sync();
    if (blown_up()) goto done;
    own_forces_of<T, M>(two, a, first, last, P0, P1, a.k + slot_m * m + 3 * n, a.k + slot_m1 * m + 3 * n, tile, scratch);
    __syncthreads();
    c.evaluations += two ? 2 : 1;
    c.head = slot_m;
    for (int q = threadIdx.x; q < 3 * count; q += blockDim.x) {  // f_m's velocities, then y_{m+1}
      const int X = (q / count) * n + first + q % count, V = X + 3 * n;
      f(0)[X] = y[V];
      if (!two) y1[X] = advanced(y, c.head, y[V], X);  // else written before the barrier
      y1[V] = advanced(y, c.head, f(0)[V], V);
      if (!finite_value(y1[X]) || !finite_value(y1[V])) atomicOr(nonfinite_flag(a, c.steps), 1);
    }
    ++c.steps;
    if (two) {  // f_{m+1}, then y_{m+2}
      c.head = slot_m1;
      for (int q = threadIdx.x; q < 3 * count; q += blockDim.x) {
        const int X = (q / count) * n + first + q % count;
        f(0)[X] = y1[X + 3 * n];
      }
      __syncthreads();
      step();
    } else {
      __syncthreads();
    }
    pair ^= 1;
  }
  Barrier::sync();  // the flags of the last round's steps
  blown_up();
done:
  c.y_index = (entry_index + c.steps) % 3;
  c.current = 0;
  c.h_last = h;
  c.t = a.t0 + T(a.step_index + c.steps) * a.dt;
  write_back(a, c);
}

}  // namespace nbody::cuda
