#pragma once
// Real types and their traits. Everything numeric in the solver is a template over T; the run-time
// choice `--precision NAME` maps to one T through dispatch_precision.
// Adding a type means: its math functions (sqrt, abs, pow, sin, cos, fmod, floor, isfinite)
// findable unqualified from namespace nbody, a RealTraits specialisation here, and one entry in
// Precisions and NBODY_FOR_EACH_PRECISION; the explicit instantiations follow from the macro.
//
// Generic code calls math functions unqualified (`sqrt(x)`, see common/real_math.hpp) and takes
// limits from RealTraits<T> (std::numeric_limits is not specialised for __float128 or dd).
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>

#include <quadmath.h>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include "common/double_double.hpp"
#include "common/quad_double.hpp"
#include "common/real_math.hpp"
#include "error.hpp"

namespace nbody {

template <class T>
struct RealTraits;

// Text from a user or a file, for a message: in single quotes, bytes other than printable ASCII
// as \xNN, and cut to its first 40 characters (then "..." and its length) so that a binary file
// or a long line never floods the terminal.
std::string quoted_excerpt(std::string_view text);
// The decimal notation every real type reads, for messages: "0.25, -3, 1e-3 or 2.5E+4".
extern const char* const kDecimalExamples;
// Throws InputError("WHAT: 'TEXT' is not a number (...the accepted notation)").
[[noreturn]] void not_a_number(std::string_view text, std::string_view what);

// float and double: shortest text is not enough for a file format other programs read, so we
// write max_digits10 significant digits (9 / 17), which round-trips exactly, and parse with
// from_chars, which is correctly rounded.
template <class T>
struct IeeeTraits {
  static constexpr int digits = std::numeric_limits<T>::digits;  // significand bits
  static constexpr T epsilon() { return std::numeric_limits<T>::epsilon(); }
  static constexpr T infinity() { return std::numeric_limits<T>::infinity(); }
  static constexpr T max() { return std::numeric_limits<T>::max(); }
  static constexpr int digits10_out = std::numeric_limits<T>::max_digits10;
  static std::string format(T x) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, digits10_out);
    return std::string(buf, r.ptr);
  }
  // Parses the whole of `text` or throws; `what` names the quantity in the error message.
  static T parse(std::string_view text, std::string_view what) {
    T x{};
    const char* b = text.data();
    const char* e = b + text.size();
    if (e - b > 1 && *b == '+' && b[1] != '-') ++b;  // from_chars refuses a leading '+' (and "+-1" stays refused)
    auto r = std::from_chars(b, e, x);
    if (r.ptr != e || b == e || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)) not_a_number(text, what);
    // A number beyond the range of T reads as the other types read it: +-inf, or +-0 where it
    // underflows (from_chars leaves x alone there; strtod and strtof round correctly).
    if (r.ec == std::errc::result_out_of_range) {
      const std::string s(b, e);
      x = std::is_same_v<T, float> ? std::strtof(s.c_str(), nullptr) : std::strtod(s.c_str(), nullptr);
    }
    return x;
  }
};

template <>
struct RealTraits<float> : IeeeTraits<float> {
  static constexpr std::string_view name = "float";
  static constexpr std::string_view description = "IEEE binary32 (24-bit significand, ~7 digits)";
};
template <>
struct RealTraits<double> : IeeeTraits<double> {
  static constexpr std::string_view name = "double";
  static constexpr std::string_view description = "IEEE binary64 (53-bit significand, ~16 digits)";
};

// ---- double-double (common/double_double.hpp) ----
template <>
struct RealTraits<dd> {
  static constexpr std::string_view name = "dd";
  static constexpr std::string_view description = "double-double (~106-bit significand, ~32 digits), FMA error-free transformations";
  static constexpr int digits = 106;
  static constexpr dd epsilon() { return dd(4.93038065763132378e-32); }  // 2^-104, as libqd's dd_real
  static constexpr dd infinity() { return dd(std::numeric_limits<double>::infinity()); }
  static constexpr dd max() { return dd(std::numeric_limits<double>::max()); }
  static std::string format(dd x);                             // shortest text that reads back exactly
  static dd parse(std::string_view text, std::string_view what);  // hi the double nearest the value, lo the one nearest the rest
};

// ---- quad-double (common/quad_double.hpp) ----
template <>
struct RealTraits<qd> {
  static constexpr std::string_view name = "qd";
  static constexpr std::string_view description = "quad-double (~212-bit significand, ~64 digits), libqd's algorithms on FMA; CUDA kernels";
  static constexpr int digits = 212;
  static constexpr qd epsilon() { return qd(1.21543267145725e-63); }  // 2^-209, as libqd's qd_real
  static constexpr qd infinity() { return qd(std::numeric_limits<double>::infinity()); }
  static constexpr qd max() { return qd(std::numeric_limits<double>::max()); }
  static std::string format(const qd& x);  // shortest text of >= 66 digits that reads back exactly
  static qd parse(std::string_view text, std::string_view what);  // the nearest doubles, one after the other
};

