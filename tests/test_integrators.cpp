// The integrators against the analytic two-body orbit: accuracy, convergence order, step control.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <map>

#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

// Least-squares slope of log(error) against log(h) over the points in the asymptotic window
// 1e-11 < error < 1e-3, with k ranges chosen inside the power-law regime (experiment E01 finds
// that regime itself).
double fitted_order(const std::string& method, const std::string& e, int k_min, int k_max, int* points = nullptr) {
  std::vector<double> xs, ys;
  for (int k = k_min; k <= k_max; ++k) {
    const double err = kepler_error(method, e, 1.0, 1L << k);
    if (err > 1e-11 && err < 1e-3) {
      xs.push_back(std::log(std::ldexp(1.0, -k)));
      ys.push_back(std::log(err));
    }
  }
  if (points) *points = int(xs.size());
  const double n = double(xs.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) sx += xs[i], sy += ys[i], sxx += xs[i] * xs[i], sxy += xs[i] * ys[i];
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

TEST_CASE("kepler_analytic_solution_is_periodic_and_conserves_energy", "[kepler]") {
  const IcParams ic = kepler("0.9");
  const State<double> s0 = kepler_state_at<double>(ic, 0.0);
  const double P = orbital_period(ic, s0, 1.0);
  CHECK(P == Approx(2 * M_PI).epsilon(1e-14));  // a = 1, G = M = 1
  CHECK(position_error(kepler_state_at<double>(ic, 3 * P), s0) < 1e-13);
  const double E0 = measure(s0, ForceLaw<double>{}).energy;
  CHECK(E0 == Approx(-0.125).epsilon(1e-14));  // -G m1 m2 / (2a), m1 = m2 = 1/2; cancellation at pericentre
  for (double t : {0.1, 0.37 * P, 0.5 * P, 0.93 * P}) {
    const State<double> s = kepler_state_at<double>(ic, t);
    CHECK(measure(s, ForceLaw<double>{}).energy == Approx(E0).epsilon(1e-14));
  }
  // At apocentre (t = P/2) the separation is a(1 + e).
  const State<double> apo = kepler_state_at<double>(ic, 0.5 * P);
  CHECK(measure(apo, ForceLaw<double>{}).min_pair_distance == Approx(1.9).epsilon(1e-13));
}

TEST_CASE("every_integrator_follows_the_analytic_kepler_orbit", "[kepler]") {
  // One period of e = 0.5 at a step fine enough for each method's order (steps per period, bound
  // on the position error). Every registered method must have a line here.
  const std::map<std::string, std::pair<long, double>> cases = {
      {"euler", {1L << 18, 5e-3}},          {"leapfrog", {1L << 12, 1e-4}},        {"rk4", {1L << 10, 3e-8}},
      {"dopri5", {1L << 9, 1e-9}},          {"adams-bashforth", {1L << 11, 1e-8}}, {"adams-moulton", {1L << 10, 2e-8}},
      {"yoshida4", {1L << 10, 1e-6}},       {"yoshida6", {1L << 9, 2e-9}},         {"midpoint", {1L << 12, 1e-4}},
      {"trapeze", {1L << 13, 1e-4}},        {"cash-karp", {1L << 9, 1e-8}},        {"verner65", {1L << 9, 1e-8}},
      {"fehlberg78", {1L << 7, 1e-8}},      {"dop853", {1L << 7, 1e-8}},           {"feagin10", {1L << 6, 1e-8}},
      {"gauss-legendre6", {1L << 8, 1e-8}}, {"lobatto-iiic4", {1L << 10, 1e-6}},   {"bulirsch-stoer", {1L << 6, 1e-6}},
      {"gauss-radau15", {1L << 5, 1e-8}},
  };
  for (const auto& entry : integrator_table<double>()) {
    const std::string method(entry.name);
    INFO(method);
    const auto it = cases.find(method);
    REQUIRE(it != cases.end());  // a new method needs its line above
    CHECK(kepler_error(method, "0.5", 1.0, it->second.first) < it->second.second);
  }
}

TEST_CASE("rk4_ends_within_1e-9_of_the_analytic_orbit_after_10_periods", "[kepler]") {
  CHECK(kepler_error("rk4", "0.5", 10.0, 10000) < 1e-9);
}

TEST_CASE("fixed_step_methods_converge_at_their_theoretical_order", "[kepler][order]") {
  struct Case {
    std::string method;
    int order, k_min, k_max;
  };
  for (const Case& c : {Case{"euler", 1, 19, 23}, Case{"leapfrog", 2, 7, 12}, Case{"rk4", 4, 7, 11}, Case{"dopri5", 5, 8, 11}}) {
    int points = 0;
    const double p = fitted_order(c.method, "0.5", c.k_min, c.k_max, &points);
    INFO(c.method << ": fitted order " << p << " on " << points << " points");
    REQUIRE(points >= 3);
    CHECK(std::abs(p - c.order) < 0.25);
  }
}

TEST_CASE("dopri5_controller_meets_tolerance_and_shrinks_steps_at_pericentre", "[kepler][adaptive]") {
  const IcParams ic = kepler("0.9");
  const State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  double previous_error = 1;
  for (double tol : {1e-6, 1e-8, 1e-10}) {
    StepOptions<double> opt;
    opt.adaptive = true;
    opt.atol = opt.rtol = tol;
    Simulation<double> sim(s0, ForceLaw<double>{}, "simple", "dopri5", opt);
    double dt_min = 1e300, dt_max = 0;
    sim.run(P, P / 200, [&](const Sample<double>& s) {
      if (s.dt > 0 && s.t < P) dt_min = std::min(dt_min, s.dt), dt_max = std::max(dt_max, s.dt);
    });
    const double err = position_error(sim.state(), kepler_state_at<double>(ic, P));
    INFO("tol " << tol << ": error " << err << ", dt in [" << dt_min << ", " << dt_max << "]");
    CHECK(err < 1e4 * tol);            // global error follows the local tolerance
    CHECK(err < previous_error / 10);  // and shrinks with it
    CHECK(dt_max > 20 * dt_min);       // e = 0.9: steps adapt to the pericentre passage
    previous_error = err;
  }
}

TEST_CASE("dopri5_rejects_a_too_large_first_step_and_counts_its_force_evaluations", "[adaptive]") {
  const IcParams ic = kepler("0.5");
  const State<double> s0 = make_initial_state<double>(ic);
  StepOptions<double> opt;
  opt.adaptive = true;
  opt.atol = opt.rtol = 1e-10;
  opt.dt = 1.0;  // first trial far too large
  Simulation<double> sim(s0, ForceLaw<double>{}, "simple", "dopri5", opt);
  sim.run(2.0, 2.0, [](const auto&) {});
  CHECK(sim.counters().rejected >= 1);
  // FSAL: 1 initial evaluation + 6 per trial, accepted or rejected.
  CHECK(sim.force_evaluations() == 1 + 6 * (sim.counters().steps + sim.counters().rejected));
}

TEST_CASE("step_size_underflow_below_h_min_is_an_error", "[adaptive]") {
  StepOptions<double> opt;
  opt.adaptive = true;
  opt.atol = opt.rtol = 1e-14;
  opt.h_min = 0.01;
  Simulation<double> sim(make_initial_state<double>(kepler("0.9")), ForceLaw<double>{}, "simple", "dopri5", opt);
  CHECK_THROWS_AS(sim.run(10.0, 10.0, [](const auto&) {}), RunError);
}

TEST_CASE("leapfrog_costs_one_force_evaluation_per_step", "[kepler]") {
  StepOptions<double> opt;
  opt.dt = 0.01;
  Simulation<double> sim(make_initial_state<double>(kepler("0.5")), ForceLaw<double>{}, "simple", "leapfrog", opt);
  sim.run(1.0, 1.0, [](const auto&) {});
  CHECK(sim.counters().steps == 100);
  CHECK(sim.force_evaluations() == 101);
}

TEST_CASE("fixed_step_run_ends_exactly_at_t_end", "[driver]") {
  StepOptions<double> opt;
  opt.dt = 0.3;  // 1.0 / 0.3 is not an integer: the last step is shorter
  Simulation<double> sim(make_initial_state<double>(kepler("0.5")), ForceLaw<double>{}, "simple", "rk4", opt);
  std::vector<double> dts;
  sim.run(1.0, 1.0, [&](const Sample<double>& s) { dts.push_back(s.dt); });
  CHECK(sim.state().t == 1.0);
  CHECK(sim.counters().steps == 4);
  CHECK(dts.back() == Approx(0.1).epsilon(1e-12));
}

TEST_CASE("float_precision_runs_and_is_less_accurate_than_double", "[precision]") {
  const IcParams ic = kepler("0.5");
  const State<float> s0 = make_initial_state<float>(ic);
  const float P = orbital_period(ic, s0, 1.0f);
  StepOptions<float> opt;
  opt.dt = P / 1000;
  Simulation<float> sim(s0, ForceLaw<float>{}, "simple", "rk4", opt);
  sim.run(P, P, [](const auto&) {});
  const float err_float = position_error(sim.state(), kepler_state_at<float>(ic, P));
  const double err_double = kepler_error("rk4", "0.5", 1.0, 1000);
  CHECK(err_float < 1e-4f);
  CHECK(err_float > 10 * err_double);
}

TEST_CASE("diagnostic_samples_do_not_drift_over_long_runs", "[driver]") {
  // Sample times are t0 + k * every, not an accumulated sum: at --dt P/100 and a sample every P,
  // each of the 1000 samples falls on a multiple of 100 steps.
  const IcParams ic = kepler("0.5");
  const State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  StepOptions<double> opt;
  opt.dt = P / 100;
  Simulation<double> sim(s0, ForceLaw<double>{}, "simple", "leapfrog", opt);
  std::vector<std::uint64_t> steps;
  sim.run(1000 * P, P, [&](const Sample<double>& s) { steps.push_back(s.counters.steps); });
  CHECK(steps.size() == 1001);
  CHECK(std::all_of(steps.begin(), steps.end(), [](std::uint64_t n) { return n % 100 == 0; }));
}
