// The kd-tree built on the GPU (kernels/cuda/kdtree_build.cuh) is the host's build_heap_tree:
// the same leaves with the same bodies in the same order, and the same moments up to the rounding
// of sums taken in another order. Awkward N, a clustered input, leaves of 1 and 8 bodies, both split rules.
// Skipped where there is no CUDA device.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engines/gpu_engines.hpp"
#include "engines/kdtree/heap_tree.hpp"
#include "support.hpp"
#if NBODY_WITH_CUDA
#include "engines/cuda/cuda_kdtree.hpp"
#endif

using namespace nbody;
using namespace nbody::test;

#if NBODY_WITH_CUDA
namespace {

template <class T>
void check_same_tree(const std::string& what, const Bodies<T>& b, const TreeOptions& o) {
  INFO(what);
  kdtree::HeapTree<T> host;
  kdtree::build_heap_tree(b.pos.data(), b.mass.data(), b.n, o, host);
  const kdtree::HeapTree<T> gpu = cuda::build_kdtree_on_device(b.pos.data(), b.mass.data(), b.n, o);
  const unsigned n = host.n, m = host.m;
  REQUIRE(gpu.n == n);
  REQUIRE(gpu.m == m);
  REQUIRE(gpu.leaf_first == host.leaf_first);
  REQUIRE(gpu.leaf_last == host.leaf_last);
  // Bodies: the same tree position for every body (within a leaf both order by x); the maps and
  // the copies consistent.
  CHECK(gpu.body == host.body);
  for (unsigned j = 0; j < n; ++j) {
    const unsigned i = gpu.body[j];
    REQUIRE(i < n);
    CHECK(gpu.position[i] == j);
    CHECK((gpu.bx[j] == b.pos[i] && gpu.by[j] == b.pos[n + i] && gpu.bz[j] == b.pos[2 * n + i] && gpu.bm[j] == b.mass[i]));
  }
  // Moments: a sum of c positive terms taken in two orders differs by at most about c units of
  // rounding (relative to the sum; for the centre, relative to the largest coordinate), at least
  // 1e-12 (double) or 1e-5 (float). The radius follows the centre: |d(r^2)| <= 2 sqrt(3) r dc + 3 dc^2.
  const double base = std::is_same_v<T, double> ? 1e-12 : 1e-5;
  const double unit = std::numeric_limits<T>::epsilon() / 2;
  const double lambda2 = o.lambda_crit * o.lambda_crit;
  const kdtree::HeapShape r(n, m);
  for (unsigned i = 1; i < 2 * m; ++i) {
    const double rel = std::max(base, 2.0 * (r.end[i] - r.first[i]) * unit);
    double scale = 0;
    for (unsigned j = r.first[i]; j < r.end[i]; ++j)
      for (const T* c : {host.bx.data(), host.by.data(), host.bz.data()}) scale = std::max(scale, std::abs(double(c[j])));
    const double dc = rel * scale;
    INFO("node " << i << " of " << 2 * m - 1 << ", " << r.end[i] - r.first[i] << " bodies");
    CHECK(double(gpu.mass[i]) == Approx(double(host.mass[i])).epsilon(rel));
    for (int k = 0; k < 3; ++k) CHECK(double(gpu.node[4 * i + k]) == Approx(double(host.node[4 * i + k])).epsilon(0).margin(dc));
    const double crit2 = host.node[4 * i + 3], radius = std::sqrt(crit2 / lambda2);
    CHECK(double(gpu.node[4 * i + 3]) ==
          Approx(crit2).epsilon(rel).margin(lambda2 * (2 * std::sqrt(3.0) * radius * dc + 3 * dc * dc)));
  }
}

}  // namespace
#endif

TEMPLATE_TEST_CASE("the_gpu_built_kdtree_is_the_host_built_one", "[tree][gpu]", float, double) {
  using T = TestType;
  if (!device_available(Device::cuda)) {
    WARN("SKIPPED: the CUDA kd-tree build in " << RealTraits<T>::name << ": no cuda device here");
    return;
  }
#if NBODY_WITH_CUDA
  std::vector<std::pair<std::string, Bodies<T>>> inputs;
  for (std::size_t n : {1, 2, 3, 17, 1000, 4099}) inputs.emplace_back("random n = " + std::to_string(n), random_bodies<T>(n, 70 + n));
  inputs.emplace_back("two galaxies, n = 4099", galaxies<T>(4099));
  for (const auto& [name, b] : inputs)
    for (unsigned leaf : {1u, 8u})
      for (bool longest : {false, true})
        check_same_tree(name + ", leaf " + std::to_string(leaf) + (longest ? ", longest axis" : ", axis by depth"), b,
                        TreeOptions{2.0, leaf, longest});
#endif
}

