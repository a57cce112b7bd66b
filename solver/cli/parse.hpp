#pragma once
// Parsing of the numeric flags shared by the subcommands, in the run's precision T.
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/real.hpp"
#include "engines/engine.hpp"
#include "mpi/ranks.hpp"
#include "physics/force_law.hpp"

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

template <class T>
ForceLaw<T> parse_force_law(const ForceOptions& f) {
  ForceLaw<T> law;
  law.G = parse_positive<T>(f.G, "--G");
  const T eps = parse_non_negative<T>(f.eps, "--eps");
  const T r_min = parse_non_negative<T>(f.r_min, "--r-min");
  law.eps2 = eps * eps;
  law.rmin2 = r_min * r_min;
  if (!f.lambda_crit.empty()) {
    const double lambda = f.lambda_crit == "inf" ? std::numeric_limits<double>::infinity()
                                                 : parse_number<double>(f.lambda_crit, "--lambda-crit");
    if (!(lambda >= 1))
      throw InputError("--lambda-crit must be at least 1 (or inf), got " + quoted_excerpt(f.lambda_crit) +
                       ": below 1 a node that holds the body itself could be taken whole");
    law.tree.lambda_crit = lambda;
  }
  if (!f.leaf_size.empty()) {
    unsigned k = 0;
    const auto r = std::from_chars(f.leaf_size.data(), f.leaf_size.data() + f.leaf_size.size(), k);
    if (r.ec != std::errc() || r.ptr != f.leaf_size.data() + f.leaf_size.size() || k < 1 || k > 4096)
      throw InputError("--leaf-size must be a whole number from 1 to 4096, got " + quoted_excerpt(f.leaf_size));
    law.tree.leaf_size = k;
  }
  if (!f.split_axis.empty()) {
    if (f.split_axis != "cycle" && f.split_axis != "longest")
      throw InputError("--split-axis must be cycle or longest, got " + quoted_excerpt(f.split_axis));
    law.tree.longest_axis = f.split_axis == "longest";
  }
  if (!f.theta.empty()) {
    const double theta = parse_number<double>(f.theta, "--theta");
    if (!(theta >= 0 && theta <= 1))
      throw InputError("--theta must be from 0 to 1, got " + quoted_excerpt(f.theta) +
                       ": above 1 a cell could be taken whole by a body inside it");
    law.tree.theta = theta;
  }
  if (!f.moments.empty()) {
    if (f.moments != "monopole" && f.moments != "quadrupole")
      throw InputError("--moments must be monopole or quadrupole, got " + quoted_excerpt(f.moments));
    law.tree.quadrupole = f.moments == "quadrupole";
  }
  return law;
}

// The tree flags belong to the engines of their tree: refused, naming them, with any other engine.
inline void check_tree_flags(const ForceOptions& f, TreeKind tree, std::string_view engine) {
  const std::string name(engine);
  if (tree == TreeKind::none && !(f.lambda_crit.empty() && f.leaf_size.empty() && f.split_axis.empty() &&
                                  f.theta.empty() && f.moments.empty()))
    throw InputError("--lambda-crit, --split-axis, --theta, --moments and --leaf-size are for the tree engines (`nbody "
                     "list engines`); '" + name + "' sums all pairs");
  if (tree == TreeKind::octree && !(f.lambda_crit.empty() && f.split_axis.empty()))
    throw InputError("--lambda-crit and --split-axis are for the kd-tree engines; '" + name +
                     "' walks an octree: --theta, --moments, --leaf-size");
  if (tree == TreeKind::kdtree && !(f.theta.empty() && f.moments.empty()))
    throw InputError("--theta and --moments are for the octree engines; '" + name +
                     "' walks a kd-tree: --lambda-crit, --split-axis, --leaf-size");
}

// Under mpiexec with several ranks every rank would run the whole computation with a local
// engine: refused, saying how to distribute it.
inline void check_engine_for_ranks(std::string_view engine) {
  if (mpi::size() > 1 && local_engine_name(engine) == engine)
    throw InputError("under mpiexec (" + std::to_string(mpi::size()) + " ranks) give --engine mpi:" + std::string(engine) +
                     " (or mpi-ring:" + std::string(engine) + "): each rank then computes its block of the bodies; " +
                     "with --engine " + std::string(engine) + " every rank would compute all of them");
}

// The flags given (the tree's only when given, so that a run without them keeps its identity).
inline nlohmann::json to_json(const ForceOptions& f) {
  nlohmann::json j = {{"G", f.G}, {"eps", f.eps}, {"r_min", f.r_min}};
  if (!f.lambda_crit.empty()) j["lambda_crit"] = f.lambda_crit;
  if (!f.leaf_size.empty()) j["leaf_size"] = f.leaf_size;
  if (!f.split_axis.empty()) j["split_axis"] = f.split_axis;
  if (!f.theta.empty()) j["theta"] = f.theta;
  if (!f.moments.empty()) j["moments"] = f.moments;
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
