// The ranks' blocks of mpi:<engine> (mpi/ranks.hpp): the even split and its balancing by the
// ranks' measured speeds. Pure functions: no mpiexec needed (tests/runner/test_mpi_runs.py runs
// the ranks themselves).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "mpi/ranks.hpp"

using namespace nbody;

namespace {

// Every rank's block ends where the next begins, on whole blocks of 64 bodies, from 0 to n.
void check_partition(const std::vector<std::size_t>& b, std::size_t n) {
  REQUIRE(b.front() == 0);
  REQUIRE(b.back() == n);
  for (std::size_t r = 1; r + 1 < b.size(); ++r) {
    CHECK(b[r] % 64 == 0);
    CHECK(b[r] >= b[r - 1]);
  }
}

}  // namespace

TEST_CASE("one_rank_takes_every_body", "[mpi]") {
  for (std::size_t n : {0, 1, 63, 65, 100000}) CHECK(mpi::block_bounds(n) == std::vector<std::size_t>{0, n});
}

TEST_CASE("balanced_blocks_give_faster_ranks_more_bodies_until_the_ranks_take_equal_times", "[mpi]") {
  const std::size_t n = 262144;
  const std::vector<double> speed = {1.0, 0.5, 0.75, 1.0};  // bodies per unit time, relative
  std::vector<std::size_t> b = {0, n / 4, n / 2, 3 * n / 4, n};
  auto times = [&] {
    std::vector<double> t;
    for (std::size_t r = 0; r < speed.size(); ++r) t.push_back(double(b[r + 1] - b[r]) / speed[r]);
    return t;
  };
  auto spread = [](const std::vector<double>& t) {
    double lo = t[0], hi = t[0];
    for (double x : t) lo = std::min(lo, x), hi = std::max(hi, x);
    return hi / lo;
  };
  const double before = spread(times());
  CHECK(before == Approx(2.0));
  b = mpi::balanced_bounds(b, times());  // from the even split: at once
  check_partition(b, n);
  CHECK(spread(times()) < 1.01);
  for (int k = 0; k < 20; ++k) {
    b = mpi::balanced_bounds(b, times());
    check_partition(b, n);
  }
  CHECK(spread(times()) < 1.01);  // within the 64-body granularity and the halving
  CHECK(b[2] - b[1] < b[1] - b[0]);  // the slow rank has the fewest bodies
}

TEST_CASE("balanced_blocks_keep_the_bounds_when_nothing_was_measured_and_revive_an_empty_rank", "[mpi]") {
  const std::vector<std::size_t> b = {0, 640, 1280};
  CHECK(mpi::balanced_bounds(b, {0.0, 0.0}) == b);
  // A rank that had no bodies gets the mean rate, so it takes work again.
  const auto next = mpi::balanced_bounds({0, 1280, 1280}, {1.0, 0.0});
  check_partition(next, 1280);
  CHECK(next[1] < 1280);
}
