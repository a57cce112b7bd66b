#pragma once
// Seed S0's kd-tree for Barnes-Hut, stored as a binary heap, and its walks (an explicit stack, or
// stackless), host and device: the CPU engines (solver/engines/kdtree/) and the CUDA kernels call
// these; the OpenCL kernels restate them in OpenCL C.
//
// Layout. A tree of m leaves has 2m - 1 nodes numbered from 1 as in a binary heap: node i has the
// children 2i and 2i + 1, nodes 1 .. m-1 are internal (both children exist), nodes m .. 2m-1 are
// leaves. Such a heap exists for every m, so any number of bodies works; S0 used the same
// numbering with 2m = 2N cells and needed N to be a power of two only because its build split
// every node into halves. Here a node's bodies are split at the rank that the heap's shape gives
// its left subtree (the median when m is a power of two; otherwise the left subtree holds between
// 1/2 and 2/3 of them): see solver/engines/kdtree/heap_tree.hpp. Each leaf holds at most k bodies
// (--leaf-size, S0: k = 1).
//   node[4i .. 4i+3]   centre of mass x, y, z and crit2 (below)     (S0's tree_cmx/cmy/cmz/crit_r2)
//   mass[i]            the node's mass
//   leaf_first/last    leaf i's bodies are tree positions [leaf_first[i-m], leaf_last[i-m])
//   bx, by, bz, bm     the bodies in tree order (in-order of the leaves: neighbours in space)
//
// Acceptance (S0): a node is taken whole, as a point of its mass at its centre of mass, when
//   |r - r_com|^2 > crit2 = (lambda r_node)^2,
// with r_node the largest distance from the centre of mass to a body of the node (the sphere about
// the centre of mass that holds them all; 0 for a leaf of one body) and lambda = --lambda-crit.
// This is the b_max criterion of Salmon and Warren with opening angle theta = 1/lambda: the
// node's bodies lie within an angle arcsin(1/lambda) seen from r. Barnes and Hut's theta = l/d (l
// the side of a cubic cell) is about 2/lambda, since a cell's bodies lie within about l/2 of its
// centre of mass: lambda = 4 is theta ~ 0.5. lambda >= 1 keeps a node that holds r from being
// taken whole (r lies within r_node of its centre). An opened leaf's bodies are summed directly,
// the target body itself left out; a leaf of one body is therefore the exact pair term.
//
// Order: both walks visit the nodes in pre-order, left child first, and add the same terms in the
// same order, so that every storage and walk gives the same bits for one tree.
#include "host_device.hpp"
#include "interaction.hpp"

namespace nbody::kdtree {

// Node 1 is the root; 0 is unused.
constexpr unsigned root = 1;

// The number of trailing one bits of i (i != ~0u).
NBODY_HD unsigned trailing_ones(unsigned i) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__ffs(static_cast<int>(~i)) - 1);
#else
  return static_cast<unsigned>(__builtin_ctz(~i));
#endif
}

// The node after i's subtree in pre-order (S0's skip_down): up while i is a right child, then to
// the right sibling; root when the walk is over. With find-first-set, no loop.
NBODY_HD unsigned skip(unsigned i) { return (i >> trailing_ones(i)) + 1; }

template <class T>
struct Node {
  T x, y, z, crit2;
};

// A tree's arrays, in host or device memory.
template <class T>
struct HeapView {
  const T* node;              // 4 per node
  const T* mass;              // 1 per node
  const unsigned* leaf_first; // per leaf, i - m
  const unsigned* leaf_last;
  const T *bx, *by, *bz, *bm; // bodies in tree order
  unsigned m;                 // number of leaves; nodes are 1 .. 2m-1
};

// Plain loads; the CUDA kernels pass their own (read-only path) with the same interface.
struct PlainLoad {
  template <class T>
  NBODY_HD static Node<T> node(const HeapView<T>& t, unsigned i) {
    return {t.node[4 * i], t.node[4 * i + 1], t.node[4 * i + 2], t.node[4 * i + 3]};
  }
  template <class T>
  NBODY_HD static T mass(const HeapView<T>& t, unsigned i) {
    return t.mass[i];
  }
};

// The target of a walk: its position and its own tree position (left out of leaf sums).
template <class T>
struct Target {
  T x, y, z;
  unsigned self;
};

