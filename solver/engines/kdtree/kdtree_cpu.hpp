#pragma once
// The CPU Barnes-Hut engines of seed S0's Table 4: the six combinations of the order in which the
// bodies are walked ("cycle": input order; "nested": tree order, so that neighbouring iterations
// walk nearly the same path) and the tree's storage and walk ("pointer": linked nodes and a stack;
// "heap": the heap array and a stack; "stackless": the heap array walked by index arithmetic).
// OpenMP threads over bodies. All six add the same terms in the same order, so they give the same
// bits for one tree (tests/test_tree_engines.cpp); they differ in speed only.
#include <chrono>
#include <string>
#include <string_view>

#include "core/parallel.hpp"
#include "engines/engine.hpp"
#include "engines/kdtree/heap_tree.hpp"
#include "engines/kdtree/pointer_tree.hpp"

namespace nbody::kdtree {

enum class Order { cycle, nested };
enum class Storage { pointer, heap, stackless };

template <Order O, Storage S>
struct Variant;
#define NBODY_KDTREE_VARIANT(O, S, NAME, TEXT)                                                                      \
  template <>                                                                                                      \
  struct Variant<Order::O, Storage::S> {                                                                          \
    static constexpr std::string_view name = NAME;                                                                 \
    static constexpr std::string_view description = "Barnes-Hut on S0's kd-tree, OpenMP: " TEXT; \
  };
NBODY_KDTREE_VARIANT(cycle, pointer, "kdtree-cycle-pointer", "bodies in input order, linked nodes and a stack (S0's cycle+tree)")
NBODY_KDTREE_VARIANT(cycle, heap, "kdtree-cycle-heap", "bodies in input order, heap array and a stack (S0's cycle+heap)")
NBODY_KDTREE_VARIANT(cycle, stackless, "kdtree-cycle-stackless",
                     "bodies in input order, heap array walked without a stack (S0's cycle+heapstackless)")
NBODY_KDTREE_VARIANT(nested, pointer, "kdtree-nested-pointer",
                     "bodies in tree order, linked nodes and a stack (S0's nestedtree+tree)")
NBODY_KDTREE_VARIANT(nested, heap, "kdtree-nested-heap", "bodies in tree order, heap array and a stack (S0's nestedtree+heap)")
NBODY_KDTREE_VARIANT(nested, stackless, "kdtree-nested-stackless",
                     "bodies in tree order, heap array walked without a stack (S0's nestedtree+heapstackless)")
#undef NBODY_KDTREE_VARIANT

template <class T, Order O, Storage S>
class CpuEngine final : public ForceEngine<T> {
 public:
  struct info : Variant<O, S> {
    static EngineCapabilities capabilities() {
      EngineCapabilities c;
      c.tree = TreeKind::kdtree;
      c.leaf_size = 1;
      c.potentials = Potentials::tree;
      c.host_reals = S == Storage::pointer ? 50 : 28;  // 2N nodes (linked ones larger), their moments
      return c;
    }
  };
  using ForceEngine<T>::ForceEngine;

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    if (n == 0) return;
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    build(pos, mass, n);
    const auto t1 = clock::now();
    const unsigned long long terms = walk_all<AccelerationSum<T>>(pos, n, acc);
    const auto t2 = clock::now();
    profile_ = TreeProfile::timed(std::chrono::duration<double>(t1 - t0).count(),
                                  std::chrono::duration<double>(t2 - t1).count(), double(terms) / double(n));
  }
  // The potential by this variant's walk of the same tree: its terms are the force's.
  void body_potentials(const T* pos, const T* mass, std::size_t n, T* phi) override {
    if (n == 0) return;
    build(pos, mass, n);
    walk_all<PotentialSum<T>>(pos, n, phi);
  }
  std::string body_potential_method() const override {
    return "kd-tree walk on the CPU (OpenMP; " + opening_text(TreeKind::kdtree, this->law_.tree) + ")";
  }
  TreeProfile last_tree_profile() const override { return profile_; }

 private:
  void build(const T* pos, const T* mass, std::size_t n) {
    build_heap_tree(pos, mass, n, this->law_.tree, heap_);
    if constexpr (S == Storage::pointer) pointer_.build(heap_);
  }
  // Every body's walk (in this variant's order, storage and walk), its Sum stored into out (SoA
  // over n, G applied); returns the terms added.
  template <class Sum>
  unsigned long long walk_all(const T* pos, std::size_t n, T* out) const {
    const HeapView<T> view = heap_.view();
    const T eps2 = this->law_.eps2, rmin2 = this->law_.rmin2, G = this->law_.G;
    const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(n);
    const auto walk_body = [&](std::ptrdiff_t q) {
      unsigned i, p;  // body index, tree position
      if constexpr (O == Order::cycle) {
        i = static_cast<unsigned>(q), p = heap_.position[i];
      } else {
        p = static_cast<unsigned>(q), i = heap_.body[p];
      }
      const Target<T> r = O == Order::cycle ? Target<T>{pos[i], pos[n + i], pos[2 * n + i], p}
                                            : Target<T>{view.bx[p], view.by[p], view.bz[p], p};
      Sum sum;
      unsigned terms;  // taken by this body
      if constexpr (S == Storage::pointer)
        terms = walk_pointer(pointer_, view, r, eps2, rmin2, sum);
      else if constexpr (S == Storage::heap)
        terms = walk_stack(view, r, eps2, rmin2, sum);
      else
        terms = walk_stackless(view, r, eps2, rmin2, sum);
      sum.store(out, n, i, G);
      return terms;
    };
    // The term counts are whole numbers: their sum does not depend on the threads.
    unsigned long long terms = 0;
    if (parallel_forces(n)) {
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : terms)
      for (std::ptrdiff_t q = 0; q < count; ++q) terms += walk_body(q);
    } else {
      for (std::ptrdiff_t q = 0; q < count; ++q) terms += walk_body(q);
    }
    return terms;
  }

  HeapTree<T> heap_;
  PointerTree<T> pointer_;
  TreeProfile profile_;
};

template <class T> using CycleTree = CpuEngine<T, Order::cycle, Storage::pointer>;
template <class T> using CycleHeap = CpuEngine<T, Order::cycle, Storage::heap>;
template <class T> using CycleStackless = CpuEngine<T, Order::cycle, Storage::stackless>;
template <class T> using NestedTree = CpuEngine<T, Order::nested, Storage::pointer>;
template <class T> using NestedHeap = CpuEngine<T, Order::nested, Storage::heap>;
template <class T> using NestedStackless = CpuEngine<T, Order::nested, Storage::stackless>;

}  // namespace nbody::kdtree
