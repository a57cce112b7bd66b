// direct_potentials (engines/engine.hpp): the potential at points by direct summation on the CPU.
#include "core/real.hpp"  // first: the math functions of every real type, which the kernels below call
#include "common/interaction.hpp"
#include "common/compensated.hpp"
#include "engines/engine.hpp"

namespace nbody {

template <class T>
void direct_potentials(const ForceLaw<T>& law, const T* pos, const T* mass, std::size_t n, const T* at, std::size_t m, T* phi) {
  const T *x = pos, *y = pos + n, *z = pos + 2 * n;
#pragma omp parallel for schedule(dynamic, 64)
  for (std::size_t t = 0; t < m; ++t) {
    const T px = at[t], py = at[m + t], pz = at[2 * m + t];
    CompensatedSum<T> sum;
    for (std::size_t j = 0; j < n; ++j)
      sum.add(mass[j] * pair_potential_kernel(x[j] - px, y[j] - py, z[j] - pz, law.eps2, law.rmin2));
    phi[t] = -law.G * sum.value();
  }
}

#define NBODY_INSTANTIATE(T) \
  template void direct_potentials<T>(const ForceLaw<T>&, const T*, const T*, std::size_t, const T*, std::size_t, T*);
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
