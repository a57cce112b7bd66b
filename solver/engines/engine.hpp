#pragma once
// A force engine computes accelerations from positions and masses. All engines implement the same
// force law (kernels/common/interaction.hpp) and must agree with `simple` in the norm of
// docs/design.md, max_i |a_i - a_i,ref| / sum_j |a_ij| (tests/test_engines.cpp, for every entry
// of the registry).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "engines/launch.hpp"
#include "physics/force_law.hpp"

namespace nbody {

template <class T>
class ResidentStepper;  // engines/resident.hpp

// A tree's shape: the same numbers from every back end that builds it from one input.
struct TreeShape {
  unsigned nodes = 0, leaves = 0, depth = 0, largest_leaf = 0;
  unsigned bodies = 0;  // summed over the leaves
  bool operator==(const TreeShape&) const = default;
};

// Tree engines: what the last evaluation cost, the build (moments included) and the walk apart,
// and the terms (node and body interactions) added per body. Negative: not a tree engine, or not
// measured apart. The shape and the root's mass where the engine reports them (octrees).
struct TreeProfile {
  double build_seconds = -1, walk_seconds = -1, terms_per_body = -1;
  double cell_terms_per_body = -1;  // of terms_per_body, nodes taken whole (particle-cell); < 0: not counted apart
  double moments_seconds = -1;
  TreeShape shape;
  double root_mass = 0;
  static TreeProfile timed(double build_seconds, double walk_seconds, double terms_per_body) {
    TreeProfile p;
    p.build_seconds = build_seconds, p.walk_seconds = walk_seconds, p.terms_per_body = terms_per_body;
    return p;
  }
};

// phi (m) = -G sum_j m_j k(|x_j - p|) at the m points `at` (3m, SoA) for the bodies pos (3n, SoA)
// and mass (n): the potential whose gradient is the law's force (pair_potential_kernel, softening
// and clamp included), each point's sum in body order with Neumaier's compensation, OpenMP over
// the points. What every engine uses unless it evaluates potentials on its own device.
template <class T>
void direct_potentials(const ForceLaw<T>& law, const T* pos, const T* mass, std::size_t n, const T* at, std::size_t m, T* phi);
// phi_i = -G sum_{j != i} m_j k(|x_j - x_i|) for each of the n bodies, summed as direct_potentials
// sums a point's: the exact potential of every body, what ForceEngine::body_potentials() gives
// unless the engine evaluates it on its own.
template <class T>
void direct_body_potentials(const ForceLaw<T>& law, const T* pos, const T* mass, std::size_t n, T* phi);
// How direct_potentials and direct_body_potentials sum, for the engines' method texts.
inline constexpr std::string_view direct_cpu_method = "direct sum on the CPU (OpenMP, compensated)";
// A tree's parameters for a method text, as flags: "--theta 0.5 --moments monopole" (octree),
// "--lambda-crit 4 --split-axis cycle" (kd-tree); a leaf size where one is set.
std::string opening_text(TreeKind tree, const TreeOptions& o);

// What the last evaluation of an MPI engine cost on this rank (engines/mpi.hpp); ranks 0: not one.
struct RankProfile {
  int ranks = 0;
  std::string exchange;  // allgatherv, ring, or in turn (an engine split by its passes)
  double compute_seconds = 0, exchange_seconds = 0;              // the last evaluation
  double kernel_seconds = -1;  // the last evaluation's local kernels on the device (events; -1: a CPU engine)
  double total_compute_seconds = 0, total_exchange_seconds = 0;  // every evaluation so far
  // The bytes a rank sent to the others in the last evaluation (mpi::bytes_sent): the mean over
  // the ranks and the most; and the mean over every evaluation so far.
  double exchange_bytes = 0, exchange_bytes_max = 0, total_exchange_bytes = 0;
  // Of exchange_bytes, the bodies and their sums (mpi-octree: to their domains, back, and, every
  // rank given all bodies, to every rank); the rest is the tree's. < 0: not counted apart.
  double body_bytes = -1;
  void count_bytes(double mean, double most) {
    exchange_bytes = mean, exchange_bytes_max = most, total_exchange_bytes += mean;
  }
};

template <class T>
class ForceEngine {
 public:
  explicit ForceEngine(const ForceLaw<T>& law) : law_(law) {}
  virtual ~ForceEngine() = default;
  // pos: 3n values, SoA (x[n] y[n] z[n]); mass: n; acc: 3n values written, SoA.
  virtual void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) = 0;
  // The same for the bodies [first, first + count) alone, written to their places in acc (3n,
  // SoA), each body's sum formed exactly as accelerations() forms it, so that the blocks of any
  // split put together equal one evaluation bit for bit (mpi:<engine>, engines/mpi.hpp). Only the
  // engines whose capabilities say block_forces.
  virtual void accelerations_of(const T* pos, const T* mass, std::size_t n, std::size_t first, std::size_t count, T* acc) {
    (void)pos, (void)mass, (void)n, (void)first, (void)count, (void)acc;
    throw InputError("this engine computes all bodies at once (no block_forces)");
  }
  // Engines whose sum is one per pass, added in pass order (capabilities: pass_forces; cuda-pairs'
  // passes over its tile distances), for mpi:<engine>, whose ranks split the passes: their number
  // for n bodies; the sums of passes [first, end), kept by the engine; and acc (3n, SoA) = those
  // sums added onto acc in pass order (onto nothing when first), times G when last. Ranks that do
  // the last in turn, in pass order, form each body's sum exactly as accelerations() does.
  virtual std::size_t pass_count(std::size_t n) {
    (void)n;
    throw InputError("this engine's sum has no passes to split (no pass_forces)");
  }
  virtual void pass_sums(const T* pos, const T* mass, std::size_t n, std::size_t first, std::size_t end) {
    (void)pos, (void)mass, (void)n, (void)first, (void)end;
    throw InputError("this engine's sum has no passes to split (no pass_forces)");
  }
  virtual void fold_pass_sums(std::size_t n, bool first, bool last, T* acc) {
    (void)n, (void)first, (void)last, (void)acc;
    throw InputError("this engine's sum has no passes to split (no pass_forces)");
  }
  const ForceLaw<T>& law() const { return law_; }
  // The potential at points (direct_potentials' contract); potential_method() says how and where.
  virtual void potentials(const T* pos, const T* mass, std::size_t n, const T* at, std::size_t m, T* phi) {
    direct_potentials(law_, pos, mass, n, at, m, phi);
  }
  virtual std::string potential_method() const { return std::string(direct_cpu_method); }
  // phi_i = -G sum_{j != i} m_j k(|x_j - x_i|) for every body i (n values): each body's potential
  // from all the others, with the law's pair potential (pair_potential_kernel: softening and clamp),
  // as this engine evaluates it (trees: by their own walk, so approximate). pos: 3n values, SoA, as
  // in accelerations(). Leaves what the engine reports of its last evaluation (profile, shape,
  // device time) and any device-resident steps' state as they were. The capabilities say how
  // (EngineCapabilities::potentials), body_potential_method() in words.
  virtual void body_potentials(const T* pos, const T* mass, std::size_t n, T* phi) {
    direct_body_potentials(law_, pos, mass, n, phi);
  }
  // One phrase for a run's summary: how and where, e.g. "direct sum on the GPU (CUDA, NVIDIA H100 ...)",
  // "octree walk on the GPU (CUDA, ...; theta 0.5, monopoles)".
  virtual std::string body_potential_method() const { return std::string(direct_cpu_method); }

