#pragma once
// Conserved quantities and their drift. Every sum is compensated (Neumaier) and done in the run's
// own precision T, so that the measured drift is the integrator's, not the diagnostics' round-off.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "common/compensated.hpp"
#include "core/parallel.hpp"
#include "core/state.hpp"
#include "engines/force_error.hpp"
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
  bool has_potential = false;          // potential and energy measured (else unknown)
  bool has_min_pair_distance = false;  // measured only with the exact potential energy
};

template <class T>
T norm3(const Vec3<T>& v) {
  return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

// The sums of the motion of bodies taken in order: kinetic energy, momentum, angular momentum, the
// mass and its first moment (the centre of mass), and the scales P and L are compared with. They
// may be carried from one block of the bodies to the next (the ranks' blocks in turn), which gives
// the bits of the sums over all bodies at once.
template <class T>
struct MotionSums {
  CompensatedSum<T> kinetic, mass, momentum_scale, angular_momentum_scale;
  std::array<CompensatedSum<T>, 3> momentum, angular_momentum, mass_moment;

  void add(const State<T>& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      const T m = s.mass[i];
      const Vec3<T> r{s.pos(0)[i], s.pos(1)[i], s.pos(2)[i]};
      const Vec3<T> v{s.vel(0)[i], s.vel(1)[i], s.vel(2)[i]};
      const Vec3<T> rxv{r[1] * v[2] - r[2] * v[1], r[2] * v[0] - r[0] * v[2], r[0] * v[1] - r[1] * v[0]};
      kinetic += m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / T(2);
      mass += m;
      for (int d = 0; d < 3; ++d) {
        momentum[d] += m * v[d];
        angular_momentum[d] += m * rxv[d];
        mass_moment[d] += m * r[d];
      }
      momentum_scale += m * norm3(v);
      angular_momentum_scale += m * norm3(rxv);
    }
  }
  Snapshot<T> snapshot() const {
    Snapshot<T> out;
    out.kinetic = kinetic.value();
    for (int d = 0; d < 3; ++d) {
      out.momentum[d] = momentum[d].value();
      out.angular_momentum[d] = angular_momentum[d].value();
      out.centre_of_mass[d] = mass_moment[d].value() / mass.value();
    }
    out.momentum_scale = momentum_scale.value();
    out.angular_momentum_scale = angular_momentum_scale.value();
    return out;
  }
};

// The motion of the bodies, O(N): kinetic energy, momentum, angular momentum, centre of mass and
// the scales they are compared with. The potential energy is added by one of the functions below.
template <class T>
Snapshot<T> measure_motion(const State<T>& s) {
  MotionSums<T> sums;
  sums.add(s);
  return sums.snapshot();
}

// The exact potential energy, O(N^2) (OpenMP over bodies from the size where the threads pay,
// core/parallel.hpp), and the smallest pair distance. The pair
// potential is the one that matches the force law (softening and clamp included), so that dE
// measures the integrator alone.
template <class T>
void add_exact_potential(Snapshot<T>& out, const State<T>& s, const ForceLaw<T>& law) {
  const std::size_t n = s.size();
  CompensatedSum<T> pot;
  // Each body's row on its own thread, in `lanes` independent compensated sums (term k of a chunk
  // to sum k modulo lanes: chains of additions that overlap), the rows added in body order: the
  // same bits on any number of threads.
  constexpr std::size_t lanes = 8;
  std::vector<T> row(n), row_min(n, RealTraits<T>::infinity());
  for_each_index<16>(static_cast<std::ptrdiff_t>(n), parallel_forces(n), [&](std::ptrdiff_t row_index) {
    const auto i = static_cast<std::size_t>(row_index);
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
  });
  T min_d2 = RealTraits<T>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    pot += -law.G * s.mass[i] * row[i];
    if (row_min[i] < min_d2) min_d2 = row_min[i];
  }
  out.potential = pot.value();
  out.energy = out.kinetic + out.potential;
  out.min_pair_distance = n > 1 ? sqrt(min_d2) : T(0);
  out.has_potential = out.has_min_pair_distance = true;
}

