#pragma once
// The CPU Barnes-Hut engine on seed S4's octree: the host build (tree.hpp) and one walk per body
// (kernels/common/octree.hpp), OpenMP threads over the bodies in key order, so that neighbouring
// iterations walk nearly the same nodes. The reference of the GPU octree engines.
#include <chrono>
#include <string>
#include <string_view>

#include "core/parallel.hpp"
#include "engines/engine.hpp"
#include "engines/octree/tree.hpp"

namespace nbody::octree {

template <class T>
class CpuEngine final : public ForceEngine<T> {
 public:
  struct info {
    static constexpr std::string_view name = "octree";
    static constexpr std::string_view description =
        "Barnes-Hut on S4's octree (Morton-key build, opening rule d > l/theta + delta, monopoles or "
        "quadrupoles), OpenMP";
    static EngineCapabilities capabilities() {
      EngineCapabilities c;
      c.tree = TreeKind::octree;
      c.leaf_size = 1;  // S4: a body per leaf
      c.potentials = Potentials::tree;
      c.host_reals = 26;  // keys, the bodies in key order, about 2N nodes and their moments
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
    const Counts terms = walk_all<AccelerationSum<T>>(n, acc);
    const auto t2 = clock::now();
    profile_ = TreeProfile::timed(std::chrono::duration<double>(t1 - t0).count(),
                                  std::chrono::duration<double>(t2 - t1).count(), double(terms.cells + terms.bodies) / double(n));
    profile_.cell_terms_per_body = double(terms.cells) / double(n);
    profile_.shape = tree_.shape();
    profile_.root_mass = double(tree_.mass[0]);
  }
  // The tree's own potential: the force's walk, each term's potential (add_node).
  void body_potentials(const T* pos, const T* mass, std::size_t n, T* phi) override {
    if (n == 0) return;
    build(pos, mass, n);
    walk_all<PotentialSum<T>>(n, phi);
  }
  std::string body_potential_method() const override {
    return "octree walk on the CPU (OpenMP; " + opening_text(TreeKind::octree, this->law_.tree) + ")";
  }
  TreeProfile last_tree_profile() const override { return profile_; }

 private:
  void build(const T* pos, const T* mass, std::size_t n) {
    build_octree(pos, mass, n, this->law_.tree, leaf_size_or(this->law_.tree, info::capabilities().leaf_size), tree_);
  }
  // Every body's walk, in key order, its Sum stored into out (SoA over n, G applied); the terms added.
  struct Counts {
    unsigned long long cells, bodies;
  };
  template <class Sum>
  Counts walk_all(std::size_t n, T* out) const {
    const View<T> view = tree_.view();
    const T eps2 = this->law_.eps2, rmin2 = this->law_.rmin2, G = this->law_.G;
    const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(n);
    const auto walk_body = [&](std::ptrdiff_t q) {
      const unsigned p = static_cast<unsigned>(q);
      Sum sum;
      const Terms terms = walk(view, Target<T>{view.bx[p], view.by[p], view.bz[p], p}, eps2, rmin2, sum);
      sum.store(out, n, tree_.body[p], G);
      return terms;
    };
    // The term counts are whole numbers: their sum does not depend on the threads.
    unsigned long long cells = 0, bodies = 0;
    if (parallel_forces(n)) {
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : cells, bodies)
      for (std::ptrdiff_t q = 0; q < count; ++q) {
        const Terms terms = walk_body(q);
        cells += terms.cells, bodies += terms.bodies;
      }
    } else {
      for (std::ptrdiff_t q = 0; q < count; ++q) {
        const Terms terms = walk_body(q);
        cells += terms.cells, bodies += terms.bodies;
      }
    }
    return {cells, bodies};
  }

  Tree<T> tree_;
  TreeProfile profile_;
};

}  // namespace nbody::octree
