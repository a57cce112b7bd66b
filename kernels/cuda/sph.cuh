#pragma once
// Weakly compressible SPH on the GPU (seed S3's dam break): the step of solver/particles/sph/sph_cpu.hpp's
// CPU driver, kernel for kernel, so that with the same compiler rules (the translation unit built
// with --fmad=false, as the host code is with -ffp-contract=off) a step gives the CPU's bits.
//
// The state stays in particle order. Whenever the neighbour lists are stale (SphNeighbours) a cell
// list of their reach (kernels/cuda/cell_list.cuh) orders the particles by cell and list_kernel
// lists each one's candidates in the CPU's order (cells ascending, then index); each rate
// evaluation sort_kernel copies what the pair terms read into that cell order (with each
// particle's pressure, sound speed and 1 / rho, once), and a thread per particle walks its list.
// Rates go back to the particle's own slot; the time step's three maxima, and the largest move
// since the lists were made, are reduced per block and then by atomicMax on their bits
// (non-negative doubles order as their bit patterns): a maximum does not depend on the order it
// is taken in.
#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "common/cell_grid.hpp"
#include "common/sph.hpp"

namespace nbody::particles::sph_kernels {

constexpr unsigned block = 128;

// Four values read by one load (float: 16 bytes; double: 32 bytes, two loads).
template <class T>
struct alignas(4 * sizeof(T)) Quad {
  T x, y, z, w;
};

// The particles' data in cell order, written by sort_kernel: what a pair term reads of a partner,
// in three loads (twelve apart).
template <class T>
struct Sorted {
  Quad<T>* position;  // x, y, z, rho
  Quad<T>* velocity;  // vx, vy, vz, p
  Quad<T>* rest;      // m, c, 1 / rho, 1 for a boundary particle (else 0)
};

// The time step's maxima: |a|^2 over fluid particles, c^2 over all, the pairs' viscous term, as the
// bits of non-negative doubles.
struct Maxima {
  unsigned long long a2, c2, visc;
};

template <class T>
__global__ void sort_kernel(unsigned n, const unsigned* order, const T* pos, const T* vel, const T* rho, const T* mass,
                            const unsigned char* boundary, sph::Tait<T> eos, Sorted<T> out) {
  const unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const unsigned i = order[s];
  const T r = rho[i];
  out.position[s] = {pos[i], pos[n + i], pos[2 * n + i], r};
  out.velocity[s] = {vel[i], vel[n + i], vel[2 * n + i], eos.pressure(r)};
  out.rest[s] = {mass[i], sqrt(eos.sound_speed_squared(r)), T(1) / r, boundary[i] ? T(1) : T(0)};
}

// The neighbour lists (solver/particles/sph/sph_cpu.hpp, SphNeighbours), made from a cell list of the
// cut-off reach: the particle at place s in cell order lists in count[s] entries the places t of
// its candidates, as the CPU's for_each_neighbour finds them, in its order, four to a word of 16
// bytes: entry q in list[q / 4 n + s] (a column of words per particle), so that the threads of a
// warp read 32 neighbouring words, and each thread writes whole words.
template <class T>
struct ListView {
  PeriodicBox<T> box;
  CellGrid<T> grid;
  T reach2;
  unsigned n;
  const unsigned* start;  // the cell list
  const T* pos;           // positions in cell order (SoA)
};

template <class T, class F>
__device__ void for_each_candidate(const ListView<T>& v, unsigned s, F&& f) {
  const unsigned n = v.n;
  const T x[3] = {v.pos[s], v.pos[n + s], v.pos[2 * n + s]};
  unsigned around[27];
  const unsigned cells = v.grid.neighbours(v.grid.cell_of(x[0], x[1], x[2]), around);
  for (unsigned k = 0; k < cells; ++k)
    for (unsigned t = v.start[around[k]], end = v.start[around[k] + 1]; t < end; ++t) {
      if (t == s) continue;
      T d[3];
      for (unsigned a = 0; a < 3; ++a) d[a] = v.box.minimum_image(v.pos[a * n + t] - x[a], static_cast<int>(a));
      if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < v.reach2) f(t);
    }
}

// Each particle's candidates, the first 4 `words` of them into its column of the list (all when
// the list is wide enough: the caller makes it wider and calls again when not), their number,
// and the largest number (atomicMax into *most).
template <class T>
__global__ void __launch_bounds__(block) list_kernel(ListView<T> v, std::size_t words, uint4* list, unsigned* count,
                                                     unsigned* most) {
  const unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned c = 0;
  if (s < v.n) {
    std::size_t at = s;
    const std::size_t end = words * v.n;
    unsigned word[4] = {0, 0, 0, 0};
    for_each_candidate(v, s, [&](unsigned t) {
      word[c++ % 4] = t;
      if (c % 4 == 0 && at < end) list[at] = make_uint4(word[0], word[1], word[2], word[3]), at += v.n;
    });
    if (c % 4 && at < end) list[at] = make_uint4(word[0], word[1], word[2], word[3]);
    count[s] = c;
  }
  using Reduce = cub::BlockReduce<unsigned, block>;
  __shared__ typename Reduce::TempStorage scratch;
  const unsigned longest = Reduce(scratch).Reduce(c, [](unsigned x, unsigned y) { return x < y ? y : x; });
  if (threadIdx.x == 0) atomicMax(most, longest);
}