// The potential energy from each body's potential phi (n values, each from all the other bodies,
// as a force engine evaluates it): 1/2 sum m_i phi_i, compensated. The pair distances are not seen.
// The sum may be carried from one block of the bodies to the next (add_potential_terms).
template <class T>
void add_potential_terms(CompensatedSum<T>& sum, const State<T>& s, const std::vector<T>& phi) {
  for (std::size_t i = 0; i < s.size(); ++i) sum += s.mass[i] * phi[i];
}
template <class T>
void set_potential(Snapshot<T>& out, const CompensatedSum<T>& sum) {
  out.potential = sum.value() / T(2);
  out.energy = out.kinetic + out.potential;
  out.has_potential = true;
}
template <class T>
void add_potential_of(Snapshot<T>& out, const State<T>& s, const std::vector<T>& phi) {
  CompensatedSum<T> sum;
  add_potential_terms(sum, s, phi);
  set_potential(out, sum);
}

// How far each body's potential phi (as an engine evaluates it: a tree's walk) is from the exact
// direct sum, on `count` bodies spread evenly over the indices (each exact value O(N), in double
// for float runs: ExactReal): the largest and the RMS relative error of those bodies, and the
// relative error of their share of the potential energy, sum m_i phi_i.
struct PotentialError {
  std::size_t bodies = 0;
  double max_rel = 0, rms_rel = 0, energy_rel = 0;
};
template <class T>
using ExactReal = std::conditional_t<std::is_same_v<T, float>, double, T>;
// A measured body: its index among all bodies, its position in ExactReal, its mass and the
// potential under test.
template <class W>
struct PotentialPoint {
  std::size_t id;
  W x[3];
  double mass, phi;
};
// The measured bodies among bodies [first, first + s.size()) of n (a block, or all of them): the
// force error's sample of count (error_point_id).
template <class T>
std::vector<PotentialPoint<ExactReal<T>>> potential_points(const State<T>& s, std::size_t first, std::size_t n,
                                                           const std::vector<T>& phi, std::size_t count) {
  using W = ExactReal<T>;
  std::vector<PotentialPoint<W>> points;
  for (const std::size_t id : error_point_ids(n, count, first, s.size())) {
    const std::size_t i = id - first;
    points.push_back({id, {W(s.pos(0)[i]), W(s.pos(1)[i]), W(s.pos(2)[i])}, static_cast<double>(s.mass[i]),
                      static_cast<double>(phi[i])});
  }
  return points;
}
// At each point, the exact potential's terms from bodies [first, first + s.size()) of all (the
// point's own left out) added to its sum in body order: all bodies at once, or the blocks in turn.
template <class T>
void add_exact_potentials(std::vector<CompensatedSum<ExactReal<T>>>& sums,
                          const std::vector<PotentialPoint<ExactReal<T>>>& points, const State<T>& s, std::size_t first,
                          const ForceLaw<T>& law) {
  using W = ExactReal<T>;
  const std::size_t n = s.size();
  for_each_index<1>(static_cast<std::ptrdiff_t>(points.size()), parallel_forces(n * points.size() / 64), [&](std::ptrdiff_t k) {
    const PotentialPoint<W>& p = points[k];
    CompensatedSum<W>& sum = sums[k];
    for (std::size_t j = 0; j < n; ++j)
      if (first + j != p.id)
        sum += W(s.mass[j]) * pair_potential_kernel(W(s.pos(0)[j]) - p.x[0], W(s.pos(1)[j]) - p.x[1], W(s.pos(2)[j]) - p.x[2],
                                                    W(law.eps2), W(law.rmin2));
  });
}
// The error from the points' exact sums.
template <class W>
PotentialError potential_error_of(const std::vector<PotentialPoint<W>>& points, const std::vector<CompensatedSum<W>>& sums, W G) {
  PotentialError e;
  e.bodies = points.size();
  double square = 0, difference = 0, total = 0;
  for (std::size_t k = 0; k < e.bodies; ++k) {
    const double exact = static_cast<double>(-G * sums[k].value()), d = points[k].phi - exact;
    const double rel = exact != 0 ? std::abs(d / exact) : std::abs(d);
    e.max_rel = std::max(e.max_rel, rel), square += rel * rel;
    difference += points[k].mass * d, total += points[k].mass * exact;
  }
  e.rms_rel = e.bodies ? std::sqrt(square / double(e.bodies)) : 0.0;
  e.energy_rel = total != 0 ? std::abs(difference / total) : std::abs(difference);
  return e;
}
template <class T>
PotentialError potential_error(const State<T>& s, const ForceLaw<T>& law, const std::vector<T>& phi, std::size_t count) {
  const auto points = potential_points(s, 0, s.size(), phi, count);
  std::vector<CompensatedSum<ExactReal<T>>> sums(points.size());
  add_exact_potentials(sums, points, s, 0, law);
  return potential_error_of(points, sums, ExactReal<T>(law.G));
}

