#pragma once
// Weakly compressible SPH on the CPU (OpenMP; seed S3's dam break, E19): the rates of change
// of every particle's density and velocity, summed over the cell list's neighbours within the
// kernel's support with the pair terms of kernels/common/sph.hpp, for fluid particles and for
// DualSPHysics's dynamic boundary particles (walls made of particles that take part in the
// continuity equation, so that their pressure pushes the fluid back, but do not move); the time
// step; DualSPHysics's symplectic integrator (SphCpu); the diagnostics.
//
// Two dimensions are the plane z = 0 of the cell list's box (any Lz of at least the support);
// the dimension sets the kernel's normalisation. Each particle sums its partners in the cell
// list's fixed order, so the rates do not depend on the number of threads.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/sph.hpp"
#include "particles/cells/cell_list.hpp"

namespace nbody::particles {

struct SphParameters {
  unsigned dimension = 2;
  sph::KernelKind kernel = sph::KernelKind::wendland_c2;
  double h = 0.02;          // smoothing length: the kernel's support, and the cell list's cut-off, is 2h
  double rho0 = 1000;       // reference density (water)
  double c0 = 30;           // speed of sound at rho0: 10-20 times the largest flow speed
  double alpha = 0.01;      // artificial viscosity (0: none)
  double nu = 0;            // laminar kinematic viscosity (Morris et al. 1997; 0: none)
  double delta = 0.1;       // density diffusion; 0 switches it off
  sph::DensityDiffusion diffusion = sph::DensityDiffusion::molteni;
  double cfl = 0.2;         // the CFL number of the time step (DualSPHysics's default)
  double skin = 0.1;        // the neighbour lists' skin, a fraction of the support (SphNeighbours)
  std::array<double, 3> gravity{0, -9.81, 0};

  void check() const {
    if (dimension != 2 && dimension != 3) throw std::invalid_argument("SPH: the dimension must be 2 or 3");
    for (const auto& [value, name] : {std::pair{h, "h"}, {rho0, "rho0"}, {c0, "c0"}, {cfl, "the CFL number"}})
      if (!(value > 0)) throw std::invalid_argument(std::string("SPH: ") + name + " must be positive");
    if (!(alpha >= 0) || !(delta >= 0) || !(nu >= 0) || !(skin >= 0))
      throw std::invalid_argument("SPH: alpha, nu, delta and the skin must not be negative");
  }
  double support() const { return 2 * h; }
  double reach() const { return (1 + skin) * support(); }  // of the neighbour lists
};

template <class T>
struct SphState {
  std::size_t n = 0;
  PeriodicBox<T> box{};
  std::vector<T> pos, vel;            // SoA: x[n] y[n] z[n]
  std::vector<T> rho, mass;           // per particle
  std::vector<std::uint8_t> boundary; // 1: a dynamic boundary particle (fixed), 0: fluid
  // Optional, for laminar viscosity at plane walls (Morris et al. 1997): per particle (SoA, zero
  // for fluid particles) the vector from a boundary particle to the nearest point of its wall's
  // face. Fluid particle a then sees boundary particle b's velocity in the viscous term as
  // -(d_b / d_a) v_a, d the distances from the face, so that the velocity vanishes on the face
  // of the wall (at rest) itself (with v_b = 0 it vanishes more than half a spacing inside the
  // wall, and flow between plates runs as if they were that much farther apart); v_ab = beta v_a with
  // beta = min(1.5, 1 + d_b / d_a), Morris et al.'s bound for particles close to the face.
  // Empty: the viscous term sees the wall particles' own velocities.
  std::vector<T> to_face;
  // The positions the neighbour lists were made for (SphNeighbours; empty: none yet): part of the
  // state, so that a run continued from it makes the same lists at the same evaluations.
  std::vector<T> lists_at;
  double time = 0;
  std::uint64_t steps = 0;
};

template <class T>
struct SphRates {
  std::vector<T> acc;   // dv/dt, SoA (0 for boundary particles)
  std::vector<T> drho;  // drho/dt (boundary particles too)
  T visc_max = 0;       // max over pairs of |v_ab . r_ab| / (r_ab^2 + eta^2): the time step's viscous term
};

// Verlet's neighbour lists (Verlet 1967, as molecular dynamics codes keep them): each particle's
// candidates, the particles within p.reach() = (1 + skin) 2h of it, taken from a cell list of that
// cut-off in the list's order (cells ascending, then index), kept until some particle has moved
// more than skin h from where it was when they were made: two particles have then closed in by at
// most 2 skin h, so every pair within the support is still listed. The rates walk the lists and
// keep the pairs within the support: a cell list is built once per list, not once per rate
// evaluation, and a particle has (1 + skin)^3, 1.33 times, as many candidates as partners in 3-D,
// where the 27 cells of side 2h around it hold 6.4 times as many. The CPU and the GPU make the
// same lists at the same evaluations, so that their sums are taken in the same order.
template <class T>
struct SphNeighbours {
  std::vector<unsigned> start;  // particle i's candidates are list[start[i] .. start[i + 1])
  std::vector<unsigned> list;

