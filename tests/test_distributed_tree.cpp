// The distributed tree's parts on one process (engines/octree/essential.hpp, distributed.hpp): a
// point in a box walks the box's essential tree to the whole tree's sum bit for bit; essential
// trees travel packed and unpack to the same arrays; the shared cells are those of the domains'
// boundaries. tests/runner/test_mpi_runs.py runs mpi-octree on several ranks against octree.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <vector>

#include "engines/octree/distributed.hpp"
#include "support.hpp"

using namespace nbody;

TEMPLATE_TEST_CASE("a_point_in_a_box_walks_its_essential_tree_to_the_whole_trees_sum_bit_for_bit", "[tree][mpi]", float,
                   double) {
  using T = TestType;
  const std::size_t n = 3000;
  const test::Bodies<T> b = test::random_bodies<T>(n, 7);
  for (unsigned leaf : {1u, 6u})
    for (bool quadrupole : {false, true}) {
      INFO("leaf " << leaf << (quadrupole ? ", quadrupoles" : ", monopoles"));
      TreeOptions o;
      o.quadrupole = quadrupole;
      octree::Tree<T> t;
      octree::build_octree(b.pos.data(), b.mass.data(), n, o, leaf, t);
      // Two boxes in opposite corners, and points in them between pairs of bodies (none of them
      // a body).
      const std::vector<octree::Box<T>> boxes = {{{T(-1), T(-1), T(-1)}, {T(-0.4), T(-0.2), T(0.1)}},
                                                 {{T(0.6), T(0.5), T(0.7)}, {T(1), T(1), T(1)}}};
      const octree::EssentialTree<T> e = octree::essential_tree(t, boxes);
      const octree::EssentialTree<T> first = octree::essential_tree(t, {boxes[0]});
      CHECK(e.nodes() < t.child.size() * 3 / 4);  // a part of the tree
      CHECK(first.nodes() < e.nodes());           // each box asks for more of it
      const octree::View<T> whole = t.view(), part = e.view();
      constexpr unsigned nobody = std::numeric_limits<unsigned>::max();
      int points = 0;
      for (std::size_t i = 0; i + 1 < n; i += 2) {
        const T p[3] = {(b.pos[i] + b.pos[i + 1]) / 2, (b.pos[n + i] + b.pos[n + i + 1]) / 2,
                        (b.pos[2 * n + i] + b.pos[2 * n + i + 1]) / 2};
        const auto inside = [&](const octree::Box<T>& x) {
          return x.lo[0] <= p[0] && p[0] <= x.hi[0] && x.lo[1] <= p[1] && p[1] <= x.hi[1] && x.lo[2] <= p[2] && p[2] <= x.hi[2];
        };
        if (std::none_of(boxes.begin(), boxes.end(), inside)) continue;
        ++points;
        AccelerationSum<T> a, c;
        const octree::Terms ta = octree::walk(whole, octree::Target<T>{p[0], p[1], p[2], nobody}, T(1e-4), T(0), a);
        const octree::Terms tc = octree::walk(part, octree::Target<T>{p[0], p[1], p[2], nobody}, T(1e-4), T(0), c);
        CHECK(ta.cells == tc.cells);
        CHECK(ta.bodies == tc.bodies);
        CHECK(a.x == c.x);
        CHECK(a.y == c.y);
        CHECK(a.z == c.z);
      }
      CHECK(points > 20);
    }
}

TEST_CASE("an_essential_tree_packed_unpacks_to_the_same_arrays_and_a_cut_message_is_refused", "[tree][mpi]") {
  const std::size_t n = 500;
  const test::Bodies<double> b = test::random_bodies<double>(n, 3);
  TreeOptions o;
  o.quadrupole = true;
  octree::Tree<double> t;
  octree::build_octree(b.pos.data(), b.mass.data(), n, o, 2, t);
  const octree::EssentialTree<double> e = octree::essential_tree(t, {octree::Box<double>{{0, 0, 0}, {1, 1, 1}}});
  std::vector<unsigned char> bytes;
  octree::pack(e, bytes);
  const octree::EssentialTree<double> u = octree::unpack<double>(bytes.data(), bytes.size());
  CHECK(u.node == e.node);
  CHECK(u.mass == e.mass);
  CHECK(u.quad == e.quad);
  CHECK(u.child == e.child);
  CHECK(u.nchild == e.nchild);
  CHECK(u.first == e.first);
  CHECK(u.end == e.end);
  CHECK(u.bx == e.bx);
  CHECK(u.bm == e.bm);
  CHECK_THROWS_WITH(octree::unpack<double>(bytes.data(), bytes.size() - 1), Catch::Contains("shorter"));
  bytes.push_back(0);
  CHECK_THROWS_WITH(octree::unpack<double>(bytes.data(), bytes.size()), Catch::Contains("longer"));
}

TEST_CASE("the_shared_cells_are_those_holding_both_sides_of_a_domain_boundary", "[tree][mpi]") {
  using octree::Cell;
  // Keys of 21 octal digits: the boundary between 0o1234... and 0o1240... shares levels 0 to 3.
  const unsigned long long a = 01234ULL << 3 * 17, c = 01240ULL << 3 * 17;
  std::vector<octree::Extent<double>> extents(3);
  extents[0].count = 5, extents[0].first = 0, extents[0].last = a;
  extents[1].count = 0;  // a rank without bodies: no boundary of its own
  extents[2].count = 5, extents[2].first = c, extents[2].last = c + 100;
  const std::vector<Cell> cells = octree::shared_cells(extents);
  REQUIRE(cells.size() == 3);
  CHECK(cells[0] == Cell{0, 0});
  CHECK(cells[1] == Cell{1, 01});
  CHECK(cells[2] == Cell{2, 012});
  // Counting keys in cells: the sorted keys a rank holds.
  const std::vector<unsigned long long> keys = {a, a + 1, c, c + 7, 07ULL << 3 * 20};
  CHECK(octree::count_in(keys.data(), 4, Cell{2, 012}) == 4);
  CHECK(octree::count_in(keys.data(), 4, Cell{3, 0123}) == 2);
  CHECK(octree::count_in(keys.data(), 4, Cell{3, 0124}) == 2);
  CHECK(octree::count_in(keys.data(), 5, Cell{0, 0}) == 5);
  CHECK(octree::count_in(keys.data(), 5, Cell{1, 07}) == 1);
}
