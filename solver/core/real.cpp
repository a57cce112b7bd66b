#include "real.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>

namespace nbody {

namespace {
template <class... Ts>
std::string names_of(std::tuple<Ts...>*) {
  std::string out;
  ((out += (out.empty() ? "" : ", ") + std::string(RealTraits<Ts>::name)), ...);
  return out;
}

// +-inf, +-infinity or nan in any case: 1 or -1 for the infinities, 0 for NaN, 2 for neither.
int special_value(std::string_view text) {
  int sign = 1;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) sign = text[0] == '-' ? -1 : 1, text.remove_prefix(1);
  std::string lower;
  for (char c : text) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "inf" || lower == "infinity") return sign;
  return lower == "nan" ? 0 : 2;
}

// [+-]digits[.digits][(e|E)[+-]digits], at least one digit in the mantissa: the grammar the
// IEEE types accept through from_chars. Guards strtoflt128 and Boost's parser, which would skip
// leading blanks, accept hexadecimal, or read "1e" as 1.
bool looks_decimal(std::string_view t) {
  std::size_t i = 0, digits = 0;
  auto run_of_digits = [&] {
    std::size_t n = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++n;
    return n;
  };
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  digits += run_of_digits();
  if (i < t.size() && t[i] == '.') ++i, digits += run_of_digits();
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (run_of_digits() == 0) return false;
  }
  return i == t.size();
}

// A decimal text (looks_decimal, exponent of at most nine digits) whose mantissa has more than 700
// significant digits, as 0.DDD...e<exponent> with the first 700 and a 1 behind them where a nonzero
// digit was cut: Boost reads every digit (microseconds each at 2200 bits) though digits beyond the
// 666th cannot move its rounding. Other texts unchanged.
std::string shortened_mantissa(std::string s) {
  constexpr std::size_t kept = 700;
  const std::size_t begin = s.front() == '+' || s.front() == '-' ? 1 : 0;
  const std::size_t e = s.find_first_of("eE");
  std::string digits = s.substr(begin, e == std::string::npos ? std::string::npos : e - begin);
  const std::size_t point = digits.find('.');
  const long long point_at = static_cast<long long>(point == std::string::npos ? digits.size() : point);
  if (point != std::string::npos) digits.erase(point, 1);
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos || digits.size() - first <= kept) return s;
  const bool cut_nonzero = digits.find_first_not_of('0', first + kept) != std::string::npos;
  const long long exponent = (e == std::string::npos ? 0 : std::stoll(s.substr(e + 1))) + point_at - static_cast<long long>(first);
  return s.substr(0, begin) + "0." + digits.substr(first, kept) + (cut_nonzero ? "1" : "") + "e" +
         std::to_string(std::clamp(exponent, -999'999'999LL, 999'999'999LL));
}

// A text in Boost.Multiprecision's type Number: inf and nan in any case, else our decimal grammar. A
// zero keeps its sign and an exponent of more than nine digits saturates: Boost drops the one and
// reads the other into an integer without an overflow check (10^+-999999999 is 0 or inf here anyway).
template <class Number>
Number read_decimal(std::string_view text, std::string_view what) {
  if (const int special = special_value(text); special != 2)
    return special == 0 ? std::numeric_limits<Number>::quiet_NaN() : special * std::numeric_limits<Number>::infinity();
  if (!looks_decimal(text)) not_a_number(text, what);
  std::string s(text);
  if (const auto e = s.find_first_of("eE"); e != std::string::npos) {
    const auto lead = s.find_first_not_of("+-0", e + 1);
    if (lead != std::string::npos && s.size() - lead > 9) s.replace(lead, std::string::npos, "999999999");
  }
  s = shortened_mantissa(std::move(s));
  try {
    const Number v(s);
    return v == 0 && s.front() == '-' ? Number(-v) : v;
  } catch (const std::exception&) {
    not_a_number(text, what);
  }
}
}  // namespace

