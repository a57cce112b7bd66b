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

// e_i of accelerations acc (SoA, any real type) against direct summation; their median, 99th
// percentile (nearest rank) and maximum over the bodies, or over `sample` of them spread evenly
// over the input order (bodies floor(k n / sample); 0 or >= n: all), since the reference costs n
// pair terms per body.
template <class T>
ForceErrorSummary force_error(const T* pos, const T* mass, std::size_t n, const ForceLaw<T>& law, const T* acc,
                              std::size_t sample = 0) {
  if (n < 2) return {};
  const std::size_t m = sample == 0 || sample > n ? n : sample;
  auto d = [](const T& x) { return static_cast<double>(x); };
  std::vector<double> e(m);
#pragma omp parallel for schedule(dynamic, 16) if (m >= 64)
  for (std::ptrdiff_t k = 0; k < std::ptrdiff_t(m); ++k) {
    const std::size_t i = m == n ? std::size_t(k) : std::size_t(k) * n / m;
    double ax = 0, ay = 0, az = 0, scale = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      double bx = 0, by = 0, bz = 0;
      accumulate_interaction<double>(d(pos[i]), d(pos[n + i]), d(pos[2 * n + i]), d(pos[j]), d(pos[n + j]), d(pos[2 * n + j]),
                                     d(mass[j]), d(law.eps2), d(law.rmin2), bx, by, bz);
      ax += bx, ay += by, az += bz;
      scale += std::sqrt(bx * bx + by * by + bz * bz);
    }
    const double G = d(law.G);
    const double ex = d(acc[i]) - G * ax, ey = d(acc[n + i]) - G * ay, ez = d(acc[2 * n + i]) - G * az;
    e[k] = std::sqrt(ex * ex + ey * ey + ez * ez) / (G * scale);
  }
  std::sort(e.begin(), e.end());
  auto rank = [&](double q) { return e[std::min(m - 1, static_cast<std::size_t>(std::ceil(q * double(m))) - 1)]; };
  return {rank(0.5), rank(0.99), e.back()};
}

}  // namespace nbody
