#pragma once
// The parameters of the tree engines' approximation (TreeOptions), one row each: its flag, what it
// means, the trees it steers, its values (bounds or words) and its field of TreeOptions. Parsing
// (cli/parse.hpp), --help, `nbody list engines`, a run's identity, the provenance, the check of an
// engine against the parameters given and the engines' method texts (opening_text) all read this
// table: a new parameter is a field of TreeOptions and a row here.
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "physics/force_law.hpp"

namespace nbody {

// A set of tree kinds, a bit each: the trees a parameter steers.
constexpr unsigned tree_bit(TreeKind k) { return 1u << static_cast<unsigned>(k); }

// A real number from lo to hi; where hi is infinite, the text "inf" too.
struct RealValue {
  double TreeOptions::*field;
  double lo, hi;
};
// A whole number from lo to hi; the field's 0 (not given) leaves the choice to the engine.
struct WholeValue {
  unsigned TreeOptions::*field;
  unsigned lo, hi;
};
// One of two words: the first leaves the field false (its default), the second sets it.
struct ChoiceValue {
  bool TreeOptions::*field;
  std::array<std::string_view, 2> words;
};

struct TreeParam {
  std::string_view flag;
  unsigned trees;            // the tree kinds it steers (tree_bit)
  std::string_view meaning;  // for --help and `nbody list engines --json`
  std::variant<RealValue, WholeValue, ChoiceValue> value;
  std::string_view why = {};  // why values outside the bounds are refused, for the message
};

// In the order the messages list them: the kd-tree's, the octree's, then those of both.
inline constexpr std::array tree_params = {
    TreeParam{"--lambda-crit", tree_bit(TreeKind::kdtree),
              "a node is taken whole when |r - r_com| > lambda r_node, r_node the largest distance of its bodies from "
              "their centre of mass (opening angle 1/lambda; Barnes-Hut's theta ~ 2/lambda; S0 used 10 and 4); inf opens "
              "every node",
              RealValue{&TreeOptions::lambda_crit, 1, std::numeric_limits<double>::infinity()},
              "below 1 a node that holds the body itself could be taken whole"},
    TreeParam{"--split-axis", tree_bit(TreeKind::kdtree),
              "the axis a node is split along: cycle takes x, y, z by depth (as S0), longest the node's longest side",
              ChoiceValue{&TreeOptions::longest_axis, {"cycle", "longest"}}},
    TreeParam{"--theta", tree_bit(TreeKind::octree),
              "a cell of side l is taken whole when its centre of mass is farther than l/theta + delta, delta the "
              "distance of the centre of mass from the cell's centre (S4's rule and value); 0 opens every cell: direct "
              "sums",
              RealValue{&TreeOptions::theta, 0, 1}, "above 1 a cell could be taken whole by a body inside it"},
    TreeParam{"--moments", tree_bit(TreeKind::octree),
              "what a cell taken whole adds: monopole its mass at its centre of mass (as S4), quadrupole its quadrupole "
              "moment too",
              ChoiceValue{&TreeOptions::quadrupole, {"monopole", "quadrupole"}}},
    TreeParam{"--leaf-size", tree_bit(TreeKind::kdtree) | tree_bit(TreeKind::octree),
              "at most this many bodies per leaf (S0's and S4's: 1)", WholeValue{&TreeOptions::leaf_size, 1, 4096}},
};

inline bool steers(const TreeParam& p, TreeKind tree) { return (p.trees & tree_bit(tree)) != 0; }

// The values it takes, as the messages say them: "at least 1 (or inf)", "from 0 to 1", "a whole
// number from 1 to 4096", "cycle or longest".
std::string valid_text(const TreeParam& p);

// Its value in `o` as text ("4", "0.5", "inf", "longest"); none where it is not set (a leaf size of
// 0: the engine's own).
std::optional<std::string> value_text(const TreeParam& p, const TreeOptions& o);

// The trees of a set, in words: "kd-tree", "octree", "kd-tree and octree".
std::string trees_text(unsigned trees);

}  // namespace nbody