// The whole snapshot with the exact potential energy.
template <class T>
Snapshot<T> measure(const State<T>& s, const ForceLaw<T>& law) {
  Snapshot<T> out = measure_motion(s);
  add_exact_potential(out, s, law);
  return out;
}

// Drift of the conserved quantities from the first snapshot, as the diagnostics CSV reports it.
template <class T>
class DriftTracker {
 public:
  struct Drift {
    T dE_rel{0}, dE_rel_max{0}, P_rel{0}, L_rel{0};
    T min_pair_distance_min{0};  // smallest pair distance over all samples so far
    bool has_energy = false;             // dE_rel and dE_rel_max measured
    bool has_min_pair_distance = false;  // min_pair_distance_min measured
  };

  DriftTracker() = default;
  explicit DriftTracker(const Snapshot<T>& initial) { update(initial); }

  // The first snapshot is the baseline. dE_rel = (E - E0)/|E0|; P_rel = |P - P0| / sum(m|v|)_0;
  // L_rel likewise. A zero scale (a system at rest, E0 = 0) falls back to the absolute change,
  // never to a division by zero.
  Drift update(const Snapshot<T>& now) {
    if (!started_) initial_ = now, started_ = true;
    Drift d;
    d.has_energy = now.has_potential && initial_.has_potential;
    if (d.has_energy) {
      d.dE_rel = (now.energy - initial_.energy) / scale(abs(initial_.energy));
      if (abs(d.dE_rel) > max_abs_dE_) max_abs_dE_ = abs(d.dE_rel);
      d.dE_rel_max = max_abs_dE_;
    }
    if (now.has_min_pair_distance && now.min_pair_distance < min_pair_) min_pair_ = now.min_pair_distance;
    d.has_min_pair_distance = min_pair_ < RealTraits<T>::infinity();
    d.min_pair_distance_min = min_pair_;
    d.P_rel = norm3(difference(now.momentum, initial_.momentum)) / scale(initial_.momentum_scale);
    d.L_rel = norm3(difference(now.angular_momentum, initial_.angular_momentum)) /
              scale(initial_.angular_momentum_scale);
    return d;
  }
  bool started() const { return started_; }
  const Snapshot<T>& initial() const { return initial_; }

  void save(ArchiveWriter& w) const {
    const Snapshot<T>& s = initial_;
    w.put(started_);
    for (T x : {s.kinetic, s.potential, s.energy, s.momentum_scale, s.angular_momentum_scale, s.min_pair_distance}) w.put(x);
    for (const auto* v : {&s.momentum, &s.angular_momentum, &s.centre_of_mass})
      for (T x : *v) w.put(x);
    w.put(s.has_potential);
    w.put(s.has_min_pair_distance);
    w.put(max_abs_dE_);
    w.put(min_pair_);
  }
  void load(ArchiveReader& r) {
    Snapshot<T>& s = initial_;
    r.get(started_);
    for (T* x : {&s.kinetic, &s.potential, &s.energy, &s.momentum_scale, &s.angular_momentum_scale, &s.min_pair_distance})
      r.get(*x);
    for (auto* v : {&s.momentum, &s.angular_momentum, &s.centre_of_mass})
      for (T& x : *v) r.get(x);
    r.get(s.has_potential);
    r.get(s.has_min_pair_distance);
    r.get(max_abs_dE_);
    r.get(min_pair_);
  }

 private:
  static T scale(T s) { return s > T(0) ? s : T(1); }
  static Vec3<T> difference(const Vec3<T>& a, const Vec3<T>& b) {
    return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  }
  bool started_ = false;
  Snapshot<T> initial_;
  T max_abs_dE_{0};
  T min_pair_ = RealTraits<T>::infinity();
};

}  // namespace nbody
