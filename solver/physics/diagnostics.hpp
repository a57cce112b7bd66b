#pragma once
// Conserved quantities and their drift. Every sum is compensated (Neumaier) and done in the run's
// own precision T, so that the measured drift is the integrator's, not the diagnostics' round-off.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "common/compensated.hpp"
#include "core/state.hpp"
#include "io/archive.hpp"
#include "common/interaction.hpp"
#include "physics/force_law.hpp"

namespace nbody {

template <class T>
using Vec3 = std::array<T, 3>;

template <class T>
struct Snapshot {
  T kinetic{0}, potential{0}, energy{0};
  Vec3<T> momentum{}, angular_momentum{}, centre_of_mass{};
  T momentum_scale{0};          // sum m|v|: what P is compared with (P itself is often zero)
  T angular_momentum_scale{0};  // sum m|r x v|
  T min_pair_distance{0};       // unsoftened, unclamped |r_i - r_j|, min over pairs
};

template <class T>
T norm3(const Vec3<T>& v) {
  return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

// O(N^2) because of the potential energy (OpenMP over bodies); the pair potential is the one that matches the force
// law (softening and clamp included), so that dE measures the integrator alone.
template <class T>
Snapshot<T> measure(const State<T>& s, const ForceLaw<T>& law) {
  const std::size_t n = s.size();
  Snapshot<T> out;
  CompensatedSum<T> kin, pot, mass;
  std::array<CompensatedSum<T>, 3> p, l, mr;
  CompensatedSum<T> p_scale, l_scale;
  for (std::size_t i = 0; i < n; ++i) {
    const T m = s.mass[i];
    const Vec3<T> r{s.pos(0)[i], s.pos(1)[i], s.pos(2)[i]};
    const Vec3<T> v{s.vel(0)[i], s.vel(1)[i], s.vel(2)[i]};
    const Vec3<T> rxv{r[1] * v[2] - r[2] * v[1], r[2] * v[0] - r[0] * v[2], r[0] * v[1] - r[1] * v[0]};
    kin += m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / T(2);
    mass += m;
    for (int d = 0; d < 3; ++d) {
      p[d] += m * v[d];
      l[d] += m * rxv[d];
      mr[d] += m * r[d];
    }
    p_scale += m * norm3(v);
    l_scale += m * norm3(rxv);
  }
  // Each body's row on its own thread, in `lanes` independent compensated sums (term k of a chunk
  // to sum k modulo lanes: chains of additions that overlap), the rows added in body order: the
  // same bits on any number of threads.
  constexpr std::size_t lanes = 8;
  std::vector<T> row(n), row_min(n, RealTraits<T>::infinity());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t i = 0; i < n; ++i) {
    std::array<T, lanes> sum{}, correction{};
    T min_i = RealTraits<T>::infinity();
    // The row in chunks: distances and terms first (without the clamp, a loop without branches
    // that the compiler vectorises), then their sums and the smallest distance.
    std::array<T, 64> term, dist2;
    const T* x = s.pos(0);
    const T* y = s.pos(1);
    const T* z = s.pos(2);
    const T* mass = s.mass.data();
    const T eps2 = law.eps2, rmin2 = law.rmin2;
    for (std::size_t j0 = i + 1; j0 < n; j0 += term.size()) {
      const std::size_t count = std::min(term.size(), n - j0);
      if (rmin2 > T(0)) {
        for (std::size_t k = 0; k < count; ++k) {
          const std::size_t j = j0 + k;
          const T dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
          dist2[k] = dx * dx + dy * dy + dz * dz;
          term[k] = mass[j] * pair_potential_kernel(dx, dy, dz, eps2, rmin2);
        }
      } else {
#pragma omp simd
        for (std::size_t k = 0; k < count; ++k) {
          const std::size_t j = j0 + k;
          const T dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
          dist2[k] = dx * dx + dy * dy + dz * dz;
          term[k] = mass[j] * unclamped_potential_kernel(dist2[k] + eps2);  // = pair_potential_kernel without a clamp
        }
      }
      for (std::size_t k = 0; k < count; ++k)
        if (dist2[k] < min_i) min_i = dist2[k];
      for (std::size_t k = count; k % lanes; ++k) term[k] = T(0);  // adds nothing, exactly
      for (std::size_t k0 = 0; k0 < count; k0 += lanes)
        for (std::size_t l = 0; l < lanes; ++l) neumaier_add(sum[l], correction[l], term[k0 + l]);
    }
    CompensatedSum<T> total;
    for (std::size_t l = 0; l < lanes; ++l) total += sum[l] + correction[l];
    row[i] = total.value();
    row_min[i] = min_i;
  }
  T min_d2 = RealTraits<T>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    pot += -law.G * s.mass[i] * row[i];
    if (row_min[i] < min_d2) min_d2 = row_min[i];
  }
  out.kinetic = kin.value();
  out.potential = pot.value();
  out.energy = out.kinetic + out.potential;
  for (int d = 0; d < 3; ++d) {
    out.momentum[d] = p[d].value();
    out.angular_momentum[d] = l[d].value();
    out.centre_of_mass[d] = mr[d].value() / mass.value();
  }
  out.momentum_scale = p_scale.value();
  out.angular_momentum_scale = l_scale.value();
  out.min_pair_distance = n > 1 ? sqrt(min_d2) : T(0);
  return out;
}