  // Whether some particle of s has moved more than skin h from s.lists_at (always, when there are
  // none): the same test, operation for operation, as the GPU's.
  static bool stale(const SphParameters& p, const SphState<T>& s) {
    if (s.lists_at.size() != s.pos.size()) return true;
    const std::size_t n = s.n;
    const T limit = T(p.skin * p.h), limit2 = limit * limit;
    T moved2 = 0;  // a maximum: the same whatever the threads
#pragma omp parallel for schedule(static) reduction(max : moved2)
    for (std::size_t i = 0; i < n; ++i) {
      T d2 = 0;
      for (int k = 0; k < 3; ++k) {
        const T d = s.box.minimum_image(s.pos[k * n + i] - s.lists_at[k * n + i], k);
        d2 += d * d;
      }
      moved2 = std::max(moved2, d2);
    }
    return moved2 > limit2;
  }

  // The lists for the positions s.lists_at, and `cells` (of the reach) for them.
  void make(const SphParameters& p, const SphState<T>& s, CellList<T>& cells) {
    const std::size_t n = s.n;
    const T reach = T(p.reach());
    const T* at = s.lists_at.data();
    cells.build(at, n, s.box, reach);
    std::vector<std::vector<unsigned>> own(n);
#pragma omp parallel for schedule(dynamic, 256)
    for (std::size_t i = 0; i < n; ++i)
      cells.for_each_neighbour(static_cast<unsigned>(i), at, n, s.box, reach,
                               [&](unsigned j, T, T, T, T) { own[i].push_back(j); });
    start.assign(n + 1, 0u);
    for (std::size_t i = 0; i < n; ++i) start[i + 1] = start[i] + static_cast<unsigned>(own[i].size());
    list.resize(start[n]);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) std::copy(own[i].begin(), own[i].end(), list.begin() + start[i]);
  }
};

// sph_rates with a given kernel.
template <class T, class Kernel>
void sph_rates_with(const SphParameters& p, const SphState<T>& s, const SphNeighbours<T>& near, const CellList<T>& cells,
                    SphRates<T>& out, const Kernel& kernel) {
  const std::size_t n = s.n;
  const sph::Tait<T> eos{T(p.rho0), T(p.c0)};
  const T hydrostatic = T(-p.rho0 * p.gravity[1] / double(eos.b()));  // Fourtakas's rho0 g / B, g = -g_y
  const sph::SphPair<Kernel, T> pair{kernel, eos, T(p.alpha), T(p.delta), T(p.nu), p.diffusion, hydrostatic};
  const T* pos = s.pos.data();
  const T* vel = s.vel.data();
  // Each particle's pressure, sound speed and 1 / rho once, not once per pair it takes part in.
  std::vector<T> pressure(n), sound(n), inv_rho(n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    pressure[i] = pair.eos.pressure(s.rho[i]);
    sound[i] = sqrt(pair.eos.sound_speed_squared(s.rho[i]));
    inv_rho[i] = T(1) / s.rho[i];
  }
  const auto particle = [&](std::size_t i) {
    typename sph::SphPair<Kernel, T>::Particle q;
    for (int a = 0; a < 3; ++a) q.r[a] = pos[a * n + i], q.v[a] = vel[a * n + i];
    q.rho = s.rho[i], q.m = s.mass[i], q.p = pressure[i], q.c = sound[i], q.inv_rho = inv_rho[i];
    q.boundary = s.boundary[i] != 0;
    return q;
  };
  // Morris et al.'s beta for fluid particle i against wall particle j (see SphState::to_face), else 1.
  const bool morris = !s.to_face.empty() && p.nu > 0;
  const auto no_slip = [&](std::size_t i, std::size_t j, const T rab[3]) {
    if (!morris || s.boundary[i] || !s.boundary[j]) return T(1);
    const T w[3] = {s.to_face[j], s.to_face[n + j], s.to_face[2 * n + j]};
    return sph::morris_no_slip(w, rab);
  };
  out.acc.assign(3 * n, T(0));
  out.drho.assign(n, T(0));
  const T eta2 = pair.eta2(), support = T(p.support()), support2 = support * support;
  T visc_max = 0;  // a maximum: the same whatever the threads
#pragma omp parallel for schedule(dynamic, 256) reduction(max : visc_max)
  for (std::size_t slot = 0; slot < n; ++slot) {  // in the lists' cell order, for the caches (see DpdCpu::forces)
    const std::size_t i = cells.order[slot];
    const auto a = particle(i);
    T drho = 0, acc[3] = {0, 0, 0};
    for (unsigned c = near.start[i]; c < near.start[i + 1]; ++c) {
      const unsigned j = near.list[c];
      T rab[3];  // r_i - r_j by minimum image
      for (int k = 0; k < 3; ++k) rab[k] = -s.box.minimum_image(pos[k * n + j] - pos[k * n + i], k);
      const T r2 = rab[0] * rab[0] + rab[1] * rab[1] + rab[2] * rab[2];
      if (!(r2 < support2)) continue;
      const auto b = particle(j);
      const T inv = T(1) / (r2 + eta2);
      visc_max = std::max(visc_max, pair.add(a, b, rab, r2, inv, drho, acc, no_slip(i, j, rab)));
    }
    out.drho[i] = drho;
    if (!s.boundary[i])
      for (int k = 0; k < 3; ++k) out.acc[k * n + i] = acc[k] + T(p.gravity[k]);
  }
  out.visc_max = visc_max;
}