std::string quoted_excerpt(std::string_view text) {
  constexpr std::size_t shown = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < std::min(text.size(), shown); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      constexpr char hex[] = "0123456789abcdef";
      out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
    }
  }
  out += "'";
  if (text.size() > shown) out += "... (" + std::to_string(text.size()) + " characters)";
  return out;
}

const char* const kDecimalExamples = "0.25, -3, 1e-3 or 2.5E+4";

void not_a_number(std::string_view text, std::string_view what) {
  throw InputError(std::string(what) + ": " + quoted_excerpt(text) + " is not a number (write it in decimal notation: " +
                   kDecimalExamples + "; not as a fraction or a power)");
}

std::string precision_names() { return names_of(static_cast<Precisions*>(nullptr)); }

// dd and qd through Boost.Multiprecision at 2200 bits, where the sum of any four doubles is exact (their
// exponents span at most 2098 + 53 bits): formatting rounds once, to decimal. Parsing rounds to 2200
// bits and then each term to double, as exact arithmetic would for every text of up to 338 significant
// digits: such a text hits a rounding boundary of a term (a multiple of 2^-1075) or misses it by more
// than 2^-2198 of its value, which 2200 bits resolve. (Boost reads no more than 666 digits.)
namespace {
using exact_binary = boost::multiprecision::number<
    boost::multiprecision::cpp_bin_float<2200, boost::multiprecision::digit_base_2>, boost::multiprecision::et_off>;

// The double nearest to v, then the double nearest to what is left, and so on. Once what is left
// rounds to zero, or a term is zero, inf or nan, the remaining terms are +0.
template <std::size_t N>
std::array<double, N> nearest_terms(exact_binary v) {
  std::array<double, N> terms{};
  for (std::size_t i = 0; i < N; ++i) {
    const double term = static_cast<double>(v);
    if (i > 0 && term == 0) break;
    terms[i] = term;
    if (term == 0 || !std::isfinite(term)) break;
    v -= term;
  }
  return terms;
}

// v to `digits` significant digits, half to even, trailing zeros dropped: "5e-01", "-1.25e+02".
std::string scientific(const exact_binary& v, int digits) {
  // str(0) would mean all digits: one digit goes through the general format ("0.5"), read back exactly.
  std::string text = digits > 1 ? v.str(digits - 1, std::ios_base::scientific)
                                : exact_binary(v.str(1, {})).str(1, std::ios_base::scientific);
  const auto e = text.find('e');
  auto last = text.find_last_not_of('0', e - 1);
  if (text[last] == '.') --last;
  text.erase(last + 1, e - last - 1);
  return text;
}
}  // namespace

