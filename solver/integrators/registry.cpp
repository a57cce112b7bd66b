// The integrator registry. Adding an integrator: one header defining the class (with a nested
// `info`, see leapfrog.hpp, or a tableau, see rk4.hpp), and one line in integrator_table below.
#include "integrators/adams.hpp"
#include "integrators/bulirsch_stoer.hpp"
#include "integrators/cash_karp.hpp"
#include "integrators/dop853.hpp"
#include "integrators/dopri5.hpp"
#include "integrators/euler.hpp"
#include "integrators/feagin10.hpp"
#include "integrators/fehlberg78.hpp"
#include "integrators/gauss_legendre6.hpp"
#include "integrators/gauss_radau15.hpp"
#include "integrators/integrator.hpp"
#include "integrators/leapfrog.hpp"
#include "integrators/lobatto_iiic4.hpp"
#include "integrators/midpoint.hpp"
#include "integrators/rk4.hpp"
#include "integrators/trapeze.hpp"
#include "integrators/verner65.hpp"
#include "integrators/yoshida.hpp"

namespace nbody {

namespace {
template <class M, class T>
IntegratorEntry<T> entry() {
  using I = typename M::info;
  constexpr bool selectable_order = [] {
    if constexpr (requires { I::selectable_order; })
      return I::selectable_order;
    else
      return false;
  }();
  return {I::name, I::description, I::order, I::error_estimate, I::family, I::evaluations_per_step, I::symplectic, I::implicit,
          selectable_order, I::state_vectors,
          [](Rhs<T>& f, const StepOptions<T>& opt) -> std::unique_ptr<Integrator<T>> { return std::make_unique<M>(f, opt); }};
}
}  // namespace

template <class T>
const std::vector<IntegratorEntry<T>>& integrator_table() {
  static const std::vector<IntegratorEntry<T>> table = {
      entry<Euler<T>, T>(),
      entry<Leapfrog<T>, T>(),
      entry<Rk4<T>, T>(),
      entry<Midpoint<T>, T>(),
      entry<Trapeze<T>, T>(),
      entry<Dopri5<T>, T>(),
      entry<CashKarp<T>, T>(),
      entry<Verner65<T>, T>(),
      entry<Fehlberg78<T>, T>(),
      entry<Dop853<T>, T>(),
      entry<Feagin10<T>, T>(),
      entry<GaussLegendre6<T>, T>(),
      entry<LobattoIIIC4<T>, T>(),
      entry<BulirschStoer<T>, T>(),
      entry<GaussRadau15<T>, T>(),
      entry<AdamsBashforth<T>, T>(),
      entry<AdamsMoulton<T>, T>(),
      entry<Yoshida4<T>, T>(),
      entry<Yoshida6<T>, T>(),
  };
  return table;
}

#define NBODY_INSTANTIATE(T) template const std::vector<IntegratorEntry<T>>& integrator_table<T>();
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
