// gauss-radau15 (IAS15): its constants, its accuracy on the Kepler orbit over 1000 periods, and
// its convergence at a fixed step. (Its step control, force-evaluation counts and checkpoints:
// test_step_control.cpp, test_evaluation_counts.cpp, test_checkpoint.cpp; extended precision:
// test_extended_precision.cpp.)
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "integrators/gauss_radau15.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

TEST_CASE("gauss_radau_spacings_are_the_radau_nodes_to_60_digits", "[gauss-radau15][constants]") {
  // The 7 nodes in (0, 1) are the roots of the monic degree-7 polynomial p orthogonal to every
  // lower degree under the weight s on [0, 1]: integral_0^1 s^(k+1) p(s) ds = 0 for k = 0..6.
  using R = boost::multiprecision::cpp_bin_float_100;
  std::vector<R> h;
  for (const Coefficient& c : gauss_radau_spacings) {
    std::string text(c.text);
    if (text != "0") CHECK(text.size() - 2 >= 60);  // "0." then at least 60 significant digits
    h.emplace_back(text);
  }
  REQUIRE(h.size() == 8);
  CHECK(h[0] == 0);
  for (int n = 1; n < 8; ++n) CHECK((h[n] > h[n - 1] && h[n] < 1));
  std::vector<R> p{R(1)};  // coefficients of prod (s - h_n), lowest degree first
  for (int n = 1; n < 8; ++n) {
    std::vector<R> q(p.size() + 1, R(0));
    for (std::size_t j = 0; j < p.size(); ++j) q[j + 1] += p[j], q[j] -= h[n] * p[j];
    p = q;
  }
  for (int k = 0; k < 7; ++k) {
    R integral = 0;
    for (std::size_t j = 0; j < p.size(); ++j) integral += p[j] / R(j + k + 2);
    INFO("k = " << k << ": " << integral.str(5));
    CHECK(abs(integral) < R("1e-68"));
  }
}

TEST_CASE("gauss_radau15_keeps_kepler_e05_to_1e-14_in_energy_and_1e-10_in_position_over_1000_periods",
          "[gauss-radau15][kepler][adaptive]") {
  // The budget (docs/experiments.md, E02): at most 1.5 million force evaluations. IAS15's default epsilon 1e-9 is as
  // accurate but takes 120 steps a period (2.46 million evaluations); 1e-7 takes 62 a period. Both
  // are at the round-off floor: the errors below are a random walk of rounding, not truncation.
  const IcParams ic = kepler("0.5");
  const State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  Simulation<double> sim(s0, ForceLaw<double>{}, "simple", "gauss-radau15", with_tol(1e-7));
  double dE_max = 0;
  sim.run(1000 * P, P / 1000, [&](const Sample<double>& s) { dE_max = std::max(dE_max, std::abs(s.drift.dE_rel)); });
  const double err = position_error(sim.state(), kepler_state_at<double>(ic, 1000 * P));
  INFO("max |dE/E0| " << dE_max << ", position error " << err << ", " << sim.force_evaluations() << " force evaluations, "
                      << sim.counters().steps << " steps, " << sim.counters().rejected << " rejected");
  CHECK(dE_max <= 1e-14);
  CHECK(err <= 1e-10);
  CHECK(sim.force_evaluations() <= 1'500'000);
}

TEST_CASE("gauss_radau15_fixed_step_error_falls_at_least_2_to_the_12_per_halving_until_round_off",
          "[gauss-radau15][kepler][order]") {
  // One period of e = 0.5 at P/n. Order 15 means 2^15 per halving asymptotically; in double the
  // error reaches round-off within three halvings, so we ask for 2^12 where it is measurable
  // (measured: 2^11.6, 2^13.6, then round-off at P/64; least-squares slope 12.9 over P/11..P/45).
  const double e16 = kepler_error("gauss-radau15", "0.5", 1.0, 16);
  const double e32 = kepler_error("gauss-radau15", "0.5", 1.0, 32);
  const double e64 = kepler_error("gauss-radau15", "0.5", 1.0, 64);
  INFO("P/16 " << e16 << ", P/32 " << e32 << ", P/64 " << e64);
  CHECK(e16 < 1e-8);
  CHECK(std::log2(e16 / e32) >= 12);
  CHECK(e64 < 1e-14);  // round-off
  std::vector<double> xs, ys;
  for (long n : {11, 16, 23, 32, 45}) {
    xs.push_back(std::log(1.0 / double(n)));
    ys.push_back(std::log(kepler_error("gauss-radau15", "0.5", 1.0, n)));
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) sx += xs[i], sy += ys[i], sxx += xs[i] * xs[i], sxy += xs[i] * ys[i];
  const double m = double(xs.size());
  const double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
  INFO("least-squares order over P/11..P/45: " << slope);
  CHECK(slope >= 12);
}
