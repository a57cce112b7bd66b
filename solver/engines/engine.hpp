#pragma once
// A force engine computes accelerations from positions and masses. All engines implement the same
// force law (kernels/common/interaction.hpp) and must agree with `simple` in the norm of
// DESIGN.md: max_i |a_i - a_i,ref| / sum_j |a_ij|.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "physics/force_law.hpp"

namespace nbody {

template <class T>
class ResidentStepper;  // engines/resident.hpp

template <class T>
class ForceEngine {
 public:
  explicit ForceEngine(const ForceLaw<T>& law) : law_(law) {}
  virtual ~ForceEngine() = default;
  // pos: 3n values, SoA (x[n] y[n] z[n]); mass: n; acc: 3n values written, SoA.
  virtual void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) = 0;
  const ForceLaw<T>& law() const { return law_; }

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

 protected:
  ForceLaw<T> law_;
};

template <class T>
struct EngineEntry {
  std::string_view name;
  std::string_view description;
  std::unique_ptr<ForceEngine<T>> (*make)(const ForceLaw<T>&);
};

// The engines this build has, in registry order; the first is the default of `nbody run`.
template <class T>
const std::vector<EngineEntry<T>>& engine_table();

template <class T>
std::unique_ptr<ForceEngine<T>> make_engine(std::string_view name, const ForceLaw<T>& law);

}  // namespace nbody