// ---- __float128 (GCC, libquadmath) ----
using quad = __float128;
inline quad sqrt(quad x) { return sqrtq(x); }
inline quad abs(quad x) { return fabsq(x); }
inline quad pow(quad x, quad y) { return powq(x, y); }
inline quad sin(quad x) { return sinq(x); }
inline quad cos(quad x) { return cosq(x); }
inline quad fmod(quad x, quad y) { return fmodq(x, y); }
inline quad floor(quad x) { return floorq(x); }
inline bool isfinite(quad x) { return finiteq(x); }

template <>
struct RealTraits<quad> {
  static constexpr std::string_view name = "quad";
  static constexpr std::string_view description = "IEEE binary128 in software (__float128, libquadmath; 113-bit significand, ~34 digits)";
  static constexpr int digits = FLT128_MANT_DIG;
  static quad epsilon() { return ldexpq(1, 1 - FLT128_MANT_DIG); }  // (FLT128_EPSILON needs GNU literals)
  static quad infinity() { return quad(std::numeric_limits<double>::infinity()); }  // (clang has no HUGE_VALQ)
  static quad max() { return ldexpq(2 - epsilon(), FLT128_MAX_EXP - 1); }
  static std::string format(quad x);  // 36 significant digits: reads back exactly
  static quad parse(std::string_view text, std::string_view what);
};

// ---- Boost.Multiprecision, 50 decimal digits (168-bit significand) ----
// Without expression templates, so that `auto` and generic code behave as for double.
using mp50 = boost::multiprecision::number<boost::multiprecision::cpp_bin_float<50>, boost::multiprecision::et_off>;

template <>
struct RealTraits<mp50> {
  static constexpr std::string_view name = "mp50";
  static constexpr std::string_view description = "Boost.Multiprecision cpp_bin_float_50 (168-bit significand, 50 digits), in software";
  static constexpr int digits = std::numeric_limits<mp50>::digits;
  static mp50 epsilon() { return std::numeric_limits<mp50>::epsilon(); }
  static mp50 infinity() { return std::numeric_limits<mp50>::infinity(); }
  static mp50 max() { return (std::numeric_limits<mp50>::max)(); }
  static std::string format(const mp50& x);  // max_digits10 significant digits: reads back exactly
  static mp50 parse(std::string_view text, std::string_view what);
};

// The precisions this build supports, in the order `nbody list precisions` shows them.
using Precisions = std::tuple<float, double, dd, qd, quad, mp50>;
// For explicit instantiations: NBODY_FOR_EACH_PRECISION(M) expands M(T) for every T above.
#define NBODY_FOR_EACH_PRECISION(M) M(float) M(double) M(::nbody::dd) M(::nbody::qd) M(::nbody::quad) M(::nbody::mp50)

template <class T>
bool is_finite(const T& x) {
  return isfinite(x);  // unqualified: nbody's overloads, or the type's own by ADL
}

// A constant given as decimal text (e.g. pi to 60 digits), correctly rounded to T.
template <class T>
T constant(std::string_view digits) {
  return RealTraits<T>::parse(digits, "constant");
}

// pi correctly rounded to T (std::numbers::pi_v exists only for the built-in types).
template <class T>
const T& pi() {
  static const T value = constant<T>(
      "3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679");
  return value;
}

// Calls f.template operator()<T>() with the T whose name is `name`; throws on an unknown name.
template <class F>
decltype(auto) dispatch_precision(std::string_view name, F&& f);

// Comma-separated list of precision names, for messages and --help.
std::string precision_names();

namespace detail {
template <class F, class... Ts>
decltype(auto) dispatch_in(std::string_view name, F&& f, std::tuple<Ts...>*) {
  using R = decltype(f.template operator()<std::tuple_element_t<0, std::tuple<Ts...>>>());
  if constexpr (std::is_void_v<R>) {
    bool found = ((name == RealTraits<Ts>::name ? (f.template operator()<Ts>(), true) : false) || ...);
    if (!found) throw InputError("unknown precision '" + std::string(name) + "' (valid: " + precision_names() + ")");
  } else {
    R result{};
    bool found = ((name == RealTraits<Ts>::name ? (result = f.template operator()<Ts>(), true) : false) || ...);
    if (!found) throw InputError("unknown precision '" + std::string(name) + "' (valid: " + precision_names() + ")");
    return result;
  }
}
}  // namespace detail

template <class F>
decltype(auto) dispatch_precision(std::string_view name, F&& f) {
  return detail::dispatch_in(name, std::forward<F>(f), static_cast<Precisions*>(nullptr));
}

}  // namespace nbody
