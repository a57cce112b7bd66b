// The CUDA cell-list builders (solver/particles/cells/cell_list_cuda.hpp) against the CPU's CellList,
// itself checked against brute force in test_cell_lists.cpp: every builder, in float and double,
// gives the same cell, start and order element for element (each cell's particles in increasing
// index), for 1, 2, 3 and many cells per side, boxes of any aspect ratio, particles on cell faces,
// at 0 and just below L, on top of one another, crowded into a few cells, and from 0 to 100000 of
// them. The incremental re-sort equals a fresh build after moving none, some or all particles and
// counts those that changed cell; linked-to-arrays reorders the particle data by cell. Skipped
// without a CUDA device.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "particles/cells/cell_list.hpp"
#include "particles/cells/cell_list_cuda.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::particles;
using nbody::test::have_cuda_device;

namespace {

template <class T>
std::string type_name() {
  return std::is_same_v<T, float> ? "float" : "double";
}

#if NBODY_WITH_CUDA

// Box sides in cut-offs (r_c = 1): 1, 2, 3 cells per side, many, mixed aspect ratios.
const std::vector<std::vector<double>> boxes = {{1.5, 1.5, 1.5},   {2.5, 2.5, 2.5},    {3.2, 3.2, 3.2},
                                                {7.0, 7.0, 7.0},   {1.2, 3.7, 9.1},    {10.0, 2.0, 4.5},
                                                {23.3, 17.9, 31.1}, {40.0, 40.0, 40.0}};

template <class T>
PeriodicBox<T> box_of(const std::vector<double>& sides) {
  return {{T(sides[0]), T(sides[1]), T(sides[2])}};
}

std::string describe(const std::vector<double>& sides, std::size_t n) {
  return "box " + std::to_string(sides[0]) + " x " + std::to_string(sides[1]) + " x " + std::to_string(sides[2]) +
         ", n = " + std::to_string(n);
}

// n wrapped positions (SoA): uniform in the box, and in about one coordinate of eight each on a
// cell face (or one ulp either side), at 0, or at the largest value below L; about one particle
// in eight on top of an earlier one.
template <class T>
std::vector<T> random_positions(std::size_t n, const PeriodicBox<T>& box, T rc, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const CellGrid<T> g = CellGrid<T>::make(box, rc);
  std::vector<T> pos(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && rng() % 8 == 0) {
      const std::size_t j = rng() % i;
      for (int a = 0; a < 3; ++a) pos[a * n + i] = pos[a * n + j];
      continue;
    }
    for (int a = 0; a < 3; ++a) {
      const T L = box.L[a];
      T x = T(std::uniform_real_distribution<double>(0.0, double(L))(rng));
      const std::uint64_t kind = rng() % 8;
      if (kind == 0) {
        const T face = L * T(rng() % g.n[a]) / T(g.n[a]);
        const std::uint64_t side = rng() % 3;
        x = side == 0 ? face : side == 1 ? std::nextafter(face, T(0)) : std::nextafter(face, L);
      } else if (kind == 1) {
        x = 0;
      } else if (kind == 2) {
        x = std::nextafter(L, T(0));
      }
      pos[a * n + i] = box.wrap(x, a);
    }
  }
  return pos;
}