// The rates of every particle of s at its positions and velocities, from its neighbour lists
// (current: not stale) and the cell list they were made from.
template <class T>
void sph_rates(const SphParameters& p, const SphState<T>& s, const SphNeighbours<T>& near, const CellList<T>& cells,
               SphRates<T>& out) {
  if (p.kernel == sph::KernelKind::cubic_spline) {
    if (p.dimension == 2) return sph_rates_with(p, s, near, cells, out, sph::CubicSpline<2, T>(T(p.h)));
    return sph_rates_with(p, s, near, cells, out, sph::CubicSpline<3, T>(T(p.h)));
  }
  if (p.dimension == 2) return sph_rates_with(p, s, near, cells, out, sph::WendlandC2<2, T>(T(p.h)));
  sph_rates_with(p, s, near, cells, out, sph::WendlandC2<3, T>(T(p.h)));
}

// The same, with lists made for s's positions now.
template <class T>
void sph_rates(const SphParameters& p, SphState<T> s, SphRates<T>& out) {
  CellList<T> cells;
  SphNeighbours<T> near;
  s.lists_at = s.pos;
  near.make(p, s, cells);
  sph_rates(p, s, near, cells, out);
}

// The time step of weakly compressible SPH (Monaghan and Kos 1999, as DualSPHysics computes it):
//   dt = cfl min(dt_f, dt_cv),  dt_f = sqrt(h / max |a|) over fluid particles (the force condition),
//   dt_cv = h / (c_max + h max |v_ab . r_ab| / (r_ab^2 + eta^2)) (the CFL condition with the sound
//   speed, c_max the largest over the particles, and the viscous term of the pairs),
// and, with laminar viscosity, at most Morris et al.'s (1997) viscous diffusion limit 0.125 h^2 / nu.
// cfl is SphParameters::cfl (DualSPHysics's default). DualSPHysics takes max(c0, 10 max |v|) for c_max; here
// it is the largest sound speed of the particles, c0 (rho / rho0)^3, the speed that carries pressure.
// From the maxima over the particles of |a|^2 (fluid), c^2 (all) and of the pairs' viscous term
// (SphRates::visc_max), each the same whatever the order it was taken in, so that the GPU's
// maxima give the CPU's step.
inline double sph_time_step(const SphParameters& p, double a2_max, double c2_max, double visc_max) {
  const double h = p.h;
  const double force = a2_max > 0 ? std::sqrt(h / std::sqrt(a2_max)) : INFINITY;
  const double courant = h / (std::sqrt(c2_max) + h * visc_max);
  const double viscous = p.nu > 0 ? 0.125 * h * h / p.nu : INFINITY;
  return std::min(p.cfl * std::min(force, courant), viscous);
}

