// The quad-double type nbody::qd (kernels/common/quad_double.hpp). (Its text: test_text_io.cpp.)
// Its arithmetic follows libqd's default qd_real step for step, so where libqd is installed
// (NBODY_HAVE_QD) +, -, * and / must give the same four doubles; sqrt, sin, cos, floor and fmod
// are judged against a 100-digit Boost.Multiprecision evaluation.
#include <catch2/catch.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "common/interaction.hpp"
#include "common/quad_double.hpp"
#include "core/real.hpp"
#include "support.hpp"

#if defined(NBODY_HAVE_QD)
#include <qd/qd_real.h>
#endif

using QD = nbody::qd;  // not `using nbody::qd`: libqd has a namespace ::qd
using nbody::test::random_qd;

namespace {

using mp100 = boost::multiprecision::number<boost::multiprecision::cpp_bin_float<100>, boost::multiprecision::et_off>;

mp100 exact(const QD& a) { return mp100(a.x[0]) + a.x[1] + a.x[2] + a.x[3]; }

// Operand pairs that exercise cancellation and very different magnitudes.
std::pair<QD, QD> operands(std::mt19937_64& g, int k) {
  QD a = random_qd(g, -10, 10), b = random_qd(g, -10, 10);
  if (k % 4 == 1) b = -(a + a * std::ldexp(1.0, -1 - static_cast<int>(g() % 200)));  // near cancellation
  if (k % 4 == 2) b = random_qd(g, std::ilogb(a.x[0]) - 120, std::ilogb(a.x[0]) - 60);
  return {a, b};
}

double relative_error(const QD& got, const mp100& ref) {
  return ref == 0 ? static_cast<double>(abs(exact(got))) : static_cast<double>(abs((exact(got) - ref) / ref));
}

}  // namespace

// libqd's renormalisation leaves each term within an ulp of the one before (half an ulp but after
// a cancellation in the sloppy addition).
TEST_CASE("qd_terms_stay_within_an_ulp_of_each_other_and_comparisons_follow_the_value", "[quad_double]") {
  std::mt19937_64 g(11);
  for (int k = 0; k < 20000; ++k) {
    auto [a, b] = operands(g, k);
    for (const QD& r : {a + b, a - b, a * b, a / b, a * b.x[0], a + b.x[0]}) {
      for (int i = 0; i < 3; ++i) {
        INFO("k = " << k << " term " << i << ": " << r.x[i] << " " << r.x[i + 1]);
        REQUIRE(std::fabs(r.x[i + 1]) <= std::fabs(std::nextafter(r.x[i], INFINITY) - r.x[i]));
      }
    }
    CHECK((a < b) == (exact(a) < exact(b)));
    CHECK((a == b) == (exact(a) == exact(b)));
  }
  CHECK(QD(std::int64_t(9007199254740993)).x[0] == 9007199254740992.0);  // 2^53 + 1: exact in two terms
  CHECK(QD(std::int64_t(9007199254740993)).x[1] == 1.0);
}

TEST_CASE("qd_arithmetic_is_accurate_to_2_209_and_sqrt_sin_cos_to_a_few_units", "[quad_double]") {
  std::mt19937_64 g(12);
  const double eps = std::ldexp(1.0, -209);
  double worst_mul = 0, worst_div = 0, worst_sqrt = 0, worst_rsqrt = 0, worst_add = 0;
  for (int k = 0; k < 20000; ++k) {
    auto [a, b] = operands(g, k);
    const mp100 A = exact(a), B = exact(b);
    // Addition: Cray-style bound, relative to |a| + |b| (libqd's default "sloppy" addition).
    worst_add = std::max(worst_add, static_cast<double>(abs(exact(a + b) - (A + B)) / (abs(A) + abs(B))));
    worst_mul = std::max(worst_mul, relative_error(a * b, A * B));
    worst_div = std::max(worst_div, relative_error(a / b, A / B));
    worst_sqrt = std::max(worst_sqrt, relative_error(sqrt(abs(a)), sqrt(abs(A))));
    worst_rsqrt = std::max(worst_rsqrt, relative_error(rsqrt(abs(a)), 1 / sqrt(abs(A))));
  }
  INFO("max errors in units of 2^-209: add " << worst_add / eps << ", mul " << worst_mul / eps << ", div "
                                            << worst_div / eps << ", sqrt " << worst_sqrt / eps << ", rsqrt "
                                            << worst_rsqrt / eps);
  CHECK(worst_add < 4 * eps);
  CHECK(worst_mul < 8 * eps);
  CHECK(worst_div < 8 * eps);
  CHECK(worst_sqrt < 8 * eps);
  CHECK(worst_rsqrt < 8 * eps);
  CHECK(sqrt(QD(0.0)) == QD(0.0));
  CHECK_FALSE(isfinite(sqrt(QD(-1.0))));
  CHECK(sqrt(QD(4.0)) == QD(2.0));
}

