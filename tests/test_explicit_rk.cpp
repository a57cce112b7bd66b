// The explicit Runge-Kutta methods (midpoint, trapeze, cash-karp, verner65, fehlberg78,
// dop853, feagin10) on the analytic Kepler orbit: convergence order at a fixed step, the PI
// controller's tolerance, seed S0's subdivision controller, honest force-evaluation counts, and
// bit-for-bit resumption from a checkpoint.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "core/registry.hpp"
#include "integrators/dop853.hpp"
#include "integrators/feagin10.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

const std::vector<std::string> new_methods = {"midpoint",   "trapeze", "cash-karp", "verner65",
                                              "fehlberg78", "dop853",  "feagin10"};
const std::vector<std::string> embedded_methods = {"cash-karp", "verner65", "fehlberg78", "dop853", "feagin10"};

// Stages and FSAL of a registered tableau method, for the force-evaluation counts.
struct Cost {
  std::uint64_t stages;
  bool fsal;
};
Cost cost_of(const std::string& method) {
  if (method == "cash-karp") return {6, false};
  if (method == "verner65") return {8, false};
  if (method == "fehlberg78") return {13, false};
  if (method == "dop853") return {13, true};
  if (method == "feagin10") return {17, false};
  FAIL("no cost for " << method);
  return {0, false};
}

// One integrator on the Kepler orbit, stepped by hand (no driver).
struct Stepper {
  Stepper(const std::string& method, const StepOptions<double>& options, const State<double>& start)
      : opt(options),
        state(start),
        engine(make_engine<double>("simple", ForceLaw<double>{})),
        rhs(*engine, state.mass),
        integrator(find_entry(integrator_table<double>(), method, "integrator").make(rhs, opt)) {}

  // n steps of h (fixed) or of the size the method proposes (adaptive).
  void advance(int n, double h) {
    for (int k = 0; k < n; ++k) integrator->step(state, opt.adaptive ? integrator->proposed_step(state) : h);
  }

  StepOptions<double> opt;
  State<double> state;
  std::unique_ptr<ForceEngine<double>> engine;
  Rhs<double> rhs;
  std::unique_ptr<Integrator<double>> integrator;
};

const IcParams& kepler05() {
  static const IcParams ic = kepler("0.5");
  return ic;
}
double period() { return orbital_period(kepler05(), make_initial_state<double>(kepler05()), 1.0); }

// Least-squares slope of log(error) against log(h) over the given steps per period.
double fitted_order(const std::string& method, const std::string& e, const std::vector<long>& steps) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (long n : steps) {
    const double err = kepler_error(method, e, 1.0, n);
    INFO(method << " e = " << e << ", P/" << n << ": error " << err);
    CHECK(err > 1e-14);  // above round-off ...
    CHECK(err < 1e-3);   // ... and below the pre-asymptotic regime
    const double x = std::log(1.0 / double(n)), y = std::log(err);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double k = double(steps.size());
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

// One period of the orbit ic through the driver: the position error and the counts.
struct Run {
  double error;
  StepCounters counters;
  std::uint64_t force_evaluations;
};
Run one_period(const std::string& method, const StepOptions<double>& opt, const IcParams& ic) {
  const State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  Simulation<double> sim(s0, ForceLaw<double>{}, "simple", method, opt);
  sim.run(P, P, [](const auto&) {});
  return {position_error(sim.state(), kepler_state_at<double>(ic, P)), sim.counters(), sim.force_evaluations()};
}

}  // namespace

