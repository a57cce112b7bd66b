// Extended precision end to end: the real types dd, quad and mp50 through the whole solver, the
// 50-digit Kepler reference they are judged by, and state files that keep every bit.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/real.hpp"
#include "driver/simulation.hpp"
#include "io/state_csv.hpp"
#include "physics/initial_conditions.hpp"

// Inside namespace nbody, as the solver's own code: math functions are called unqualified
// (common/real_math.hpp), which from the global namespace would be ambiguous with ::sin.
namespace nbody {

namespace {

IcParams kepler(const std::string& e) {
  IcParams p;
  p.name = "kepler";
  p.e = e;
  return p;
}

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
mp50 ias15_kepler_error(const std::string& tol, int periods) {
  const IcParams ic = kepler("0.5");
  const State<T> s0 = make_initial_state<T>(ic);
  const T P = orbital_period(ic, s0, T(1));
  StepOptions<T> opt;
  opt.adaptive = true;
  opt.atol = opt.rtol = RealTraits<T>::parse(tol, "tol");
  Simulation<T> sim(s0, ForceLaw<T>{}, "simple", "gauss-radau15", opt);
  sim.run(T(periods) * P, T(periods) * P, [](const auto&) {});
  const mp50 P_ref = orbital_period(ic, make_initial_state<mp50>(ic), mp50(1));
  return position_error_mp(sim.state(), kepler_state_at<mp50>(ic, mp50(periods) * P_ref));
}

// Specific energy and angular momentum (z) of the relative orbit; mu = G M = 1.
void relative_invariants(const State<mp50>& s, mp50& energy, mp50& lz) {
  const mp50 rx = s.pos(0)[1] - s.pos(0)[0], ry = s.pos(1)[1] - s.pos(1)[0];
  const mp50 vx = s.vel(0)[1] - s.vel(0)[0], vy = s.vel(1)[1] - s.vel(1)[0];
  energy = (vx * vx + vy * vy) / 2 - 1 / sqrt(rx * rx + ry * ry);
  lz = rx * vy - ry * vx;
}

}  // namespace

TEST_CASE("kepler_reference_in_mp50_conserves_its_invariants_and_obeys_newtons_law", "[precision][kepler][reference]") {
  // The reference must not be trusted because it is the analytic formula: check that it is an
  // orbit. Energy and angular momentum constant to 1e-45, x(P) = x(0), and the central
  // differences of position and velocity are the velocity and the inverse-square acceleration.
  const IcParams ic = kepler("0.5");
  const State<mp50> s0 = make_initial_state<mp50>(ic);
  const mp50 P = orbital_period(ic, s0, mp50(1));
  mp50 E0, L0;
  relative_invariants(s0, E0, L0);
  CHECK(abs(E0 + mp50(0.5)) < mp50("1e-48"));  // a = 1: E = -mu / 2a
  for (const char* frac : {"0.1", "0.37", "0.5", "0.93", "1", "7.25"}) {
    const mp50 t = mp50(frac) * P;
    const State<mp50> s = kepler_state_at<mp50>(ic, t);
    mp50 E, L;
    relative_invariants(s, E, L);
    INFO("t = " << frac << " P");
    CHECK(abs(E - E0) < mp50("1e-45"));
    CHECK(abs(L - L0) < mp50("1e-45"));
    // Newton: d^2 r / dt^2 = -r / |r|^3 for the relative orbit (mu = 1); h^2 = 1e-24 error.
    const mp50 h("1e-12");
    const State<mp50> before = kepler_state_at<mp50>(ic, t - h), after = kepler_state_at<mp50>(ic, t + h);
    const mp50 rx = s.pos(0)[1] - s.pos(0)[0], ry = s.pos(1)[1] - s.pos(1)[0];
    const mp50 r3 = pow(rx * rx + ry * ry, mp50(1.5));
    for (int k = 0; k < 2; ++k) {
      const mp50 r_rel = s.pos(k)[1] - s.pos(k)[0];
      const mp50 v_rel = s.vel(k)[1] - s.vel(k)[0];
      const mp50 dr = ((after.pos(k)[1] - after.pos(k)[0]) - (before.pos(k)[1] - before.pos(k)[0])) / (2 * h);
      const mp50 dv = ((after.vel(k)[1] - after.vel(k)[0]) - (before.vel(k)[1] - before.vel(k)[0])) / (2 * h);
      CHECK(abs(dr - v_rel) < mp50("1e-20"));
      CHECK(abs(dv + r_rel / r3) < mp50("1e-20"));
    }
  }
  const State<mp50> after_one_period = kepler_state_at<mp50>(ic, P);
  for (int k = 0; k < 3; ++k) {
    CHECK(abs(after_one_period.pos(k)[1] - s0.pos(k)[1]) < mp50("1e-45"));
    CHECK(abs(after_one_period.vel(k)[1] - s0.vel(k)[1]) < mp50("1e-45"));
  }
}

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
  const mp50 err = ias15_kepler_error<qd>("1e-17", 10);
  INFO("qd " << err);
  CHECK(err <= mp50("1e-40"));
  CHECK(err > 0);
}

TEST_CASE("gauss_radau15_in_mp50_keeps_kepler_e05_to_1e-40_over_10_periods", "[precision][gauss-radau15][kepler][slow]") {
  const mp50 err = ias15_kepler_error<mp50>("1e-17", 10);
  INFO("mp50 " << err);
  CHECK(err <= mp50("1e-40"));
  CHECK(err > 0);
}

