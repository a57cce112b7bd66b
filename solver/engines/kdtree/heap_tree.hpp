#pragma once
// The host build of seed S0's kd-tree in its heap layout (kernels/common/kdtree.hpp): median
// splits by nth_element, the axis cycling x, y, z with depth or (an option) the longest side of the
// node's bounding box; leaves of at most k bodies; per node the mass, the centre of mass and
// crit2 = (lambda r_node)^2. The CUDA build (solver/engines/cuda/kdtree) makes the same tree.
//
// Ranks. Bodies are ordered along an axis by (coordinate + 0, body index): a total order, so that
// the bodies on each side of a split do not depend on the algorithm (nth_element here, sorted
// arrays on the GPU); + 0 makes -0 and +0 one key.
//
// Shape. With m = ceil(n / k) leaves, leaf number p of the in-order (left to right) holds the
// bodies of ranks [floor(p n / m), floor((p + 1) n / m)): between 1 and k of them. A node holds the
// bodies of its leaves, so it splits at the rank where its right subtree's first leaf begins.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "common/kdtree.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/real.hpp"
#include "physics/force_law.hpp"

namespace nbody::kdtree {

template <class T>
struct HeapTree {
  unsigned n = 0, m = 0;
  std::vector<T> node, mass;                     // 4 per node, 1 per node; index 0 unused
  std::vector<unsigned> leaf_first, leaf_last;   // per leaf
  std::vector<T> bx, by, bz, bm;                 // bodies in tree order
  std::vector<unsigned> body;                    // tree position -> body index
  std::vector<unsigned> position;                // body index -> tree position

