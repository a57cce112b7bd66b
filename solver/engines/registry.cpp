// The engine registry. Adding an engine: one header defining the class (with a static `info`),
// and one line in engine_table below.
#include "core/real.hpp"
#include "core/registry.hpp"
#include "engines/engine.hpp"
#include "engines/openmp.hpp"
#include "engines/simple.hpp"

namespace nbody {

namespace {
template <template <class> class E, class T>
EngineEntry<T> entry() {
  using I = typename E<T>::info;
  return {I::name, I::description,
          [](const ForceLaw<T>& law) -> std::unique_ptr<ForceEngine<T>> { return std::make_unique<E<T>>(law); }};
}
}  // namespace

template <class T>
const std::vector<EngineEntry<T>>& engine_table() {
  static const std::vector<EngineEntry<T>> table = {
      entry<OpenMPEngine, T>(),  // first = default: the fastest CPU engine built
      entry<SimpleEngine, T>(),
  };
  return table;
}

template <class T>
std::unique_ptr<ForceEngine<T>> make_engine(std::string_view name, const ForceLaw<T>& law) {
  return find_entry(engine_table<T>(), name, "engine").make(law);
}

#define NBODY_INSTANTIATE(T)                                         \
  template const std::vector<EngineEntry<T>>& engine_table<T>();    \
  template std::unique_ptr<ForceEngine<T>> make_engine(std::string_view, const ForceLaw<T>&);
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