TEMPLATE_TEST_CASE("state_files_read_back_bit_for_bit_in_every_precision", "[precision][io]", float, double, dd, qd, quad, mp50) {
  // Values that need every digit: thirds, tiny and huge magnitudes, and (dd) a low part far
  // below the high part's last bit.
  State<TestType> s(3);
  const TestType third = TestType(1) / TestType(3);
  for (std::size_t i = 0; i < 3; ++i) {
    s.mass[i] = third * TestType(int(i) + 1);
    for (int k = 0; k < 3; ++k) {
      s.pos(k)[i] = third * TestType(int(10 * i + k) - 7) / TestType(1000003);
      s.vel(k)[i] = sqrt(TestType(2)) * TestType(int(k) + 1) * (i == 2 ? TestType(1e-30f) : TestType(1e20f));
    }
  }
  if constexpr (std::is_same_v<TestType, dd>) s.pos(0)[0] = dd(1.0, 0x1p-200);
  if constexpr (std::is_same_v<TestType, qd>) s.pos(0)[0] = qd(1.0, 0x1p-60, 0x1p-300, -0x1p-400);
  const auto path = std::filesystem::temp_directory_path() / ("nbody_round_trip_" + std::string(RealTraits<TestType>::name) + ".csv");
  std::ofstream(path) << format_state_csv(s);
  const State<TestType> back = read_state_csv<TestType>(path);
  std::filesystem::remove(path);
  REQUIRE(back.size() == s.size());
  for (std::size_t v = 0; v < s.y.size(); ++v) {
    INFO("value " << v << ": " << RealTraits<TestType>::format(s.y[v]));
    if constexpr (std::is_same_v<TestType, mp50>)
      CHECK(back.y[v] == s.y[v]);
    else
      CHECK(std::memcmp(&back.y[v], &s.y[v], sizeof(TestType)) == 0);
  }
  for (std::size_t i = 0; i < s.size(); ++i) CHECK(back.mass[i] == s.mass[i]);
}

TEMPLATE_TEST_CASE("every_precision_rejects_text_that_is_not_a_number", "[precision][io]", float, double, dd, qd, quad, mp50) {
  for (const char* bad : {"", "1.5x", " 1", "0x1p3", "1e", "abc", "--1"}) {
    INFO("'" << bad << "'");
    CHECK_THROWS_AS(RealTraits<TestType>::parse(bad, "value"), InputError);
  }
  CHECK(RealTraits<TestType>::parse("+2.5e-1", "value") == TestType(1) / TestType(4));
  CHECK_FALSE(is_finite(RealTraits<TestType>::parse("-inf", "value")));
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

namespace nbody {

TEST_CASE("compensated_state_updates_keep_float_yoshida6_100_times_closer_to_the_circular_orbit", "[precision][compensated]") {
  // 40000 steps of P/2000 in float: the truncation error is ~1e-13, so what remains is the
  // round-off of the updates x + h v, a random walk of ~sqrt(steps) ulps (Brouwer), which the
  // carried rounding errors remove.
  const IcParams ic = kepler("0");
  const State<float> s0 = make_initial_state<float>(ic);
  const float P = orbital_period(ic, s0, 1.0f);
  auto run = [&](bool compensated) {
    StepOptions<float> opt;
    opt.dt = P / 2000;
    opt.compensated = compensated;
    Simulation<float> sim(s0, ForceLaw<float>{}, "simple", "yoshida6", opt);
    sim.run(20 * P, 20 * P, [](const auto&) {});
    const State<double> ref = kepler_state_at<double>(ic, 20.0 * double(P));
    double worst = 0;
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(double(sim.state().pos(k)[1]) - ref.pos(k)[1]));
    return worst;
  };
  const double plain = run(false), compensated = run(true);
  INFO("position error: plain " << plain << ", compensated " << compensated);
  CHECK(compensated * 100 < plain);
  CHECK(compensated < 1e-5);
}

TEST_CASE("compensated_force_sums_are_closer_to_the_exact_sum_than_plain_ones_in_float", "[precision][compensated][forces]") {
  // 2000 bodies: a plain float sum of 2000 pair terms loses ~sqrt(2000) ulps; the Neumaier sum
  // is correctly rounded to within an ulp or two. Judged against the sums formed in double.
  IcParams ic;
  ic.name = "plummer";
  ic.n = 2000;
  const State<float> s = make_initial_state<float>(ic);
  auto forces = [&](const auto& state, bool compensated) {
    using R = typename std::decay_t<decltype(state.y)>::value_type;
    ForceLaw<R> law;
    law.compensated = compensated;
    std::vector<R> acc(3 * state.size());
    make_engine<R>("simple", law)->accelerations(state.y.data(), state.mass.data(), state.size(), acc.data());
    return acc;
  };
  // The reference: the float inputs, summed in double (only the summation differs).
  State<double> widened(s.size());
  for (std::size_t v = 0; v < s.y.size(); ++v) widened.y[v] = s.y[v];
  for (std::size_t i = 0; i < s.size(); ++i) widened.mass[i] = s.mass[i];
  const auto ref = forces(widened, false);
  auto error = [&](const std::vector<float>& a) {
    double sum = 0;
    for (std::size_t k = 0; k < a.size(); ++k) sum += std::abs(double(a[k]) - ref[k]) / (std::abs(ref[k]) + 1e-30);
    return sum / double(a.size());
  };
  const double plain = error(forces(s, false)), compensated = error(forces(s, true));
  INFO("mean relative error: plain " << plain << ", compensated " << compensated);
  CHECK(compensated * 3 < plain);
  // The other engine that offers compensation agrees exactly.
  ForceLaw<float> law;
  law.compensated = true;
  std::vector<float> acc(3 * s.size());
  make_engine<float>("openmp", law)->accelerations(s.y.data(), s.mass.data(), s.size(), acc.data());
  CHECK(acc == forces(s, true));
}

}  // namespace nbody
