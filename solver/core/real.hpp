#pragma once
// Real types and their traits. Everything numeric in the solver is a template over T; the run-time
// choice `--precision NAME` maps to one T through for_each_precision / dispatch_precision.
// Adding a type (double-double, __float128, Boost.Multiprecision) means: a RealTraits
// specialisation here, one entry in Precisions, and an explicit instantiation file.
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>

#include "error.hpp"

namespace nbody {

template <class T>
struct RealTraits;

// float and double: shortest text is not enough for a file format other programs read, so we
// write max_digits10 significant digits (9 / 17), which round-trips exactly, and parse with
// from_chars, which is correctly rounded.
template <class T>
struct IeeeTraits {
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
    if (b != e && *b == '+') ++b;  // from_chars refuses a leading '+'
    auto r = std::from_chars(b, e, x);
    if (r.ec != std::errc() || r.ptr != e || b == e)
      throw InputError(std::string(what) + ": '" + std::string(text) + "' is not a number");
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

// The precisions this build supports, in the order `nbody list precisions` shows them.
using Precisions = std::tuple<float, double>;

template <class T>
bool is_finite(T x) {
  using std::isfinite;
  return isfinite(x);
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