TEST_CASE("explicit_rk_methods_converge_at_their_order_on_the_kepler_orbit", "[kepler][order]") {
  // Step counts per period inside each method's asymptotic regime (local slopes within 0.2 of
  // the fit). In double precision the error floor is ~1e-13; on the e = 0.5 orbit the 8th- and
  // 10th-order methods reach it before their asymptotic regime starts (local slopes 7.3-7.6 for
  // dop853, 8.5 for fehlberg78, 10.6-11 for feagin10), so they are measured on the circular
  // orbit, where it starts at ~30 steps per period.
  struct Case {
    std::string method;
    int order;
    std::string e;
    std::vector<long> steps;
  };
  const std::vector<Case> cases = {
      {"midpoint", 2, "0.5", {1024, 2048, 4096, 8192}},          // errors 9e-4 .. 1.4e-5
      {"trapeze", 2, "0.5", {2048, 4096, 8192, 16384}},          // 5.4e-4 .. 8.4e-6
      {"cash-karp", 5, "0.5", {181, 256, 362, 512, 724, 1024}},  // 7e-8 .. 1.3e-11
      {"verner65", 6, "0.5", {256, 362, 512, 724, 1024}},        // 1e-8 .. 2.7e-12
      {"fehlberg78", 8, "0", {38, 45, 54, 64, 76}},              // 1.5e-10 .. 5e-13
      {"dop853", 8, "0", {19, 23, 27, 32, 38, 45}},              // 1.9e-9 .. 2e-12
      {"feagin10", 10, "0", {32, 38, 45, 54}},                   // 1.2e-11 .. 7e-14
  };
  for (const Case& c : cases) {
    const double p = fitted_order(c.method, c.e, c.steps);
    INFO(c.method << ": fitted order " << p << " (theory " << c.order << ")");
    CHECK(std::abs(p - c.order) < 0.3);
  }
}

TEST_CASE("embedded_methods_meet_tolerance_1e-10_and_their_error_shrinks_with_it", "[kepler][adaptive]") {
  for (const std::string& method : embedded_methods) {
    double previous = 1;
    for (double tol : {1e-6, 1e-8, 1e-10}) {
      StepOptions<double> opt;
      opt.adaptive = true;
      opt.atol = opt.rtol = tol;
      const double err = one_period(method, opt, kepler05()).error;
      INFO(method << " tol " << tol << ": error after one period " << err);
      CHECK(err < 1e3 * tol);      // the global error follows the local tolerance
      CHECK(err < previous / 10);  // and shrinks with it
      previous = err;
    }
  }
}

TEST_CASE("embedded_methods_count_every_force_evaluation_including_rejected_trials", "[adaptive]") {
  // k1 once, plus Hairer's starting-step probe, plus stages-1 per trial (accepted or rejected),
  // plus a fresh k1 after every accepted step but the last unless the method is FSAL.
  const IcParams ic = kepler("0.9");
  for (const std::string& method : embedded_methods) {
    StepOptions<double> opt;
    opt.adaptive = true;
    opt.atol = opt.rtol = 1e-10;
    const Run run = one_period(method, opt, ic);
    const Cost c = cost_of(method);
    const std::uint64_t accepted = run.counters.steps, rejected = run.counters.rejected;
    INFO(method << ": " << accepted << " steps, " << rejected << " rejected, " << run.force_evaluations
                << " force evaluations");
    CHECK(rejected > 0);  // e = 0.9: the pericentre passage forces rejections
    CHECK(run.force_evaluations == 2 + (c.stages - 1) * (accepted + rejected) + (c.fsal ? 0 : accepted - 1));
  }
}

TEST_CASE("subdivision_splits_a_step_into_8_substeps_at_most_8_levels_deep", "[subdivide]") {
  // The controller alone, with synthetic trials: only its recursion is under test here.
  SECTION("an error that never falls below the threshold stops at depth 8") {
    SubdivisionController<double> control(1.0, 0.0);
    std::uint64_t trials = 0, accepted = 0;
    double smallest = 1;
    const std::uint64_t rejected = control.advance(
        1.0,
        [&](double h) {
          ++trials, smallest = std::min(smallest, h);
          return 2.0;
        },
        [&] { ++accepted; });
    CHECK(accepted == 16777216);  // 8^8 substeps of 1/8^8
    CHECK(rejected == (16777216 - 1) / 7);
    CHECK(trials == accepted + rejected);
    CHECK(smallest == std::ldexp(1.0, -24));
  }
  SECTION("an error proportional to h^5 is met two levels down") {
    SubdivisionController<double> control(1e-6, 0.0);  // (1/8)^5 > 1e-6 > (1/64)^5
    double h_sum = 0;
    double h_last = 0;
    std::uint64_t accepted = 0;
    const std::uint64_t rejected = control.advance(
        1.0,
        [&](double h) {
          h_last = h;
          return std::pow(h, 5);
        },
        [&] { ++accepted, h_sum += h_last; });
    CHECK(accepted == 64);
    CHECK(rejected == 1 + 8);
    CHECK(h_sum == 1.0);  // the substeps tile the step exactly (h / 8 is exact in binary)
  }
  SECTION("a non-finite error counts as too large; h_min stops the splitting") {
    SubdivisionController<double> control(1.0, 1.0 / 64);
    std::uint64_t accepted = 0;
    const std::uint64_t rejected = control.advance(
        1.0, [](double) { return std::numeric_limits<double>::quiet_NaN(); }, [&] { ++accepted; });
    CHECK(accepted == 64);  // 1 -> 1/8 -> 1/64 = h_min: accepted as it is
    CHECK(rejected == 9);
  }
}