template <class T>
double sph_time_step(const SphParameters& p, const SphState<T>& s, const SphRates<T>& r) {
  const std::size_t n = s.n;
  const sph::Tait<double> eos{p.rho0, p.c0};
  double a2_max = 0, c2_max = 0;
  for (std::size_t i = 0; i < n; ++i) {
    c2_max = std::max(c2_max, eos.sound_speed_squared(double(s.rho[i])));
    if (s.boundary[i]) continue;
    double a2 = 0;
    for (int k = 0; k < 3; ++k) a2 += double(r.acc[k * n + i]) * double(r.acc[k * n + i]);
    a2_max = std::max(a2_max, a2);
  }
  return sph_time_step(p, a2_max, c2_max, double(r.visc_max));
}

// The inner faces of a container's walls: fluid particles belong within x_min <= x <= x_max,
// y_min <= y <= y_max, z_min <= z <= z_max (infinite where it is open, periodic, or 2-D).
struct SphWalls {
  double x_min = -INFINITY, x_max = INFINITY, y_min = -INFINITY, y_max = INFINITY, z_min = -INFINITY, z_max = INFINITY;
};

struct SphDiagnostics {
  double kinetic = 0;            // sum m |v|^2 / 2 over fluid particles
  double mass = 0;               // sum m over fluid particles (WCSPH's masses are constant: exact)
  double density_deviation = 0;  // max |rho - rho0| / rho0 over fluid particles
  double front = -INFINITY;      // largest x of fluid particles within front_band of the floor
  std::size_t escaped = 0;       // fluid particles outside the walls (through a wall: must stay 0)
};

// The diagnostics of s in `walls`, in double, summed in particle order (the same bits on any
// threads). The front is measured as in the dam-break literature (Martin and Moyce 1952; Koshizuka
// and Oka 1996): the leading edge on the floor, the particles within front_band above y_min.
template <class T>
SphDiagnostics sph_diagnostics(const SphParameters& p, const SphState<T>& s, const SphWalls& walls,
                               double front_band) {
  const std::size_t n = s.n;
  SphDiagnostics d;
  for (std::size_t i = 0; i < n; ++i) {
    if (s.boundary[i]) continue;
    const double m = double(s.mass[i]), x = double(s.pos[i]), y = double(s.pos[n + i]), z = double(s.pos[2 * n + i]);
    double v2 = 0;
    for (int k = 0; k < 3; ++k) v2 += double(s.vel[k * n + i]) * double(s.vel[k * n + i]);
    d.kinetic += m * v2 / 2;
    d.mass += m;
    d.density_deviation = std::max(d.density_deviation, std::abs(double(s.rho[i]) - p.rho0) / p.rho0);
    if (!(x >= walls.x_min && x <= walls.x_max && y >= walls.y_min && y <= walls.y_max && z >= walls.z_min &&
          z <= walls.z_max))
      ++d.escaped;
    else if (y < walls.y_min + front_band) d.front = std::max(d.front, x);
  }
  return d;
}

// Checks a state against its parameters (std::invalid_argument naming the first problem).
template <class T>
void check_sph(const SphParameters& p, const SphState<T>& s) {
  p.check();
  const std::size_t n = s.n;
  if (s.pos.size() != 3 * n || s.vel.size() != 3 * n || s.rho.size() != n || s.mass.size() != n ||
      s.boundary.size() != n || !(s.to_face.empty() || s.to_face.size() == 3 * n) ||
      !(s.lists_at.empty() || s.lists_at.size() == 3 * n))
    throw std::invalid_argument("SPH: the state's arrays do not match its number of particles");
  for (const auto& L : s.box.L)
    if (!(double(L) >= p.support())) throw std::invalid_argument("SPH: every side of the box must be at least the support 2h");
  for (std::size_t i = 0; i < n; ++i)
    if (!(s.rho[i] > T(0)) || !(s.mass[i] > T(0)) || !isfinite(s.rho[i]) || !isfinite(s.mass[i]))
      throw std::invalid_argument("SPH: particle " + std::to_string(i) + " has a density or mass that is not positive");
  for (const std::vector<T>* v : {&s.pos, &s.vel})
    for (const T& x : *v)
      if (!isfinite(x)) throw std::invalid_argument("SPH: a position or velocity is not finite");
}

