#pragma once
// Seed S0's first storage of the kd-tree: nodes allocated one by one, linked by pointers to their
// children, walked with an explicit stack of pointers. It holds the same tree as the heap (it is
// made from it) and its walk adds the same terms in the same order (kernels/common/kdtree.hpp);
// what differs is where the nodes lie in memory.
#include <memory>
#include <vector>

#include "engines/kdtree/heap_tree.hpp"

namespace nbody::kdtree {

template <class T>
struct PointerNode {
  T x, y, z, crit2, mass;
  PointerNode* left = nullptr;
  PointerNode* right = nullptr;
  unsigned first = 0, last = 0;  // a leaf's bodies (tree positions); left == nullptr for a leaf
};

template <class T>
class PointerTree {
 public:
  // Allocates a node for each node of h, depth first, as S0's recursive build did.
  void build(const HeapTree<T>& h) {
    nodes_.clear();
    nodes_.reserve(2 * std::size_t(h.m));
    root_ = copy(h, root);
  }
  const PointerNode<T>* root_node() const { return root_; }

 private:
  PointerNode<T>* copy(const HeapTree<T>& h, unsigned i) {
    nodes_.push_back(std::make_unique<PointerNode<T>>());
    PointerNode<T>* p = nodes_.back().get();
    p->x = h.node[4 * i], p->y = h.node[4 * i + 1], p->z = h.node[4 * i + 2], p->crit2 = h.node[4 * i + 3];
    p->mass = h.mass[i];
    if (i >= h.m) {
      p->first = h.leaf_first[i - h.m], p->last = h.leaf_last[i - h.m];
    } else {
      p->left = copy(h, 2 * i);
      p->right = copy(h, 2 * i + 1);
    }
    return p;
  }
  std::vector<std::unique_ptr<PointerNode<T>>> nodes_;
  PointerNode<T>* root_ = nullptr;
};

// S0's walk of the pointer tree into sum (kernels/common/kdtree.hpp's walks); the bodies of opened
// leaves come from `bodies` (the heap tree's).
template <class T, class Sum>
unsigned walk_pointer(const PointerTree<T>& tree, const HeapView<T>& bodies, const Target<T>& r, T eps2, T rmin2, Sum& sum) {
  const PointerNode<T>* stack[64];
  int top = 0;
  unsigned terms = 0;
  stack[top++] = tree.root_node();
  while (top > 0) {
    const PointerNode<T>* c = stack[--top];
    const T dx = c->x - r.x, dy = c->y - r.y, dz = c->z - r.z;
    if (dx * dx + dy * dy + dz * dz > c->crit2) {
      sum.add(r.x, r.y, r.z, c->x, c->y, c->z, c->mass, eps2, rmin2);
      ++terms;
    } else if (!c->left) {
      terms += leaf_sum(bodies, c->first, c->last, r, eps2, rmin2, sum);
    } else {
      stack[top++] = c->right;
      stack[top++] = c->left;
    }
  }
  return terms;
}

}  // namespace nbody::kdtree