TEST_CASE("subdivision_with_a_loose_threshold_takes_whole_steps_of_h_max", "[subdivide]") {
  const double P = period();
  StepOptions<double> fixed;
  fixed.dt = P / 64;
  StepOptions<double> sub;
  sub.adaptive = true;
  sub.controller = Controller::subdivide;
  sub.atol = 1e300;
  sub.h_max = P / 64;
  for (const std::string& method : embedded_methods) {
    Stepper a(method, fixed, make_initial_state<double>(kepler05())),
        b(method, sub, make_initial_state<double>(kepler05()));
    a.advance(10, P / 64);
    b.advance(10, 0);
    INFO(method);
    CHECK(std::memcmp(a.state.y.data(), b.state.y.data(), a.state.y.size() * sizeof(double)) == 0);
    CHECK(b.integrator->counters().steps == 10);
    CHECK(b.integrator->counters().rejected == 0);
    CHECK(a.rhs.evaluations() == b.rhs.evaluations());
  }
}

TEST_CASE("subdivision_of_one_step_equals_8_fixed_substeps_bit_for_bit", "[subdivide]") {
  // From pericentre, one step of P/8 with dop853: the threshold lies between the max-norm error
  // estimate of the whole step and those of its eighths, so the step is split exactly once.
  const double P = period(), H = P / 8;
  StepOptions<double> sub;
  sub.adaptive = true;
  sub.controller = Controller::subdivide;
  sub.atol = 1e-6;
  sub.h_max = H;
  Stepper split("dop853", sub, make_initial_state<double>(kepler05()));
  split.advance(1, 0);
  StepOptions<double> fixed;
  fixed.dt = H / 8;
  Stepper eighths("dop853", fixed, make_initial_state<double>(kepler05()));
  eighths.advance(8, H / 8);
  CHECK(split.integrator->counters().steps == 8);
  CHECK(split.integrator->counters().rejected == 1);
  CHECK(split.state.t == H);
  CHECK(std::memcmp(split.state.y.data(), eighths.state.y.data(), split.state.y.size() * sizeof(double)) == 0);
  // The rejected trial costs its 12 evaluations; its first stage f(y0) is reused by the first eighth.
  CHECK(split.rhs.evaluations() == eighths.rhs.evaluations() + 12);
}

TEST_CASE("subdivision_meets_smaller_thresholds_with_more_substeps", "[subdivide][kepler]") {
  const IcParams ic = kepler("0.9");
  const double P = orbital_period(ic, make_initial_state<double>(ic), 1.0);
  for (const std::string& method : embedded_methods) {
    double previous_error = 1;
    std::uint64_t previous_steps = 0;
    for (double atol : {1e-6, 1e-9, 1e-12}) {
      StepOptions<double> opt;
      opt.adaptive = true;
      opt.controller = Controller::subdivide;
      opt.atol = atol;
      opt.h_max = P / 16;
      const Run run = one_period(method, opt, ic);
      const Cost c = cost_of(method);
      const std::uint64_t accepted = run.counters.steps, rejected = run.counters.rejected;
      INFO(method << " atol " << atol << ": error " << run.error << ", " << accepted << " steps, " << rejected
                  << " rejected");
      CHECK(run.error < previous_error);
      CHECK(accepted > previous_steps);
      CHECK(rejected > 0);
      // No starting-step probe: every trial costs stages - 1, plus k1 at each new state.
      CHECK(run.force_evaluations == 1 + (c.stages - 1) * (accepted + rejected) + (c.fsal ? 0 : accepted - 1));
      previous_error = run.error;
      previous_steps = accepted;
    }
  }
}

