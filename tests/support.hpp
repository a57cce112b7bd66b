#pragma once
// Shared helpers of the tests: the Kepler orbit run through the driver and stepped by hand, random
// values of the multi-double types, comparing force engines in the norm of docs/design.md ("The
// force-comparison norm"), and running the `nbody` binary.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "common/double_double.hpp"
#include "common/interaction.hpp"
#include "common/quad_double.hpp"
#include "core/registry.hpp"
#include "driver/simulation.hpp"
#include "engines/engine.hpp"
#include "engines/force_error.hpp"
#include "engines/gpu_engines.hpp"
#include "integrators/gauss_radau15.hpp"
#include "io/archive.hpp"
#include "physics/initial_conditions.hpp"
#if NBODY_WITH_CUDA
#include "cuda/cuda_device.hpp"
#endif

namespace nbody::test {

// ---- A gravity run through the run loop ----

// What a test asks of a run besides its samples: progress lines, snapshots of the state at exact
// times, checkpoints (periodic, and when it stops early), a stop at a time or when `interrupted`.
template <class T>
struct RunHooks {
  std::function<void(const std::string&)> progress;
  T snapshot_every{0};  // 0: no snapshots
  std::function<void(const State<T>&)> snapshot;
  T checkpoint_every{0};  // 0: no periodic checkpoints
  std::function<void()> checkpoint;
  T stop_at{RealTraits<T>::infinity()};
  std::function<bool()> interrupted;
};

// The gravity model (driver/simulation.hpp) with the run loop (run/loop.hpp): run(t_end,
// diag_every, observe, hooks) steps to t_end, observe(const Sample<T>&) seeing every sample; a
// later call with a later t_end extends the run. save/load: the loop's checkpoint of the whole run.
template <class T>
class Driven : public Simulation<T> {
 public:
  using Simulation<T>::Simulation;

  template <class Observer>
  bool run(T t_end, T diag_every, Observer&& observe, const RunHooks<T>& hooks = {}) {
    typename run::RunLoop<Simulation<T>>::Events events;
    events.sample = [&](const Sample<T>& s) { observe(s); };
    if (hooks.snapshot) events.snapshot = [&] { hooks.snapshot(this->state()); };
    events.checkpoint = hooks.checkpoint;
    events.interrupted = hooks.interrupted;
    events.progress = hooks.progress;
    if (!loop_) {
      run::Schedule<T> s;
      s.samples = run::Every<T>::of_time(diag_every);
      if (hooks.snapshot) s.snapshots = run::Every<T>::of_time(hooks.snapshot_every);
      s.checkpoints = run::Every<T>::of_time(hooks.checkpoint_every);
      loop_ = std::make_unique<run::RunLoop<Simulation<T>>>(*this, s, events);
      if (!clocks_.is_null()) loop_->resume(clocks_);
    }
    loop_->set_events(events);
    loop_->set_end(run::Mark<T>::at_time(t_end), run::Mark<T>::at_time(hooks.stop_at));
    return loop_->run();
  }
  // The checkpoint of the whole run (the loop's clocks and the model), once it has run.
  void save(ArchiveWriter& w) const {
    w.put_text(loop_->clocks().dump());
    Simulation<T>::save(w);
  }
  // The model at once, the loop's clocks at the first run().
  void load(ArchiveReader& r) {
    clocks_ = nlohmann::json::parse(r.get_text());
    Simulation<T>::load(r);
  }