  // GPU engines: the launch shape ("block=256,split=4,unroll=8,ipt=2", `nbody bench --launch`).
  // Engines without one refuse any non-empty spec.
  virtual void set_launch(std::string_view spec) {
    if (!spec.empty()) throw InputError("--launch: this engine has no launch shape (GPU engines only)");
  }
  // Device time of the last accelerations(), kernels only (GPU events), in seconds; < 0: not measured.
  virtual double last_device_seconds() const { return -1.0; }
  // The device and the launch shape the last evaluation ran with; empty for CPU engines.
  virtual std::string device_info() const { return {}; }
  // Device-resident stepping (engines/resident.hpp), for the engines that offer it; else nullptr.
  virtual ResidentStepper<T>* resident() { return nullptr; }
  virtual TreeProfile last_tree_profile() const { return {}; }
  // MPI engines: the ranks and the last evaluation's time in the local engine and in the
  // exchange (waiting for the other ranks included), and their sums over the run.
  virtual RankProfile last_rank_profile() const { return {}; }
  // Engines that distribute the bodies themselves (capabilities: distributed): true, each rank
  // passes its own block of them (pos, mass and acc hold n = its count; the ranks' blocks in rank
  // order are the bodies in their order), so that no rank holds them all; false
  // (the default), every rank passes all of them and gets all of them back.
  virtual void set_blocks(bool) {}

