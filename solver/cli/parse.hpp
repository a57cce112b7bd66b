#pragma once
// Parsing of the numeric flags shared by the subcommands, in the run's precision T.
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/real.hpp"
#include "engines/request.hpp"
#include "physics/force_law.hpp"
#include "physics/tree_params.hpp"

#include <nlohmann/json.hpp>

namespace nbody::cli {

// --box of the short-range commands: L (a cube) or Lx,Ly,Lz.
inline std::array<double, 3> box_sides(const std::vector<double>& box) {
  if (box.size() == 1) return {box[0], box[0], box[0]};
  if (box.size() == 3) return {box[0], box[1], box[2]};
  throw InputError("--box takes L or Lx,Ly,Lz, got " + std::to_string(box.size()) + " values");
}

template <class T>
T parse_number(const std::string& text, const std::string& flag) {
  const T x = RealTraits<T>::parse(text, flag);
  if (!is_finite(x)) throw InputError(flag + ": " + quoted_excerpt(text) + " is not a finite number");
  return x;
}

template <class T>
T parse_positive(const std::string& text, const std::string& flag) {
  const T x = parse_number<T>(text, flag);
  if (!(x > T(0))) throw InputError(flag + " must be positive, got " + quoted_excerpt(text));
  return x;
}

template <class T>
T parse_non_negative(const std::string& text, const std::string& flag) {
  const T x = parse_number<T>(text, flag);
  if (!(x >= T(0))) throw InputError(flag + " must be >= 0, got " + quoted_excerpt(text));
  return x;
}


// CLI11's check of an integer flag: its text is a whole number (digits, a sign) from lo to hi.
// CLI11's own conversion would wrap "-1" into an unsigned flag and clamp a number that overflows.
template <class Int>
CLI::Validator whole_number(Int lo = std::numeric_limits<Int>::min(), Int hi = std::numeric_limits<Int>::max()) {
  std::string range;
  if (hi != std::numeric_limits<Int>::max() || std::is_unsigned_v<Int>)
    range = " from " + std::to_string(lo) + " to " + std::to_string(hi);
  else if (lo != std::numeric_limits<Int>::min())
    range = " of at least " + std::to_string(lo);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const char* b = text.data();
        const char* e = b + text.size();
        if (e - b > 1 && *b == '+' && b[1] != '-') ++b;
        Int v{};
        const auto r = std::from_chars(b, e, v);
        if (r.ec == std::errc() && r.ptr == e && v >= lo && v <= hi) return {};
        return quoted_excerpt(text) + " is not a whole number" + range;
      },
      "");  // --help shows the type (INT, UINT) already
}

// CLI11's check of a real flag that must be positive (or, with zero_allowed, not negative), in one
// short line: CLI::PositiveNumber's message prints the whole range of double.
inline CLI::Validator positive_real(bool zero_allowed = false) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || std::isnan(v)) return quoted_excerpt(text) + " is not a number";
        if (v > 0 || (zero_allowed && v == 0)) return {};
        return std::string(zero_allowed ? "must not be negative" : "must be positive") + ", got " + quoted_excerpt(text);
      },
      zero_allowed ? "NONNEGATIVE" : "POSITIVE");
}

// A tree parameter's text into its field of o, within its bounds (tree_params).
inline void parse_tree_param(const TreeParam& p, const std::string& text, TreeOptions& o) {
  const std::string flag(p.flag);
  const auto refuse = [&] {
    throw InputError(flag + " must be " + valid_text(p) + ", got " + quoted_excerpt(text) + (p.why.empty() ? "" : ": ") +
                     std::string(p.why));
  };
  if (const auto* real = std::get_if<RealValue>(&p.value)) {
    const double x = std::isinf(real->hi) && text == "inf" ? real->hi : parse_number<double>(text, flag);
    if (!(x >= real->lo && x <= real->hi)) refuse();
    o.*real->field = x;
  } else if (const auto* whole = std::get_if<WholeValue>(&p.value)) {
    unsigned k = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), k);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || k < whole->lo || k > whole->hi) refuse();
    o.*whole->field = k;
  } else {
    const auto& choice = std::get<ChoiceValue>(p.value);
    if (text != choice.words[0] && text != choice.words[1]) refuse();
    o.*choice.field = text == choice.words[1];
  }
}

template <class T>
ForceLaw<T> parse_force_law(const ForceOptions& f) {
  ForceLaw<T> law;
  law.G = parse_positive<T>(f.G, "--G");
  const T eps = parse_non_negative<T>(f.eps, "--eps");
  const T r_min = parse_non_negative<T>(f.r_min, "--r-min");
  law.eps2 = eps * eps;
  law.rmin2 = r_min * r_min;
  for (std::size_t k = 0; k < tree_params.size(); ++k)
    if (!f.tree[k].empty()) parse_tree_param(tree_params[k], f.tree[k], law.tree);
  return law;
}

// --engine and --launch as given, with the tree parameters given: what resolve_engine resolves.
inline EngineRequest engine_request(const std::string& engine, const std::string& launch, const ForceOptions& f) {
  EngineRequest r{engine, launch, {}};
  for (std::size_t k = 0; k < tree_params.size(); ++k)
    if (!f.tree[k].empty()) r.tree_given.push_back(&tree_params[k]);
  return r;
}

// The force law's flags, each under its key (key_of its flag): a run's identity, the provenance.
constexpr auto force_fields = [](auto& f, auto&& field) {
  field("G", f.G), field("eps", f.eps), field("r_min", f.r_min);
  for (std::size_t k = 0; k < tree_params.size(); ++k) field(key_of(tree_params[k].flag), f.tree[k]);
};

// The flags given (the tree's only when given).
inline nlohmann::json to_json(const ForceOptions& f) {
  nlohmann::json j = nlohmann::json::object();
  force_fields(f, [&](const std::string& key, const std::string& value) {
    if (!value.empty()) j[key] = value;
  });
  return j;
}

inline nlohmann::json to_json(const IcParams& ic) {
  nlohmann::json j = {{"ic", ic.name},  {"n", ic.n ? nlohmann::json(*ic.n) : nlohmann::json()},
                      {"seed", ic.seed}, {"a", ic.a},
                      {"e", ic.e},       {"mass_ratio", ic.mass_ratio},
                      {"box", ic.box}};
  if (ic.name == "galaxy") j["central_fraction"] = ic.central_fraction;  // the other runs keep their identity
  return j;
}

}  // namespace nbody::cli
