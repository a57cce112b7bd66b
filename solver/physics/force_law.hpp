#pragma once
// Parameters of the force law (see kernels/common/interaction.hpp for the formulas), and of the
// approximation of the tree engines (kernels/common/kdtree.hpp), which all-pairs engines ignore.
#include <limits>

namespace nbody {

// Barnes-Hut on seed S0's kd-tree: --lambda-crit, --leaf-size, --split-axis.
struct TreeOptions {
  double lambda_crit = 4;      // S0's lambda_crit (theta ~ 2 / lambda); infinity opens every node: direct sums
  unsigned leaf_size = 1;      // at most this many bodies per leaf (S0: 1)
  bool longest_axis = false;   // split along the longest side of a node's box; false: x, y, z by depth (S0)
};

template <class T>
struct ForceLaw {
  T G{1};      // gravitational constant
  T eps2{0};   // Plummer softening length squared (--eps, default 0: none)
  T rmin2{0};  // squared minimum distance of seed S0's clamp (--r-min, default 0: no clamp)
  bool compensated = false;  // --compensated forces|both: Neumaier sums over the pair terms
  TreeOptions tree;          // tree engines only
};

}  // namespace nbody
