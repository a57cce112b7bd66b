// The Adams multistep methods (adams.hpp) and Yoshida's symplectic compositions (yoshida.hpp):
// coefficients against their defining equations in exact or 100-digit arithmetic, orders on the
// Kepler orbit in double and float, the rk4 start-up (and its restart when the step changes), the
// --order choices, and the bounded energy error of the symplectic methods over many periods.
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <catch2/catch.hpp>
#include <cmath>

#include "integrators/adams.hpp"
#include "integrators/yoshida.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

const IcParams& kEllipse = kepler05();

// Position error after `periods` periods of e = 0.5 at the fixed step P/n, with an --order.
double kepler_error_at(const std::string& method, int order, double periods, long n) {
  return kepler_error(method, "0.5", periods, n, order);
}

// Least-squares slope of log(error) against log(h) for n = 2^(j/2) steps per period, j in
// [j_min, j_max]: ranges picked inside each method's power-law regime, between the pre-asymptotic
// errors of the pericentre passage and the round-off plateau near 1e-12.
double fitted_order(const std::string& method, int order, int j_min, int j_max) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0;
  for (int j = j_min; j <= j_max; ++j) {
    const long steps = std::lround(std::exp2(0.5 * j));
    const double x = std::log(1.0 / double(steps)), y = std::log(kepler_error_at(method, order, 1.0, steps));
    sx += x, sy += y, sxx += x * x, sxy += x * y, n += 1;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

TEST_CASE("adams_coefficients_satisfy_their_order_conditions_exactly", "[adams][coefficients]") {
  // A k-value linear multistep formula y_{n+1} = y_n + h sum_j c_j f(t_j) integrates polynomials
  // of degree < k exactly: sum_j c_j s_j^q = 1/(q+1) for q = 0..k-1, with the nodes s_j in units
  // of h from t_n: AB: s_j = -j, AM: s_j = 1 - j. Degree k is not exact (order exactly k).
  using Q = boost::multiprecision::cpp_rational;
  auto moment = [](const Coefficient* c, int k, int shift, int q) {
    Q sum = 0;
    for (int j = 0; j < k; ++j) {
      Q node_power = 1;  // s_j^q
      for (int i = 0; i < q; ++i) node_power *= shift - j;
      sum += Q(std::string(c[j].text)) * node_power;
    }
    return sum;
  };
  for (int k = 1; k <= adams::max_order; ++k) {
    INFO("order " << k);
    for (int j = k; j < adams::max_order; ++j) {
      CHECK(adams::bashforth[k - 1][j].text == "0");
      CHECK(adams::moulton[k - 1][j].text == "0");
    }
    for (int q = 0; q < k; ++q) {
      CHECK(moment(adams::bashforth[k - 1], k, 0, q) == Q(1, q + 1));
      CHECK(moment(adams::moulton[k - 1], k, 1, q) == Q(1, q + 1));
    }
    CHECK(moment(adams::bashforth[k - 1], k, 0, k) != Q(1, k + 1));
    CHECK(moment(adams::moulton[k - 1], k, 1, k) != Q(1, k + 1));
  }
}

TEST_CASE("yoshida_weights_satisfy_their_defining_equations_to_1e-60", "[yoshida][coefficients]") {
  using R = boost::multiprecision::cpp_bin_float_100;
  auto value = [](const Coefficient& c) {
    std::size_t digits = 0;  // significant digits of the text: from its first non-zero digit on
    for (char ch : c.text)
      if (ch >= '0' && ch <= '9' && (digits > 0 || ch != '0')) ++digits;
    CHECK(digits >= 60);
    return R(std::string(c.text));
  };
  const R tiny("1e-60");

  SECTION("yoshida4: the triple jump") {
    const R w1 = value(yoshida::y4_w1), w0 = value(yoshida::y4_w0);
    const R c = boost::multiprecision::cbrt(R(2));
    CHECK(abs(w1 - 1 / (2 - c)) < tiny);
    CHECK(abs(w0 + c * w1) < tiny);
    CHECK(abs(w0 + 2 * w1 - 1) < tiny);
    CHECK(abs(pow(w0, 3) + 2 * pow(w1, 3)) < tiny);
  }
  SECTION("yoshida6: solution A") {
    const R w0 = value(yoshida::y6_w0), w1 = value(yoshida::y6_w1), w2 = value(yoshida::y6_w2), w3 = value(yoshida::y6_w3);
    CHECK(abs(w0 - (1 - 2 * (w1 + w2 + w3))) < tiny);
    R s1 = 0, s3 = 0, s5 = 0, mixed = 0, before = 0;
    for (const Coefficient& c : yoshida::Order6::weights) {
      const R g = value(c);
      const R q = before + g / 2 - R(1) / 2;  // centre of the sub-step relative to the step's
      s1 += g, s3 += pow(g, 3), s5 += pow(g, 5), mixed += pow(g, 3) * q * q;
      before += g;
    }
    CHECK(abs(s1 - 1) < tiny);
    CHECK(abs(s3) < tiny);
    CHECK(abs(s5) < tiny);
    CHECK(abs(mixed) < tiny);
    // and they are Yoshida's Table 1, solution A, to its 14 correct digits
    CHECK(abs(w1 - R("-1.17767998417887")) < R("1e-14"));
    CHECK(abs(w2 - R("0.235573213359357")) < R("1e-14"));
    CHECK(abs(w3 - R("0.784513610477560")) < R("1e-14"));
  }
}

TEST_CASE("multistep_and_symplectic_methods_converge_at_their_theoretical_order", "[kepler][order]") {
  struct Case {
    std::string method;
    int order, j_min, j_max;
  };
  // Steps per period 2^(j/2); e = 0.5, one period.
  for (const Case& c : {Case{"adams-bashforth", 1, 28, 34}, Case{"adams-bashforth", 2, 20, 28}, Case{"adams-bashforth", 3, 20, 28},
                        Case{"adams-bashforth", 4, 20, 28}, Case{"adams-bashforth", 5, 22, 26}, Case{"adams-moulton", 2, 22, 28},
                        Case{"adams-moulton", 3, 22, 28}, Case{"adams-moulton", 4, 20, 26}, Case{"adams-moulton", 5, 20, 24},
                        Case{"yoshida4", 0, 16, 24}, Case{"yoshida6", 0, 14, 20}}) {
    const int expected = c.order > 0 ? c.order : find_entry(integrator_table<double>(), c.method, "integrator").order;
    const double p = fitted_order(c.method, c.order, c.j_min, c.j_max);
    INFO(c.method << " --order " << c.order << ": fitted order " << p);
    CHECK(std::abs(p - expected) < 0.3);
  }
}

TEST_CASE("new_methods_follow_the_analytic_kepler_orbit_in_double_and_float", "[kepler][precision]") {
  // One period of e = 0.5 (default orders: 5 for the Adams methods).
  CHECK(kepler_error_at("adams-bashforth", 0, 1.0, 2048) < 1e-8);
  CHECK(kepler_error_at("adams-moulton", 0, 1.0, 1024) < 2e-8);
  CHECK(kepler_error_at("yoshida4", 0, 1.0, 1024) < 1e-6);
  CHECK(kepler_error_at("yoshida6", 0, 1.0, 512) < 2e-9);
  const State<float> s0 = make_initial_state<float>(kEllipse);
  const float P = orbital_period(kEllipse, s0, 1.0f);
  for (const char* method : {"adams-bashforth", "adams-moulton", "yoshida4", "yoshida6"}) {
    INFO(method);
    StepOptions<float> opt;
    opt.dt = P / 1000;
    test::Driven<float> sim(s0, ForceLaw<float>{}, "simple", method, opt);
    sim.run(P, P, [](const auto&) {});
    CHECK(position_error(sim.state(), kepler_state_at<float>(kEllipse, P)) < 1e-4f);
  }
}

TEST_CASE("adams_bashforth_of_order_1_is_forward_euler_bit_for_bit", "[adams]") {
  const State<double> s0 = make_initial_state<double>(kEllipse);
  Stepper ab(s0, "adams-bashforth", fixed_step(0.01, 1)), euler(s0, "euler", fixed_step(0.01));
  ab.steps(50, 0.01);
  euler.steps(50, 0.01);
  CHECK(same_bits(ab.s.y, euler.s.y));
  CHECK(ab.rhs.evaluations() == 50);
}

TEST_CASE("adams_start_up_steps_are_rk4_steps_bit_for_bit", "[adams][startup]") {
  const State<double> s0 = make_initial_state<double>(kEllipse);
  const double h = 0.01;
  for (const char* method : {"adams-bashforth", "adams-moulton"}) {
    for (int k = std::string(method) == "adams-moulton" ? 2 : 1; k <= adams::max_order; ++k) {
      INFO(method << " --order " << k);
      Stepper adams(s0, method, fixed_step(h, k)), rk4(s0, "rk4", fixed_step(h));
      adams.steps(k - 1, h);
      rk4.steps(k - 1, h);
      CHECK(same_bits(adams.s.y, rk4.s.y));  // the first k-1 steps are rk4's
      CHECK(adams.rhs.evaluations() == std::uint64_t(4 * (k - 1)));
      adams.steps(1, h);
      rk4.steps(1, h);
      CHECK_FALSE(same_bits(adams.s.y, rk4.s.y));  // the k-th is the Adams formula
    }
  }
}

TEST_CASE("adams_order_0_is_order_5_and_invalid_orders_name_the_valid_range", "[adams][input]") {
  const State<double> s0 = make_initial_state<double>(kEllipse);
  for (const char* method : {"adams-bashforth", "adams-moulton"}) {
    INFO(method);
    Stepper by_default(s0, method, fixed_step(0.01, 0)), fifth(s0, method, fixed_step(0.01, 5));
    by_default.steps(20, 0.01);
    fifth.steps(20, 0.01);
    CHECK(same_bits(by_default.s.y, fifth.s.y));
  }
  const auto& table = integrator_table<double>();
  Stepper any(s0, "rk4", fixed_step(0.01));
  auto make = [&](const char* method, int order) { find_entry(table, method, "integrator").make(any.rhs, fixed_step(0.01, order)); };
  CHECK_THROWS_WITH(make("adams-bashforth", 6), Catch::Contains("--order 6") && Catch::Contains("valid: 1 to 5"));
  CHECK_THROWS_WITH(make("adams-bashforth", -1), Catch::Contains("valid: 1 to 5"));
  CHECK_THROWS_WITH(make("adams-moulton", 1), Catch::Contains("--order 1") && Catch::Contains("valid: 2 to 5"));
  CHECK_THROWS_AS(make("adams-moulton", 6), InputError);
  CHECK_NOTHROW(make("adams-bashforth", 1));
  CHECK_NOTHROW(make("adams-moulton", 2));
}

TEST_CASE("adams_starts_up_again_with_rk4_when_the_step_size_changes", "[adams][startup]") {
  const State<double> s0 = make_initial_state<double>(kEllipse);
  const double h = 0.01;
  SECTION("adams-bashforth: f(y_n) is not known at the change") {
    Stepper ab(s0, "adams-bashforth", fixed_step(h, 5));
    ab.steps(7, h);  // 4 rk4 + 3 Adams steps
    CHECK(ab.rhs.evaluations() == 16 + 3);
    Stepper rk4(ab.s, "rk4", fixed_step(h));
    ab.steps(1, h / 2);
    rk4.steps(1, h / 2);
    CHECK(same_bits(ab.s.y, rk4.s.y));
    CHECK(ab.rhs.evaluations() == 16 + 3 + 4);
    ab.steps(3, h / 2);  // three more rk4 start-up steps, then Adams again
    CHECK(ab.rhs.evaluations() == 16 + 3 + 16);
    ab.steps(1, h / 2);
    CHECK(ab.rhs.evaluations() == 16 + 3 + 16 + 1);
  }
  SECTION("adams-moulton: f(y_n) is known and reused") {
    Stepper abm(s0, "adams-moulton", fixed_step(h, 5));
    abm.steps(7, h);  // 4 rk4 + 3 PECE steps (the first also evaluates f(y_4))
    CHECK(abm.rhs.evaluations() == 16 + 1 + 6);
    Stepper rk4(abm.s, "rk4", fixed_step(h));
    abm.steps(1, h / 2);
    rk4.steps(1, h / 2);
    CHECK(same_bits(abm.s.y, rk4.s.y));
    CHECK(abm.rhs.evaluations() == 16 + 1 + 6 + 3);
  }
}

TEST_CASE("symplectic_methods_keep_the_energy_error_bounded_over_1000_periods_where_rk4_drifts", "[yoshida][energy]") {
  // e = 0.5, 1000 periods, energy sampled 64 times a period. Compared at equal cost: 600 force
  // evaluations per period for yoshida4 (P/200) and rk4 (P/150), 700 for yoshida6 (P/100) and rk4 (P/175).
  const State<double> s0 = make_initial_state<double>(kEllipse);
  const double P = orbital_period(kEllipse, s0, 1.0);
  const int periods = 1000;
  struct Growth {
    double first, last;  // max |dE/E0| over the first and over the last 100 periods
  };
  auto energy_growth = [&](const char* method, long steps_per_period) {
    test::Driven<double> sim(s0, ForceLaw<double>{}, "simple", method, fixed_step(P / double(steps_per_period)));
    Growth g{0, 0};
    sim.run(periods * P, P / 64, [&](const Sample<double>& s) {
      const double dE = std::abs(s.drift.dE_rel);
      if (s.t <= 100 * P) g.first = std::max(g.first, dE);
      if (s.t >= (periods - 100) * P) g.last = std::max(g.last, dE);
    });
    return g;
  };
  for (auto [method, n, rk4_n] : {std::tuple{"yoshida4", 200L, 150L}, std::tuple{"yoshida6", 100L, 175L}}) {
    const Growth symplectic = energy_growth(method, n), rk4 = energy_growth("rk4", rk4_n);
    INFO(method << ": max|dE/E0| " << symplectic.first << " -> " << symplectic.last << "; rk4 at the same cost " << rk4.first
                << " -> " << rk4.last);
    CHECK(symplectic.last < 1.5 * symplectic.first);  // bounded: no growth beyond fluctuation
    CHECK(rk4.last > 5 * rk4.first);                  // rk4 drifts (linearly: ~10x over 100 -> 1000 periods)
    CHECK(symplectic.last < rk4.last);
  }
}