 protected:
  ForceLaw<T> law_;
};

// Where an engine computes.
enum class Device { cpu, cuda, opencl };
std::string_view device_name(Device d);  // "cpu", "cuda", "opencl"

// How an engine's body_potentials() evaluates: the exact direct sum on the CPU (the base class's),
// a direct sum on its device, or its tree's walk (approximate, with the force's opening rule).
enum class Potentials { direct_cpu, direct_device, tree };
std::string_view potentials_name(Potentials p);  // "direct_cpu", "direct_device", "tree"

// What an engine can do, carried by its registry entry, so that the CLI and the tests ask the
// registry instead of naming engines.
struct EngineCapabilities {
  Device device = Device::cpu;
  bool compensated_forces = false;  // sums the pair forces with Neumaier's algorithm (--compensated forces)
  std::string simd;                 // the instruction set it dispatched to on this CPU; empty: not explicit SIMD
  std::vector<Knob> launch;         // its --launch knobs in this precision (GPU kernels' specs); empty: none
  TreeKind tree = TreeKind::none;   // Barnes-Hut: the tree, and so the flags that steer it
  unsigned leaf_size = 0;           // tree engines: the --leaf-size it takes when none is given
  bool block_forces = false;        // computes a block of bodies alone (accelerations_of): mpi:<engine> splits it
  bool pass_forces = false;         // sums in passes added in order (pass_sums): mpi:<engine> splits the passes
  bool distributed = false;         // splits its work over the MPI ranks itself, from each rank's block of the bodies (set_blocks)
  std::string_view bits_of;         // the engine whose results it gives bit for bit on any number of ranks; empty: its own
  Potentials potentials = Potentials::direct_cpu;  // how its body_potentials() evaluates
  // Its share of the memory estimate (core/memory.hpp): the reals a body it keeps on the host (its
  // copies of the bodies, the forces it returns, its tree) and on the device.
  // (Measured as the growth of the peak resident size with N, less the state's and the integrator's.)
  double host_reals = 1, device_reals = 0;
  double host_bytes = 0;  // whatever N: a GPU runtime's own

  // The memory of a command running this engine that keeps `own_reals` reals a body itself (and
  // `text_bytes` of a state file's text).
  BodyMemory memory_with(double own_reals, double text_bytes = 0) const {
    return {own_reals + host_reals, device_reals, text_bytes, host_bytes};
  }
};

// The tree options an engine runs with where no tree parameter is given: its own leaf size.
inline TreeOptions default_tree_options(const EngineCapabilities& can) {
  TreeOptions o;
  o.leaf_size = can.leaf_size;
  return o;
}

template <class T>
struct EngineEntry {
  std::string_view name;
  std::string_view description;
  EngineCapabilities can;
  std::unique_ptr<ForceEngine<T>> (*make)(const ForceLaw<T>&);
};

// The engines this build has for T, in registry order; the first is the default of `nbody run`.
template <class T>
const std::vector<EngineEntry<T>>& engine_table();

// The entry of `name` for T; InputError naming the valid choices (or, for an engine of other
// precisions, the precisions it runs in).
template <class T>
const EngineEntry<T>& find_engine(std::string_view name);

// The local engine of mpi:<engine> and mpi-ring:<engine> (engines/mpi.hpp); any other name itself.
std::string_view local_engine_name(std::string_view name);

// Constructs `name` for T (mpi:<engine>: its local engine, split over the MPI ranks; InputError
// when that engine cannot compute a block of bodies alone); InputError if it has no compensated force sums and law.compensated asks
// for them, naming the engines that have.
template <class T>
std::unique_ptr<ForceEngine<T>> make_engine(std::string_view name, const ForceLaw<T>& law);

// Every engine of this build in any precision, in registry order, and the precisions each runs in.
struct EngineName {
  std::string_view name;
  std::vector<std::string_view> precisions;
  Device device;
};
const std::vector<EngineName>& all_engines();

}  // namespace nbody
