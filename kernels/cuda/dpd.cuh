#pragma once
// DPD on the GPU (seed S3): the step of solver/particles/dpd/dpd_cpu.hpp's CPU driver, kernel for kernel,
// so that with the same compiler rules (no fused multiply-adds: the translation unit is built
// with --fmad=false, as the host code is with -ffp-contract=off) a step gives the CPU's bits.
//
// The state stays in particle order (index = the particle's id, the random numbers' key); each
// step the cell list (kernels/cuda/cell_list.cuh) orders the particles by cell, positions,
// predicted velocities and species are gathered into that order for coalesced reads, and a
// thread per particle sums its partners in the CPU's order: neighbour cells ascending, then
// index. The force goes back to the particle's own slot; no atomics, nothing depends on timing.
#include <cstdint>

#include "common/cell_grid.hpp"
#include "common/dpd.hpp"

namespace nbody::particles::dpd_kernels {

template <class T>
struct ForceView {
  PeriodicBox<T> box;
  CellGrid<T> grid;
  T rc2;
  unsigned n;
  const unsigned* start;    // the cell list: cell c's particles are at start[c] .. start[c + 1] in cell order
  const unsigned* order;    // the particle (id) at each place in cell order
  const T* pos;             // positions in cell order (SoA, 3n)
  const T* vel;             // the velocities the dissipative force sees, in cell order (SoA, 3n)
  const unsigned* species;  // in cell order
  const DpdPair<T>* pairs;  // species x species
  unsigned species_count;
  const T* body_force;      // 3 per species, or null
  std::uint64_t step, seed;
};

// force[id] (SoA, particle order) for the particle at place s in cell order.
template <class T>
__global__ void force_kernel(ForceView<T> v, T* force) {
  const unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= v.n) return;
  const unsigned n = v.n, i = v.order[s];
  const T xi = v.pos[s], yi = v.pos[n + s], zi = v.pos[2 * n + s];
  const T vxi = v.vel[s], vyi = v.vel[n + s], vzi = v.vel[2 * n + s];
  const DpdPair<T>* row = v.pairs + v.species[s] * v.species_count;
  unsigned around[27];
  const unsigned cells = v.grid.neighbours(v.grid.cell_of(xi, yi, zi), around);
  T f[3] = {T(0), T(0), T(0)};
  for (unsigned k = 0; k < cells; ++k)
    for (unsigned t = v.start[around[k]], end = v.start[around[k] + 1]; t < end; ++t) {
      if (t == s) continue;
      const T dx = v.box.minimum_image(v.pos[t] - xi, 0);  // r_j - r_i
      const T dy = v.box.minimum_image(v.pos[n + t] - yi, 1);
      const T dz = v.box.minimum_image(v.pos[2 * n + t] - zi, 2);
      const T r2 = dx * dx + dy * dy + dz * dz;
      if (!(r2 < v.rc2)) continue;
      const T theta = pair_random<T>(i, v.order[t], v.step, v.seed);
      row[v.species[t]].add_force(-dx, -dy, -dz, r2, vxi - v.vel[t], vyi - v.vel[n + t], vzi - v.vel[2 * n + t], theta, f);
    }
  if (v.body_force) {
    const T* g = v.body_force + 3 * v.species[s];
    for (int a = 0; a < 3; ++a) f[a] += g[a];
  }
  for (int a = 0; a < 3; ++a) force[a * n + i] = f[a];
}

// Groot and Warren's first half step, element k of the SoA arrays (axis k / n): the drift to the
// wrapped new position, the predicted velocity v + lambda dt f, and the half kick.
template <class T>
__global__ void drift_kernel(PeriodicBox<T> box, unsigned n, T dt, T lambda_dt, T* pos, T* vel, const T* force,
                             T* predicted) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= 3 * std::size_t(n)) return;
  const T half_dt = dt / T(2);
  pos[k] = box.wrap(pos[k] + dt * (vel[k] + half_dt * force[k]), static_cast<int>(k / n));
  predicted[k] = vel[k] + lambda_dt * force[k];
  vel[k] += half_dt * force[k];
}

// The second half kick with the new force.
template <class T>
__global__ void kick_kernel(std::size_t count, T half_dt, T* vel, const T* force) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < count) vel[k] += half_dt * force[k];
}

}  // namespace nbody::particles::dpd_kernels