TEST_CASE("qd_sin_cos_floor_and_fmod_agree_with_100_digit_values", "[quad_double]") {
  const double eps = std::ldexp(1.0, -209);
  const mp100 pi_ref = boost::math::constants::pi<mp100>();
  const QD pi_qd = nbody::pi<QD>();
  CHECK(static_cast<double>(abs(exact(pi_qd) - pi_ref)) <= 2 * eps * 3.2);
  CHECK(static_cast<double>(abs(exact(nbody::qd_pi_2()) * 2 - pi_ref)) <= 1e-65);  // what four doubles leave: 5.7e-66
  for (const char* text : {"0.001", "0.5", "0.7853981", "1", "2.5", "-3", "10", "62.83185307", "1000.25", "-1e4"}) {
    const QD x = nbody::RealTraits<QD>::parse(text, "x");
    const mp100 X = exact(x);
    INFO("x = " << text);
    // Absolute error: the reduction by pi/2 loses log2(|x|) bits, as dd's.
    CHECK(static_cast<double>(abs(exact(sin(x)) - sin(X))) <= 16 * eps * (1 + static_cast<double>(abs(X))));
    CHECK(static_cast<double>(abs(exact(cos(x)) - cos(X))) <= 16 * eps * (1 + static_cast<double>(abs(X))));
    CHECK(exact(floor(x)) == floor(X));
    const QD two_pi = QD(2.0) * pi_qd;
    const mp100 r = X - trunc(X / exact(two_pi)) * exact(two_pi);
    CHECK(static_cast<double>(abs(exact(fmod(x, two_pi)) - r)) <= 16 * eps * (1 + static_cast<double>(abs(X))));
  }
}

TEST_CASE("accumulate_interaction_qd_agrees_with_a_100_digit_evaluation_to_1e_60", "[quad_double]") {
  std::mt19937_64 g(14);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0;
  for (int k = 0; k < 2000; ++k) {
    QD p[6];
    for (auto& c : p) c = QD(u(g)) + std::ldexp(u(g), -54) + std::ldexp(u(g), -110);
    const QD m = QD(0.5 + 0.5 * std::fabs(u(g))) + std::ldexp(u(g), -55);
    const QD eps2 = k % 2 ? QD(0.0) : QD(1e-4);
    const QD rmin2 = k % 3 ? QD(0.0) : QD(1e-8);
    QD ax(0.0), ay(0.0), az(0.0);
    nbody::accumulate_interaction<QD>(p[0], p[1], p[2], p[3], p[4], p[5], m, eps2, rmin2, ax, ay, az);
    mp100 P[6];
    for (int i = 0; i < 6; ++i) P[i] = exact(p[i]);
    const mp100 dx = P[3] - P[0], dy = P[4] - P[1], dz = P[5] - P[2];
    mp100 s2 = dx * dx + dy * dy + dz * dz + exact(eps2);
    if (s2 < exact(rmin2)) s2 = exact(rmin2);
    const mp100 w = exact(m) / (s2 * sqrt(s2));
    const mp100 norm = w * sqrt(dx * dx + dy * dy + dz * dz);
    for (auto [got, ref] : {std::pair{ax, w * dx}, std::pair{ay, w * dy}, std::pair{az, w * dz}})
      worst = std::max(worst, static_cast<double>(abs(exact(got) - ref) / norm));
  }
  WARN("accumulate_interaction<qd>: max |a_qd - a_100| / |a_100| = " << worst);
  CHECK(worst < 1e-60);
}

#if defined(NBODY_HAVE_QD)
TEST_CASE("qd_arithmetic_gives_the_same_four_doubles_as_libqd_qd_real", "[quad_double][qd]") {
  std::mt19937_64 g(15);
  auto to_qd = [](const QD& a) { return qd_real(a.x[0], a.x[1], a.x[2], a.x[3]); };
  auto same = [](const QD& a, const qd_real& b) {
    return a.x[0] == b[0] && a.x[1] == b[1] && a.x[2] == b[2] && a.x[3] == b[3];
  };
  int differ[6] = {};
  for (int k = 0; k < 100000; ++k) {
    auto [a, b] = operands(g, k);
    const qd_real A = to_qd(a), B = to_qd(b);
    differ[0] += !same(a + b, A + B);
    differ[1] += !same(a - b, A - B);
    differ[2] += !same(a * b, A * B);
    differ[3] += !same(a / b, A / B);
    differ[4] += !same(a * b.x[0], A * b.x[0]);
    differ[5] += !same(a + b.x[0], A + b.x[0]);
  }
  INFO("results differing from libqd's (of 100000): + " << differ[0] << ", - " << differ[1] << ", * " << differ[2]
                                                         << ", / " << differ[3] << ", *double " << differ[4]
                                                         << ", +double " << differ[5]);
  for (int d : differ) CHECK(d == 0);
}
#endif