// The device's list is the CPU's for the same positions: the same grid, cell, start and order.
// Checked first on its own terms, so that a failure says what broke: start rising from 0 to n,
// every particle once, each in its cell's range, each cell in increasing index.
template <class T>
void check_same_list(const std::string& what, const DeviceCellList<T>& gpu, const std::vector<T>& pos, std::size_t n,
                     const PeriodicBox<T>& box, T rc) {
  INFO(what);
  CellList<T> ref, got;
  ref.build(pos.data(), n, box, rc);
  gpu.download(got);
  for (int a = 0; a < 3; ++a) REQUIRE(got.grid.n[a] == ref.grid.n[a]);
  const unsigned cells = ref.grid.cells();
  REQUIRE(got.start.size() == cells + 1);
  REQUIRE(got.order.size() == n);
  REQUIRE(got.cell.size() == n);

  CHECK(got.start.front() == 0);
  CHECK(got.start.back() == n);
  CHECK(std::is_sorted(got.start.begin(), got.start.end()));
  std::vector<unsigned> times(n, 0);
  bool in_range = true, in_own_cell = true, increasing = true;
  for (unsigned c = 0; c < cells; ++c)
    for (unsigned s = got.start[c]; s < got.start[c + 1] && s < n; ++s) {
      const unsigned i = got.order[s];
      if (i >= n) {
        in_range = false;
        continue;
      }
      ++times[i];
      in_own_cell = in_own_cell && got.cell[i] == c;
      increasing = increasing && (s == got.start[c] || got.order[s - 1] < i);
    }
  CHECK(in_range);
  CHECK(std::all_of(times.begin(), times.end(), [](unsigned t) { return t == 1; }));  // none lost, none twice
  CHECK(in_own_cell);
  CHECK(increasing);

  CHECK(got.cell == ref.cell);
  CHECK(got.start == ref.start);
  CHECK(got.order == ref.order);
}

// The sizes of a box's cases: small awkward ones, and random ones up to 100000.
std::vector<std::size_t> sizes(std::uint64_t seed) {
  std::vector<std::size_t> out = {1, 2, 3, 31, 1000, 4099, 100000};
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 3; ++k) out.push_back(std::size_t(std::exp(std::uniform_real_distribution<double>(0.0, std::log(1e5))(rng))));
  return out;
}

// Every builder on every case, one list object for all of them (so that no builder depends on the
// state another left behind, and buffers grow and get reused).
template <class T>
void check_every_builder() {
  const T rc = 1;
  DeviceCellList<T> list;
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    const PeriodicBox<T> box = box_of<T>(boxes[b]);
    for (std::size_t n : sizes(b)) {
      const std::vector<T> pos = random_positions<T>(n, box, rc, 1000 * b + n);
      for (const auto& e : cell_builders) {
        list.build(e.builder, pos.data(), n, box, rc);
        check_same_list(std::string(e.name) + " in " + type_name<T>() + ", " + describe(boxes[b], n), list, pos, n, box, rc);
        CHECK(list.last_build_seconds() >= 0);
      }
    }
  }
}

// Moves `fraction` of the particles (chosen at random) by up to a cell side along each axis,
// wrapped; all of them are drawn afresh when fraction is 1.
template <class T>
void move(std::vector<T>& pos, std::size_t n, const PeriodicBox<T>& box, T rc, double fraction, std::uint64_t seed) {
  if (fraction >= 1) {
    pos = random_positions<T>(n, box, rc, seed);
    return;
  }
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> who(n);
  std::iota(who.begin(), who.end(), 0);
  std::shuffle(who.begin(), who.end(), rng);
  const CellGrid<T> g = CellGrid<T>::make(box, rc);
  for (std::size_t k = 0; k < std::size_t(fraction * double(n)); ++k)
    for (int a = 0; a < 3; ++a) {
      const double side = double(box.L[a]) / g.n[a];
      T& x = pos[a * n + who[k]];
      x = box.wrap(T(double(x) + std::uniform_real_distribution<double>(-side, side)(rng)), a);
    }
}

template <class T>
std::size_t changed_cells(const std::vector<T>& before, const std::vector<T>& after, std::size_t n, const PeriodicBox<T>& box,
                          T rc) {
  CellList<T> a, b;
  a.build(before.data(), n, box, rc);
  b.build(after.data(), n, box, rc);
  std::size_t changed = 0;
  for (std::size_t i = 0; i < n; ++i) changed += a.cell[i] != b.cell[i];
  return changed;
}