 private:
  std::unique_ptr<run::RunLoop<Simulation<T>>> loop_;
  nlohmann::json clocks_;
};

// ---- The Kepler orbit, through the driver and stepped by hand ----

inline IcParams kepler(const std::string& e) {
  IcParams p;
  p.name = "kepler";
  p.e = e;
  return p;
}

// The orbit of eccentricity 0.5 (a = 1, G M = 1) on which most integrator tests run, and its period.
inline const IcParams& kepler05() {
  static const IcParams ic = kepler("0.5");
  return ic;
}
inline double kepler05_period() { return orbital_period(kepler05(), make_initial_state<double>(kepler05()), 1.0); }

// A Plummer sphere of n bodies (Henon units) drawn from `seed`, in precision T.
template <class T>
State<T> plummer(std::size_t n, std::uint64_t seed) {
  IcParams p;
  p.name = "plummer";
  p.n = n;
  p.seed = seed;
  return make_initial_state<T>(p);
}

// Fixed steps of dt, with --order (0: the method's default).
inline StepOptions<double> fixed_step(double dt, int order = 0) {
  StepOptions<double> opt;
  opt.dt = dt;
  opt.order = order;
  return opt;
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

// `periods` periods of the Kepler orbit ic through the driver: the position error against the
// analytic solution, and the counts.
struct KeplerRun {
  double error;
  StepCounters counters;
  std::uint64_t force_evaluations;
};
inline KeplerRun kepler_run(const std::string& method, const StepOptions<double>& opt, const IcParams& ic, double periods = 1.0) {
  const State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  Driven<double> sim(s0, ForceLaw<double>{}, "simple", method, opt);
  sim.run(periods * P, periods * P, [](const auto&) {});
  return {position_error(sim.state(), kepler_state_at<double>(ic, periods * P)), sim.counters(), sim.force_evaluations()};
}

// The position error after `periods` periods of the Kepler orbit of eccentricity e at the fixed
// step P / steps_per_period (with --order).
inline double kepler_error(const std::string& integrator, const std::string& e, double periods, long steps_per_period,
                           int order = 0) {
  const IcParams ic = kepler(e);
  const double P = orbital_period(ic, make_initial_state<double>(ic), 1.0);
  return kepler_run(integrator, fixed_step(P / double(steps_per_period), order), ic, periods).error;
}

// Runs `sim` to t_end (a sample every diag_every), checkpointing every `every`; returns the last
// checkpoint written at t <= keep_until (empty when there was none), to resume a new run from.
template <class T>
std::string run_keeping_checkpoint(Driven<T>& sim, T t_end, T diag_every, T every, T keep_until) {
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

// An integrator stepped by hand (no driver), for tests that look at its counts, its start-up, its
// internals or its checkpoints. Not movable: the Rhs refers to the state's masses.
template <class T>
struct Stepper {
  State<T> s;
  std::unique_ptr<ForceEngine<T>> engine;
  Rhs<T> rhs;
  StepOptions<T> opt;
  std::unique_ptr<Integrator<T>> integrator;

  Stepper(const State<T>& start, const std::string& method, const StepOptions<T>& o)
      : s(start), engine(make_engine<T>("simple", ForceLaw<T>{})), rhs(*engine, s.mass), opt(o),
        integrator(find_entry(integrator_table<T>(), method, "integrator").make(rhs, opt)) {}
  Stepper(const Stepper&) = delete;

  // `count` steps of h, or of the size the method proposes when the steps are adaptive.
  void steps(int count, T h) {
    for (int k = 0; k < count; ++k) integrator->step(s, opt.adaptive ? integrator->proposed_step(s) : h);
  }
  // `count` steps of --dt (or adaptive ones).
  void advance(int count) { steps(count, opt.dt); }

  // The state, the evaluation count and the integrator's own state, as a run's checkpoint holds them.
  std::string checkpoint() const {
    ArchiveWriter w;
    w.put(s.y);
    w.put(s.t);
    w.put(rhs.evaluations());
    integrator->save(w);
    return w.bytes();
  }
  void resume(const std::string& bytes) {
    ArchiveReader r(bytes);
    r.get(s.y);
    r.get(s.t);
    rhs.set_evaluations(r.get<std::uint64_t>());
    integrator->load(r);
    REQUIRE(r.at_end());
  }
};

// gauss-radau15 stepped by hand, with its sweeps in view; steps(n, adaptive) takes the steps it
// proposes or fixed ones of opt_dt.
struct GaussRadau15Stepper : Stepper<double> {
  GaussRadau15<double>& method;
  double opt_dt = 0;

  GaussRadau15Stepper(const IcParams& ic, const StepOptions<double>& opt)
      : Stepper<double>(make_initial_state<double>(ic), "gauss-radau15", opt),
        method(dynamic_cast<GaussRadau15<double>&>(*integrator)) {}
  void steps(int n, bool adaptive) {
    for (int i = 0; i < n; ++i) method.step(s, adaptive ? method.proposed_step(s) : opt_dt);
  }
};

// The explicit Runge-Kutta methods besides euler, rk4 and dopri5 (whose tests are those of every
// method), and those of them with an embedded error estimate.
inline const std::vector<std::string> explicit_rk_methods = {"midpoint",   "trapeze", "cash-karp", "verner65",
                                                             "fehlberg78", "dop853",  "feagin10"};
inline const std::vector<std::string> embedded_methods = {"cash-karp", "verner65", "fehlberg78", "dop853", "feagin10"};

// Stages and FSAL of an embedded method's tableau, for its force-evaluation counts.
struct Cost {
  std::uint64_t stages;
  bool fsal;
};
inline Cost cost_of(const std::string& method) {
  if (method == "cash-karp") return {6, false};
  if (method == "verner65") return {8, false};
  if (method == "fehlberg78") return {13, false};
  if (method == "dop853") return {13, true};
  if (method == "feagin10") return {17, false};
  FAIL("no cost for " << method);
  return {0, false};
}

// Every value of a and b the same bits.
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// ---- Random values of the number types ----

// Random double with a random 53-bit significand, sign and binary exponent in [emin, emax].
inline double random_double(std::mt19937_64& g, int emin, int emax) {
  std::uniform_int_distribution<int> ed(emin, emax);
  const std::uint64_t m = (g() >> 11) | (std::uint64_t(1) << 52);
  const double x = std::ldexp(static_cast<double>(m), ed(g) - 52);
  return (g() & 1) ? -x : x;
}

// Random normalised dd: hi random, lo a random fraction of ulp(hi) (full 53 bits).
inline dd random_dd(std::mt19937_64& g, int emin, int emax) {
  const double hi = random_double(g, emin, emax);
  const double lo = std::ldexp(random_double(g, -54, -54), std::ilogb(hi));  // [ulp/4, ulp/2)
  const int shrink = g() % 4 == 0 ? static_cast<int>(g() % 60) : 0;  // sometimes much smaller
  return dd::sum(hi, std::ldexp(lo, -shrink));
}

// Random non-overlapping qd with leading term of binary exponent in [emin, emax]: each further
// term a random fraction of half an ulp of the one before, sometimes much smaller.
inline qd random_qd(std::mt19937_64& g, int emin, int emax) {
  std::uniform_int_distribution<int> ed(emin, emax);
  auto random_double = [&](int e) {
    const std::uint64_t m = (g() >> 11) | (std::uint64_t(1) << 52);
    const double x = std::ldexp(static_cast<double>(m), e - 52);
    return (g() & 1) ? -x : x;
  };
  double t[4];
  t[0] = random_double(ed(g));
  for (int i = 1; i < 4; ++i) {
    const int gap = g() % 5 == 0 ? static_cast<int>(g() % 40) : 0;
    t[i] = random_double(std::ilogb(t[i - 1]) - 54 - gap);
  }
  double e = 0.0;
  eft::renorm(t[0], t[1], t[2], t[3], e);
  return qd(t[0], t[1], t[2], t[3]);
}

// ---- Force engines ----

// The accelerations of `engine` on the state s.
inline std::vector<double> accelerations(const std::string& engine, const State<double>& s, const ForceLaw<double>& law) {
  std::vector<double> a(3 * s.size());
  make_engine<double>(engine, law)->accelerations(s.y.data(), s.mass.data(), s.size(), a.data());
  return a;
}

// The denominator of docs/design.md's engine comparison: pair_scale (engines/force_error.hpp).

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

// Engines against `simple` on random bodies, in every precision.

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

// Two colliding galaxies (S0's test system): clustered, each with a dense core and a central body
// of 99.9 % of its mass.
template <class T>
Bodies<T> galaxies(std::size_t n, std::uint64_t seed = 7) {
  IcParams p;
  p.name = "two-galaxies";
  p.n = n;
  p.seed = seed;
  const State<T> s = make_initial_state<T>(p);
  return {n, std::vector<T>(s.y.begin(), s.y.begin() + 3 * n), s.mass};
}

// A Plummer sphere as ForceEngine takes it.
template <class T>
Bodies<T> plummer_bodies(std::size_t n, std::uint64_t seed) {
  const State<T> s = plummer<T>(n, seed);
  return {n, std::vector<T>(s.y.begin(), s.y.begin() + 3 * n), s.mass};
}

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
  // Tree engines open every node (lambda = infinity, theta = 0): direct sums, comparable with `simple`.
  ForceLaw<T> plain;
  plain.tree.lambda_crit = std::numeric_limits<double>::infinity();
  plain.tree.theta = 0;
  ForceLaw<T> softened = plain;
  softened.eps2 = T(1e-4);
  softened.G = T(0.5);
  ForceLaw<T> clamped = plain;
  clamped.rmin2 = T(1e-2);
  clamped.G = T(2.5);
  return {plain, softened, clamped};
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
                          const std::vector<T>& ref, double tolerance = engine_tolerance<T>()) {
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
  INFO("norm = " << err << ", tolerance " << tolerance);
  CHECK(err <= tolerance);
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

// ---- Devices ----

// Whether engine e can run here (its device present); when it cannot, says so and the caller
// skips it: CI has no GPU.
template <class T>
bool runnable(const EngineEntry<T>& e) {
  if (device_available(e.can.device)) return true;
  WARN("SKIPPED: " << e.name << " in " << RealTraits<T>::name << ": no " << device_name(e.can.device)
                   << " device here (built, not run)");
  return false;
}

// Whether the CUDA tests of `what` can run here; when they cannot, says why (no device, or a build
// without CUDA) and the test returns, passing: CI has no GPU.
inline bool have_cuda_device(const std::string& what) {
#if NBODY_WITH_CUDA
  if (cuda::device_count() > 0) return true;
  WARN("SKIPPED: " << what << ": no CUDA device (" << cuda::no_device_reason() << "): built but not run here");
#else
  WARN("SKIPPED: " << what << ": this build has no CUDA (no CUDA compiler was found)");
#endif
  return false;
}

// ---- The `nbody` binary ----

// A fresh, empty directory per test.
inline std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("nbody_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The names in dir, the stdout.txt and stderr.txt of run_nbody left out.
inline std::set<std::string> names_in(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename() != "stdout.txt" && e.path().filename() != "stderr.txt") names.insert(e.path().filename().string());
  return names;
}

// The whole text of a file.
inline std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Outcome {
  int exit_code;
  std::string err;
};

// `nbody args` run in dir, its output in dir/stdout.txt and dir/stderr.txt.
inline Outcome run_nbody(const std::filesystem::path& dir, const std::string& args) {
  const std::string cmd = "cd '" + dir.string() + "' && '" NBODY_BINARY "' " + args + " >stdout.txt 2>stderr.txt";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(dir / "stderr.txt")};
}

}  // namespace nbody::test
