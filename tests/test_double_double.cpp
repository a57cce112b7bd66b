// The double-double type nbody::dd (kernels/common/double_double.hpp) and its text I/O
// (RealTraits<dd>::format and parse, solver/core/real.hpp), the text checked in exact rational
// arithmetic. Where libqd is installed (NBODY_HAVE_QD), every operation is compared with qd's dd_real
// and with a quad-double (qd_real) evaluation of the exact result; errors are measured in units of
// 2^-104 relative to the exact result.
#include <catch2/catch.hpp>
#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/double_double.hpp"
#include "common/interaction.hpp"
#include "core/real.hpp"

#if defined(NBODY_HAVE_QD)
#include <qd/dd_real.h>
#include <qd/qd_real.h>
#endif

using nbody::dd;

namespace {

const double two_m104 = std::ldexp(1.0, -104);

// Random double with a random 53-bit significand, sign and binary exponent in [emin, emax].
double random_double(std::mt19937_64& g, int emin, int emax) {
  std::uniform_int_distribution<int> ed(emin, emax);
  const std::uint64_t m = (g() >> 11) | (std::uint64_t(1) << 52);
  const double x = std::ldexp(static_cast<double>(m), ed(g) - 52);
  return (g() & 1) ? -x : x;
}

// Random normalised dd: hi random, lo a random fraction of ulp(hi) (full 53 bits).
dd random_dd(std::mt19937_64& g, int emin, int emax) {
  const double hi = random_double(g, emin, emax);
  const double lo = std::ldexp(random_double(g, -54, -54), std::ilogb(hi));  // [ulp/4, ulp/2)
  const int shrink = g() % 4 == 0 ? static_cast<int>(g() % 60) : 0;  // sometimes much smaller
  return dd::sum(hi, std::ldexp(lo, -shrink));
}

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

namespace {

using Text = nbody::RealTraits<dd>;
using boost::multiprecision::cpp_int;
using rational = boost::multiprecision::cpp_rational;

rational exact_of(double d) {
  int e = 0;
  const cpp_int m = static_cast<std::int64_t>(std::ldexp(std::frexp(d, &e), 53));
  e -= 53;
  return e >= 0 ? rational(m << e) : rational(m, cpp_int(1) << -e);
}
rational exact_of(const dd& x) { return exact_of(x.hi) + exact_of(x.lo); }

// The value of a text "[-]digits[.digits]e[+-]digits".
rational exact_of(const std::string& text) {
  const auto e = text.find('e');
  std::string digits = text.substr(0, e);
  const auto point = digits.find('.');
  int e10 = std::stoi(text.substr(e + 1));
  if (point != std::string::npos) e10 -= static_cast<int>(digits.size() - point - 1), digits.erase(point, 1);
  const cpp_int m(digits), scale = boost::multiprecision::pow(cpp_int(10), std::abs(e10));
  return e10 >= 0 ? rational(m * scale) : rational(m, scale);
}

// d is the double nearest y, ties to the even significand.
bool is_nearest(double d, const rational& y) {
  const rational gap = abs(y - exact_of(d));
  const rational gap_next = abs(y - exact_of(std::nextafter(d, exact_of(d) < y ? HUGE_VAL : -HUGE_VAL)));
  return gap < gap_next || (gap == gap_next && std::bit_cast<std::uint64_t>(d) % 2 == 0);
}

// The exact decimal of a binary fraction p / 2^k, p 5^k 10^-k: the digits and the exponent.
std::pair<cpp_int, int> decimal_of(const rational& v) {
  const unsigned k = msb(denominator(v));
  return {numerator(v) * boost::multiprecision::pow(cpp_int(5), k), -static_cast<int>(k)};
}
std::string text_of(const cpp_int& digits, int e10) { return digits.str() + "e" + std::to_string(e10); }

// The decimals of `digits` significant digits next to x's value, toward and away from zero.
std::vector<std::string> neighbours(const dd& x, int digits) {
  const auto [m, e10] = decimal_of(exact_of(x));
  const int drop = static_cast<int>(cpp_int(abs(m)).str().size()) - digits;
  if (drop <= 0) return {text_of(m, e10)};
  const cpp_int toward_zero = m / boost::multiprecision::pow(cpp_int(10), drop);
  return {text_of(toward_zero, e10 + drop), text_of(toward_zero + (m > 0 ? 1 : -1), e10 + drop)};
}

int significant_digits(const std::string& text) {
  int n = 0;
  for (char c : text.substr(0, text.find('e'))) n += c >= '0' && c <= '9' && (n > 0 || c != '0');
  return n;
}

bool reads_back(const std::string& text, const dd& x) {
  const dd back = Text::parse(text, "x");
  return std::bit_cast<std::uint64_t>(back.hi) == std::bit_cast<std::uint64_t>(x.hi) &&
         std::bit_cast<std::uint64_t>(back.lo) == std::bit_cast<std::uint64_t>(x.lo);
}

}  // namespace

TEST_CASE("dd_text_is_the_shortest_that_reads_back_bit_for_bit", "[double_double][io]") {
  std::mt19937_64 g(3);
  int checked = 0;
  auto check = [&](const dd& x) {
    const std::string text = Text::format(x);
    INFO(text << " for hi " << x.hi << ", lo " << x.lo);
    REQUIRE(reads_back(text, x));
    // No text of one digit less reads back: neither decimal next to the value.
    const int digits = significant_digits(text);
    if (digits > 1)
      for (const std::string& shorter : neighbours(x, digits - 1)) {
        INFO(shorter);
        REQUIRE_FALSE(reads_back(shorter, x));
      }
    ++checked;
    return digits;
  };
  for (int k = 0; k < 3000; ++k) {
    // hi in every binade, subnormal ones included; lo in [ulp/4, ulp/2]: at most 34 digits
    const double hi = random_double(g, -1074, 1023);
    const double lo = std::ldexp(random_double(g, -54, -54), std::ilogb(hi));
    CHECK(check(dd::sum(hi, lo)) <= 34);
    check(dd(hi));  // lo = 0: the exact decimal of hi, unless a shorter text lands within 2^-1075 of it
    check(dd::sum(hi, std::ldexp(lo, -static_cast<int>(g() % 1100))));  // lo far below hi
    check(dd::sum(hi, std::ldexp(std::copysign(0.5, lo), std::ilogb(hi) - 52)));  // lo = +-ulp(hi)/2: one-sided
    check(random_dd(g, -30, 30) / random_dd(g, -30, 30));  // results of arithmetic
    const std::int64_t n = static_cast<std::int64_t>(g() >> (1 + g() % 63)) + 1;
    check(dd(g() % 2 ? n : -n));  // integers
  }
  CHECK(checked == 18000);
}

TEST_CASE("dd_text_parses_to_the_double_nearest_the_value_and_the_double_nearest_the_rest", "[double_double][io]") {
  std::mt19937_64 g(5);
  auto check = [](const std::string& text) {
    INFO(text);
    const dd x = Text::parse(text, "x");
    const rational value = exact_of(text);
    CHECK(is_nearest(x.hi, value));
    CHECK(is_nearest(x.lo, value - exact_of(x.hi)));
  };
  std::uniform_int_distribution<int> digit(0, 9);
  for (int k = 0; k < 3000; ++k) {
    // random texts of 1 to 120 digits, from 1e-300 to 1e300
    std::string text = g() % 2 ? "-" : "";
    const int n = k % 10 ? 1 + static_cast<int>(g() % 40) : 41 + static_cast<int>(g() % 80);
    for (int i = 0; i < n; ++i) text += static_cast<char>('0' + (i == 0 ? 1 + digit(g) % 9 : digit(g))) + std::string(i == 0 ? "." : "");
    check(text + "e" + std::to_string(static_cast<int>(g() % 601) - 300));
    // texts on a rounding boundary, half an ulp of hi or of lo from a dd's value, and next to it
    const dd x = dd::sum(random_double(g, -60, 40), random_double(g, -150, -110));
    const double ulp = std::ldexp(1.0, std::ilogb(k % 2 ? x.hi : x.lo) - 52);
    const rational boundary = (k % 2 ? exact_of(x.hi) : exact_of(x)) + exact_of(g() % 2 ? ulp / 2 : -ulp / 2);
    const auto [m, e10] = decimal_of(boundary);
    check(text_of(m, e10));
    const int pad = 330 - static_cast<int>(m.str().size());  // the texts next to it: 330 digits
    const cpp_int padded = m * boost::multiprecision::pow(cpp_int(10), pad);
    check(text_of(padded + 1, e10 - pad));
    check(text_of(padded - 1, e10 - pad));
  }
}

TEST_CASE("dd_text_formatting_and_parsing_of_simple_and_special_values", "[double_double][io]") {
  CHECK(Text::format(dd(1)) == "1e+00");
  CHECK(Text::format(dd(-0.125)) == "-1.25e-01");
  CHECK(Text::format(dd(0)) == "0");
  CHECK(Text::format(-dd(0)) == "-0");
  CHECK(Text::format(dd(1) / dd(3)) == "3.33333333333333333333333333333332e-01");
  CHECK(Text::format(Text::parse("0.1", "x")) == "1e-01");
  CHECK(Text::format(dd(0.1)) == "1.000000000000000055511151231257827021181583404541015625e-01");  // lo = 0 exactly
  CHECK(Text::format(dd(HUGE_VAL)) == "inf");
  CHECK(Text::format(-dd(HUGE_VAL)) == "-inf");
  CHECK(Text::format(dd(std::nan(""))) == "nan");
  // A pair with |lo| > ulp(hi)/2 is written as its value, which reads back as the normalised pair.
  CHECK(Text::parse(Text::format(dd(1.0, 0x1.8p-53)), "x") == dd::sum(1.0, 0x1.8p-53));
  const dd pi = Text::parse("3.14159265358979323846264338327950288", "x");
  CHECK(pi.hi == 3.141592653589793);
  CHECK(pi.lo == 1.2246467991473532e-16);
  const dd tenth = Text::parse("+0.1", "x");
  CHECK(tenth.hi == 0.1);
  CHECK(tenth.lo == -5.551115123125783e-18);
  CHECK(Text::parse("1e400", "x").hi == HUGE_VAL);
  CHECK(Text::parse("1e99999999999999999999", "x").hi == HUGE_VAL);
  const dd tiny = Text::parse("-1e-400", "x");
  CHECK((tiny.hi == 0.0 && std::signbit(tiny.hi)));
  CHECK(std::signbit(Text::parse("-0", "x").hi));
  CHECK_FALSE(std::signbit(Text::parse("-1", "x").lo));  // a zero lo is +0, as dd(-1.0) has it
  CHECK(Text::parse("4.9406564584124654e-324", "x").hi == std::ldexp(1.0, -1074));
  CHECK(Text::parse("-Inf", "x").hi == -HUGE_VAL);
  CHECK(isnan(Text::parse("nan", "x")));
  CHECK(Text::parse("1.5E3", "x").hi == 1500.0);
  CHECK(Text::parse("000.000250", "x").hi == 0.00025);
  for (const char* bad : {"", ".", "1e", "1.0x", "--1", " 1", "0x1p3"}) CHECK_THROWS_AS(Text::parse(bad, "x"), nbody::InputError);
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