std::string RealTraits<dd>::format(dd x) {
  if (x.hi == 0 && x.lo == 0) return std::signbit(x.hi) ? "-0" : "0";
  x = dd::sum(x.hi, x.lo);  // hi the double nearest the value, as dd arithmetic leaves it (x itself, then)
  if (!isfinite(x)) return isnan(x) ? "nan" : x.hi < 0 ? "-inf" : "inf";
  const exact_binary v = exact_binary(x.hi) + x.lo;
  auto reads_back = [&](const exact_binary& t) {
    const auto [hi, lo] = nearest_terms<2>(t);
    return hi == x.hi && lo == x.lo;
  };
  // What reads back as x lies within half an ulp of lo from v (of the smallest subnormal, if lo = 0).
  const int reach_exponent = x.lo == 0 ? -1075 : std::max(std::ilogb(x.lo), -1022) - 53;
  const exact_binary reach = ldexp(exact_binary(1), reach_exponent);
  // The texts that read back as x form an interval around v, lopsided where lo is a power of two or
  // +-ulp(hi)/2. So a text of `digits` digits reads back if and only if the nearest one does or the
  // one next to it on the far side of v does; and if one of n digits does, one of n + 1 digits does.
  auto text_of = [&](int digits) -> std::optional<std::string> {
    const std::string nearest = scientific(v, digits);
    const exact_binary t(nearest);
    if (reads_back(t)) return nearest;
    // The unit of the last digit in v's decade (t may have rounded up to the next power of ten).
    int unit_e10 = std::stoi(nearest.substr(nearest.find('e') + 1)) - digits + 1;
    if (abs(t) > abs(v) && (nearest.rfind("1e", 0) == 0 || nearest.rfind("-1e", 0) == 0)) --unit_e10;
    // The far one lies no nearer v than t does, nor than half a unit: out of reach if either is beyond
    // 2 reach (room for the roundings to 2200 bits).
    if (abs(t - v) > 2 * reach || unit_e10 > reach_exponent * std::log10(2.0) + 1) return std::nullopt;
    const exact_binary unit("1e" + std::to_string(unit_e10));
    const std::string far = scientific(t < v ? t + unit : t - unit, digits);
    return reads_back(exact_binary(far)) ? std::optional(far) : std::nullopt;
  };
  // Bracket the least count of digits that reads back, then bisect. Where lo is not 0, `guess`, the
  // count whose last digit is worth about `reach`, nearly always reads back and guess - 2 seldom does.
  const int guess = static_cast<int>(std::floor(std::log10(std::fabs(x.hi)) - reach_exponent * std::log10(2.0))) + 1;
  int fails = std::clamp(guess - 2, 0, 698), works = fails + 2;
  std::optional<std::string> shortest;
  if (fails > 0 && (shortest = text_of(fails))) {
    works = fails, fails = 0;
  } else {
    while (!(shortest = text_of(works))) {
      if (works == 700) return scientific(v, works);  // not reached: a text of at most 650 digits reads back
      fails = works;
      works = std::min(works + 1 + works / 4, 700);
    }
  }
  while (works - fails > 1) {
    const int mid = (fails + works) / 2;
    if (auto text = text_of(mid))
      works = mid, shortest = std::move(text);
    else
      fails = mid;
  }
  return *shortest;
}

dd RealTraits<dd>::parse(std::string_view text, std::string_view what) {
  const auto [hi, lo] = nearest_terms<2>(read_decimal<exact_binary>(text, what));
  return dd(hi, lo);
}

std::string RealTraits<qd>::format(const qd& x) {
  if (!isfinite(x)) return isnan(x) ? "nan" : x.x[0] < 0 ? "-inf" : "inf";
  exact_binary v = x.x[0];
  for (int i = 1; i < 4; ++i) v += x.x[i];
  // 66 significant digits resolve 2^-212 of the value; a qd with gaps between its terms needs more.
  for (int digits = 66;; digits += digits / 2) {
    const std::string text = scientific(v, digits);
    const auto t = nearest_terms<4>(exact_binary(text));
    if (digits > 700 || qd(t[0], t[1], t[2], t[3]) == x) return text;
  }
}

qd RealTraits<qd>::parse(std::string_view text, std::string_view what) {
  const auto t = nearest_terms<4>(read_decimal<exact_binary>(text, what));
  return qd(t[0], t[1], t[2], t[3]);
}

std::string RealTraits<quad>::format(quad x) {
  char buf[64];
  quadmath_snprintf(buf, sizeof buf, "%.36Qg", x);
  return buf;
}

quad RealTraits<quad>::parse(std::string_view text, std::string_view what) {
  if (const int special = special_value(text); special != 2) return special == 0 ? nanq("") : special * RealTraits<quad>::infinity();
  const std::string s(text);
  if (!looks_decimal(s)) not_a_number(text, what);
  char* end = nullptr;
  const quad x = strtoflt128(s.c_str(), &end);
  if (end != s.c_str() + s.size()) not_a_number(text, what);
  return x;
}

std::string RealTraits<mp50>::format(const mp50& x) {
  return x.str(std::numeric_limits<mp50>::max_digits10, std::ios_base::scientific);
}

mp50 RealTraits<mp50>::parse(std::string_view text, std::string_view what) {
  return read_decimal<mp50>(text, what);
}

}  // namespace nbody
