#pragma once
// The host build of seed S4's octree (kernels/common/octree.hpp): Morton keys in the bounding
// cube, a sort by key, the nodes level by level, then the moments from the leaves up. The CUDA
// build makes the same tree (tests/test_tree_engines.cpp compares their statistics).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "common/octree.hpp"
#include "core/error.hpp"
#include "core/real.hpp"
#include "engines/engine.hpp"
#include "physics/force_law.hpp"

namespace nbody::octree {

template <class T>
struct Tree {
  Cube<T> cube{};
  std::vector<T> node, mass, quad;                     // 4, 1 and 6 (or none) per node
  std::vector<unsigned> child, nchild, first, end;     // per node
  std::vector<unsigned> level;                         // per node
  std::vector<unsigned long long> key;                 // per body, in key order
  std::vector<unsigned> body;                          // key-order position -> body index
  std::vector<T> bx, by, bz, bm;                       // bodies in key order
  unsigned roots = 1;                                  // the cells it grew from: nodes 0 .. roots - 1

  Arrays<T> arrays() {
    return {node.data(),  mass.data(), quad.empty() ? nullptr : quad.data(),
            child.data(), nchild.data(), first.data(), end.data(), level.data(),
            key.data(),   bx.data(),   by.data(),   bz.data(),   bm.data()};
  }
  View<T> view() const {
    return {node.data(),  mass.data(),  quad.empty() ? nullptr : quad.data(),
            child.data(), nchild.data(), first.data(), end.data(),
            bx.data(),    by.data(),    bz.data(),    bm.data()};
  }
  TreeShape shape() const {
    TreeShape s;
    s.nodes = static_cast<unsigned>(child.size());
    for (unsigned i = 0; i < s.nodes; ++i) {
      s.depth = std::max(s.depth, level[i]);
      if (nchild[i] == 0) ++s.leaves, s.largest_leaf = std::max(s.largest_leaf, end[i] - first[i]), s.bodies += end[i] - first[i];
    }
    return s;
  }
};

// The leaf size of an octree engine: --leaf-size, or its own default.
inline unsigned leaf_size_or(const TreeOptions& o, unsigned engine_default) {
  return o.leaf_size ? o.leaf_size : engine_default;
}

// The least and greatest of the n values x[0 .. n) (0 and 0 for none); a value that is not finite
// is an error (no cell can hold it).
template <class T>
void coordinate_range(const T* x, std::size_t n, T& lo, T& hi) {
  lo = hi = n ? x[0] : T(0);
  for (std::size_t i = 0; i < n; ++i) {
    const T v = x[i];
    if (!isfinite(v)) throw RunError("a body's position is not finite: no tree can be built");
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
}

// The cube that holds n bodies (positions SoA x[n] y[n] z[n]); RunError if a position is not finite.
template <class T>
Cube<T> bounding_cube_of(const T* pos, std::size_t n) {
  T lo[3], hi[3];
  for (int a = 0; a < 3; ++a) coordinate_range(pos + a * n, n, lo[a], hi[a]);
  return bounding_cube(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
}

// A cell of the tree to grow from: its level and its bodies [first, end) in key order.
struct Seed {
  unsigned level, first, end;
};

// The n bodies (positions SoA x[n] y[n] z[n]) keyed in `cube` (which holds every body) and sorted
// into t by key, ties by index.
template <class T>
void sort_bodies(const T* pos, const T* mass, std::size_t n, const Cube<T>& cube, Tree<T>& t) {
  if (n >= std::size_t(1) << 31) throw InputError("tree engines take fewer than 2^31 bodies");
  t.cube = cube;
  std::vector<std::pair<unsigned long long, unsigned>> keyed(n);
  for (std::size_t i = 0; i < n; ++i)
    keyed[i] = {morton_key(pos[i], pos[n + i], pos[2 * n + i], t.cube), static_cast<unsigned>(i)};
  std::sort(keyed.begin(), keyed.end());
  t.key.resize(n), t.body.resize(n), t.bx.resize(n), t.by.resize(n), t.bz.resize(n), t.bm.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const unsigned i = keyed[j].second;
    t.key[j] = keyed[j].first, t.body[j] = i;
    t.bx[j] = pos[i], t.by[j] = pos[n + i], t.bz[j] = pos[2 * n + i], t.bm[j] = mass[i];
  }
}

// The nodes of t's sorted bodies below the cells `seeds` (nodes 0 .. seeds.size() - 1, t.roots of
// them; leaves of at most k bodies), then their moments: each cell's subtree as the whole tree's
// build makes it, so that the ranks of the distributed tree grow the parts of one tree.
template <class T>
void grow_cells(Tree<T>& t, const std::vector<Seed>& seeds, const TreeOptions& o, unsigned k) {
  t.roots = static_cast<unsigned>(seeds.size());
  t.child.assign(seeds.size(), 0), t.nchild.assign(seeds.size(), 0), t.first.clear(), t.end.clear(), t.level.clear();
  for (const Seed& c : seeds) t.first.push_back(c.first), t.end.push_back(c.end), t.level.push_back(c.level);
  // Nodes level by level: each node of one level splits its key range by octant.
  for (std::size_t i = 0; i < t.child.size(); ++i) {
    const unsigned l = t.level[i], b = t.first[i], e = t.end[i];
    if (e - b <= k || l == max_level) continue;
    unsigned start[9];
    t.nchild[i] = octants(t.key.data(), b, e, l, start);
    t.child[i] = static_cast<unsigned>(t.child.size());
    for (unsigned c = 0; c < t.nchild[i]; ++c)
      t.child.push_back(0), t.nchild.push_back(0), t.first.push_back(start[c]), t.end.push_back(start[c + 1]),
          t.level.push_back(l + 1);
  }
  const std::size_t nodes = t.child.size();
  t.node.assign(4 * nodes, T(0));
  t.mass.assign(nodes, T(0));
  if (o.quadrupole) t.quad.assign(6 * nodes, T(0));
  else t.quad.clear();
  // Moments from the leaves up: breadth-first order puts every child after its parent.
  const Arrays<T> a = t.arrays();
  for (std::size_t i = nodes; i-- > 0;) summarise(a, static_cast<unsigned>(i), t.cube, T(o.theta));
}

// Builds the octree of n bodies (positions SoA x[n] y[n] z[n]) into t, reusing its storage;
// leaves of at most k bodies.
template <class T>
void build_octree(const T* pos, const T* mass, std::size_t n, const TreeOptions& o, unsigned k, Tree<T>& t) {
  sort_bodies(pos, mass, n, bounding_cube_of(pos, n), t);
  grow_cells(t, {Seed{0, 0, static_cast<unsigned>(n)}}, o, k);
}

}  // namespace nbody::octree
