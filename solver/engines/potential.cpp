// direct_potentials and direct_body_potentials (engines/engine.hpp): the potential at points and at
// the bodies themselves by direct summation on the CPU.
#include "core/real.hpp"  // first: the math functions of every real type, which the kernels below call
#include "common/compensated.hpp"
#include "common/interaction.hpp"
#include "engines/engine.hpp"
#include "physics/tree_params.hpp"

namespace nbody {

namespace {

// phi[t] at the m points `at` (3m, SoA); self: the points are the bodies (at = pos, m = n), each
// leaving its own term out.
template <class T>
void sum_potentials(const ForceLaw<T>& law, const T* pos, const T* mass, std::size_t n, const T* at, std::size_t m, bool self,
                    T* phi) {
  const T *x = pos, *y = pos + n, *z = pos + 2 * n;
#pragma omp parallel for schedule(dynamic, 64)
  for (std::size_t t = 0; t < m; ++t) {
    const T px = at[t], py = at[m + t], pz = at[2 * m + t];
    CompensatedSum<T> sum;
    for (std::size_t j = 0; j < n; ++j)
      if (!self || j != t) sum.add(mass[j] * pair_potential_kernel(x[j] - px, y[j] - py, z[j] - pz, law.eps2, law.rmin2));
    phi[t] = -law.G * sum.value();
  }
}

}  // namespace

template <class T>
void direct_potentials(const ForceLaw<T>& law, const T* pos, const T* mass, std::size_t n, const T* at, std::size_t m, T* phi) {
  sum_potentials(law, pos, mass, n, at, m, false, phi);
}

template <class T>
void direct_body_potentials(const ForceLaw<T>& law, const T* pos, const T* mass, std::size_t n, T* phi) {
  sum_potentials(law, pos, mass, n, pos, n, true, phi);
}

std::string opening_text(TreeKind tree, const TreeOptions& o) {
  std::string text;
  for (const TreeParam& p : tree_params)
    if (const auto value = value_text(p, o); steers(p, tree) && value) {
      if (!text.empty()) text += ' ';
      text.append(p.flag).append(" ").append(*value);
    }
  return text;
}

#define NBODY_INSTANTIATE(T)                                                                                              \
  template void direct_potentials<T>(const ForceLaw<T>&, const T*, const T*, std::size_t, const T*, std::size_t, T*); \
  template void direct_body_potentials<T>(const ForceLaw<T>&, const T*, const T*, std::size_t, T*);
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
