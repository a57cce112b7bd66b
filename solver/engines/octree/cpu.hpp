#pragma once
// The CPU Barnes-Hut engine on seed S4's octree: the host build (tree.hpp) and one walk per body
// (kernels/common/octree.hpp), OpenMP threads over the bodies in key order, so that neighbouring
// iterations walk nearly the same nodes. The reference of the GPU octree engines.
#include <chrono>
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
      return c;
    }
  };
  using ForceEngine<T>::ForceEngine;

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    if (n == 0) return;
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    build_octree(pos, mass, n, this->law_.tree, leaf_size_or(this->law_.tree, info::capabilities().leaf_size), tree_);
    const auto t1 = clock::now();
    const View<T> view = tree_.view();
    const T eps2 = this->law_.eps2, rmin2 = this->law_.rmin2, G = this->law_.G;
    const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(n);
    const auto walk_body = [&](std::ptrdiff_t q) {
      const unsigned p = static_cast<unsigned>(q), i = tree_.body[p];
      T ax{0}, ay{0}, az{0};
      const Terms terms = walk(view, Target<T>{view.bx[p], view.by[p], view.bz[p], p}, eps2, rmin2, ax, ay, az);
      acc[i] = G * ax;
      acc[n + i] = G * ay;
      acc[2 * n + i] = G * az;
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
    const auto t2 = clock::now();
    profile_ = TreeProfile::timed(std::chrono::duration<double>(t1 - t0).count(),
                                  std::chrono::duration<double>(t2 - t1).count(), double(cells + bodies) / double(n));
    profile_.cell_terms_per_body = double(cells) / double(n);
    profile_.shape = tree_.shape();
    profile_.root_mass = double(tree_.mass[0]);
  }
  TreeProfile last_tree_profile() const override { return profile_; }

 private:
  Tree<T> tree_;
  TreeProfile profile_;
};

}  // namespace nbody::octree
