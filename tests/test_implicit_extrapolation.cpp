// Implicit Runge-Kutta (gauss-legendre6, lobatto-iiic4) and extrapolation (bulirsch-stoer):
// tableau order conditions, convergence orders and accuracy on the Kepler orbit, the implicit
// solve (symmetric, symplectic, an error when it cannot converge), and bulirsch-stoer's orders.
#include <catch2/catch.hpp>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "integrators/gauss_legendre6.hpp"
#include "integrators/lobatto_iiic4.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;
namespace mp = boost::multiprecision;

namespace {

// ---- tableau conditions (Hairer, Norsett & Wanner I, Sect. II.7; Hairer & Wanner II, Sect. IV.5) ----

// A Coefficient's text as an exact rational (tableaux written as num/den only).
mp::cpp_rational exact(Coefficient c) {
  const std::string text(c.text);
  REQUIRE(text.find('.') == std::string::npos);
  const auto slash = text.find('/');
  if (slash == std::string::npos) return mp::cpp_rational(mp::cpp_int(text));
  return mp::cpp_rational(mp::cpp_int(text.substr(0, slash)), mp::cpp_int(text.substr(slash + 1)));
}
// ... and in 100-digit arithmetic (decimal text or num/den).
using big = mp::cpp_bin_float_100;
big in_100_digits(Coefficient c) {
  const std::string text(c.text);
  const auto slash = text.find('/');
  if (slash == std::string::npos) return big(text);
  return big(text.substr(0, slash)) / big(text.substr(slash + 1));
}

template <class R, std::size_t S>
struct Tableau {
  std::array<R, S> c, b;
  std::array<std::array<R, S>, S> a;
};
template <class R, std::size_t S, class Convert>
Tableau<R, S> convert(const ImplicitTableau<S>& t, Convert to) {
  Tableau<R, S> r;
  for (std::size_t i = 0; i < S; ++i) {
    r.c[i] = to(t.c[i]);
    r.b[i] = to(t.b[i]);
    for (std::size_t j = 0; j < S; ++j) r.a[i][j] = to(t.a[i][j]);
  }
  return r;
}
template <class R>
R power(const R& x, int q) {
  R p(1);
  for (int k = 0; k < q; ++k) p *= x;
  return p;
}

// The residuals of the simplifying assumptions, as |max| over their equations:
//   B(p): sum_i b_i c_i^(q-1) = 1/q,                            q = 1..p
//   C(p): sum_j a_ij c_j^(q-1) = c_i^q / q,                     q = 1..p, all i
//   D(p): sum_i b_i c_i^(q-1) a_ij = b_j (1 - c_j^q) / q,       q = 1..p, all j
// B(p), C(eta), D(zeta) with p <= eta + zeta + 1 and p <= 2 eta + 2 give order p (Butcher 1964).
template <class R, std::size_t S>
R residual_B(const Tableau<R, S>& t, int p) {
  R worst(0);
  for (int q = 1; q <= p; ++q) {
    R sum(0);
    for (std::size_t i = 0; i < S; ++i) sum += t.b[i] * power(t.c[i], q - 1);
    worst = std::max(worst, R(abs(sum - R(1) / R(q))));
  }
  return worst;
}
template <class R, std::size_t S>
R residual_C(const Tableau<R, S>& t, int p) {
  R worst(0);
  for (int q = 1; q <= p; ++q)
    for (std::size_t i = 0; i < S; ++i) {
      R sum(0);
      for (std::size_t j = 0; j < S; ++j) sum += t.a[i][j] * power(t.c[j], q - 1);
      worst = std::max(worst, R(abs(sum - power(t.c[i], q) / R(q))));
    }
  return worst;
}
template <class R, std::size_t S>
R residual_D(const Tableau<R, S>& t, int p) {
  R worst(0);
  for (int q = 1; q <= p; ++q)
    for (std::size_t j = 0; j < S; ++j) {
      R sum(0);
      for (std::size_t i = 0; i < S; ++i) sum += t.b[i] * power(t.c[i], q - 1) * t.a[i][j];
      worst = std::max(worst, R(abs(sum - t.b[j] * (R(1) - power(t.c[j], q)) / R(q))));
    }
  return worst;
}

// ---- runs ----

// Least-squares slope of log(error) against log(h), steps per period 2^k_min .. 2^k_max, over the
// points inside 1e-12 < error < 1e-3 (the power-law regime; ranges chosen from measurements).
double fitted_order(const std::string& method, int k_min, int k_max, int order, int& points) {
  std::vector<double> xs, ys;
  for (int k = k_min; k <= k_max; ++k) {
    const double err = kepler_error(method, "0.5", 1.0, 1L << k, order);
    if (err > 1e-12 && err < 1e-3) {
      xs.push_back(std::log(std::ldexp(1.0, -k)));
      ys.push_back(std::log(err));
    }
  }
  points = int(xs.size());
  const double n = double(xs.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) sx += xs[i], sy += ys[i], sxx += xs[i] * xs[i], sxy += xs[i] * ys[i];
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

TEST_CASE("gauss_legendre6_tableau_satisfies_B6_C3_D3_and_symplecticity_to_1e-60", "[tableau][implicit]") {
  const auto t = convert<big>(GaussLegendre6Method::tableau, in_100_digits);
  const big tiny("1e-60");
  CHECK(residual_B(t, 6) < tiny);
  CHECK(residual_C(t, 3) < tiny);
  CHECK(residual_D(t, 3) < tiny);
  // Symplectic (Sanz-Serna 1988, Lasagni 1988): b_i a_ij + b_j a_ji - b_i b_j = 0.
  big worst(0);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) worst = std::max(worst, big(abs(t.b[i] * t.a[i][j] + t.b[j] * t.a[j][i] - t.b[i] * t.b[j])));
  CHECK(worst < tiny);
  // and the conditions are sharp: not B(7) (order 6, not more)
  CHECK(residual_B(t, 7) > big("1e-6"));
}

TEST_CASE("lobatto_iiic4_tableau_satisfies_B4_C2_D2_exactly", "[tableau][implicit]") {
  const auto t = convert<mp::cpp_rational>(LobattoIIIC4Method::tableau, exact);
  CHECK(residual_B(t, 4) == 0);
  CHECK(residual_C(t, 2) == 0);
  CHECK(residual_D(t, 2) == 0);
  CHECK(residual_B(t, 5) != 0);  // order 4, not more
  for (std::size_t j = 0; j < 3; ++j) CHECK(t.a[2][j] == t.b[j]);  // stiffly accurate
}

TEST_CASE("implicit_methods_converge_at_their_theoretical_order", "[kepler][order][implicit]") {
  struct Case {
    std::string method;
    int order, k_min, k_max;
  };
  // Lobatto IIIC's error constant is large on Kepler: its power-law regime starts near 2^9 steps.
  for (const Case& c : {Case{"gauss-legendre6", 6, 5, 9}, Case{"lobatto-iiic4", 4, 9, 13}}) {
    int points = 0;
    const double p = fitted_order(c.method, c.k_min, c.k_max, 0, points);
    INFO(c.method << ": fitted order " << p << " on " << points << " points");
    REQUIRE(points >= 4);
    CHECK(std::abs(p - c.order) < 0.3);
  }
}

TEST_CASE("gauss_legendre6_and_lobatto_iiic4_follow_the_analytic_kepler_orbit", "[kepler][implicit]") {
  CHECK(kepler_error("gauss-legendre6", "0.5", 1.0, 1L << 9) < 1e-11);
  CHECK(kepler_error("lobatto-iiic4", "0.5", 1.0, 1L << 12) < 1e-10);
  CHECK(kepler_error("gauss-legendre6", "0.9", 1.0, 1L << 12) < 1e-8);
}

TEST_CASE("gauss_legendre6_step_is_reversed_by_the_negative_step_to_round_off", "[implicit]") {
  // Gauss is symmetric: Phi_{-h} o Phi_h = id exactly, but only if the stage equations are solved;
  // a truncated iteration leaves its O(h^(sweeps+1)) error here.
  const State<double> s0 = make_initial_state<double>(kepler("0.9"));  // starts at pericentre
  StepOptions<double> opt;
  opt.dt = 0.02;
  Stepper<double> run(s0, "gauss-legendre6", opt);
  run.integrator->step(run.s, 0.02);
  run.integrator->step(run.s, -0.02);
  double worst = 0;
  for (std::size_t k = 0; k < s0.y.size(); ++k) worst = std::max(worst, std::abs(run.s.y[k] - s0.y[k]));
  INFO("max |y - y0| after a step forward and back: " << worst);
  CHECK(worst < 1e-14);
}

TEST_CASE("gauss_legendre6_energy_error_does_not_drift_over_1000_periods", "[kepler][implicit]") {
  // Symplectic: the energy error oscillates within the orbit (1e-8 at pericentre here) but does not
  // grow; sampled once per period (same phase) it stays at round-off for 1000 periods. This holds
  // only if the stage equations are solved: a truncated iteration is neither symplectic nor symmetric.
  const IcParams ic = kepler("0.5");
  const State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  StepOptions<double> opt;
  opt.dt = P / 100;
  test::Driven<double> sim(s0, ForceLaw<double>{}, "simple", "gauss-legendre6", opt);
  double worst = 0;
  sim.run(1000 * P, opt.dt, [&](const Sample<double>& s) {
    if (s.counters.steps % 100 == 0) worst = std::max(worst, std::abs(double(s.drift.dE_rel)));
  });
  INFO("max |dE/E0| at whole periods: " << worst);
  CHECK(worst < 1e-12);
}

TEST_CASE("implicit_step_too_large_for_fixed_point_iteration_is_an_error_naming_the_step", "[implicit]") {
  // Kepler e = 0.5 from pericentre: h = 2 (a third of the period) makes Gauss's iteration
  // diverge at once. (Lobatto IIIC's iteration still converges there, slowly, to a meaningless
  // solution: convergence of the iteration is no accuracy check.)
  {
    const State<double> s0 = make_initial_state<double>(kepler("0.5"));
    StepOptions<double> opt;
    opt.dt = 2.0;
    Stepper<double> run(s0, "gauss-legendre6", opt);
    try {
      run.advance(1);
      FAIL("no error");
    } catch (const RunError& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find("gauss-legendre6") != std::string::npos);
      CHECK(what.find("step 1 (t = 0, h = 2)") != std::string::npos);
    }
  }
  // Lobatto IIIC at e = 0.9, h = P/128: the iteration stalls far from round-off at the pericentre
  // passage of the second orbit (found by experiment E01).
  {
    const IcParams ic = kepler("0.9");
    const State<double> s0 = make_initial_state<double>(ic);
    StepOptions<double> opt;
    opt.dt = orbital_period(ic, s0, 1.0) / 128;
    Stepper<double> run(s0, "lobatto-iiic4", opt);
    try {
      run.advance(400);
      FAIL("no error");
    } catch (const RunError& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find("lobatto-iiic4") != std::string::npos);
      CHECK(what.find("did not converge") != std::string::npos);
    }
  }
}