// The largest squared distance a particle has moved since the lists were made (SphNeighbours::stale),
// as the bits of a non-negative double.
template <class T>
__global__ void __launch_bounds__(block) moved_kernel(PeriodicBox<T> box, unsigned n, const T* pos, const T* made_at,
                                                      unsigned long long* moved2) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  T d2 = 0;
  if (i < n)
    for (unsigned k = 0; k < 3; ++k) {
      const T d = box.minimum_image(pos[k * n + i] - made_at[k * n + i], static_cast<int>(k));
      d2 += d * d;
    }
  using Reduce = cub::BlockReduce<double, block>;
  __shared__ typename Reduce::TempStorage scratch;
  const double most = Reduce(scratch).Reduce(double(d2), [](double x, double y) { return x < y ? y : x; });
  if (threadIdx.x == 0) atomicMax(moved2, static_cast<unsigned long long>(__double_as_longlong(most)));
}

template <class T, class Kernel>
struct RatesView {
  PeriodicBox<T> box;
  T support2;  // (2h)^2
  T far;       // 2 reach: candidates are closer (see rates_kernel)
  unsigned n;
  const unsigned* order;  // the particle at each place in cell order
  const unsigned* count;  // the neighbour lists (ListView)
  const uint4* list;
  Sorted<T> sorted;
  const T* to_face;       // Morris's wall vectors (particle order, SoA 3n), or null: no Morris factor
  sph::SphPair<Kernel, T> pair;
  T gravity[3];
  sph::Tait<double> eos;  // for c^2 in double, as the host's time step
};

template <class T, class Kernel>
__device__ typename sph::SphPair<Kernel, T>::Particle particle_at(const RatesView<T, Kernel>& v, unsigned s) {
  typename sph::SphPair<Kernel, T>::Particle q;
  const unsigned n = v.n;
  const Quad<T> x = v.sorted.position[s], u = v.sorted.velocity[s], rest = v.sorted.rest[s];
  q.r[0] = x.x, q.r[1] = x.y, q.r[2] = x.z, q.rho = x.w;
  q.v[0] = u.x, q.v[1] = u.y, q.v[2] = u.z, q.p = u.w;
  q.m = rest.x, q.c = rest.y, q.inv_rho = rest.z, q.boundary = rest.w != T(0);
  return q;
}

// Partners found per thread before their pair terms are evaluated together (see rates_kernel).
constexpr unsigned batch = 32;

