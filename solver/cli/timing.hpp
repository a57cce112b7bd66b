#pragma once
// The timing subcommands' statistic (bench, tune, cells): the median of repeated times.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace nbody::cli {

// The median of v (the mean of the middle two for an even count); v not empty.
inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t r = v.size();
  return r % 2 ? v[r / 2] : (v[r / 2 - 1] + v[r / 2]) / 2;
}

}  // namespace nbody::cli
