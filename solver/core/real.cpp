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