// acc and drho of the particle at place s in cell order into its own slots (particle order),
// and the block's share of the maxima.
//
// A thread's candidates lie within the support for about three in four of them, different ones in
// each thread. Evaluating the pair terms as each is found would run them, in a warp, for nearly
// every candidate with some threads idle; instead each thread lists its partners in shared memory (its
// own column, in the lists' order), and the threads running together evaluate their lists
// together whenever one of them has `batch` (and at the end). The sums are taken in the CPU's
// order all the same.
template <class T, class Kernel>
__global__ void __launch_bounds__(block) rates_kernel(RatesView<T, Kernel> v, T* acc, T* drho_out, Maxima* maxima) {
  __shared__ unsigned partners[batch][block];
  const unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
  double a2 = 0, c2 = 0;
  T visc = 0;
  if (s < v.n) {
    const unsigned n = v.n, i = v.order[s];
    const auto a = particle_at(v, s);
    const T eta2 = v.pair.eta2();
    // A candidate is less than 2 reach away (SphNeighbours): where the particle is that far from
    // every face of a box at least twice that wide, the minimum image is the plain difference, bit for bit.
    bool plain = true;
    for (unsigned k = 0; k < 3; ++k)
      plain = plain && v.box.L[k] >= T(2) * v.far && a.r[k] >= v.far && a.r[k] <= v.box.L[k] - v.far;
    T drho = 0, f[3] = {T(0), T(0), T(0)};
    const auto separation = [&](unsigned t, T d[3]) {  // r_t - r_s by minimum image, and its square
      const Quad<T> x = v.sorted.position[t];
      d[0] = x.x - a.r[0], d[1] = x.y - a.r[1], d[2] = x.z - a.r[2];
      if (!plain)
        for (unsigned k = 0; k < 3; ++k) d[k] = v.box.minimum_image(d[k], static_cast<int>(k));
      return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    };
    unsigned listed = 0;
    const auto evaluate = [&] {
      for (unsigned q = 0; q < listed; ++q) {
        const unsigned t = partners[q][threadIdx.x];
        T d[3];
        const T r2 = separation(t, d);
        const T rab[3] = {-d[0], -d[1], -d[2]}, inv = T(1) / (r2 + eta2);
        const auto b = particle_at(v, t);
        T no_slip = T(1);
        if (v.to_face && !a.boundary && b.boundary) {
          const unsigned j = v.order[t];
          const T w[3] = {v.to_face[j], v.to_face[n + j], v.to_face[2 * n + j]};
          no_slip = sph::morris_no_slip(w, rab);
        }
        const T rate = v.pair.add(a, b, rab, r2, inv, drho, f, no_slip);
        visc = visc < rate ? rate : visc;
      }
      listed = 0;
    };
    // The list walked a word (four candidates, their loads issued together) at a time.
    const unsigned count = v.count[s];
    for (unsigned q = 0; q < count; q += 4) {
      const uint4 word = v.list[std::size_t(q / 4) * n + s];
      const unsigned t[4] = {word.x, word.y, word.z, word.w}, here = count - q < 4 ? count - q : 4;
      T r2[4];
      for (unsigned u = 0; u < 4; ++u) {
        T d[3];
        r2[u] = u < here ? separation(t[u], d) : v.support2;
      }
      for (unsigned u = 0; u < 4; ++u)
        if (r2[u] < v.support2) partners[listed++][threadIdx.x] = t[u];
      if (__any_sync(__activemask(), listed + 4 > batch)) evaluate();
    }
    evaluate();
    drho_out[i] = drho;
    for (unsigned k = 0; k < 3; ++k) {
      const T value = a.boundary ? T(0) : f[k] + v.gravity[k];
      acc[k * n + i] = value;
      a2 += double(value) * double(value);
    }
    if (a.boundary) a2 = 0;
    c2 = v.eos.sound_speed_squared(double(a.rho));
  }
  using Reduce = cub::BlockReduce<double, block>;
  __shared__ typename Reduce::TempStorage scratch;
  const auto larger = [](double x, double y) { return x < y ? y : x; };
  const double block_a2 = Reduce(scratch).Reduce(a2, larger);
  __syncthreads();
  const double block_c2 = Reduce(scratch).Reduce(c2, larger);
  __syncthreads();
  const double block_visc = Reduce(scratch).Reduce(double(visc), larger);
  if (threadIdx.x == 0) {
    atomicMax(&maxima->a2, static_cast<unsigned long long>(__double_as_longlong(block_a2)));
    atomicMax(&maxima->c2, static_cast<unsigned long long>(__double_as_longlong(block_c2)));
    atomicMax(&maxima->visc, static_cast<unsigned long long>(__double_as_longlong(block_visc)));
  }
}

// The symplectic scheme's predictor (SphCpu::step): the state at the step's start kept in *0, then
// r' = r + dt/2 v, v' = v + dt/2 a, rho' = rho + dt/2 drho; walls keep r and v, and rho >= rho0.
template <class T>
__global__ void predictor_kernel(PeriodicBox<T> box, unsigned n, T dt, T rho_ref, const unsigned char* boundary, T* pos,
                                 T* vel, T* rho, const T* acc, const T* drho, T* pos0, T* vel0, T* rho0) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T half = dt / T(2);
  for (unsigned k = 0; k < 3; ++k) pos0[k * n + i] = pos[k * n + i], vel0[k * n + i] = vel[k * n + i];
  rho0[i] = rho[i];
  const T r = rho[i] + half * drho[i];
  if (boundary[i]) {
    rho[i] = r < rho_ref ? rho_ref : r;
    return;
  }
  rho[i] = r;
  for (unsigned k = 0; k < 3; ++k) {
    pos[k * n + i] = box.wrap(pos[k * n + i] + half * vel[k * n + i], static_cast<int>(k));
    vel[k * n + i] += half * acc[k * n + i];
  }
}

// The corrector with the rates at the half step: v+ = v + dt a', r+ = r + dt/2 (v + v+),
// rho+ = rho (2 - eps) / (2 + eps), eps = -dt drho' / rho'.
template <class T>
__global__ void corrector_kernel(PeriodicBox<T> box, unsigned n, T dt, T rho_ref, const unsigned char* boundary, T* pos,
                                 T* vel, T* rho, const T* acc, const T* drho, const T* pos0, const T* vel0, const T* rho0) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T half = dt / T(2);
  const T eps = -dt * drho[i] / rho[i];
  const T r = rho0[i] * (T(2) - eps) / (T(2) + eps);
  if (boundary[i]) {
    rho[i] = r < rho_ref ? rho_ref : r;
    return;
  }
  rho[i] = r;
  for (unsigned k = 0; k < 3; ++k) {
    const T v = vel0[k * n + i] + dt * acc[k * n + i];
    pos[k * n + i] = box.wrap(pos0[k * n + i] + half * (vel0[k * n + i] + v), static_cast<int>(k));
    vel[k * n + i] = v;
  }
}

}  // namespace nbody::particles::sph_kernels
