#pragma once
// Shared helpers of the tests: running a simulation to a time, and comparing force engines in the
// norm of docs/design.md ("The force-comparison norm").
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/interaction.hpp"
#include "driver/simulation.hpp"
#include "engines/engine.hpp"
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

// The denominator of docs/design.md's engine comparison, max_i |a_i - a_i,ref| / sum_j |a_ij|: for
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

// docs/design.md's engine comparison of accelerations a of state s against ref.
template <class T>
double force_difference(const State<T>& s, const std::vector<T>& a, const std::vector<double>& ref, const ForceLaw<T>& law) {
  return scaled_difference(a, ref, pair_scale(s.y.data(), s.mass.data(), s.size(), law));
}

// ---- Engines against `simple` on random bodies, in every precision ----

template <class T>
double to_d(const T& x) {
  if constexpr (std::is_same_v<T, dd> || std::is_same_v<T, qd>) return to_double(x);
  else return static_cast<double>(x);
}

// A random value in [lo, hi), with random digits below double's too in the multi-double types.
template <class T>
T random_real(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  if constexpr (std::is_same_v<T, dd>) {
    const double h = u(rng);
    return dd::sum(h, std::ldexp(u(rng) / (hi - lo), -54) * std::fabs(h));
  } else if constexpr (std::is_same_v<T, qd>) {
    const double h = u(rng);
    return qd(h) + std::ldexp(u(rng) / (hi - lo), -54) * std::fabs(h) + std::ldexp(u(rng) / (hi - lo), -110) * std::fabs(h);
  } else {
    return static_cast<T>(u(rng));
  }
}

template <class T>
struct Bodies {
  std::size_t n;
  std::vector<T> pos, mass;  // SoA positions (3n) and masses, as ForceEngine takes them
};

// Uniform in a cube, masses in [0.5, 1.5] / n, so that close pairs occur at every N.
template <class T>
Bodies<T> random_bodies(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Bodies<T> b{n, std::vector<T>(3 * n), std::vector<T>(n)};
  for (auto& x : b.pos) x = random_real<T>(rng, -1.0, 1.0);
  for (auto& m : b.mass) m = random_real<T>(rng, 0.5, 1.5) / T(static_cast<double>(n));
  return b;
}

// The bound of the force-comparison norm for an engine against `simple` in T (docs/design.md):
// a few hundred to a few thousand units of T's rounding, more where the engines' arithmetic
// differs (hardware rsqrt refined by Newton steps, other summation orders).
template <class T>
double engine_tolerance() {
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  else if constexpr (std::is_same_v<T, double>) return 1e-13;
  else if constexpr (std::is_same_v<T, dd>) return 1e-28;
  else if constexpr (std::is_same_v<T, qd>) return 1e-58;
  else if constexpr (std::is_same_v<T, quad>) return 1e-30;
  else return 1e-45;  // mp50
}

// Plain Newton, Plummer softening, and S0's clamp with a radius that some pairs are inside (and G != 1).
template <class T>
std::vector<ForceLaw<T>> engine_laws() {
  ForceLaw<T> softened;
  softened.eps2 = T(1e-4);
  softened.G = T(0.5);
  ForceLaw<T> clamped;
  clamped.rmin2 = T(1e-2);
  clamped.G = T(2.5);
  return {ForceLaw<T>{}, softened, clamped};
}

// max_i |a_i - ref_i| / sum_j |a_ij|, the difference formed in T (dd differences keep their digits).
template <class T>
double force_norm(const Bodies<T>& b, const std::vector<T>& a, const std::vector<T>& ref, const ForceLaw<T>& law) {
  const std::size_t n = b.n;
  const std::vector<double> scale = pair_scale(b.pos.data(), b.mass.data(), n, law);
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double d2 = 0;
    for (int k = 0; k < 3; ++k) {
      const double d = to_d(T(a[k * n + i] - ref[k * n + i]));
      d2 += d * d;
    }
    worst = std::max(worst, std::sqrt(d2) / scale[i]);
  }
  return worst;
}

// The accelerations of `engine` with `launch` (every element poisoned first: all must be written).
template <class T>
std::vector<T> engine_accelerations(ForceEngine<T>& engine, const Bodies<T>& b) {
  std::vector<T> a(3 * b.n, T(12345.0));
  engine.accelerations(b.pos.data(), b.mass.data(), b.n, a.data());
  return a;
}
template <class T>
std::vector<T> engine_accelerations(const std::string& engine, const std::string& launch, const Bodies<T>& b,
                                    const ForceLaw<T>& law) {
  auto e = make_engine<T>(engine, law);
  e->set_launch(launch);
  return engine_accelerations(*e, b);
}

// Checks accelerations a of an engine against `simple`'s ref: finite, zero for one body, within
// engine_tolerance<T>() in the norm. what: names the engine and shape for the failure message.
template <class T>
void check_against_simple(const std::string& what, const Bodies<T>& b, const ForceLaw<T>& law, const std::vector<T>& a,
                          const std::vector<T>& ref) {
  INFO(what << ", n = " << b.n << ", eps2 = " << to_d(law.eps2) << ", rmin2 = " << to_d(law.rmin2) << ", G = "
            << to_d(law.G) << (law.compensated ? ", compensated sums" : ""));
  bool finite = true;
  for (const T& x : a) finite = finite && std::isfinite(to_d(x));
  CHECK(finite);
  if (b.n == 1) {
    for (const T& x : a) CHECK(to_d(x) == 0.0);
    return;
  }
  const double err = force_norm(b, a, ref, law);
  INFO("norm = " << err << ", tolerance " << engine_tolerance<T>());
  CHECK(err <= engine_tolerance<T>());
}

// Every (engine, launch) against `simple` for each N and force law.
template <class T>
void check_engines(const std::vector<std::pair<std::string, std::string>>& cases, const std::vector<std::size_t>& sizes) {
  for (std::size_t n : sizes) {
    const Bodies<T> b = random_bodies<T>(n, 1000 + n);
    for (const auto& law : engine_laws<T>()) {
      const std::vector<T> ref = engine_accelerations<T>("simple", "", b, law);
      for (const auto& [engine, launch] : cases)
        check_against_simple(engine + " --launch '" + launch + "'", b, law, engine_accelerations<T>(engine, launch, b, law), ref);
    }
  }
}

}  // namespace nbody::test
