// Extended precision through the whole solver: pi and the math functions of every real type
// against 50 digits, and gauss-radau15 in dd, quad, qd and mp50 on the Kepler orbit against the
// 50-digit analytic solution (test_initial_conditions.cpp checks that reference).
#include <catch2/catch.hpp>

#include "core/real.hpp"
#include "driver/simulation.hpp"
#include "physics/initial_conditions.hpp"
#include "support.hpp"

// Inside namespace nbody, as the solver's own code: math functions are called unqualified
// (common/real_math.hpp), which from the global namespace would be ambiguous with ::sin.
namespace nbody {

namespace {

using test::kepler;

// The value of any of the types in 50 digits: float, double and dd exactly (dd as hi + lo), qd
// to mp50's rounding, quad through its 36-digit text (within 1e-36 relative).
template <class T>
mp50 to_mp50(const T& x) {
  if constexpr (std::is_same_v<T, dd>)
    return mp50(x.hi) + mp50(x.lo);
  else if constexpr (std::is_same_v<T, qd>)
    return ((mp50(x.x[0]) + mp50(x.x[1])) + mp50(x.x[2])) + mp50(x.x[3]);
  else if constexpr (std::is_same_v<T, quad>)
    return RealTraits<mp50>::parse(RealTraits<quad>::format(x), "quad");
  else
    return mp50(x);
}

template <class T>
mp50 exact_epsilon() {
  return to_mp50(RealTraits<T>::epsilon());
}

template <class T>
mp50 position_error_mp(const State<T>& s, const State<mp50>& ref) {
  mp50 worst = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    mp50 d2 = 0;
    for (int k = 0; k < 3; ++k) {
      const mp50 d = to_mp50(s.pos(k)[i]) - ref.pos(k)[i];
      d2 += d * d;
    }
    worst = std::max(worst, mp50(sqrt(d2)));
  }
  return worst;
}

// Integrates Kepler e = 0.5 for `periods` with IAS15 at tolerance `tol` in T; returns the
// position error against the 50-digit analytic state.
template <class T>
mp50 ias15_kepler_error(const std::string& tol, int periods, Ias15Criterion criterion = Ias15Criterion::prs23) {
  const IcParams ic = kepler("0.5");
  const State<T> s0 = make_initial_state<T>(ic);
  const T P = orbital_period(ic, s0, T(1));
  StepOptions<T> opt;
  opt.adaptive = true;
  opt.atol = opt.rtol = RealTraits<T>::parse(tol, "tol");
  opt.ias15_criterion = criterion;
  test::Driven<T> sim(s0, ForceLaw<T>{}, "simple", "gauss-radau15", opt);
  sim.run(T(periods) * P, T(periods) * P, [](const auto&) {});
  const mp50 P_ref = orbital_period(ic, make_initial_state<mp50>(ic), mp50(1));
  return position_error_mp(sim.state(), kepler_state_at<mp50>(ic, mp50(periods) * P_ref));
}

}  // namespace

TEST_CASE("gauss_radau15_in_dd_and_quad_keeps_kepler_e05_to_1e-26_over_10_periods", "[precision][gauss-radau15][kepler]") {
  // Double precision stalls near 1e-11 here (round-off); these types must go 15 digits further.
  const mp50 err_dd = ias15_kepler_error<dd>("1e-14", 10);
  const mp50 err_quad = ias15_kepler_error<quad>("1e-14", 10);
  INFO("dd " << err_dd << ", quad " << err_quad);
  CHECK(err_dd <= mp50("1e-26"));
  CHECK(err_quad <= mp50("1e-26"));
  CHECK(err_dd > 0);  // a real integration, not the reference itself
}

TEST_CASE("gauss_radau15_in_qd_keeps_kepler_e05_to_1e-40_over_10_periods", "[precision][gauss-radau15][kepler]") {
  const mp50 err = ias15_kepler_error<qd>("1e-20", 10);  // PRS23: epsilon is not an error bound (b6 gets there at 1e-17)
  INFO("qd " << err);
  CHECK(err <= mp50("1e-40"));
  CHECK(err > 0);
}

TEST_CASE("gauss_radau15_in_mp50_keeps_kepler_e05_to_1e-40_over_10_periods", "[precision][gauss-radau15][kepler][slow]") {
  const mp50 err = ias15_kepler_error<mp50>("1e-17", 10, Ias15Criterion::b6);
  INFO("mp50 " << err);
  CHECK(err <= mp50("1e-40"));
  CHECK(err > 0);
}

TEMPLATE_TEST_CASE("pi_and_the_math_functions_are_accurate_to_the_precision_of_each_type", "[precision][math]", float, double, dd, quad, mp50) {
  const mp50 eps = exact_epsilon<TestType>();
  const mp50 pi_ref = boost::math::constants::pi<mp50>();
  CHECK(abs(to_mp50(pi<TestType>()) - pi_ref) <= eps * 4);
  for (const char* x : {"0.001", "0.5", "0.7853981", "1", "2.5", "-3", "10", "62.83185307", "1000.25"}) {
    const TestType t = RealTraits<TestType>::parse(x, "x");
    const mp50 xm = to_mp50(t);
    INFO("x = " << x);
    // Absolute error: the argument reduction of dd loses log2(|x|) bits, as documented.
    CHECK(abs(to_mp50(TestType(sin(t))) - sin(xm)) <= eps * 8 * (1 + abs(xm)));
    CHECK(abs(to_mp50(TestType(cos(t))) - cos(xm)) <= eps * 8 * (1 + abs(xm)));
    CHECK(abs(to_mp50(TestType(sqrt(abs(t)))) - sqrt(abs(xm))) <= eps * 2 * sqrt(abs(xm)));
    const TestType two_pi = TestType(2) * pi<TestType>();
    CHECK(abs(to_mp50(TestType(fmod(t, two_pi))) - (xm - trunc(xm / to_mp50(two_pi)) * to_mp50(two_pi))) <= eps * 8 * (1 + abs(xm)));
    CHECK(to_mp50(TestType(floor(t))) == floor(xm));
  }
}

}  // namespace nbody
