// The Barnes-Hut engines (every registry entry that says `tree`, CPU and GPU): with lambda =
// infinity every node is opened and the force is direct summation to rounding, for awkward N, a
// clustered distribution, leaves of several bodies and both split rules; the error against direct
// summation falls as lambda grows; the tree itself (shape, splits, moments); the six CPU variants
// of S0's Table 4 give the same bits; coincident bodies do not hang a walk.
#include <catch2/catch.hpp>

#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "engines/force_error.hpp"
#include "engines/gpu_engines.hpp"
#include "engines/kdtree/heap_tree.hpp"
#include "engines/octree/tree.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

// The tree engines that can run here, of one kind or (none) of every kind.
template <class T>
std::vector<const EngineEntry<T>*> tree_engines(TreeKind kind = TreeKind::none) {
  std::vector<const EngineEntry<T>*> out;
  for (const auto& e : engine_table<T>()) {
    if (e.can.tree == TreeKind::none || (kind != TreeKind::none && e.can.tree != kind)) continue;
    if (device_available(e.can.device)) out.push_back(&e);
    else WARN("SKIPPED: " << e.name << " in " << RealTraits<T>::name << ": no " << device_name(e.can.device) << " device here");
  }
  return out;
}

constexpr double all_nodes = std::numeric_limits<double>::infinity();

// The kd-tree's lambda, and for the octree about the same accuracy: theta ~ 2 / lambda, and 0
// (every node opened) for lambda = infinity.
template <class T>
ForceLaw<T> tree_law(double lambda, unsigned leaf = 1, bool longest = false) {
  ForceLaw<T> law;
  law.eps2 = T(1e-6);
  law.tree = {lambda, leaf, longest};
  law.tree.theta = lambda == all_nodes ? 0.0 : std::min(1.0, 2 / lambda);
  return law;
}

template <class T>
ForceLaw<T> octree_law(double theta, bool quadrupole, unsigned leaf = 1) {
  ForceLaw<T> law;
  law.eps2 = T(1e-6);
  law.tree.theta = theta;
  law.tree.quadrupole = quadrupole;
  law.tree.leaf_size = leaf;
  return law;
}

// A tree engine's run (`run`, then its approximation flags `flags`): resumed from a checkpoint it is
// bit for bit; a resume that changes one of those flags (flag, value here, value in the run) is
// refused, naming it; a run with other flags (`other`: another force) differs.
struct FlagChange {
  std::string flag, value, was;
};
void check_tree_run_resumes(const std::string& name, const std::string& run, const std::string& flags,
                            const std::vector<FlagChange>& changes, const std::string& other) {
  const auto dir = scratch(name);
  REQUIRE(run_nbody(dir, run + flags + " --final-state whole.csv").exit_code == 0);
  REQUIRE(run_nbody(dir, run + flags + " --checkpoint c.bin --stop-at 0.01").exit_code == 0);
  REQUIRE(run_nbody(dir, "run --resume c.bin --final-state parts.csv").exit_code == 0);
  CHECK(read(dir / "whole.csv") == read(dir / "parts.csv"));
  for (const FlagChange& c : changes) {
    const Outcome changed = run_nbody(dir, "run --resume c.bin " + c.flag + " " + c.value + " --final-state other.csv");
    CHECK(changed.exit_code == 2);
    CHECK_THAT(changed.err, Catch::Contains(c.flag + " is " + c.value + " here but " + c.was + " in the checkpoint's run"));
  }
  REQUIRE(run_nbody(dir, run + other + " --final-state other.csv").exit_code == 0);
  CHECK(read(dir / "whole.csv") != read(dir / "other.csv"));
  std::filesystem::remove_all(dir);
}

}  // namespace

TEMPLATE_TEST_CASE("every_tree_engine_opening_every_node_equals_simple", "[tree][gpu]", float, double) {
  using T = TestType;
  std::vector<Bodies<T>> inputs;
  for (std::size_t n : {1, 2, 3, 17, 1000, 4099}) inputs.push_back(random_bodies<T>(n, 40 + n));
  inputs.push_back(galaxies<T>(1000));
  for (const EngineEntry<T>* e : tree_engines<T>()) {
    // A walk per group (*-groups) adds a body's terms in batches of nodes and of leaves, an order
    // far from the input's: twice the rounding allowed.
    const double tolerance = engine_tolerance<T>() * (e->name.ends_with("-groups") ? 2 : 1);
    for (unsigned leaf : {1u, 8u})
      for (bool longest : {false, true}) {
        ForceLaw<T> law = tree_law<T>(all_nodes, leaf, longest);
        law.eps2 = T(0);
        auto engine = make_engine<T>(e->name, law);
        for (const auto& b : inputs)
          check_against_simple(std::string(e->name) + " leaf " + std::to_string(leaf) + (longest ? " longest" : " cycle"), b,
                               law, engine_accelerations(*engine, b), engine_accelerations<T>("simple", "", b, law),
                               tolerance);
      }
  }
}