template <class T>
void check_incremental() {
  const T rc = 1;
  for (const auto& sides : {boxes[1], boxes[3], boxes[4], boxes[6]})
    for (std::size_t n : {std::size_t(3), std::size_t(20011)})
      for (double fraction : {0.0, 0.01, 0.1, 1.0}) {
        const PeriodicBox<T> box = box_of<T>(sides);
        const std::string what = "incremental in " + type_name<T>() + ", " + describe(sides, n) + ", moving " +
                                 std::to_string(int(fraction * 100)) + " %";
        std::vector<T> pos = random_positions<T>(n, box, rc, 7 + n);
        DeviceCellList<T> list;
        list.build(CellBuilder::incremental, pos.data(), n, box, rc);  // no list yet: a fresh one
        CHECK(list.moved() == n);
        check_same_list(what + ", first build", list, pos, n, box, rc);
        for (int step = 1; step <= 3; ++step) {
          const std::vector<T> before = pos;
          move(pos, n, box, rc, fraction, 100 * step + n);
          const std::size_t changed = changed_cells(before, pos, n, box, rc);
          if (fraction > 0 && n > 1000) CHECK(changed > 0);  // the test moves some across cells
          list.rebuild_incremental(pos.data());
          INFO("step " << step << ": " << changed << " particles changed cell");
          CHECK(list.moved() == changed);
          check_same_list(what + ", step " + std::to_string(step), list, pos, n, box, rc);
        }
        // Another builder's list is re-sorted as well; another box gets a fresh list.
        list.build(CellBuilder::radix_sort, pos.data(), n, box, rc);
        const std::vector<T> before = pos;
        move(pos, n, box, rc, 0.5, 99 + n);
        list.build(CellBuilder::incremental, pos.data(), n, box, rc);
        CHECK(list.moved() == changed_cells(before, pos, n, box, rc));
        check_same_list(what + ", after radix-sort", list, pos, n, box, rc);
        const PeriodicBox<T> other = box_of<T>(boxes[5]);
        list.build(CellBuilder::incremental, pos.data(), n, other, rc);
        CHECK(list.moved() == n);
        check_same_list(what + ", another box", list, pos, n, other, rc);
      }
}

// Half the particles uniform in a box of 40^3 cells, half crowded into its 2 x 2 x 2 corner cells:
// the builders that size their buffers for the mean occupancy (binned's bins, two-level's buckets)
// overflow there and must build again, and give the same list as the others.
template <class T>
void check_crowded() {
  const T rc = 1;
  const PeriodicBox<T> box = box_of<T>({40.0, 40.0, 40.0});
  const std::size_t n = 60000;
  std::vector<T> pos = random_positions<T>(n, box, rc, 5);
  std::mt19937_64 rng(6);
  for (std::size_t i = 0; i < n; i += 2)
    for (int a = 0; a < 3; ++a) pos[a * n + i] = T(std::uniform_real_distribution<double>(0.0, 2.0)(rng));
  DeviceCellList<T> list;
  for (const auto& e : cell_builders) {
    list.build(e.builder, pos.data(), n, box, rc);
    check_same_list(std::string(e.name) + " in " + type_name<T>() + ", half the particles in 8 cells", list, pos, n, box, rc);
  }
}

#endif

}  // namespace

TEST_CASE("the_cuda_cell_builders_have_distinct_names_and_are_found_by_them", "[cells]") {
  std::set<std::string_view> names;
  for (const auto& e : cell_builders) {
    names.insert(e.name);
    CHECK(cell_builder_named(e.name) == e.builder);
    CHECK(name_of(e.builder) == e.name);
    CHECK(!e.description.empty());
  }
  CHECK(names.size() == cell_builders.size());  // no name twice
  CHECK_THROWS_AS(cell_builder_named("bubble-sort"), InputError);
}

TEMPLATE_TEST_CASE("every_cuda_cell_builder_gives_the_cpu_cell_list", "[gpu][cells]", float, double) {
  if (!have_cuda_device("the CUDA cell-list builders in " + type_name<TestType>())) return;
#if NBODY_WITH_CUDA
  check_every_builder<TestType>();
#endif
}

TEMPLATE_TEST_CASE("every_cuda_cell_builder_gives_the_cpu_cell_list_when_particles_crowd_into_a_few_cells", "[gpu][cells]",
                   float, double) {
  if (!have_cuda_device("the CUDA cell-list builders on crowded particles in " + type_name<TestType>())) return;
#if NBODY_WITH_CUDA
  check_crowded<TestType>();
#endif
}