// Drift of the conserved quantities from the first snapshot, as the diagnostics CSV reports it.
template <class T>
class DriftTracker {
 public:
  explicit DriftTracker(const Snapshot<T>& initial) : initial_(initial) {}

  struct Drift {
    T dE_rel, dE_rel_max, P_rel, L_rel;
    T min_pair_distance_min;  // smallest pair distance over all samples so far
  };

  // dE_rel = (E - E0)/|E0|; P_rel = |P - P0| / sum(m|v|)_0; L_rel likewise. A zero scale (a
  // system at rest, E0 = 0) falls back to the absolute change, never to a division by zero.
  Drift update(const Snapshot<T>& now) {
    Drift d;
    d.dE_rel = (now.energy - initial_.energy) / scale(abs(initial_.energy));
    if (abs(d.dE_rel) > max_abs_dE_) max_abs_dE_ = abs(d.dE_rel);
    d.dE_rel_max = max_abs_dE_;
    if (now.min_pair_distance < min_pair_) min_pair_ = now.min_pair_distance;
    d.min_pair_distance_min = min_pair_;
    d.P_rel = norm3(difference(now.momentum, initial_.momentum)) / scale(initial_.momentum_scale);
    d.L_rel = norm3(difference(now.angular_momentum, initial_.angular_momentum)) /
              scale(initial_.angular_momentum_scale);
    return d;
  }
  const Snapshot<T>& initial() const { return initial_; }

  void save(ArchiveWriter& w) const {
    const Snapshot<T>& s = initial_;
    for (T x : {s.kinetic, s.potential, s.energy, s.momentum_scale, s.angular_momentum_scale, s.min_pair_distance}) w.put(x);
    for (const auto* v : {&s.momentum, &s.angular_momentum, &s.centre_of_mass})
      for (T x : *v) w.put(x);
    w.put(max_abs_dE_);
    w.put(min_pair_);
  }
  void load(ArchiveReader& r) {
    Snapshot<T>& s = initial_;
    for (T* x : {&s.kinetic, &s.potential, &s.energy, &s.momentum_scale, &s.angular_momentum_scale, &s.min_pair_distance})
      r.get(*x);
    for (auto* v : {&s.momentum, &s.angular_momentum, &s.centre_of_mass})
      for (T& x : *v) r.get(x);
    r.get(max_abs_dE_);
    r.get(min_pair_);
  }

 private:
  static T scale(T s) { return s > T(0) ? s : T(1); }
  static Vec3<T> difference(const Vec3<T>& a, const Vec3<T>& b) {
    return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  }
  Snapshot<T> initial_;
  T max_abs_dE_{0};
  T min_pair_ = RealTraits<T>::infinity();
};

}  // namespace nbody
