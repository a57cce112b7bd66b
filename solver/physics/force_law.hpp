#pragma once
// Parameters of the force law (see kernels/common/interaction.hpp for the formulas), and of the
// approximation of the tree engines (kernels/common/kdtree.hpp), which all-pairs engines ignore.
#include <limits>
#include <string_view>

namespace nbody {

// Barnes-Hut: on seed S0's kd-tree and on seed S4's octree. Each field is a row of tree_params
// (physics/tree_params.hpp: its flag, bounds and trees); the defaults are the runs' without flags.
struct TreeOptions {
  double lambda_crit = 4;      // S0's lambda_crit (theta ~ 2 / lambda); infinity opens every node: direct sums
  unsigned leaf_size = 0;      // at most this many bodies per leaf; 0: the engine's own (kd-tree: 1, as S0)
  bool longest_axis = false;   // split along the longest side of a node's box; false: x, y, z by depth (S0)
  double theta = 0.5;          // S4's opening angle: taken whole when d > l / theta + delta; 0 opens every node
  bool quadrupole = false;     // octree nodes carry quadrupole moments; false: monopoles (S4)
};

// Barnes-Hut engines approximate; which tree says which parameters steer them (tree_params).
enum class TreeKind {
  none,    // sums all pairs
  kdtree,  // S0's kd-tree
  octree,  // S4's octree
};
inline std::string_view tree_name(TreeKind k) { return k == TreeKind::kdtree ? "kdtree" : k == TreeKind::octree ? "octree" : "none"; }
// In words: "kd-tree", "octree".
inline std::string_view tree_noun(TreeKind k) { return k == TreeKind::kdtree ? "kd-tree" : k == TreeKind::octree ? "octree" : "no tree"; }

template <class T>
struct ForceLaw {
  T G{1};      // gravitational constant
  T eps2{0};   // Plummer softening length squared (--eps, default 0: none)
  T rmin2{0};  // squared minimum distance of seed S0's clamp (--r-min, default 0: no clamp)
  bool compensated = false;  // --compensated forces|both: Neumaier sums over the pair terms
  TreeOptions tree;          // tree engines only
};

}  // namespace nbody