TEST_CASE("implicit_methods_run_in_float", "[implicit][precision]") {
  const IcParams ic = kepler("0.5");
  const State<float> s0 = make_initial_state<float>(ic);
  const float P = orbital_period(ic, s0, 1.0f);
  StepOptions<float> opt;
  opt.dt = P / 256;
  test::Driven<float> sim(s0, ForceLaw<float>{}, "simple", "gauss-legendre6", opt);
  sim.run(P, P, [](const auto&) {});
  CHECK(position_error(sim.state(), kepler_state_at<float>(ic, P)) < 1e-4f);
  CHECK(sim.force_evaluations() < 3 * 8 * 256);  // float round-off is reached in a few sweeps
}

TEST_CASE("bulirsch_stoer_fixed_step_converges_at_order_2k_for_k_columns", "[kepler][order][extrapolation]") {
  struct Case {
    int order, k_min, k_max;
  };
  // GBS approaches its order from above (local slopes 6.4, 6.3, 6.2 for --order 6 on e = 0.5): the
  // finest points below the round-off plateau are used.
  for (const Case& c : {Case{4, 8, 12}, Case{6, 7, 10}}) {
    int points = 0;
    const double p = fitted_order("bulirsch-stoer", c.k_min, c.k_max, c.order, points);
    INFO("--order " << c.order << ": fitted order " << p << " on " << points << " points");
    REQUIRE(points >= 3);
    CHECK(std::abs(p - c.order) < 0.3);
  }
}

