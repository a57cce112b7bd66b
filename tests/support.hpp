#pragma once
// Shared helpers of the tests: running a simulation to a time, and the force-comparison norm of
// DESIGN.md.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/interaction.hpp"
#include "driver/simulation.hpp"
#include "io/archive.hpp"
#include "physics/initial_conditions.hpp"

namespace nbody::test {

inline IcParams kepler(const std::string& e) {
  IcParams p;
  p.name = "kepler";
  p.e = e;
  return p;
}

// A Plummer sphere of n bodies (Henon units) drawn from `seed`, in precision T.
template <class T>
State<T> plummer(std::size_t n, std::uint64_t seed) {
  IcParams p;
  p.name = "plummer";
  p.n = n;
  p.seed = seed;
  return make_initial_state<T>(p);
}

// Runs `sim` to t_end (a sample every diag_every), checkpointing every `every`; returns the last
// checkpoint written at t <= keep_until (empty when there was none), to resume a new run from.
template <class T>
std::string run_keeping_checkpoint(Simulation<T>& sim, T t_end, T diag_every, T every, T keep_until) {
  std::string saved;
  RunHooks<T> hooks;
  hooks.checkpoint_every = every;
  hooks.checkpoint = [&] {
    if (sim.state().t > keep_until) return;
    ArchiveWriter w;
    sim.save(w);
    saved = w.bytes();
  };
  sim.run(t_end, diag_every, [](const auto&) {}, hooks);
  return saved;
}

// Adaptive steps with atol = rtol = tol (--tol).
inline StepOptions<double> with_tol(double tol) {
  StepOptions<double> opt;
  opt.adaptive = true;
  opt.atol = opt.rtol = tol;
  return opt;
}

// Max over bodies of |r - r_ref|.
template <class T>
T position_error(const State<T>& s, const State<T>& ref) {
  T worst{0};
  for (std::size_t i = 0; i < s.size(); ++i) {
    T d2{0};
    for (int k = 0; k < 3; ++k) d2 += (s.pos(k)[i] - ref.pos(k)[i]) * (s.pos(k)[i] - ref.pos(k)[i]);
    worst = std::max(worst, T(std::sqrt(d2)));
  }
  return worst;
}

// Integrates the Kepler orbit of eccentricity e for `periods` periods with a fixed step P/steps
// and returns the position error against the analytic solution.
inline double kepler_error(const std::string& integrator, const std::string& e, double periods, long steps_per_period) {
  const IcParams ic = kepler(e);
  State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  StepOptions<double> opt;
  opt.dt = P / double(steps_per_period);
  Simulation<double> sim(s0, ForceLaw<double>{}, "simple", integrator, opt);
  sim.run(periods * P, periods * P, [](const auto&) {});
  return position_error(sim.state(), kepler_state_at<double>(ic, periods * P));
}

// The denominator of DESIGN.md's engine comparison, max_i |a_i - a_i,ref| / sum_j |a_ij|: for
// every body i, G sum_{j != i} |a_ij|, the magnitudes of the pair terms evaluated in double
// (well conditioned even where the forces on a body cancel). pos: SoA as in ForceEngine.
template <class T>
std::vector<double> pair_scale(const T* pos, const T* mass, std::size_t n, const ForceLaw<T>& law) {
  auto d = [](const T& x) { return static_cast<double>(x); };
  std::vector<double> scale(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      double ax = 0, ay = 0, az = 0;
      accumulate_interaction<double>(d(pos[i]), d(pos[n + i]), d(pos[2 * n + i]), d(pos[j]), d(pos[n + j]),
                                     d(pos[2 * n + j]), d(mass[j]), d(law.eps2), d(law.rmin2), ax, ay, az);
      scale[i] += d(law.G) * std::sqrt(ax * ax + ay * ay + az * az);
    }
  return scale;
}

// max_i |a_i - ref_i| / scale_i, with a (in any type) and ref as 3n SoA values.
template <class T>
double scaled_difference(const std::vector<T>& a, const std::vector<double>& ref, const std::vector<double>& scale) {
  const std::size_t n = scale.size();
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double d2 = 0;
    for (int k = 0; k < 3; ++k) d2 += (double(a[k * n + i]) - ref[k * n + i]) * (double(a[k * n + i]) - ref[k * n + i]);
    worst = std::max(worst, std::sqrt(d2) / scale[i]);
  }
  return worst;
}

// DESIGN.md's engine comparison of accelerations a of state s against ref.
template <class T>
double force_difference(const State<T>& s, const std::vector<T>& a, const std::vector<double>& ref, const ForceLaw<T>& law) {
  return scaled_difference(a, ref, pair_scale(s.y.data(), s.mass.data(), s.size(), law));
}

}  // namespace nbody::test
