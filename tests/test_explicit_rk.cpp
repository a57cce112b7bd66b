// The explicit Runge-Kutta methods (midpoint, trapeze, cash-karp, verner65, fehlberg78, dop853,
// feagin10) on the analytic Kepler orbit: convergence order at a fixed step, dop853's combined
// error estimate, and accuracy in float. (Their tableaux: test_tableaux.cpp.)
#include <catch2/catch.hpp>
#include <cmath>

#include "integrators/dop853.hpp"
#include "integrators/feagin10.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

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

TEST_CASE("dop853_combines_its_5th_and_3rd_order_estimates_as_hairer", "[adaptive]") {
  // err = err5^2 / sqrt(err5^2 + 0.01 err3^2) (Hairer's DOP853), an O(h^8) estimate.
  CHECK(Dop853Method::combined_error(3.0, 40.0) == Approx(9.0 / 5.0));
  CHECK(Dop853Method::combined_error(3.0, 0.0) == 3.0);
  CHECK(Dop853Method::combined_error(0.0, 0.0) == 0.0);
  CHECK(ExplicitRungeKutta<double, Dop853Method>::error_order() == 8);
  CHECK(ExplicitRungeKutta<double, Feagin10Method>::error_order() == 9);  // the 8th-order estimate
}

TEST_CASE("new_explicit_rk_methods_run_in_float_precision", "[precision]") {
  const IcParams ic = kepler05();
  const State<float> s0 = make_initial_state<float>(ic);
  const float P = orbital_period(ic, s0, 1.0f);
  for (const std::string& method : explicit_rk_methods) {
    StepOptions<float> opt;
    opt.dt = P / (method == "midpoint" || method == "trapeze" ? 4096 : 256);
    test::Driven<float> sim(s0, ForceLaw<float>{}, "simple", method, opt);
    sim.run(P, P, [](const auto&) {});
    const float err = position_error(sim.state(), kepler_state_at<float>(ic, P));
    INFO(method << ": float error " << err);
    CHECK(err < 1e-3f);
  }
}