// Weakly compressible SPH on the CPU: a state, its cell list, its rates at the current positions,
// stepped by DualSPHysics's symplectic position-Verlet scheme (Leimkuhler et al. 1996; Dominguez
// et al. 2022), with dt/2 for predictor and corrector:
//   predictor  r' = r + dt/2 v,  v' = v + dt/2 a,  rho' = rho + dt/2 drho   (rates at n)
//   corrector  v+ = v + dt a',   r+ = r + dt/2 (v + v+),
//              rho+ = rho (2 - eps) / (2 + eps), eps = -dt drho' / rho'   (rates at n + 1/2)
// Chosen over DualSPHysics's other scheme, Verlet with an Euler step every 40 steps, because it is
// second order and time reversible without the ad hoc Euler steps that keep Verlet's two sequences
// together; it takes two rate evaluations a step where Verlet takes one, at the same time step.
// Boundary particles keep their positions and velocities; their densities evolve by the same
// formulas but never fall below rho0, as DualSPHysics has it (JSphCpu.cpp, ComputeVelrhoBound and
// ComputeSymplecticCorr: "to prevent absorption of fluid particles by boundaries": a wall in
// tension would pull the fluid into it). The neighbour lists are made anew whenever they are stale.
template <class T>
class SphCpu {
 public:
  // The lists are made for s.lists_at where it is given (a continued run), else for s.pos.
  SphCpu(const SphParameters& p, SphState<T>& s) : p_(p), s_(s) {
    check_sph(p_, s_);
    if (!s_.lists_at.empty()) neighbours_.make(p_, s_, cells_), ++lists_made_;
    update_rates();
  }

  // The time step of the current state (sph_time_step).
  double time_step() const { return sph_time_step(p_, s_, rates_); }

  void step(T dt) {
    const std::size_t n = s_.n;
    const T half = dt / T(2), rho0 = T(p_.rho0);
    pos0_ = s_.pos, vel0_ = s_.vel, rho0_ = s_.rho;
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const T rho = s_.rho[i] + half * rates_.drho[i];
      if (s_.boundary[i]) {
        s_.rho[i] = std::max(rho, rho0);
        continue;
      }
      s_.rho[i] = rho;
      for (int k = 0; k < 3; ++k) {
        s_.pos[k * n + i] = s_.box.wrap(s_.pos[k * n + i] + half * s_.vel[k * n + i], k);
        s_.vel[k * n + i] += half * rates_.acc[k * n + i];
      }
    }
    update_rates();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const T eps = -dt * rates_.drho[i] / s_.rho[i];
      const T rho = rho0_[i] * (T(2) - eps) / (T(2) + eps);
      if (s_.boundary[i]) {
        s_.rho[i] = std::max(rho, rho0);
        continue;
      }
      s_.rho[i] = rho;
      for (int k = 0; k < 3; ++k) {
        const T v = vel0_[k * n + i] + dt * rates_.acc[k * n + i];
        s_.pos[k * n + i] = s_.box.wrap(pos0_[k * n + i] + half * (vel0_[k * n + i] + v), k);
        s_.vel[k * n + i] = v;
      }
    }
    s_.time += double(dt);
    ++s_.steps;
    update_rates();
  }

  // Steps of the time step's size until t_end (the last one shortened to land on it).
  void advance_to(double t_end) {
    while (s_.time < t_end) step(T(std::min(time_step(), t_end - s_.time)));
  }

  void sync() {}  // the state is the host's already (the CUDA driver's counterpart copies it back)
  SphDiagnostics diagnostics(const SphWalls& walls, double front_band) const {
    return sph_diagnostics(p_, s_, walls, front_band);
  }
  const SphRates<T>& rates() const { return rates_; }
  std::uint64_t lists_made() const { return lists_made_; }  // neighbour lists made so far (SphNeighbours)

 private:
  void update_rates() {
    if (SphNeighbours<T>::stale(p_, s_)) s_.lists_at = s_.pos, neighbours_.make(p_, s_, cells_), ++lists_made_;
    sph_rates(p_, s_, neighbours_, cells_, rates_);
  }

  SphParameters p_;
  SphState<T>& s_;
  CellList<T> cells_;
  SphNeighbours<T> neighbours_;
  std::uint64_t lists_made_ = 0;
  SphRates<T> rates_;
  std::vector<T> pos0_, vel0_, rho0_;  // the state at the start of a step
};

}  // namespace nbody::particles