  HeapView<T> view() const {
    return {node.data(), mass.data(), leaf_first.data(), leaf_last.data(), bx.data(), by.data(), bz.data(), bm.data(), m};
  }
};

// The first rank of in-order leaf p of m over n bodies.
inline unsigned leaf_rank(std::uint64_t p, std::uint64_t n, std::uint64_t m) { return static_cast<unsigned>(p * n / m); }

// For every node of the heap of m leaves over n bodies: its bodies' tree positions [first, end).
// Its split (the first position of its right child) is first[2i + 1].
struct HeapShape {
  std::vector<unsigned> first, end;
  HeapShape(unsigned n, unsigned m) : first(2 * std::size_t(m)), end(2 * std::size_t(m)) {
    std::vector<unsigned> first_leaf(2 * std::size_t(m)), leaves(2 * std::size_t(m));  // in in-order
    for (std::size_t i = 2 * std::size_t(m) - 1; i >= 1; --i) leaves[i] = i >= m ? 1 : leaves[2 * i] + leaves[2 * i + 1];
    for (std::size_t i = 1; i < m; ++i) {
      first_leaf[2 * i] = first_leaf[i];
      first_leaf[2 * i + 1] = first_leaf[i] + leaves[2 * i];
    }
    for (std::size_t i = 1; i < 2 * std::size_t(m); ++i) {
      first[i] = leaf_rank(first_leaf[i], n, m);
      end[i] = leaf_rank(first_leaf[i] + leaves[i], n, m);
    }
  }
};

// The order of bodies along an axis (coordinate c): (coordinate + 0, body index).
template <class T>
auto by_axis(const T* c) {
  return [c](unsigned p, unsigned q) {
    const T kp = c[p] + T(0), kq = c[q] + T(0);
    return kp < kq || (kp == kq && p < q);
  };
}

// Fills node, mass and crit2 of every node from the bodies in tree order (a node's bodies are the
// tree positions [rank of its first leaf, rank of its last leaf + 1)).
template <class T>
void summarise(HeapTree<T>& t, const HeapShape& shape, double lambda) {
  const std::ptrdiff_t nodes = 2 * std::ptrdiff_t(t.m);
  const HeapView<T> view = t.view();
  const bool open_all = lambda == std::numeric_limits<double>::infinity();
  const T l = open_all ? T(1) : T(lambda);
  for_each_index<16>(nodes - 1, t.n >= 4096, [&](std::ptrdiff_t k) {
    const std::ptrdiff_t i = k + 1;
    const Moments<T> c = moments(view, shape.first[i], shape.end[i]);
    t.node[4 * i] = c.x, t.node[4 * i + 1] = c.y, t.node[4 * i + 2] = c.z;
    t.node[4 * i + 3] = critical_distance2(c.r2, l, open_all);
    t.mass[i] = c.mass;
  });
}

// Builds the tree of n bodies (positions SoA x[n] y[n] z[n]) into t, reusing its storage.
template <class T>
void build_heap_tree(const T* pos, const T* mass, std::size_t n, const TreeOptions& o, HeapTree<T>& t) {
  if (n >= std::size_t(1) << 31) throw InputError("tree engines take fewer than 2^31 bodies");
  const T* axis_data[3] = {pos, pos + n, pos + 2 * n};
  for (std::size_t i = 0; i < 3 * n; ++i)
    if (!isfinite(pos[i])) throw RunError("a body's position is not finite: no tree can be built");
  const unsigned k = std::max(1u, o.leaf_size);
  t.n = static_cast<unsigned>(n);
  t.m = static_cast<unsigned>((n + k - 1) / k);
  const unsigned m = t.m;
  const HeapShape shape(t.n, m);
  t.body.resize(n);
  std::iota(t.body.begin(), t.body.end(), 0u);
  // Splits, level by level: the nodes of one level own disjoint ranges.
  for (unsigned level_first = 1; level_first < m; level_first *= 2) {
    const std::ptrdiff_t level_last = std::min<std::ptrdiff_t>(2 * std::ptrdiff_t(level_first), m);
    const unsigned depth = static_cast<unsigned>(std::bit_width(level_first) - 1);
    for_each_index<1>(level_last - level_first, n >= 4096 && level_last - level_first > 1, [&](std::ptrdiff_t k) {
      const std::ptrdiff_t i = level_first + k;
      const unsigned b = shape.first[i], e = shape.end[i], s = shape.first[2 * i + 1];
      unsigned axis = depth % 3;
      if (o.longest_axis) {
        T extent[3];
        for (unsigned a = 0; a < 3; ++a) {
          const T* c = axis_data[a];
          T lo = c[t.body[b]], hi = lo;
          for (unsigned j = b + 1; j < e; ++j) {
            const T v = c[t.body[j]];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
          }
          extent[a] = hi - lo;
        }
        axis = extent[1] > extent[0] ? 1 : 0;
        if (extent[2] > extent[axis]) axis = 2;
      }
      std::nth_element(t.body.begin() + b, t.body.begin() + s, t.body.begin() + e, by_axis(axis_data[axis]));
    });
  }
  // Within a leaf, the bodies in x order (the GPU build's order, so that both make the same tree
  // position for every body).
  for (unsigned i = m; i < 2 * m && k > 1; ++i) {
    std::sort(t.body.begin() + shape.first[i], t.body.begin() + shape.end[i], by_axis(pos));
  }
  t.position.resize(n);
  t.bx.resize(n), t.by.resize(n), t.bz.resize(n), t.bm.resize(n);
  for (unsigned j = 0; j < n; ++j) {
    const unsigned i = t.body[j];
    t.position[i] = j;
    t.bx[j] = pos[i], t.by[j] = pos[n + i], t.bz[j] = pos[2 * n + i], t.bm[j] = mass[i];
  }
  t.leaf_first.resize(m), t.leaf_last.resize(m);
  for (unsigned i = m; i < 2 * m; ++i) {
    t.leaf_first[i - m] = shape.first[i];
    t.leaf_last[i - m] = shape.end[i];
  }
  t.node.assign(8 * std::size_t(m), T(0));
  t.mass.assign(2 * std::size_t(m), T(0));
  summarise(t, shape, o.lambda_crit);
}

}  // namespace nbody::kdtree
