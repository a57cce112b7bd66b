#pragma once
// Seed S0's second engine: the same loop, parallel over bodies with OpenMP. The j-range is split
// around i (no self-interaction, no branch in the loop body), and each half is an `omp simd`
// reduction so that the compiler vectorises it (this needs -fno-math-errno for sqrt).
#include <type_traits>

#include "engines/engine.hpp"
#include "common/interaction.hpp"
#include "core/parallel.hpp"
#include "engines/compensated_pair_sum.hpp"
#include "engines/openmp_dd.hpp"

namespace nbody {

template <class T>
class OpenMPEngine final : public ForceEngine<T> {
 public:
  struct info {
    static constexpr std::string_view name = "openmp";
    static constexpr std::string_view description = "all pairs, OpenMP threads over bodies, compiler-vectorised inner loop";
    static EngineCapabilities capabilities() {
      EngineCapabilities c;
      c.compensated_forces = true;
      c.block_forces = !std::is_same_v<T, dd>;  // dd's vectorised kernel (openmp_dd.hpp) takes all bodies
      return c;
    }
  };
  using ForceEngine<T>::ForceEngine;

  // Adds the terms of bodies j in [j0, j1) to (ax, ay, az), vectorised over j for float and
  // double (software types have no OpenMP `+` reduction; the dd engine vectorises its own).
  static void accumulate_range(T xi, T yi, T zi, const T* x, const T* y, const T* z, const T* mass, std::ptrdiff_t j0,
                               std::ptrdiff_t j1, T eps2, T rmin2, T& ax_out, T& ay_out, T& az_out) {
    if constexpr (std::is_floating_point_v<T> && sizeof(T) <= sizeof(double)) {
      T ax{0}, ay{0}, az{0};
#pragma omp simd reduction(+ : ax, ay, az)
      for (std::ptrdiff_t j = j0; j < j1; ++j)
        accumulate_interaction(xi, yi, zi, x[j], y[j], z[j], mass[j], eps2, rmin2, ax, ay, az);
      ax_out += ax, ay_out += ay, az_out += az;
    } else {  // one running sum, in j order
      for (std::ptrdiff_t j = j0; j < j1; ++j)
        accumulate_interaction(xi, yi, zi, x[j], y[j], z[j], mass[j], eps2, rmin2, ax_out, ay_out, az_out);
    }
  }

  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override {
    if constexpr (std::is_same_v<T, dd>) {  // dd: vectorised kernel, openmp_dd.hpp
      if (!this->law_.compensated) return openmp_dd_accelerations(this->law_, pos, mass, n, acc);
    }
    sum_bodies(pos, mass, n, 0, n, acc);
  }
  void accelerations_of(const T* pos, const T* mass, std::size_t n, std::size_t first, std::size_t count, T* acc) override {
    if constexpr (std::is_same_v<T, dd>) ForceEngine<T>::accelerations_of(pos, mass, n, first, count, acc);  // refuses
    else sum_bodies(pos, mass, n, first, count, acc);
  }

 private:
  void sum_bodies(const T* pos, const T* mass, std::size_t n, std::size_t first, std::size_t block, T* acc) {
    const T *x = pos, *y = pos + n, *z = pos + 2 * n;
    const T eps2 = this->law_.eps2, rmin2 = this->law_.rmin2, G = this->law_.G;
    const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(n);
    const std::ptrdiff_t i_begin = static_cast<std::ptrdiff_t>(first), i_end = i_begin + static_cast<std::ptrdiff_t>(block);
    for_each_index(i_end - i_begin, parallel_forces(block), [&](std::ptrdiff_t k) {
      const std::ptrdiff_t i = i_begin + k;
      const T xi = x[i], yi = y[i], zi = z[i];
      T ax{0}, ay{0}, az{0};
      if (this->law_.compensated) {
        compensated_pair_sum(pos, mass, n, static_cast<std::size_t>(i), this->law_, ax, ay, az);
      } else {
        // One function for both halves: written out twice, GCC 12 vectorised only the first.
        accumulate_range(xi, yi, zi, x, y, z, mass, 0, i, eps2, rmin2, ax, ay, az);
        accumulate_range(xi, yi, zi, x, y, z, mass, i + 1, count, eps2, rmin2, ax, ay, az);
      }
      acc[i] = G * ax;
      acc[n + i] = G * ay;
      acc[2 * n + i] = G * az;
    });
  }
};

}  // namespace nbody