// A node's moments from its bodies, at tree positions [first, last): its mass, its centre of mass
// (a lone body's own position exactly) and its squared radius r_node^2 (0 for one body).
template <class T>
struct Moments {
  T mass, x, y, z, r2;
};
template <class T>
NBODY_HD Moments<T> moments(const HeapView<T>& t, unsigned first, unsigned last) {
  if (last - first == 1) return {t.bm[first], t.bx[first], t.by[first], t.bz[first], T(0)};
  T M{0}, sx{0}, sy{0}, sz{0};
  for (unsigned j = first; j < last; ++j) {
    M += t.bm[j];
    sx += t.bm[j] * t.bx[j];
    sy += t.bm[j] * t.by[j];
    sz += t.bm[j] * t.bz[j];
  }
  const T cx = sx / M, cy = sy / M, cz = sz / M;
  T r2{0};
  for (unsigned j = first; j < last; ++j) {
    const T dx = t.bx[j] - cx, dy = t.by[j] - cy, dz = t.bz[j] - cz;
    const T d2 = dx * dx + dy * dy + dz * dz;
    if (d2 > r2) r2 = d2;
  }
  return {M, cx, cy, cz, r2};
}

// crit2 for a node of squared radius r2: 0 for a point (taken whole whenever r is elsewhere), and
// beyond any distance when every node is to be opened (lambda = infinity: direct summation); else
// (lambda r_node)^2, lambda given in T.
template <class T>
NBODY_HD T critical_distance2(const T& r2, const T& lambda, bool open_all) {
  if (!(r2 > T(0))) return T(0);
  if (open_all) return T(1.7976931348623157e308);  // the largest double
  return lambda * lambda * r2;
}

// Adds the bodies of tree positions [first, last), except self, to sum (an AccelerationSum or a
// PotentialSum, common/interaction.hpp). Returns the terms added.
template <class T, class Sum>
NBODY_HD unsigned leaf_sum(const HeapView<T>& t, unsigned first, unsigned last, const Target<T>& r, T eps2, T rmin2, Sum& sum) {
  unsigned terms = 0;
  for (unsigned j = first; j < last; ++j) {
    if (j == r.self) continue;
    sum.add(r.x, r.y, r.z, t.bx[j], t.by[j], t.bz[j], t.bm[j], eps2, rmin2);
    ++terms;
  }
  return terms;
}

// One node of a walk: taken whole (a point of its mass at its centre of mass: its term is a
// pair's), or (a leaf) summed directly; returns true when the walk goes past i's subtree, false
// when it descends into i's children.
template <class Load, class T, class Sum>
NBODY_HD bool visit(const HeapView<T>& t, unsigned i, const Target<T>& r, T eps2, T rmin2, Sum& sum, unsigned& terms) {
  const Node<T> c = Load::node(t, i);
  const T dx = c.x - r.x, dy = c.y - r.y, dz = c.z - r.z;
  if (dx * dx + dy * dy + dz * dz > c.crit2) {
    sum.add(r.x, r.y, r.z, c.x, c.y, c.z, Load::mass(t, i), eps2, rmin2);
    ++terms;
    return true;
  }
  if (i >= t.m) {
    terms += leaf_sum(t, t.leaf_first[i - t.m], t.leaf_last[i - t.m], r, eps2, rmin2, sum);
    return true;
  }
  return false;
}

// S0's heap walk with an explicit stack. The heap is at most 32 levels deep: 64 entries suffice.
template <class Load = PlainLoad, class T, class Sum>
NBODY_HD unsigned walk_stack(const HeapView<T>& t, const Target<T>& r, T eps2, T rmin2, Sum& sum) {
  unsigned stack[64];
  int top = 0;
  unsigned terms = 0;
  stack[top++] = root;
  while (top > 0) {
    const unsigned i = stack[--top];
    if (!visit<Load>(t, i, r, eps2, rmin2, sum, terms)) {
      stack[top++] = 2 * i + 1;
      stack[top++] = 2 * i;
    }
  }
  return terms;
}

// S0's stackless heap walk: next node by index arithmetic (descend: 2i; past a subtree: skip).
template <class Load = PlainLoad, class T, class Sum>
NBODY_HD unsigned walk_stackless(const HeapView<T>& t, const Target<T>& r, T eps2, T rmin2, Sum& sum) {
  unsigned terms = 0;
  unsigned i = root;
  do {
    i = visit<Load>(t, i, r, eps2, rmin2, sum, terms) ? skip(i) : 2 * i;
  } while (i != root);
  return terms;
}

}  // namespace nbody::kdtree
