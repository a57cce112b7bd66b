// The short-range methods' periodic box, cell grid and CPU cell list (solver/particles/) against
// brute force: every pair within the cut-off by minimum image, no other, for boxes of any aspect
// ratio with 1, 2, 3 and many cells per side, particles on cell faces and on the periodic
// boundaries.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "particles/cells/cell_list.hpp"
#include "support.hpp"

using namespace nbody::particles;

namespace {

template <class T>
std::set<std::pair<unsigned, unsigned>> brute_force_pairs(const std::vector<T>& pos, std::size_t n, const PeriodicBox<T>& box, T rc) {
  std::set<std::pair<unsigned, unsigned>> pairs;
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      if (i == j) continue;
      T r2 = 0;
      for (int a = 0; a < 3; ++a) {  // the nearest of the images one box either way
        const T d = pos[a * n + j] - pos[a * n + i];
        const T m = std::min({std::abs(d), std::abs(d - box.L[a]), std::abs(d + box.L[a])});
        r2 += m * m;
      }
      if (r2 < rc * rc) pairs.insert({i, j});
    }
  return pairs;
}

// n particles uniform in the box, then some on cell faces, box faces and corners (wrapped).
template <class T>
std::vector<T> particles(std::size_t n, const PeriodicBox<T>& box, T rc, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> pos(3 * n);
  const CellGrid<T> g = CellGrid<T>::make(box, rc);
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      std::uniform_real_distribution<double> u(0.0, double(box.L[a]));
      double x = u(rng);
      if (i % 5 == 1) x = double(box.L[a]) * double(i % g.n[a]) / double(g.n[a]);  // on a cell face
      if (i % 7 == 2) x = (i % 2) ? 0.0 : double(box.L[a]);                         // on the box's faces
      pos[a * n + i] = box.wrap(static_cast<T>(x), a);
    }
  return pos;
}

}  // namespace

TEMPLATE_TEST_CASE("the_cell_list_finds_exactly_the_brute_force_pairs_within_the_cutoff", "[shortrange]", float, double) {
  using T = TestType;
  const T rc = 1;
  // Sides in cut-offs: 1, 2 and 3 cells per side, many, and mixed aspect ratios.
  for (const auto& sides : std::vector<std::vector<double>>{{1.5, 1.5, 1.5}, {2.5, 2.5, 2.5}, {3.2, 3.2, 3.2}, {7.0, 7.0, 7.0},
                                                            {1.2, 3.7, 9.1}, {10.0, 2.0, 4.5}}) {
    const PeriodicBox<T> box{{T(sides[0]), T(sides[1]), T(sides[2])}};
    const std::size_t n = 400;
    const std::vector<T> pos = particles<T>(n, box, rc, 3);
    for (std::size_t i = 0; i < 3 * n; ++i) REQUIRE((pos[i] >= T(0) && pos[i] < box.L[i / n]));
    CellList<T> list;
    list.build(pos.data(), n, box, rc);
    std::vector<std::pair<unsigned, unsigned>> found;
    list.for_each_pair(pos.data(), n, box, rc, [&](unsigned i, unsigned j, T, T, T, T) { found.emplace_back(i, j); });
    const std::set<std::pair<unsigned, unsigned>> unique(found.begin(), found.end());
    INFO("box " << sides[0] << " x " << sides[1] << " x " << sides[2] << ", cells " << list.grid.n[0] << " x "
                << list.grid.n[1] << " x " << list.grid.n[2]);
    CHECK(unique.size() == found.size());  // no pair twice, however few cells an axis has
    CHECK(unique == brute_force_pairs(pos, n, box, rc));
    CHECK(!found.empty());
  }
}

TEST_CASE("the_cell_grid_has_cells_no_smaller_than_the_cutoff_and_distinct_neighbours", "[shortrange]") {
  const PeriodicBox<double> box{{1.5, 2.5, 10.0}};
  const CellGrid<double> g = CellGrid<double>::make(box, 1.0);
  CHECK(g.n[0] == 1);
  CHECK(g.n[1] == 2);
  CHECK(g.n[2] == 10);
  for (int a = 0; a < 3; ++a) CHECK(box.L[a] / g.n[a] >= 1.0);
  unsigned around[27];
  const unsigned m = g.neighbours(g.cell_of(0.1, 2.4, 0.0), around);
  CHECK(m == 1 * 2 * 3);
  CHECK(std::is_sorted(around, around + m));
  CHECK(std::adjacent_find(around, around + m) == around + m);
  // A coordinate on the far face after rounding stays in the last cell; one period off wraps back.
  CHECK(g.cell_of(box.L[0], 0, 0) == 0);
  CHECK(box.wrap(-1e-300, 0) >= 0.0);
  CHECK(box.wrap(-1e-300, 0) < box.L[0]);
  CHECK(box.wrap(12.25, 2) == 2.25);
  CHECK(box.wrap(-0.5, 1) == 2.0);
}

TEST_CASE("the_cell_list_keeps_each_cells_particles_in_index_order", "[shortrange]") {
  const PeriodicBox<double> box{{4.0, 4.0, 4.0}};
  const std::size_t n = 1000;
  const std::vector<double> pos = particles<double>(n, box, 1.0, 9);
  CellList<double> list;
  list.build(pos.data(), n, box, 1.0);
  CHECK(list.start.back() == n);
  for (unsigned c = 0; c < list.grid.cells(); ++c) {
    CHECK(std::is_sorted(list.order.begin() + list.start[c], list.order.begin() + list.start[c + 1]));
    for (unsigned s = list.start[c]; s < list.start[c + 1]; ++s) CHECK(list.cell[list.order[s]] == c);
  }
}

// `nbody cells` (E18) with the CPU's builder: the particles it places anew are the ones counted as
// having changed cell, a DPD step moves a few, and a build is timed.
TEST_CASE("nbody_cells_moves_the_fraction_asked_and_counts_the_particles_that_changed_cell", "[cells][cli]") {
  const std::filesystem::path dir = nbody::test::scratch("cells_cli");
  const auto summary = [&](const std::string& args) {
    REQUIRE(nbody::test::run_nbody(dir, "cells --builder cpu --n 3000 --repeats 2 --summary s.json " + args).exit_code == 0);
    return nlohmann::json::parse(nbody::test::read(dir / "s.json"));
  };
  // A quarter placed anew: all but those that land in their old cell (1 in 1000) changed cell.
  const nlohmann::json quarter = summary("--moved-fraction 0.25");
  CHECK(quarter["cells"] == 1000);
  CHECK(quarter["moved"].get<int>() <= 750);
  CHECK(quarter["moved"].get<int>() >= 740);
  CHECK(quarter["seconds"].get<double>() > 0);
  CHECK(summary("--moved-fraction 0")["moved"] == 0);
  // One DPD step from particles in cell order: a few per cent cross a cell face.
  const double stepped = summary("--order step")["moved_fraction"].get<double>();
  CHECK(stepped > 0.005);
  CHECK(stepped < 0.1);
}