// The double-double type nbody::dd (kernels/common/double_double.hpp): its error-free
// transformations, conversions and comparisons, its arithmetic and the force law in dd (its text:
// test_text_io.cpp). Where libqd is installed (NBODY_HAVE_QD), every operation is compared with
// qd's dd_real and with a quad-double (qd_real) evaluation of the exact result; errors are measured
// in units of 2^-104 relative to the exact result.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/double_double.hpp"
#include "common/interaction.hpp"
#include "core/real.hpp"
#include "support.hpp"

#if defined(NBODY_HAVE_QD)
#include <qd/dd_real.h>
#include <qd/qd_real.h>
#endif

using nbody::dd;
using nbody::test::random_dd;
using nbody::test::random_double;

namespace {

const double two_m104 = std::ldexp(1.0, -104);

// Integer view of a double: x = m * 2^e exactly.
__int128 scaled(double x, int e) { return static_cast<__int128>(std::ldexp(x, -e)); }

}  // namespace

TEST_CASE("two_sum_quick_two_sum_and_two_prod_are_error_free_transformations", "[double_double]") {
  std::mt19937_64 g(1);
  for (int k = 0; k < 100000; ++k) {
    const double a = random_double(g, -20, 20);
    const double b = random_double(g, -20, 20);
    // a, b are multiples of 2^(min exponent - 52); sums fit an __int128 exactly
    const int ea = std::ilogb(a) - 52, eb = std::ilogb(b) - 52;
    const int e = std::min(ea, eb);
    double err;
    const double s = nbody::eft::two_sum(a, b, err);
    REQUIRE(s == a + b);
    REQUIRE(scaled(s, e) + scaled(err, e) == scaled(a, e) + scaled(b, e));
    REQUIRE(std::fabs(err) <= std::ldexp(std::fabs(s), -53));
    const double big = std::fabs(a) >= std::fabs(b) ? a : b, small = std::fabs(a) >= std::fabs(b) ? b : a;
    double err2;
    const double s2 = nbody::eft::quick_two_sum(big, small, err2);
    REQUIRE(s2 == s);
    REQUIRE(err2 == err);
    // product: a*b is a multiple of 2^(ea+eb) and below 2^106 in those units
    double perr;
    const double p = nbody::eft::two_prod(a, b, perr);
    REQUIRE(p == a * b);
    const __int128 exact = scaled(a, ea) * scaled(b, eb);
    REQUIRE(scaled(p, ea + eb) + scaled(perr, ea + eb) == exact);
  }
}

TEST_CASE("dd_constructors_conversions_comparisons_and_abs", "[double_double]") {
  const dd one(1);
  CHECK(one.hi == 1.0);
  CHECK(one.lo == 0.0);
  const dd third = dd(1) / dd(3);
  CHECK(static_cast<double>(third) == 1.0 / 3.0);
  CHECK(nbody::to_double(third) == 1.0 / 3.0);
  CHECK(third.lo != 0.0);
  CHECK(third < 0.5);
  CHECK(third > 1.0 / 3.0 - 1e-17);
  CHECK(dd(1.0 / 3.0) != third);
  CHECK((third * 3 - 1).hi == Approx(0.0).margin(1e-31));
  CHECK(abs(-third) == third);
  CHECK(-third < third);
  CHECK(dd(2) >= dd(2));
  CHECK(dd(2) <= 2.0);
  CHECK(dd(1.0, 1e-20) > 1.0);
  CHECK(dd(1.0, -1e-20) < 1.0);
  CHECK(sqrt(dd(4)) == dd(2));
  CHECK(sqrt(dd(0)) == 0.0);
  CHECK(isnan(sqrt(dd(-1))));
  CHECK_FALSE(isfinite(dd(1) / dd(0)));
  dd x = 1;
  x += 0.5;
  x *= 4;
  x -= dd(1);
  x /= 5;
  CHECK(x == 1.0);
}

#if defined(NBODY_HAVE_QD)