TEMPLATE_TEST_CASE("the_incremental_resort_equals_a_fresh_build_and_counts_the_particles_that_changed_cell", "[gpu][cells]",
                   float, double) {
  if (!have_cuda_device("the CUDA incremental re-sort in " + type_name<TestType>())) return;
#if NBODY_WITH_CUDA
  check_incremental<TestType>();
#endif
}

TEMPLATE_TEST_CASE("every_cuda_cell_builder_takes_no_particles", "[gpu][cells]", float, double) {
  using T = TestType;
  if (!have_cuda_device("the CUDA cell-list builders with no particles in " + type_name<T>())) return;
#if NBODY_WITH_CUDA
  const T rc = 1;
  const PeriodicBox<T> box = box_of<T>(boxes[4]);
  const std::vector<T> none, some = random_positions<T>(500, box, rc, 5);
  DeviceCellList<T> list;
  for (const auto& e : cell_builders) {
    const std::string what = std::string(e.name) + " in " + type_name<T>();
    list.build(e.builder, some.data(), 500, box, rc);
    list.build(e.builder, none.data(), 0, box, rc);
    check_same_list(what + ", no particles after 500", list, none, 0, box, rc);
    list.build(e.builder, some.data(), 500, box, rc);
    check_same_list(what + ", 500 after none", list, some, 500, box, rc);
  }
  list.build(CellBuilder::counting_sort, none.data(), 0, box, rc);
  list.rebuild_incremental(none.data());
  CHECK(list.moved() == 0);
  check_same_list("incremental with no particles", list, none, 0, box, rc);
  DeviceCellList<T> fresh;
  CHECK_THROWS_AS(fresh.rebuild_incremental(some.data()), InputError);  // nothing to re-sort
#endif
}

TEMPLATE_TEST_CASE("linked_to_arrays_reorders_the_particle_data_by_cell", "[gpu][cells]", float, double) {
  using T = TestType;
  if (!have_cuda_device("the CUDA reorder by cell in " + type_name<T>())) return;
#if NBODY_WITH_CUDA
  const T rc = 1;
  for (const auto& sides : {boxes[0], boxes[4], boxes[7]}) {
    const PeriodicBox<T> box = box_of<T>(sides);
    const std::size_t n = 30011;
    INFO(type_name<T>() << ", " << describe(sides, n));
    const std::vector<T> pos = random_positions<T>(n, box, rc, 11);
    std::vector<T> vel(3 * n);
    std::mt19937_64 rng(12);
    for (T& v : vel) v = T(std::normal_distribution<double>()(rng));
    DeviceCellList<T> list;
    list.build(CellBuilder::linked_to_arrays, pos.data(), n, box, rc, vel.data());
    check_same_list("linked-to-arrays with velocities", list, pos, n, box, rc);
    CellList<T> got;
    list.download(got);
    std::vector<T> sorted_pos, sorted_vel;
    list.download_sorted(sorted_pos, sorted_vel);
    REQUIRE(sorted_pos.size() == 3 * n);
    REQUIRE(sorted_vel.size() == 3 * n);
    bool same = true;
    for (std::size_t s = 0; s < n; ++s)
      for (int a = 0; a < 3; ++a)
        same = same && sorted_pos[a * n + s] == pos[a * n + got.order[s]] && sorted_vel[a * n + s] == vel[a * n + got.order[s]];
    CHECK(same);
    CHECK(list.sorted_positions() != nullptr);
    CHECK(list.sorted_velocities() != nullptr);

    list.build(CellBuilder::linked_to_arrays, pos.data(), n, box, rc);  // no velocities
    list.download_sorted(sorted_pos, sorted_vel);
    CHECK(sorted_pos.size() == 3 * n);
    CHECK(sorted_vel.empty());
    CHECK(list.sorted_velocities() == nullptr);

    list.build(CellBuilder::radix_sort, pos.data(), n, box, rc, vel.data());  // only linked-to-arrays reorders
    CHECK(list.sorted_positions() == nullptr);
    CHECK_THROWS_AS(list.download_sorted(sorted_pos, sorted_vel), InputError);
  }
#endif
}