TEMPLATE_TEST_CASE("the_kdtree_force_error_falls_as_lambda_grows", "[tree][gpu]", float, double) {
  using T = TestType;
  const Bodies<T> b = galaxies<T>(4099);
  for (const EngineEntry<T>* e : tree_engines<T>(TreeKind::kdtree)) {
    // Float stops at 8: beyond it the rounding of the sums (about 1e-5 here) is larger than the
    // approximation's error.
    const std::vector<double> lambdas = std::is_same_v<T, float> ? std::vector<double>{1, 2, 4, 8} : std::vector<double>{1, 2, 4, 8, 16, 32};
    double previous = 1;
    for (double lambda : lambdas) {
      const ForceLaw<T> law = tree_law<T>(lambda);
      const auto a = engine_accelerations(*make_engine<T>(e->name, law), b);
      const ForceErrorSummary err = force_error(b.pos.data(), b.mass.data(), b.n, law, a.data());
      INFO(e->name << " lambda " << lambda << ": median " << err.median << ", p99 " << err.p99 << ", max " << err.max);
      CHECK(err.p99 < previous);
      CHECK(err.median <= err.p99);
      previous = err.p99;
    }
    CHECK(previous < (std::is_same_v<T, float> ? 1e-5 : 1e-6));
  }
}

TEST_CASE("the_heap_tree_has_every_body_in_one_leaf_split_at_its_rank_with_consistent_moments", "[tree]") {
  for (std::size_t n : {1, 2, 3, 5, 6, 17, 1000, 4099})
    for (unsigned leaf : {1u, 3u, 8u})
      for (bool longest : {false, true}) {
        INFO("n = " << n << ", leaf " << leaf << (longest ? ", longest axis" : ", axis by depth"));
        const Bodies<double> b = random_bodies<double>(n, n);
        kdtree::HeapTree<double> t;
        kdtree::build_heap_tree(b.pos.data(), b.mass.data(), n, TreeOptions{2.0, leaf, longest}, t);
        REQUIRE(t.m == (n + leaf - 1) / leaf);
        // Leaves in in-order partition the tree positions; each holds 1 .. leaf bodies.
        std::vector<int> seen(n, 0);
        for (unsigned i = t.m; i < 2 * t.m; ++i) {
          const unsigned f = t.leaf_first[i - t.m], l = t.leaf_last[i - t.m];
          CHECK(l > f);
          CHECK(l - f <= leaf);
          for (unsigned j = f; j < l; ++j) ++seen[j];
        }
        CHECK(std::count(seen.begin(), seen.end(), 1) == std::ptrdiff_t(n));
        for (unsigned j = 0; j < n; ++j) CHECK(t.body[t.position[j]] == j);
        // An internal node's mass is its children's, its centre their mass-weighted mean, and its
        // radius covers its children's spheres.
        for (unsigned i = 1; i < t.m; ++i) {
          const double M = t.mass[2 * i] + t.mass[2 * i + 1];
          CHECK(t.mass[i] == Approx(M).epsilon(1e-13));
          for (int k = 0; k < 3; ++k)
            CHECK(t.node[4 * i + k] ==
                  Approx((t.mass[2 * i] * t.node[8 * i + k] + t.mass[2 * i + 1] * t.node[8 * i + 4 + k]) / M).margin(1e-13));
          CHECK(t.node[4 * i + 3] > 0);
        }
      }
}

TEST_CASE("a_split_leaves_the_smaller_coordinates_left_on_its_axis", "[tree]") {
  // Axis by depth: the left subtree's bodies are at most the right's on the node's axis.
  const std::size_t n = 777;
  const Bodies<double> b = random_bodies<double>(n, 3);
  kdtree::HeapTree<double> t;
  kdtree::build_heap_tree(b.pos.data(), b.mass.data(), n, TreeOptions{2.0, 1, false}, t);
  const kdtree::HeapShape shape(t.n, t.m);
  for (unsigned i = 1; i < t.m; ++i) {
    const unsigned axis = static_cast<unsigned>(std::bit_width(i) - 1) % 3;
    const unsigned lb = shape.first[2 * i], s = shape.first[2 * i + 1], e = shape.end[i];
    double left_max = -1e300, right_min = 1e300;
    for (unsigned j = lb; j < s; ++j) left_max = std::max(left_max, b.pos[axis * n + t.body[j]]);
    for (unsigned j = s; j < e; ++j) right_min = std::min(right_min, b.pos[axis * n + t.body[j]]);
    CHECK(left_max <= right_min);
  }
}

