// Text of numbers and state files: every real type's text reads back bit for bit (dd's is the
// shortest text that does and parses to the nearest pair, checked in exact rational arithmetic;
// qd's parses to the nearest terms), text that is not a number is refused, and state files keep
// every bit in every precision.
#include <catch2/catch.hpp>
#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/progress.hpp"
#include "core/real.hpp"
#include "io/state_csv.hpp"
#include "support.hpp"

namespace fs = std::filesystem;

// Inside namespace nbody, as the solver's own code: math functions are called unqualified
// (common/real_math.hpp), which from the global namespace would be ambiguous with ::sin.
namespace nbody {

using test::same_bits;
using test::scratch;

TEMPLATE_TEST_CASE("state_csv_round_trips_bit_for_bit", "[io]", float, double) {
  const fs::path dir = scratch("roundtrip");
  IcParams p;
  p.name = "plummer";
  p.n = 100;
  const State<TestType> s = make_initial_state<TestType>(p);
  {
    std::ofstream(dir / "s.csv") << format_state_csv(s);
  }
  const State<TestType> back = read_state_csv<TestType>(dir / "s.csv");
  CHECK(same_bits(s.y, back.y));
  CHECK(same_bits(s.mass, back.mass));
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
  for (const char* bad : {"", "1.5x", " 1", "0x1p3", "1e", "abc", "--1", "+-1", "1/256", "2^-8"}) {
    INFO("'" << bad << "'");
    // The message names the value and the notation that is accepted.
    CHECK_THROWS_WITH(RealTraits<TestType>::parse(bad, "value"),
                      Catch::StartsWith("value: '" + std::string(bad) + "' is not a number") && Catch::Contains("1e-3"));
  }
  CHECK(RealTraits<TestType>::parse("+2.5e-1", "value") == TestType(1) / TestType(4));
  CHECK_FALSE(is_finite(RealTraits<TestType>::parse("-inf", "value")));
}

TEMPLATE_TEST_CASE("a_mantissa_of_thousands_of_digits_reads_as_its_leading_400_do", "[precision][io]", dd, qd, mp50) {
  // Beyond 700 significant digits the text is shortened before Boost reads it: the point and the
  // exponent must move with the digits.
  const auto read = [](const std::string& text) { return RealTraits<TestType>::parse(text, "value"); };
  const std::string ones(399, '1'), fours(399, '4');
  CHECK(read("1." + std::string(300'000, '1')) == read("1." + ones));
  CHECK(read("-" + std::string(800, '1') + ".5") == read("-1." + ones + "e799"));
  CHECK(read("0.000" + std::string(1000, '0') + "123" + std::string(800, '4') + "e1010") == read("1.23" + fours + "e6"));
  CHECK(read("2." + std::string(900, '0') + "e-3") == read("0.002"));
  CHECK(read(std::string(900, '0') + ".5") == read("0.5"));
}

TEMPLATE_TEST_CASE("ieee_types_read_numbers_beyond_their_range_as_inf_or_zero", "[precision][io]", float, double) {
  // As the other types do: a number, so that the message says it is not finite (or not positive).
  CHECK(RealTraits<TestType>::parse("1e400", "value") == std::numeric_limits<TestType>::infinity());
  CHECK(RealTraits<TestType>::parse("-1e400", "value") == -std::numeric_limits<TestType>::infinity());
  const TestType tiny = RealTraits<TestType>::parse("-1e-400", "value");
  CHECK(tiny == 0);
  CHECK(std::signbit(tiny));
}

TEST_CASE("quoted_text_in_messages_is_short_and_printable", "[io]") {
  CHECK(quoted_excerpt("1e-3") == "'1e-3'");
  CHECK(quoted_excerpt(std::string("a\0b\n\xff", 5)) == "'a\\x00b\\x0a\\xff'");
  CHECK(quoted_excerpt(std::string(300000, '7')) == "'" + std::string(40, '7') + "'... (300000 characters)");
}

}  // namespace nbody

// ---- dd and qd text ----

using nbody::dd;
using nbody::test::random_dd;
using nbody::test::random_double;
using nbody::test::random_qd;
using QD = nbody::qd;  // not `using nbody::qd`: libqd has a namespace ::qd

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

TEST_CASE("qd_text_reads_back_bit_for_bit_and_parses_to_the_nearest_terms", "[quad_double][io]") {
  using Traits = nbody::RealTraits<QD>;
  std::mt19937_64 g(13);
  for (int k = 0; k < 3000; ++k) {
    const QD x = random_qd(g, -300, 300);
    const std::string text = Traits::format(x);
    INFO(text);
    const QD back = Traits::parse(text, "x");
    REQUIRE(back == x);
  }
  // Gaps between the terms need more digits, and get them.
  const QD gap(1.0, 0x1p-300, 0.0, 0.0);
  CHECK(Traits::parse(Traits::format(gap), "x") == gap);
  // Parsing: each term the double nearest to what is left of the decimal value.
  const QD third = Traits::parse("0.33333333333333333333333333333333333333333333333333333333333333333333333333", "x");
  CHECK(third == QD(1.0) / QD(3.0));
  CHECK(Traits::format(third).size() <= std::string("3.").size() + 65 + std::string("e-01").size());  // <= 66 digits
  CHECK(Traits::format(QD(0.5)) == "5e-01");  // trailing zeros dropped
  CHECK_FALSE(isfinite(Traits::parse("1e400", "x")));
  CHECK(Traits::parse("-0", "x").x[0] == 0.0);
}

TEST_CASE("the_progress_line_says_how_far_how_fast_and_how_long_is_left", "[text]") {
  using nbody::duration_text, nbody::progress_line;
  const std::string line = progress_line("t = 2.5 of 10, step 400", 0.25, 400, 30);
  CHECK_THAT(line, Catch::StartsWith("t = 2.5 of 10, step 400 (25 %), 13.3 steps/s, about 1.5 min left (to "));
  CHECK_THAT(line, Catch::EndsWith(" UTC)"));
  CHECK_THAT(progress_line("p", 0.5, 7200, 3600), Catch::StartsWith("p (50 %), 2 steps/s, about 60.0 min left (to "));
  CHECK(progress_line("p", 0, 0, 5) == "p (0 %), 0 steps/s");  // no pace yet: no estimate
  CHECK(duration_text(42) == "42 s");
  CHECK(duration_text(450) == "7.5 min");
  CHECK(duration_text(3 * 3600) == "3.0 h");
}