// At scale, not part of the suite (a minute on one GPU and the host): the trees of a million
// bodies, and the four walks on the host's tree against the CPU engine's walk on the same tree.
// A walk's decisions (d^2 > crit2) may differ between the GPU's and the CPU's arithmetic for a node
// at the border, and then its body's force differs by the approximation's error: rare.
// Run: build/tests/nbody_tests "[cuda-kdtree-large]"
TEMPLATE_TEST_CASE("the_gpu_kdtree_at_a_million_bodies", "[.][cuda-kdtree-large]", float, double) {
  using T = TestType;
  if (!device_available(Device::cuda)) {
    WARN("SKIPPED: no cuda device here");
    return;
  }
#if NBODY_WITH_CUDA
  const std::size_t n = (std::size_t(1) << 20) + 3;
  const std::vector<std::pair<std::string, Bodies<T>>> inputs = {{"random", random_bodies<T>(n, 5)},
                                                                {"two galaxies", galaxies<T>(n)}};
  for (const auto& [name, b] : inputs)
    for (unsigned leaf : {1u, 8u})
      for (bool longest : {false, true})
        check_same_tree(name + ", n = " + std::to_string(n) + ", leaf " + std::to_string(leaf) +
                            (longest ? ", longest axis" : ", axis by depth"),
                        b, TreeOptions{2.0, leaf, longest});
  const double close = std::is_same_v<T, double> ? 1e-10 : 1e-4;  // relative: the arithmetic's rounding
  for (const auto& [name, b] : inputs) {
    ForceLaw<T> law;
    law.eps2 = T(1e-8);
    law.tree = {4.0, 1, false};
    auto cpu = make_engine<T>("kdtree-nested-heap", law);
    const std::vector<T> ref = engine_accelerations(*cpu, b);
    const double ref_terms = cpu->last_tree_profile().terms_per_body;
    // Where the forces on a body nearly cancel, its sum's rounding is relative to the terms, not to
    // the result: the comparison's scale is at least a hundredth of the typical force.
    double mean2 = 0;
    for (const T& x : ref) mean2 += double(x) * double(x) / double(n);
    const double floor2 = 1e-4 * mean2;
    for (const auto& e : engine_table<T>()) {
      if (e.can.tree != TreeKind::kdtree || e.can.device != Device::cuda) continue;
      for (const char* launch : {"host_build=1", ""}) {
        auto gpu = make_engine<T>(e.name, law);
        gpu->set_launch(launch);
        const std::vector<T> a = engine_accelerations(*gpu, b);
        std::size_t apart = 0;
        for (std::size_t i = 0; i < n; ++i) {
          double d2 = 0, r2 = 0;
          for (int k = 0; k < 3; ++k) {
            const double d = double(a[k * n + i]) - double(ref[k * n + i]);
            d2 += d * d;
            r2 += double(ref[k * n + i]) * double(ref[k * n + i]);
          }
          if (!(d2 <= close * close * std::max(r2, floor2))) ++apart;
        }
        const TreeProfile p = gpu->last_tree_profile();
        INFO(name << ", " << e.name << " --launch '" << launch << "': " << apart << " bodies apart; build " << p.build_seconds
                  << " s, walk " << p.walk_seconds << " s, " << p.terms_per_body << " terms per body (CPU: " << ref_terms
                  << "); " << gpu->device_info());
        CHECK(apart <= n / 1000);
        CHECK(p.terms_per_body == Approx(ref_terms).epsilon(1e-3));
        CHECK(p.build_seconds > 0);
        CHECK(p.walk_seconds > 0);
        WARN("timing (informative): " << name << ", " << RealTraits<T>::name << ", " << e.name << " --launch '" << launch
                                      << "': build " << p.build_seconds << " s, walk " << p.walk_seconds << " s");
      }
    }
  }
#endif
}