TEMPLATE_TEST_CASE("the_six_cpu_tree_variants_give_the_same_bits", "[tree]", float, double, dd) {
  using T = TestType;
  const Bodies<T> b = galaxies<T>(2049);
  for (unsigned leaf : {1u, 4u}) {
    const ForceLaw<T> law = tree_law<T>(2.0, leaf);
    std::vector<T> first;
    for (const auto& e : engine_table<T>()) {
      if (e.can.tree != TreeKind::kdtree || e.can.device != Device::cpu) continue;
      const auto a = engine_accelerations(*make_engine<T>(e.name, law), b);
      if (first.empty()) first = a;
      INFO(e.name << ", leaf " << leaf);
      CHECK(a == first);
    }
  }
}

TEMPLATE_TEST_CASE("coincident_bodies_do_not_hang_a_tree_walk", "[tree][gpu]", float, double) {
  // All bodies at one point, and pairs at one point: softened forces stay finite and the walk ends.
  using T = TestType;
  Bodies<T> same = random_bodies<T>(257, 9);
  for (std::size_t k = 0; k < 3; ++k) std::fill(same.pos.begin() + k * 257, same.pos.begin() + (k + 1) * 257, T(0.25));
  Bodies<T> pairs = random_bodies<T>(300, 10);
  for (std::size_t i = 1; i < 300; i += 2)
    for (int k = 0; k < 3; ++k) pairs.pos[k * 300 + i] = pairs.pos[k * 300 + i - 1];
  for (const EngineEntry<T>* e : tree_engines<T>())
    for (unsigned leaf : {1u, 8u})
      for (const Bodies<T>* b : {&same, &pairs}) {
        ForceLaw<T> law = tree_law<T>(4.0, leaf);
        law.eps2 = T(1e-4);
        const auto a = engine_accelerations(*make_engine<T>(e->name, law), *b);
        ForceLaw<T> exact = law;
        exact.tree.lambda_crit = all_nodes;
        exact.tree.theta = 0;
        INFO(e->name << ", leaf " << leaf << ", n " << b->n);
        check_against_simple(std::string(e->name), *b, exact, engine_accelerations(*make_engine<T>(e->name, exact), *b),
                             engine_accelerations<T>("simple", "", *b, exact));
        for (const T& x : a) CHECK(std::isfinite(double(x)));
      }
}

TEST_CASE("a_tree_engine_run_resumed_from_a_checkpoint_is_bit_for_bit_and_keeps_its_lambda", "[tree][cli]") {
  check_tree_run_resumes("tree_resume",
                         "run --ic two-galaxies --n 600 --integrator rk4 --dt 0.001 --t-end 0.02 "
                         "--engine kdtree-nested-stackless --leaf-size 4 ",
                         "--lambda-crit 2", {{"--lambda-crit", "3", "2"}}, "--lambda-crit 3");
}

// ---- Seed S4's octree ----

TEMPLATE_TEST_CASE("the_octree_force_error_falls_as_theta_shrinks_and_quadrupoles_lower_it", "[tree][gpu]", float, double) {
  using T = TestType;
  const Bodies<T> b = plummer_bodies<T>(4099, 5);
  for (const EngineEntry<T>* e : tree_engines<T>(TreeKind::octree)) {
    // Float stops at 0.2: below it the rounding of the sums is near the approximation's error.
    const std::vector<double> thetas =
        std::is_same_v<T, float> ? std::vector<double>{1, 0.7, 0.5, 0.3, 0.2} : std::vector<double>{1, 0.7, 0.5, 0.3, 0.2, 0.1};
    double previous[2] = {1, 1};
    for (double theta : thetas) {
      double p99[2];
      for (bool quadrupole : {false, true}) {
        const ForceLaw<T> law = octree_law<T>(theta, quadrupole);
        const auto a = engine_accelerations(*make_engine<T>(e->name, law), b);
        const ForceErrorSummary err = force_error(b.pos.data(), b.mass.data(), b.n, law, a.data());
        INFO(e->name << " theta " << theta << (quadrupole ? " quadrupole" : " monopole") << ": median " << err.median
                     << ", p99 " << err.p99 << ", max " << err.max);
        CHECK(err.p99 < previous[quadrupole]);
        CHECK(err.median <= err.p99);
        previous[quadrupole] = p99[quadrupole] = err.p99;
        // The bounds the paper states for S4's theta = 0.5.
        if (theta == 0.5) CHECK(err.p99 < (quadrupole ? 1e-3 : 3e-3));
      }
      CHECK(p99[1] < p99[0]);
    }
  }
}

