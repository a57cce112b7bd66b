#pragma once
// Weakly compressible SPH on the CPU (OpenMP; issue 23, seed S3's dam break): the rates of change
// of every particle's density and velocity, summed over the cell list's neighbours within the
// kernel's support with the pair terms of kernels/common/sph.hpp, for fluid particles and for
// DualSPHysics's dynamic boundary particles (walls made of particles that take part in the
// continuity equation, so that their pressure pushes the fluid back, but do not move).
//
// Two dimensions are the plane z = 0 of the cell list's box (any Lz of at least the support);
// the dimension sets the kernel's normalisation. Each particle sums its partners in the cell
// list's fixed order, so the rates do not depend on the number of threads.
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/sph.hpp"
#include "shortrange/cell_list.hpp"

namespace nbody::shortrange {

struct SphParameters {
  unsigned dimension = 2;
  sph::KernelKind kernel = sph::KernelKind::wendland_c2;
  double h = 0.02;          // smoothing length: the kernel's support, and the cell list's cut-off, is 2h
  double rho0 = 1000;       // reference density (water)
  double c0 = 30;           // speed of sound at rho0: 10-20 times the largest flow speed
  double alpha = 0.01;      // artificial viscosity
  double delta = 0.1;       // density diffusion (delta-SPH); 0 switches it off
  std::array<double, 3> gravity{0, -9.81, 0};

  void check() const {
    if (dimension != 2 && dimension != 3) throw std::invalid_argument("SPH: the dimension must be 2 or 3");
    for (const auto& [value, name] : {std::pair{h, "h"}, {rho0, "rho0"}, {c0, "c0"}})
      if (!(value > 0)) throw std::invalid_argument(std::string("SPH: ") + name + " must be positive");
    if (!(alpha >= 0) || !(delta >= 0)) throw std::invalid_argument("SPH: alpha and delta must not be negative");
  }
  double support() const { return 2 * h; }
};

template <class T>
struct SphState {
  std::size_t n = 0;
  PeriodicBox<T> box{};
  std::vector<T> pos, vel;            // SoA: x[n] y[n] z[n]
  std::vector<T> rho, mass;           // per particle
  std::vector<std::uint8_t> boundary; // 1: a dynamic boundary particle (fixed), 0: fluid
};

template <class T>
struct SphRates {
  std::vector<T> acc;   // dv/dt, SoA (0 for boundary particles)
  std::vector<T> drho;  // drho/dt (boundary particles too)
};

// sph_rates with a given kernel.
template <class T, class Kernel>
void sph_rates_with(const SphParameters& p, const SphState<T>& s, const CellList<T>& cells, SphRates<T>& out,
                    const Kernel& kernel) {
  const std::size_t n = s.n;
  const sph::SphPair<Kernel, T> pair{kernel, {T(p.rho0), T(p.c0)}, T(p.alpha), T(p.delta)};
  const T* pos = s.pos.data();
  const T* vel = s.vel.data();
  // Each particle's pressure and sound speed once, not once per pair it takes part in.
  std::vector<T> pressure(n), sound(n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    pressure[i] = pair.eos.pressure(s.rho[i]);
    sound[i] = sqrt(pair.eos.sound_speed_squared(s.rho[i]));
  }
  const auto particle = [&](std::size_t i) {
    typename sph::SphPair<Kernel, T>::Particle q;
    for (int a = 0; a < 3; ++a) q.r[a] = pos[a * n + i], q.v[a] = vel[a * n + i];
    q.rho = s.rho[i], q.m = s.mass[i], q.p = pressure[i], q.c = sound[i];
    return q;
  };
  out.acc.assign(3 * n, T(0));
  out.drho.assign(n, T(0));
#pragma omp parallel for schedule(dynamic, 256)
  for (std::size_t slot = 0; slot < n; ++slot) {  // in cell order, for the caches (see DpdCpu::forces)
    const std::size_t i = cells.order[slot];
    const auto a = particle(i);
    T drho = 0, acc[3] = {0, 0, 0};
    cells.for_each_neighbour(static_cast<unsigned>(i), pos, n, s.box, T(p.support()),
                             [&](unsigned j, T dx, T dy, T dz, T r2) {  // d = r_j - r_i
                               const T rab[3] = {-dx, -dy, -dz};
                               pair.add(a, particle(j), rab, r2, drho, acc);
                             });
    out.drho[i] = drho;
    if (!s.boundary[i])
      for (int k = 0; k < 3; ++k) out.acc[k * n + i] = acc[k] + T(p.gravity[k]);
  }
}

// The rates of every particle of s at its positions and velocities; cells built for s.pos with
// the cut-off p.support().
template <class T>
void sph_rates(const SphParameters& p, const SphState<T>& s, const CellList<T>& cells, SphRates<T>& out) {
  if (p.kernel == sph::KernelKind::cubic_spline) {
    if (p.dimension == 2) return sph_rates_with(p, s, cells, out, sph::CubicSpline<2, T>(T(p.h)));
    return sph_rates_with(p, s, cells, out, sph::CubicSpline<3, T>(T(p.h)));
  }
  if (p.dimension == 2) return sph_rates_with(p, s, cells, out, sph::WendlandC2<2, T>(T(p.h)));
  sph_rates_with(p, s, cells, out, sph::WendlandC2<3, T>(T(p.h)));
}

}  // namespace nbody::shortrange