TEST_CASE("subdivision_needs_a_step_size_to_start_from", "[subdivide]") {
  StepOptions<double> opt;
  opt.adaptive = true;
  opt.controller = Controller::subdivide;
  opt.atol = 1e-8;
  CHECK_THROWS_AS(Stepper("dop853", opt, make_initial_state<double>(kepler05())), InputError);
  opt.dt = 0.1;  // --dt is the step every subdivision starts from when --h-max is not given
  Stepper s("dop853", opt, make_initial_state<double>(kepler05()));
  CHECK(s.integrator->proposed_step(s.state) == 0.1);
}

TEST_CASE("dop853_combines_its_5th_and_3rd_order_estimates_as_hairer", "[adaptive]") {
  // err = err5^2 / sqrt(err5^2 + 0.01 err3^2) (Hairer's DOP853), an O(h^8) estimate.
  CHECK(Dop853Method::combined_error(3.0, 40.0) == Approx(9.0 / 5.0));
  CHECK(Dop853Method::combined_error(3.0, 0.0) == 3.0);
  CHECK(Dop853Method::combined_error(0.0, 0.0) == 0.0);
  CHECK(ExplicitRungeKutta<double, Dop853Method>::error_order() == 8);
  CHECK(ExplicitRungeKutta<double, Feagin10Method>::error_order() == 9);  // the 8th-order estimate
}

TEST_CASE("explicit_rk_methods_resume_from_a_checkpoint_bit_for_bit", "[checkpoint]") {
  const double P = period();
  std::vector<std::pair<std::string, StepOptions<double>>> runs;
  for (const std::string& method : new_methods) {
    StepOptions<double> fixed;
    fixed.dt = P / 64;
    runs.emplace_back(method, fixed);
  }
  for (const std::string& method : embedded_methods) {
    StepOptions<double> pi;
    pi.adaptive = true;
    pi.atol = pi.rtol = 1e-9;
    runs.emplace_back(method, pi);
    StepOptions<double> sub;
    sub.adaptive = true;
    sub.controller = Controller::subdivide;
    sub.atol = 1e-9;
    sub.h_max = P / 16;
    runs.emplace_back(method, sub);
  }
  for (const auto& [method, opt] : runs) {
    INFO(method << (opt.adaptive ? (opt.controller == Controller::pi ? " pi" : " subdivide") : " fixed"));
    const State<double> start = make_initial_state<double>(kepler05());
    Stepper whole(method, opt, start);
    whole.advance(7 + 9, opt.dt);
    Stepper first(method, opt, start);
    first.advance(7, opt.dt);
    ArchiveWriter w;
    first.integrator->save(w);
    Stepper resumed(method, opt, first.state);  // a fresh integrator, the state of step 7
    ArchiveReader r(w.bytes());
    resumed.integrator->load(r);
    CHECK(r.at_end());
    resumed.advance(9, opt.dt);
    CHECK(std::memcmp(whole.state.y.data(), resumed.state.y.data(), whole.state.y.size() * sizeof(double)) == 0);
    CHECK(whole.state.t == resumed.state.t);
    CHECK(whole.rhs.evaluations() == first.rhs.evaluations() + resumed.rhs.evaluations());
    CHECK(whole.integrator->counters().steps == resumed.integrator->counters().steps);
    CHECK(whole.integrator->counters().rejected == resumed.integrator->counters().rejected);
  }
}

TEST_CASE("new_explicit_rk_methods_run_in_float_precision", "[precision]") {
  const IcParams ic = kepler05();
  const State<float> s0 = make_initial_state<float>(ic);
  const float P = orbital_period(ic, s0, 1.0f);
  for (const std::string& method : new_methods) {
    StepOptions<float> opt;
    opt.dt = P / (method == "midpoint" || method == "trapeze" ? 4096 : 256);
    Simulation<float> sim(s0, ForceLaw<float>{}, "simple", method, opt);
    sim.run(P, P, [](const auto&) {});
    const float err = position_error(sim.state(), kepler_state_at<float>(ic, P));
    INFO(method << ": float error " << err);
    CHECK(err < 1e-3f);
  }
}
