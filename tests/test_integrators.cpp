// Every integrator on the analytic Kepler orbit, and the accuracy and convergence order of the
// first methods (euler, leapfrog, rk4, dopri5) at a fixed step, in double and float.
#include <catch2/catch.hpp>
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

TEST_CASE("float_precision_runs_and_is_less_accurate_than_double", "[precision]") {
  const IcParams ic = kepler("0.5");
  const State<float> s0 = make_initial_state<float>(ic);
  const float P = orbital_period(ic, s0, 1.0f);
  StepOptions<float> opt;
  opt.dt = P / 1000;
  test::Driven<float> sim(s0, ForceLaw<float>{}, "simple", "rk4", opt);
  sim.run(P, P, [](const auto&) {});
  const float err_float = position_error(sim.state(), kepler_state_at<float>(ic, P));
  const double err_double = kepler_error("rk4", "0.5", 1.0, 1000);
  CHECK(err_float < 1e-4f);
  CHECK(err_float > 10 * err_double);
}