namespace {

qd_real to_qd(const dd& a) { return qd_real(a.hi, a.lo, 0.0, 0.0); }
dd_real to_ddr(const dd& a) { return dd_real(a.hi, a.lo); }
qd_real to_qd(const dd_real& a) { return qd_real(a.x[0], a.x[1], 0.0, 0.0); }

// |got - exact| / |exact| in units of 2^-104.
double err104(const qd_real& got, const qd_real& exact) {
  if (exact == 0.0) return got == 0.0 ? 0.0 : HUGE_VAL;
  const qd_real d = qd_real::ieee_add(got, -exact);
  return std::fabs(to_double(d / exact)) / two_m104;
}

struct Worst {
  double ours = 0, qd = 0, vs_qd = 0;
  void add(const dd& r, const dd_real& q, const qd_real& exact) {
    ours = std::max(ours, err104(to_qd(r), exact));
    qd = std::max(qd, err104(to_qd(q), exact));
    vs_qd = std::max(vs_qd, err104(to_qd(r), to_qd(q)));
  }
};

// Operand pairs: wide exponent spreads, and (every third pair) near-cancelling ones.
std::pair<dd, dd> operands(std::mt19937_64& g, int k) {
  const dd a = random_dd(g, -250, 250);
  dd b = random_dd(g, -250, 250);
  if (k % 3 == 1) {  // b = -a (1 + delta), delta from 2^-1 to 2^-120
    const int sh = 1 + static_cast<int>(g() % 120);
    b = -(a + a * ldexp(random_dd(g, 0, 0), -sh));
  } else if (k % 3 == 2) {  // close exponents
    b = random_dd(g, std::ilogb(a.hi) - 60, std::ilogb(a.hi) + 60);
  }
  return {a, b};
}

}  // namespace

TEST_CASE("dd_arithmetic_agrees_with_libqd_within_a_few_units_of_2_104", "[double_double][qd]") {
  std::mt19937_64 g(2);
  Worst add, sub, mul, div, addd, muld, divd, sq;
  for (int k = 0; k < 200000; ++k) {
    auto [a, b] = operands(g, k);
    const qd_real A = to_qd(a), B = to_qd(b);
    const dd_real qa = to_ddr(a), qb = to_ddr(b);
    add.add(a + b, dd_real::ieee_add(qa, qb), qd_real::ieee_add(A, B));
    sub.add(a - b, dd_real::ieee_add(qa, -qb), qd_real::ieee_add(A, -B));
    mul.add(a * b, qa * qb, A * B);
    div.add(a / b, dd_real::accurate_div(qa, qb), qd_real::accurate_div(A, B));
    const double d = b.hi;
    addd.add(a + d, dd_real::ieee_add(qa, d), qd_real::ieee_add(A, qd_real(d)));
    muld.add(a * d, qa * d, A * qd_real(d));
    divd.add(a / d, qa / d, qd_real::accurate_div(A, qd_real(d)));
    const dd p = abs(a);
    sq.add(sqrt(p), sqrt(to_ddr(p)), sqrt(to_qd(p)));
  }
  const char* names[] = {"dd+dd", "dd-dd", "dd*dd", "dd/dd", "dd+double", "dd*double", "dd/double", "sqrt"};
  Worst* all[] = {&add, &sub, &mul, &div, &addd, &muld, &divd, &sq};
  for (int i = 0; i < 8; ++i) {
    INFO(names[i] << ": max error ours " << all[i]->ours << ", qd dd_real " << all[i]->qd << ", ours vs dd_real "
                  << all[i]->vs_qd << " (units of 2^-104)");
    WARN(names[i] << ": max rel. error " << all[i]->ours << " x 2^-104 (libqd dd_real: " << all[i]->qd
                  << "; difference to dd_real: " << all[i]->vs_qd << ")");
    CHECK(all[i]->ours < 4.0);
    CHECK(all[i]->vs_qd < 8.0);
  }
}

TEST_CASE("accumulate_interaction_dd_agrees_with_a_quad_double_evaluation_to_1e_30", "[double_double][qd]") {
  std::mt19937_64 g(4);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0;
  for (int k = 0; k < 2000; ++k) {
    dd p[6];
    for (auto& c : p) c = dd::sum(u(g), std::ldexp(u(g), -54));
    const dd m = dd::sum(0.5 + 0.5 * std::fabs(u(g)), std::ldexp(u(g), -55));
    const dd eps2 = k % 2 ? dd(0) : dd(1e-4);
    const dd rmin2 = k % 3 ? dd(0) : dd(1e-8);
    dd ax(0), ay(0), az(0);
    nbody::accumulate_interaction<dd>(p[0], p[1], p[2], p[3], p[4], p[5], m, eps2, rmin2, ax, ay, az);
    qd_real qx(0), qy(0), qz(0);
    nbody::accumulate_interaction<qd_real>(to_qd(p[0]), to_qd(p[1]), to_qd(p[2]), to_qd(p[3]), to_qd(p[4]), to_qd(p[5]),
                                           to_qd(m), to_qd(eps2), to_qd(rmin2), qx, qy, qz);
    const qd_real norm = sqrt(qx * qx + qy * qy + qz * qz);
    for (auto [got, ref] : {std::pair{ax, qx}, std::pair{ay, qy}, std::pair{az, qz}}) {
      const double e = std::fabs(to_double((to_qd(got) - ref) / norm));
      worst = std::max(worst, e);
    }
  }
  WARN("accumulate_interaction<dd>: max |a_dd - a_qd| / |a_qd| = " << worst);
  CHECK(worst < 1e-30);
}

#endif  // NBODY_HAVE_QD
