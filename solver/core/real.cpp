#include "real.hpp"

#include <cstdlib>

#include "common/double_double_io.hpp"

namespace nbody {

namespace {
template <class... Ts>
std::string names_of(std::tuple<Ts...>*) {
  std::string out;
  ((out += (out.empty() ? "" : ", ") + std::string(RealTraits<Ts>::name)), ...);
  return out;
}

[[noreturn]] void not_a_number(std::string_view text, std::string_view what) {
  throw InputError(std::string(what) + ": '" + std::string(text) + "' is not a number");
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
}  // namespace

std::string precision_names() { return names_of(static_cast<Precisions*>(nullptr)); }

std::string RealTraits<dd>::format(dd x) { return to_string(x, 0); }

dd RealTraits<dd>::parse(std::string_view text, std::string_view what) {
  if (auto v = parse_dd(text)) return *v;
  not_a_number(text, what);
}

// qd through Boost.Multiprecision at 2200 bits, where the sum of any four doubles is exact (their
// exponents span at most 2098 + 53 bits), so that both directions round only once per term.
namespace {
using exact_binary = boost::multiprecision::number<
    boost::multiprecision::cpp_bin_float<2200, boost::multiprecision::digit_base_2>, boost::multiprecision::et_off>;

// The double nearest to v, then the double nearest to what is left, four times.
qd nearest_qd(exact_binary v) {
  qd r;
  for (double& term : r.x) {
    term = static_cast<double>(v);
    if (!std::isfinite(term)) return qd(term);  // beyond the range of double
    v -= term;
  }
  return r;
}
}  // namespace

std::string RealTraits<qd>::format(const qd& x) {
  if (!isfinite(x)) return isnan(x) ? "nan" : x.x[0] < 0 ? "-inf" : "inf";
  exact_binary v = x.x[0];
  for (int i = 1; i < 4; ++i) v += x.x[i];
  // 66 significant digits resolve 2^-212 of the value; a qd with gaps between its terms needs more.
  for (int digits = 66;; digits += digits / 2) {
    std::string text = v.str(digits - 1, std::ios_base::scientific);  // digits after the point
    const auto e = text.find('e');
    auto last = text.find_last_not_of('0', e - 1);
    if (text[last] == '.') --last;
    text.erase(last + 1, e - last - 1);  // "5.000e-01" -> "5e-01"
    if (digits > 700 || nearest_qd(exact_binary(text)) == x) return text;
  }
}

qd RealTraits<qd>::parse(std::string_view text, std::string_view what) {
  if (const int special = special_value(text); special != 2)
    return special == 0 ? qd(std::numeric_limits<double>::quiet_NaN()) : qd(special * HUGE_VAL);
  const std::string s(text);
  if (!looks_decimal(s)) not_a_number(text, what);
  try {
    return nearest_qd(exact_binary(s));
  } catch (const std::exception&) {
    not_a_number(text, what);
  }
}

std::string RealTraits<quad>::format(quad x) {
  char buf[64];
  quadmath_snprintf(buf, sizeof buf, "%.36Qg", x);
  return buf;
}

quad RealTraits<quad>::parse(std::string_view text, std::string_view what) {
  if (const int special = special_value(text); special != 2) return special == 0 ? nanq("") : special * HUGE_VALQ;
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
  if (const int special = special_value(text); special != 2)
    return special == 0 ? std::numeric_limits<mp50>::quiet_NaN() : special * std::numeric_limits<mp50>::infinity();
  const std::string s(text);
  if (!looks_decimal(s)) not_a_number(text, what);
  try {
    return mp50(s);
  } catch (const std::exception&) {
    not_a_number(text, what);
  }
}

}  // namespace nbody