TEST_CASE("the_octree_holds_every_body_in_one_leaf_of_its_cell_with_consistent_moments", "[tree]") {
  for (std::size_t n : {1, 2, 3, 5, 17, 1000, 4099})
    for (unsigned leaf : {1u, 3u, 8u}) {
      INFO("n = " << n << ", leaf " << leaf);
      const Bodies<double> b = random_bodies<double>(n, n);
      TreeOptions o;
      o.quadrupole = true;
      octree::Tree<double> t;
      octree::build_octree(b.pos.data(), b.mass.data(), n, o, leaf, t);
      const unsigned nodes = static_cast<unsigned>(t.child.size());
      REQUIRE(t.first[0] == 0);
      REQUIRE(t.end[0] == n);
      std::vector<int> seen(n, 0);
      for (unsigned i = 0; i < nodes; ++i) {
        // A node's bodies lie in its cell: their keys share the first 3 level bits.
        const unsigned shift = 3 * (octree::max_level - t.level[i]);
        for (unsigned j = t.first[i]; j < t.end[i]; ++j) CHECK((t.key[j] >> shift << shift) == (t.key[t.first[i]] >> shift << shift));
        if (t.nchild[i] == 0) {
          CHECK(t.end[i] > t.first[i]);
          CHECK(t.end[i] - t.first[i] <= leaf);
          for (unsigned j = t.first[i]; j < t.end[i]; ++j) ++seen[j];
          continue;
        }
        // Children: the parent's bodies, in order, one level down; its mass, centre and
        // quadrupole (parallel axes) are theirs.
        CHECK(t.first[t.child[i]] == t.first[i]);
        CHECK(t.end[t.child[i] + t.nchild[i] - 1] == t.end[i]);
        double M = 0, c[3] = {0, 0, 0};
        for (unsigned k = t.child[i]; k < t.child[i] + t.nchild[i]; ++k) {
          CHECK(t.level[k] == t.level[i] + 1);
          if (k > t.child[i]) CHECK(t.first[k] == t.end[k - 1]);
          M += t.mass[k];
          for (int a = 0; a < 3; ++a) c[a] += t.mass[k] * t.node[4 * k + a];
        }
        CHECK(t.mass[i] == Approx(M).epsilon(1e-13));
        for (int a = 0; a < 3; ++a) CHECK(t.node[4 * i + a] == Approx(c[a] / M).margin(1e-13));
        double q[6] = {};
        for (unsigned j = t.first[i]; j < t.end[i]; ++j) {
          const double d[3] = {t.bx[j] - t.node[4 * i], t.by[j] - t.node[4 * i + 1], t.bz[j] - t.node[4 * i + 2]};
          const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
          const int pair[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
          for (int k = 0; k < 6; ++k) q[k] += t.bm[j] * (3 * d[pair[k][0]] * d[pair[k][1]] - (k < 3 ? d2 : 0));
        }
        for (int k = 0; k < 6; ++k) CHECK(t.quad[6 * i + k] == Approx(q[k]).margin(1e-12));
        CHECK(t.node[4 * i + 3] > 0);
      }
      CHECK(std::count(seen.begin(), seen.end(), 1) == std::ptrdiff_t(n));
      std::vector<unsigned> order = t.body;
      std::sort(order.begin(), order.end());
      for (unsigned j = 0; j < n; ++j) CHECK(order[j] == j);
      CHECK(std::is_sorted(t.key.begin(), t.key.end()));
    }
}

TEMPLATE_TEST_CASE("coincident_bodies_and_a_far_outlier_make_a_deep_octree_that_loses_no_body", "[tree][gpu]", float, double) {
  // 200 bodies in a unit cube, 64 of them at one point, and one body 10^6 away: cells of 1/2 at the
  // deepest level, leaves there hold many bodies, the coincident ones can never be split.
  using T = TestType;
  const std::size_t n = 201;
  Bodies<T> b = random_bodies<T>(n, 11);
  for (std::size_t i = 0; i < 64; ++i)
    for (int k = 0; k < 3; ++k) b.pos[k * n + i] = T(0.25);
  for (int k = 0; k < 3; ++k) b.pos[k * n + n - 1] = T(1e6);
  for (const EngineEntry<T>* e : tree_engines<T>(TreeKind::octree))
    for (unsigned leaf : {1u, 8u}) {
      INFO(e->name << ", leaf " << leaf);
      ForceLaw<T> law = octree_law<T>(0.5, true, leaf);
      law.eps2 = T(1e-4);
      auto engine = make_engine<T>(e->name, law);
      const auto a = engine_accelerations(*engine, b);
      for (const T& x : a) CHECK(std::isfinite(double(x)));
      // Momentum: the tree's forces are not exactly pairwise, but the sum of m a stays small
      // beside the sum of |m a|.
      double p[3] = {0, 0, 0}, scale = 0;
      for (std::size_t i = 0; i < n; ++i) {
        double s2 = 0;
        for (int k = 0; k < 3; ++k) p[k] += double(b.mass[i]) * double(a[k * n + i]), s2 += double(a[k * n + i]) * double(a[k * n + i]);
        scale += double(b.mass[i]) * std::sqrt(s2);
      }
      CHECK(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) < 1e-2 * scale);
      const TreeProfile profile = engine->last_tree_profile();
      CHECK(profile.shape.depth == octree::max_level);
      CHECK(profile.shape.bodies == n);
      CHECK(profile.root_mass == Approx(double(std::accumulate(b.mass.begin(), b.mass.end(), T(0)))).epsilon(1e-6));
      ForceLaw<T> exact = law;
      exact.tree.theta = 0;
      check_against_simple(std::string(e->name), b, exact, engine_accelerations(*make_engine<T>(e->name, exact), b),
                           engine_accelerations<T>("simple", "", b, exact));
    }
}

