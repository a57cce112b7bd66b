#pragma once
// The force-comparison norm of docs/design.md, per body: e_i = |a_i - a_i,ref| / (G sum_j |a_ij|),
// with the reference a_ref summed directly in double and the scale formed from the magnitudes of
// the pair terms (well conditioned where the forces on a body cancel). The tests hold engines to
// its maximum; `nbody bench --force-error` reports its median, 99th percentile and maximum for an
// approximating (tree) engine.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "common/interaction.hpp"
#include "physics/force_law.hpp"

namespace nbody {

// For every body i, G sum_{j != i} |a_ij|, evaluated in double. pos: SoA as in ForceEngine.
template <class T>
std::vector<double> pair_scale(const T* pos, const T* mass, std::size_t n, const ForceLaw<T>& law) {
  auto d = [](const T& x) { return static_cast<double>(x); };
  std::vector<double> scale(n, 0.0);
#pragma omp parallel for schedule(static) if (n >= 512)
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (j == std::size_t(i)) continue;
      double ax = 0, ay = 0, az = 0;
      accumulate_interaction<double>(d(pos[i]), d(pos[n + i]), d(pos[2 * n + i]), d(pos[j]), d(pos[n + j]),
                                     d(pos[2 * n + j]), d(mass[j]), d(law.eps2), d(law.rmin2), ax, ay, az);
      scale[i] += d(law.G) * std::sqrt(ax * ax + ay * ay + az * az);
    }
  return scale;
}

// The accelerations of direct summation in double, SoA.
template <class T>
std::vector<double> direct_accelerations(const T* pos, const T* mass, std::size_t n, const ForceLaw<T>& law) {
  auto d = [](const T& x) { return static_cast<double>(x); };
  std::vector<double> acc(3 * n);
#pragma omp parallel for schedule(static) if (n >= 512)
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i) {
    double ax = 0, ay = 0, az = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (j != std::size_t(i))
        accumulate_interaction<double>(d(pos[i]), d(pos[n + i]), d(pos[2 * n + i]), d(pos[j]), d(pos[n + j]),
                                       d(pos[2 * n + j]), d(mass[j]), d(law.eps2), d(law.rmin2), ax, ay, az);
    acc[i] = d(law.G) * ax, acc[n + i] = d(law.G) * ay, acc[2 * n + i] = d(law.G) * az;
  }
  return acc;
}

struct ForceErrorSummary {
  double median = 0, p99 = 0, max = 0;
};

// A body where the error is measured: its index among all bodies, its position and the
// acceleration under test (in double).
struct ErrorPoint {
  std::size_t id;
  double x[3], acc[3];
};
// At each point, the direct sum in double of the pair terms and the sum of their magnitudes, in
// body order: the terms of bodies [first, first + n) of all (pos SoA over n; the point's own body
// left out) added to `sums`, so that ranks holding blocks of the bodies add theirs in turn.
struct DirectSum {
  double a[3] = {0, 0, 0}, scale = 0;
};
template <class T>
void add_direct_sums(std::vector<DirectSum>& sums, const std::vector<ErrorPoint>& points, const T* pos, const T* mass,
                     std::size_t n, std::size_t first, const ForceLaw<T>& law) {
  auto d = [](const T& x) { return static_cast<double>(x); };
  const std::ptrdiff_t m = static_cast<std::ptrdiff_t>(points.size());
#pragma omp parallel for schedule(dynamic, 16) if (m >= 64)
  for (std::ptrdiff_t k = 0; k < m; ++k) {
    const ErrorPoint& p = points[k];
    DirectSum& s = sums[k];
    for (std::size_t j = 0; j < n; ++j) {
      if (first + j == p.id) continue;
      double bx = 0, by = 0, bz = 0;
      accumulate_interaction<double>(p.x[0], p.x[1], p.x[2], d(pos[j]), d(pos[n + j]), d(pos[2 * n + j]), d(mass[j]),
                                     d(law.eps2), d(law.rmin2), bx, by, bz);
      s.a[0] += bx, s.a[1] += by, s.a[2] += bz;
      s.scale += std::sqrt(bx * bx + by * by + bz * bz);
    }
  }
}

// The points' e_i from their direct sums (G the law's): the median, 99th percentile (nearest
// rank) and maximum.
inline ForceErrorSummary error_summary(const std::vector<ErrorPoint>& points, const std::vector<DirectSum>& sums, double G) {
  const std::size_t m = points.size();
  if (m == 0) return {};
  std::vector<double> e(m);
  for (std::size_t k = 0; k < m; ++k) {
    double sq = 0;
    for (int c = 0; c < 3; ++c) sq += (points[k].acc[c] - G * sums[k].a[c]) * (points[k].acc[c] - G * sums[k].a[c]);
    e[k] = std::sqrt(sq) / (G * sums[k].scale);
  }
  std::sort(e.begin(), e.end());
  auto rank = [&](double q) { return e[std::min(m - 1, static_cast<std::size_t>(std::ceil(q * double(m))) - 1)]; };
  return {rank(0.5), rank(0.99), e.back()};
}

// The ids of the bodies a force error of `sample` bodies among n measures: spread evenly over the
// input order (floor(k n / sample)); 0 or >= n: all.
inline std::size_t error_point_count(std::size_t n, std::size_t sample) { return sample == 0 || sample > n ? n : sample; }
inline std::size_t error_point_id(std::size_t k, std::size_t n, std::size_t sample) {
  return error_point_count(n, sample) == n ? k : k * n / sample;
}
// Those of them among bodies [first, first + count) of n (a rank's block, or all), in order.
inline std::vector<std::size_t> error_point_ids(std::size_t n, std::size_t sample, std::size_t first, std::size_t count) {
  std::vector<std::size_t> ids;
  for (std::size_t k = 0; k < error_point_count(n, sample); ++k)
    if (const std::size_t id = error_point_id(k, n, sample); id >= first && id < first + count) ids.push_back(id);
  return ids;
}
// The points there: positions pos and accelerations acc SoA over the `count` bodies from `first`.
template <class T>
std::vector<ErrorPoint> error_points(const T* pos, const T* acc, std::size_t first, std::size_t count, std::size_t n,
                                     std::size_t sample) {
  std::vector<ErrorPoint> points;
  for (const std::size_t id : error_point_ids(n, sample, first, count)) {
    ErrorPoint& p = points.emplace_back(ErrorPoint{id, {}, {}});
    for (int c = 0; c < 3; ++c)
      p.x[c] = static_cast<double>(pos[c * count + id - first]), p.acc[c] = static_cast<double>(acc[c * count + id - first]);
  }
  return points;
}

// e_i of accelerations acc (SoA, any real type) against direct summation; their median, 99th
// percentile (nearest rank) and maximum over the bodies, or over `sample` of them (error_point_id),
// since the reference costs n pair terms per body.
template <class T>
ForceErrorSummary force_error(const T* pos, const T* mass, std::size_t n, const ForceLaw<T>& law, const T* acc,
                              std::size_t sample = 0) {
  if (n < 2) return {};
  const std::vector<ErrorPoint> points = error_points(pos, acc, 0, n, n, sample);
  std::vector<DirectSum> sums(points.size());
  add_direct_sums(sums, points, pos, mass, n, 0, law);
  return error_summary(points, sums, static_cast<double>(law.G));
}

}  // namespace nbody