TEST_CASE("bulirsch_stoer_rejects_an_odd_or_out_of_range_order", "[extrapolation]") {
  const State<double> s0 = make_initial_state<double>(kepler("0.5"));
  StepOptions<double> opt;
  opt.dt = 0.01;
  for (int order : {3, -2, 34}) {
    opt.order = order;
    CHECK_THROWS_AS(Simulation<double>(s0, ForceLaw<double>{}, "simple", "bulirsch-stoer", opt), InputError);
  }
  opt.adaptive = true;
  opt.atol = opt.rtol = 1e-8;
  opt.order = 4;  // adaptive needs at least 3 columns
  CHECK_THROWS_AS(Simulation<double>(s0, ForceLaw<double>{}, "simple", "bulirsch-stoer", opt), InputError);
}

TEST_CASE("bulirsch_stoer_at_tol_1e-13_ends_within_1e-8_of_kepler_e05_after_10_periods", "[kepler][adaptive][extrapolation]") {
  const KeplerRun r = kepler_run("bulirsch-stoer", with_tol(1e-13), kepler("0.5"), 10.0);
  INFO("position error " << r.error << " with " << r.force_evaluations << " force evaluations, " << r.counters.steps
                         << " steps, " << r.counters.rejected << " rejected");
  CHECK(r.error <= 1e-8);
  CHECK(r.force_evaluations < 20000);  // measured 9304 when written
}
