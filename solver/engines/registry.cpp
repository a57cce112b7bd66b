// The engine registry. Adding a CPU engine: one header defining the class, with a static `info`
// (name, description and, when it differs from a plain CPU engine, capabilities()), and one line
// in engine_table below. GPU engines come from their kernels' specs (engines/gpu_engines.hpp).
#include <algorithm>

#include "core/real.hpp"
#include "core/registry.hpp"
#include "engines/engine.hpp"
#include "engines/gpu_engines.hpp"
#include "engines/kdtree/kdtree_cpu.hpp"
#include "engines/mpi.hpp"
#include "engines/octree/distributed.hpp"
#include "engines/octree/octree_cpu.hpp"
#include "engines/openmp.hpp"
#include "engines/openmp_block.hpp"
#include "engines/openmp_simd.hpp"
#include "engines/simple.hpp"

namespace nbody {

std::string_view device_name(Device d) {
  switch (d) {
    case Device::cpu: return "cpu";
    case Device::cuda: return "cuda";
    case Device::opencl: return "opencl";
  }
  return "?";
}

std::string_view potentials_name(Potentials p) {
  switch (p) {
    case Potentials::direct_cpu: return "direct_cpu";
    case Potentials::direct_device: return "direct_device";
    case Potentials::tree: return "tree";
  }
  return "?";
}

namespace {

template <template <class> class E, class T>
EngineEntry<T> entry() {
  using I = typename E<T>::info;
  EngineCapabilities can;
  if constexpr (requires { I::capabilities(); }) can = I::capabilities();
  return {I::name, I::description, std::move(can),
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

// The kd-tree engines (S0's Table 4) in float, double and dd, and the octree (S4) in float and
// double, after the all-pairs CPU engines.
template <class T>
std::vector<EngineEntry<T>> with_tree_engines(std::vector<EngineEntry<T>> cpu) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, dd>) {
    cpu.push_back(entry<kdtree::CycleTree, T>());
    cpu.push_back(entry<kdtree::CycleHeap, T>());
    cpu.push_back(entry<kdtree::CycleStackless, T>());
    cpu.push_back(entry<kdtree::NestedTree, T>());
    cpu.push_back(entry<kdtree::NestedHeap, T>());
    cpu.push_back(entry<kdtree::NestedStackless, T>());
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    cpu.push_back(entry<octree::CpuEngine, T>());
    cpu.push_back(entry<octree::DistributedEngine, T>());
  }
  return cpu;
}

template <class T>
std::string engines_with_compensated_sums() {
  return names_of(engine_table<T>(), [](const auto& e) { return e.can.compensated_forces; });
}

constexpr std::string_view kMpiPrefix = "mpi:", kMpiRingPrefix = "mpi-ring:";

}  // namespace

template <class T>
const std::vector<EngineEntry<T>>& engine_table() {
  static const std::vector<EngineEntry<T>> table = with_gpu_engines<T>(with_tree_engines<T>(with_simd_engines<T>({
      entry<OpenMPEngine, T>(),  // first = default: the fastest CPU engine built (but see with_simd_engines)
      entry<SimpleEngine, T>(),
      entry<OpenMPBlockEngine, T>(),
      entry<OpenMPBlockAosEngine, T>(),
  })));
  return table;
}

const std::vector<EngineName>& all_engines() {
  static const std::vector<EngineName> all = [] {
    std::vector<EngineName> out;
    auto add = [&out]<class U>() {
      for (const auto& e : engine_table<U>()) {
        auto it = std::find_if(out.begin(), out.end(), [&](const EngineName& x) { return x.name == e.name; });
        if (it == out.end()) it = out.insert(out.end(), EngineName{e.name, {}, e.can.device});
        it->precisions.push_back(RealTraits<U>::name);
      }
    };
#define NBODY_ADD_ENGINES(U) add.template operator()<U>();
    NBODY_FOR_EACH_PRECISION(NBODY_ADD_ENGINES)
#undef NBODY_ADD_ENGINES
    return out;
  }();
  return all;
}

std::string_view local_engine_name(std::string_view name) {
  for (std::string_view prefix : {kMpiPrefix, kMpiRingPrefix})
    if (name.starts_with(prefix)) return name.substr(prefix.size());
  return name;
}

template <class T>
const EngineEntry<T>& find_engine(std::string_view name) {
  name = local_engine_name(name);  // mpi:<engine> has its local engine's capabilities
  const auto& table = engine_table<T>();
  for (const auto& e : table)
    if (e.name == name) return e;
  // An engine that other precisions have (cuda-pairs, openmp-simd, opencl-tiled): say where it runs.
  for (const auto& e : all_engines()) {
    if (e.name != name) continue;
    const std::string where = comma_list(e.precisions);
    throw InputError("engine '" + std::string(name) + "' does not run in " + std::string(RealTraits<T>::name) +
                     " (only in " + where + "); engines for " + std::string(RealTraits<T>::name) + ": " + names_of(table));
  }
  return find_entry(table, name, "engine");  // unknown everywhere: lists the valid names
}

template <class T>
std::unique_ptr<ForceEngine<T>> make_engine(std::string_view name, const ForceLaw<T>& law) {
  const EngineEntry<T>& e = find_engine<T>(name);
  if (law.compensated && !e.can.compensated_forces)
    throw InputError("engine '" + std::string(name) + "' has no compensated force sums (--compensated forces or both); " +
                     "engines with them: " + engines_with_compensated_sums<T>());
  if (local_engine_name(name) == name) return e.make(law);
  if (!e.can.block_forces && !e.can.pass_forces)
    throw InputError("engine '" + std::string(e.name) + "' computes all bodies at once, so " +
                     std::string(name.substr(0, name.size() - e.name.size())) + " cannot split it over ranks; engines it can split in " +
                     std::string(RealTraits<T>::name) + ": " +
                     names_of(engine_table<T>(), [](const auto& x) { return x.can.block_forces || x.can.pass_forces; }));
#if NBODY_WITH_CUDA
  // One GPU per rank: the node's ranks take its GPUs in turn.
  if (e.can.device == Device::cuda && cuda::device_count() > 0) cuda::use_device(mpi::local_rank() % cuda::device_count());
#endif
  const auto how = name.starts_with(kMpiRingPrefix) ? mpi::Exchange::ring : mpi::Exchange::allgatherv;
  return std::make_unique<MpiEngine<T>>(e.make(law), how, !e.can.block_forces);  // else by its passes
}

#define NBODY_INSTANTIATE(T)                                                 \
  template const std::vector<EngineEntry<T>>& engine_table<T>();            \
  template const EngineEntry<T>& find_engine<T>(std::string_view);          \
  template std::unique_ptr<ForceEngine<T>> make_engine(std::string_view, const ForceLaw<T>&);
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
