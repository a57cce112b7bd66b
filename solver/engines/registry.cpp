// The engine registry. Adding an engine: one header defining the class (with a static `info`),
// and one line in engine_table below.
#include "core/real.hpp"
#include "core/registry.hpp"
#include "engines/engine.hpp"
#include "engines/gpu_engines.hpp"
#include "engines/openmp.hpp"
#include "engines/openmp_block.hpp"
#include "engines/openmp_simd.hpp"
#include "engines/simple.hpp"

namespace nbody {

namespace {
template <template <class> class E, class T>
EngineEntry<T> entry() {
  using I = typename E<T>::info;
  return {I::name, I::description,
          [](const ForceLaw<T>& law) -> std::unique_ptr<ForceEngine<T>> { return std::make_unique<E<T>>(law); }};
}

// The explicit-SIMD engines exist for float and double only: openmp-simd first (the default of
// `nbody run`: the fastest CPU engine, E07), its AoS variant (E08) last.
template <class T>
std::vector<EngineEntry<T>> with_simd_engines(std::vector<EngineEntry<T>> cpu) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    cpu.insert(cpu.begin(), entry<OpenMPSimdEngine, T>());
    cpu.push_back(entry<OpenMPSimdAosEngine, T>());
  }
  return cpu;
}
}  // namespace

template <class T>
const std::vector<EngineEntry<T>>& engine_table() {
  static const std::vector<EngineEntry<T>> table = with_gpu_engines<T>(with_simd_engines<T>({
      entry<OpenMPEngine, T>(),  // first = default: the fastest CPU engine built (but see with_simd_engines)
      entry<SimpleEngine, T>(),
      entry<OpenMPBlockEngine, T>(),
      entry<OpenMPBlockAosEngine, T>(),
  }));
  return table;
}

template <class T>
std::unique_ptr<ForceEngine<T>> make_engine(std::string_view name, const ForceLaw<T>& law) {
  const auto& table = engine_table<T>();
  for (const auto& e : table)
    if (e.name == name) return e.make(law);
  // An engine that other precisions have (cuda-pairs, openmp-simd, opencl-tiled): say where it runs.
  std::string where;
#define NBODY_ENGINE_RUNS_IN(U)                                 \
  for (const auto& e : engine_table<U>())                       \
    if (e.name == name) where += (where.empty() ? "" : ", ") + std::string(RealTraits<U>::name);
  NBODY_FOR_EACH_PRECISION(NBODY_ENGINE_RUNS_IN)
#undef NBODY_ENGINE_RUNS_IN
  if (!where.empty())
    throw InputError("engine '" + std::string(name) + "' does not run in " + std::string(RealTraits<T>::name) +
                     " (only in " + where + "); engines for " + std::string(RealTraits<T>::name) + ": " + names_of(table));
  return find_entry(table, name, "engine").make(law);  // unknown everywhere: lists the valid names
}

#define NBODY_INSTANTIATE(T)                                         \
  template const std::vector<EngineEntry<T>>& engine_table<T>();    \
  template std::unique_ptr<ForceEngine<T>> make_engine(std::string_view, const ForceLaw<T>&);
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