TEMPLATE_TEST_CASE("every_octree_engine_builds_the_cpu_octree_and_walks_it_alike", "[tree][gpu]", float, double) {
  // Same input, same tree: the shape (nodes, leaves, depth, largest leaf) exactly; the forces of
  // one tree to the rounding of the back end's arithmetic where a walk serves one body. A walk
  // per group of bodies (the engines named *-groups) opens a node for the whole group when any
  // of its bodies would: more terms, and an error no larger than the walk per body's.
  using T = TestType;
  for (const Bodies<T>& b : {plummer_bodies<T>(4099, 3), galaxies<T>(3000), random_bodies<T>(1000, 4)})
    for (unsigned leaf : {1u, 16u})
      for (bool quadrupole : {false, true}) {
        const ForceLaw<T> law = octree_law<T>(0.5, quadrupole, leaf);
        auto reference = make_engine<T>("octree", law);
        const auto ref = engine_accelerations(*reference, b);
        for (const EngineEntry<T>* e : tree_engines<T>(TreeKind::octree)) {
          if (e->name == "octree") continue;
          auto engine = make_engine<T>(e->name, law);
          const auto a = engine_accelerations(*engine, b);
          INFO(e->name << ", n " << b.n << ", leaf " << leaf << (quadrupole ? ", quadrupole" : ", monopole"));
          CHECK(engine->last_tree_profile().shape == reference->last_tree_profile().shape);
          if (!e->name.ends_with("-groups")) {
            CHECK(engine->last_tree_profile().terms_per_body == reference->last_tree_profile().terms_per_body);
            CHECK(engine->last_tree_profile().cell_terms_per_body == reference->last_tree_profile().cell_terms_per_body);
            CHECK(force_norm(b, a, ref, law) < engine_tolerance<T>());
            continue;
          }
          CHECK(engine->last_tree_profile().terms_per_body >= reference->last_tree_profile().terms_per_body);
          const ForceErrorSummary mine = force_error(b.pos.data(), b.mass.data(), b.n, law, a.data());
          const ForceErrorSummary theirs = force_error(b.pos.data(), b.mass.data(), b.n, law, ref.data());
          INFO("p99 " << mine.p99 << " against " << theirs.p99 << " per body");
          CHECK(mine.p99 <= theirs.p99 * 1.01 + engine_tolerance<T>());  // or both at T's rounding
        }
      }
}

