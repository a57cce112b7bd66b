#pragma once
// Dissipative particle dynamics on the CPU (OpenMP): the pair force of kernels/common/dpd.hpp
// summed over the cell list's neighbours, Groot and Warren's velocity Verlet, and the diagnostics
// (temperature, pressure, energy, momentum). Unit particle mass, as Groot and Warren.
//
// Each particle sums the forces of its own partners in the cell list's fixed order (a pair is
// evaluated once from each side, and both sides compute it bit for bit opposite), so the forces do
// not depend on the number of threads and a run is reproducible bit for bit.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/dpd.hpp"
#include "particles/cells/cell_list.hpp"

namespace nbody::particles {

struct DpdParameters {
  double rc = 1.0;        // cut-off
  double gamma = 4.5;     // friction; sigma^2 = 2 gamma kT
  double kT = 1.0;        // the thermostat's temperature
  double dt = 0.01;       // time step
  double lambda = 0.65;   // Groot and Warren's velocity prediction factor
  std::uint64_t seed = 1;
  unsigned species = 1;
  std::vector<double> a = {25.0};                  // a_AB, species x species, symmetric
  std::vector<std::array<double, 3>> body_force;   // per species (empty: none), e.g. gravity

  double amplitude(unsigned s, unsigned t) const { return a[s * species + t]; }
  // Throws std::invalid_argument naming the first bad value.
  void check() const {
    const auto positive = [](double x, const char* what) {
      if (!(x > 0)) throw std::invalid_argument(std::string("DPD: ") + what + " must be positive");
    };
    positive(rc, "the cut-off"), positive(dt, "the time step");
    if (!(gamma >= 0) || !(kT >= 0)) throw std::invalid_argument("DPD: gamma and kT must be at least 0");
    if (species == 0 || a.size() != std::size_t(species) * species)
      throw std::invalid_argument("DPD: a needs species x species values (" + std::to_string(species * species) + ")");
    for (unsigned s = 0; s < species; ++s)
      for (unsigned t = 0; t < s; ++t)
        if (amplitude(s, t) != amplitude(t, s)) throw std::invalid_argument("DPD: the matrix a must be symmetric");
    if (!body_force.empty() && body_force.size() != species)
      throw std::invalid_argument("DPD: a body force needs one vector per species");
  }
};

// Positions (wrapped into the box), velocities and forces as SoA: x[n] y[n] z[n].
template <class T>
struct DpdState {
  PeriodicBox<T> box{};
  std::size_t n = 0;
  std::vector<T> pos, vel, force;
  std::vector<unsigned> species;  // each particle's, from 0
  std::uint64_t step = 0;         // steps taken: the random numbers' counter
};

struct DpdDiagnostics {
  double kT;           // sum (v - v_cm)^2 / (3 (N - 1))
  double pressure;     // (sum (v - v_cm)^2 + sum over pairs r_ij . F_C) / (3 V): Groot and Warren's
  double potential;    // sum over pairs of a r_c w^2 / 2
  double kinetic;      // sum v^2 / 2
  double momentum[3];  // sum v
};

// How the species start: mixed (particle i has species i mod K) or in layers by height (species k
// fills k L_z / K <= z < (k + 1) L_z / K: species 0 at the bottom).
enum class DpdLayout { mixed, layers };

// n particles uniformly at random in the box, velocities Gaussian at kT with zero total momentum.
template <class T>
DpdState<T> dpd_random_state(std::size_t n, const std::array<double, 3>& L, double kT, unsigned species,
                             std::uint64_t seed, DpdLayout layout = DpdLayout::mixed) {
  DpdState<T> s;
  s.n = n;
  for (int a = 0; a < 3; ++a) s.box.L[a] = T(L[a]);
  s.pos.resize(3 * n), s.vel.resize(3 * n), s.force.assign(3 * n, T(0)), s.species.resize(n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> g(0.0, std::sqrt(kT));
  double mean[3] = {0, 0, 0};
  std::vector<double> v(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (int a = 0; a < 3; ++a) {
      s.pos[a * n + i] = s.box.wrap(T(u(rng) * L[a]), a);
      v[a * n + i] = g(rng);
      mean[a] += v[a * n + i] / double(n);
    }
    const auto layer = static_cast<unsigned>(double(s.pos[2 * n + i]) / L[2] * species);
    s.species[i] = layout == DpdLayout::layers ? std::min(layer, species - 1) : static_cast<unsigned>(i % species);
  }
  for (int a = 0; a < 3; ++a)
    for (std::size_t i = 0; i < n; ++i) s.vel[a * n + i] = T(v[a * n + i] - mean[a]);
  return s;
}

// The pair of every two species (a_AB and the thermostat's constants), species x species.
template <class T>
std::vector<DpdPair<T>> dpd_pairs(const DpdParameters& p) {
  std::vector<DpdPair<T>> pairs;
  for (unsigned a = 0; a < p.species; ++a)
    for (unsigned b = 0; b < p.species; ++b)
      pairs.push_back({T(p.amplitude(a, b)), T(p.gamma), T(std::sqrt(2.0 * p.gamma * p.kT / p.dt)), T(p.rc)});
  return pairs;
}

// Temperature, pressure, energies and momentum of a state whose cell list is `cells` (the virial
// and energy of the conservative forces at its positions), in double, in a fixed order.
template <class T>
DpdDiagnostics dpd_diagnostics(const DpdState<T>& s, const CellList<T>& cells, const std::vector<DpdPair<T>>& pairs,
                               const DpdParameters& p) {
  const std::size_t n = s.n;
  DpdDiagnostics d{};
  double cm[3] = {0, 0, 0}, v2 = 0;
  for (int a = 0; a < 3; ++a)
    for (std::size_t i = 0; i < n; ++i) d.momentum[a] += double(s.vel[a * n + i]);
  for (int a = 0; a < 3; ++a) cm[a] = n ? d.momentum[a] / double(n) : 0.0;
  for (int a = 0; a < 3; ++a)
    for (std::size_t i = 0; i < n; ++i) {
      const double v = double(s.vel[a * n + i]);
      d.kinetic += v * v / 2;
      v2 += (v - cm[a]) * (v - cm[a]);
    }
  std::vector<double> virial(n), energy(n);  // per particle, summed in order: the same bits on any threads
#pragma omp parallel for schedule(dynamic, 256)
  for (std::size_t i = 0; i < n; ++i) {
    double w = 0, e = 0;
    cells.for_each_neighbour(static_cast<unsigned>(i), s.pos.data(), n, s.box, T(p.rc), [&](unsigned j, T, T, T, T r2) {
      const DpdPair<T>& pair = pairs[s.species[i] * p.species + s.species[j]];
      w += double(pair.conservative_virial(r2)), e += double(pair.energy(r2));
    });
    virial[i] = w / 2, energy[i] = e / 2;  // each pair is seen from both sides
  }
  double w = 0;
  for (std::size_t i = 0; i < n; ++i) w += virial[i], d.potential += energy[i];
  const double volume = double(s.box.L[0]) * double(s.box.L[1]) * double(s.box.L[2]);
  d.kT = n > 1 ? v2 / (3.0 * double(n - 1)) : 0.0;
  d.pressure = (v2 + w) / (3.0 * volume);
  return d;
}

// Checks the parameters against a state (std::invalid_argument naming the first problem).
template <class T>
void check_dpd(const DpdParameters& p, const DpdState<T>& s) {
  p.check();
  for (const auto& L : s.box.L)
    if (!(L > 0) || !std::isfinite(L)) throw std::invalid_argument("DPD: the box must have finite positive sides");
  if (s.species.size() != s.n || s.pos.size() != 3 * s.n || s.vel.size() != 3 * s.n || s.force.size() != 3 * s.n)
    throw std::invalid_argument("DPD: the state's arrays do not match its number of particles");
  for (std::size_t i = 0; i < s.n; ++i)
    if (s.species[i] >= p.species) throw std::invalid_argument("DPD: a particle's species is not below the number of species");
  for (const std::vector<T>* v : {&s.pos, &s.vel, &s.force})
    for (const T& x : *v)
      if (!std::isfinite(x)) throw std::invalid_argument("DPD: a position, velocity or force is not finite");
}

template <class T>
class DpdCpu {
 public:
  // forces_given: the state's forces are those of its last step (a resumed run), else computed now.
  DpdCpu(const DpdParameters& p, DpdState<T>& s, bool forces_given = false) : p_(p), s_(s) {
    check_dpd(p_, s_);
    pairs_ = dpd_pairs<T>(p_);
    cells_.build(s_.pos.data(), s_.n, s_.box, T(p_.rc));
    if (!forces_given) forces(s_.vel.data());
  }

  // One step of Groot and Warren's velocity Verlet: r += dt v + dt^2 f / 2; the force at the new
  // positions with the predicted velocities v + lambda dt f; v += dt (f_old + f_new) / 2.
  void step() {
    const std::size_t n = s_.n;
    const T dt = T(p_.dt), half_dt = dt / T(2), lambda_dt = T(p_.lambda) * dt;
    predicted_.resize(3 * n);
#pragma omp parallel for schedule(static)
    for (std::size_t k = 0; k < 3 * n; ++k) {
      const int a = static_cast<int>(k / n);
      s_.pos[k] = s_.box.wrap(s_.pos[k] + dt * (s_.vel[k] + half_dt * s_.force[k]), a);
      predicted_[k] = s_.vel[k] + lambda_dt * s_.force[k];
      s_.vel[k] += half_dt * s_.force[k];
    }
    cells_.build(s_.pos.data(), n, s_.box, T(p_.rc));
    ++s_.step;
    forces(predicted_.data());
#pragma omp parallel for schedule(static)
    for (std::size_t k = 0; k < 3 * n; ++k) s_.vel[k] += half_dt * s_.force[k];
  }

  // Temperature, pressure, energies and momentum of the current state.
  DpdDiagnostics diagnostics() const { return dpd_diagnostics(s_, cells_, pairs_, p_); }
  void sync() {}  // the state is the host's already (the CUDA driver's counterpart copies it back)

  const CellList<T>& cells() const { return cells_; }

 private:
  const DpdPair<T>& pair_of(unsigned i, unsigned j) const { return pairs_[s_.species[i] * p_.species + s_.species[j]]; }

  // The force on every particle at the current positions, the dissipative part with velocities v.
  // The particles are taken in cell order: those of one cell, taken one after the other, read the
  // same neighbour cells, which stay in the caches. Each particle's sum is in the same order as
  // ever, so the order of the loop changes no bit.
  void forces(const T* v) {
    const std::size_t n = s_.n;
    const T* pos = s_.pos.data();
#pragma omp parallel for schedule(dynamic, 256)
    for (std::size_t slot = 0; slot < n; ++slot) {
      const std::size_t i = cells_.order[slot];
      T f[3] = {0, 0, 0};
      cells_.for_each_neighbour(static_cast<unsigned>(i), pos, n, s_.box, T(p_.rc),
                                [&](unsigned j, T dx, T dy, T dz, T r2) {  // d = r_j - r_i
                                  const T theta = pair_random<T>(static_cast<std::uint32_t>(i), j, s_.step, p_.seed);
                                  pair_of(static_cast<unsigned>(i), j)
                                      .add_force(-dx, -dy, -dz, r2, v[i] - v[j], v[n + i] - v[n + j],
                                                 v[2 * n + i] - v[2 * n + j], theta, f);
                                });
      if (!p_.body_force.empty())
        for (int a = 0; a < 3; ++a) f[a] += T(p_.body_force[s_.species[i]][a]);
      for (int a = 0; a < 3; ++a) s_.force[a * n + i] = f[a];
    }
  }

  DpdParameters p_;
  DpdState<T>& s_;
  std::vector<DpdPair<T>> pairs_;  // by species pair
  CellList<T> cells_;
  std::vector<T> predicted_;
};

}  // namespace nbody::particles