TEMPLATE_TEST_CASE("an_octree_of_many_more_nodes_than_bodies_is_built_alike_on_every_engine", "[tree][gpu]", float, double) {
  // 1000 pairs of bodies 1e-5 apart: each pair's cell is split a dozen levels below where the
  // pairs part, so the tree has several nodes per body, more than a build sized by the body count
  // holds (the CUDA build grows its node arrays and builds again).
  using T = TestType;
  const std::size_t pairs = 1000, n = 2 * pairs;
  Bodies<T> b = random_bodies<T>(n, 6);
  for (std::size_t i = 0; i < pairs; ++i)
    for (std::size_t k = 0; k < 3; ++k) b.pos[k * n + pairs + i] = b.pos[k * n + i] + T(k == 0 ? 1e-5 : 0.0);
  const ForceLaw<T> law = octree_law<T>(0.5, false, 1);
  auto reference = make_engine<T>("octree", law);
  const auto ref = engine_accelerations(*reference, b);
  const TreeShape shape = reference->last_tree_profile().shape;
  CHECK(shape.nodes > 4 * n + 64);
  for (const EngineEntry<T>* e : tree_engines<T>(TreeKind::octree)) {
    INFO(e->name);
    auto engine = make_engine<T>(e->name, law);
    const auto a = engine_accelerations(*engine, b);
    CHECK(engine->last_tree_profile().shape == shape);
    if (e->name.ends_with("-groups"))  // more terms than a walk per body: no larger an error
      CHECK(force_error(b.pos.data(), b.mass.data(), n, law, a.data()).p99 <=
            force_error(b.pos.data(), b.mass.data(), n, law, ref.data()).p99 * 1.01 + engine_tolerance<T>());
    else
      CHECK(force_norm(b, a, ref, law) < engine_tolerance<T>());
  }
}

TEMPLATE_TEST_CASE("every_octree_engine_counts_its_terms_as_nodes_taken_whole_and_bodies", "[tree][gpu]", float, double) {
  // theta = 0 opens every node: each body meets the other n - 1 one by one. At theta = 0.5 with a
  // body per leaf, a lone body taken whole counts as a body, so nodes taken whole are fewer than
  // all terms, and all terms fewer than n - 1.
  using T = TestType;
  const Bodies<T> b = plummer_bodies<T>(3001, 5);
  for (const EngineEntry<T>* e : tree_engines<T>(TreeKind::octree)) {
    INFO(e->name);
    auto exact = make_engine<T>(e->name, octree_law<T>(0, false, 1));
    (void)engine_accelerations(*exact, b);
    CHECK(exact->last_tree_profile().terms_per_body == double(b.n - 1));
    CHECK(exact->last_tree_profile().cell_terms_per_body == 0);
    auto approximate = make_engine<T>(e->name, octree_law<T>(0.5, false, 1));
    (void)engine_accelerations(*approximate, b);
    const TreeProfile p = approximate->last_tree_profile();
    CHECK(p.cell_terms_per_body > 0);
    CHECK(p.cell_terms_per_body < p.terms_per_body);
    CHECK(p.terms_per_body < 0.5 * double(b.n - 1));
  }
}

TEMPLATE_TEST_CASE("every_octree_engine_gives_the_same_bits_twice", "[tree][gpu]", float, double) {
  // The grouped walk hands groups to warps in the order they ask (an atomic queue), but each
  // group's sums are fixed by the tree: a run is reproducible bit for bit on one device.
  using T = TestType;
  const Bodies<T> b = plummer_bodies<T>(20000, 8);
  for (const EngineEntry<T>* e : tree_engines<T>(TreeKind::octree))
    for (bool quadrupole : {false, true}) {
      const ForceLaw<T> law = octree_law<T>(0.6, quadrupole, 4);
      const auto first = engine_accelerations(*make_engine<T>(e->name, law), b);
      auto engine = make_engine<T>(e->name, law);
      (void)engine_accelerations(*engine, b);
      INFO(e->name << (quadrupole ? ", quadrupole" : ", monopole"));
      CHECK(engine_accelerations(*engine, b) == first);
    }
}

TEST_CASE("an_octree_run_resumed_from_a_checkpoint_is_bit_for_bit_and_keeps_its_theta_and_moments", "[tree][cli]") {
  check_tree_run_resumes("octree_resume",
                         "run --ic plummer --n 500 --integrator leapfrog --dt 0.001 --t-end 0.02 --engine octree "
                         "--leaf-size 4 ",
                         "--theta 0.6 --moments quadrupole",
                         {{"--theta", "0.7", "0.6"}, {"--moments", "monopole", "quadrupole"}}, "--theta 0.6");  // monopoles
}
