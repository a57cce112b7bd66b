#pragma once
// The CUDA force engines: one per kernel of cuda_kernels.hpp, in the real types its spec runs in. Plain
// C++, so that the registry compiles without nvcc; the kernels run through Backend<T>
// (backend.cuh), device-resident steps through ResidentBackend<T> (resident_backend.cuh).
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/real.hpp"
#include "cuda/tune_cache.hpp"
#include "engines/cuda/backend.hpp"
#include "engines/cuda/cuda_kernels.hpp"
#include "engines/cuda/resident_backend.hpp"
#include "engines/engine.hpp"

namespace nbody {

template <class T, class Kernel>
class CudaEngine final : public ForceEngine<T> {
 public:
  explicit CudaEngine(const ForceLaw<T>& law) : ForceEngine<T>(law) {}

  // Kernels without block_forces (the registry says so) take only first = 0, count = n.
  void accelerations_of(const T* pos, const T* mass, std::size_t n, std::size_t first, std::size_t count, T* acc) override {
    backend_.compute(kernel, force_launch(n), pos, mass, n, first, count, this->law_.G, this->law_.eps2, this->law_.rmin2,
                     acc);
  }
  // Kernels with pass_forces (the registry says so).
  std::size_t pass_count(std::size_t n) override {
    return static_cast<std::size_t>(backend_.pass_count(kernel, force_launch(n), n, this->law_.rmin2));
  }
  void pass_sums(const T* pos, const T* mass, std::size_t n, std::size_t first, std::size_t end) override {
    backend_.compute_passes(kernel, force_launch(n), pos, mass, n, static_cast<int>(first), static_cast<int>(end),
                            this->law_.G, this->law_.eps2, this->law_.rmin2);
  }
  void fold_pass_sums(std::size_t n, bool first, bool last, T* acc) override {
    backend_.fold_passes(n, first, last, this->law_.G, acc);
  }
  void accelerations(const T* pos, const T* mass, std::size_t n, T* acc) override { accelerations_of(pos, mass, n, 0, n, acc); }
  // The force kernel's knobs and, in the real types that have them, the device-resident steps'.
  void set_launch(std::string_view spec) override {
    const Launch l = parse_launch(spec);
    auto knobs = Kernel::template knobs<T>();
    if constexpr (has_resident)
      for (const Knob& k : cuda::Resident::knobs())
        if (std::none_of(knobs.begin(), knobs.end(), [&](const Knob& x) { return x.field == k.field; })) knobs.push_back(k);
    check_keys(Kernel::name, knobs, l);  // the values are checked against the device when the kernels run
    launch_ = l;
    explicit_launch_ = !spec.empty();
    if constexpr (has_resident)
      if (resident_) resident_->set_launch(resident_launch());  // the driver took the stepper before
  }
  // The potential at points and at the bodies: direct sums by one kernel, compensated when the law
  // asks for compensated sums.
  void potentials(const T* pos, const T* mass, std::size_t n, const T* at, std::size_t m, T* phi) override {
    backend_.potentials(pos, mass, n, at, m, this->law_.G, this->law_.eps2, this->law_.rmin2, this->law_.compensated, phi);
  }
  std::string potential_method() const override { return cuda::potential_method(this->law_.compensated); }
  static constexpr Potentials body_potential_kind = Potentials::direct_device;  // the registry's capability
  void body_potentials(const T* pos, const T* mass, std::size_t n, T* phi) override { potentials(pos, mass, n, nullptr, n, phi); }
  std::string body_potential_method() const override { return potential_method(); }
  double last_device_seconds() const override { return backend_.last_kernel_seconds(); }
  std::string device_info() const override {
    // With device-resident steps the stepping kernel's shape is what the run ran with (the host
    // kernel only evaluates a starting step, if any), so that resumed parts name the same shape.
    if constexpr (has_resident)
      if (resident_ && !resident_->last_shape().empty())
        return cuda::device_name() + "; steps on the device, " + resident_->last_shape();
    return cuda::device_name() + "; " + to_string(backend_.last_launch());
  }
  // The cooperative stepping kernel, with this engine's force law and the block=, split= and
  // cluster= of its --launch (the force loop is the stepping kernel's own).
  ResidentStepper<T>* resident() override {
    if constexpr (!has_resident) {
      return nullptr;
    } else {
      if (!resident_) resident_ = std::make_unique<cuda::ResidentBackend<T>>();
      resident_->set_law(this->law_.G, this->law_.eps2, this->law_.rmin2);
      resident_->set_launch(resident_launch());
      return resident_.get();
    }
  }

 private:
  // The device-resident steps' part of --launch (unroll= and ipt= are the force kernels' only).
  Launch resident_launch() const {
    Launch l = explicit_launch_ ? launch_ : Launch{};
    l.unroll = l.ipt = 0;
    return l;
  }

  // The force kernel's shape for n: --launch, else the tuned shape for this N if `nbody tune`
  // stored one, else the kernel's choice.
  Launch force_launch(std::size_t n) {
    if (!explicit_launch_ && n != cached_n_) {
      cached_n_ = n;
      cached_ = tune_cache::lookup(cuda::device_key(), std::string(Kernel::name), std::string(RealTraits<T>::name), n).value_or(Launch{});
    }
    Launch force = explicit_launch_ ? launch_ : cached_;
    force.cluster = 0;  // device-resident steps' knob only
    return force;
  }

  static constexpr std::size_t kernel = cuda::Kernels::index_of<Kernel>();
  static constexpr bool has_resident = cuda::Resident::runs_in<T>;
  cuda::Backend<T> backend_;
  std::unique_ptr<std::conditional_t<has_resident, cuda::ResidentBackend<T>, ResidentStepper<T>>> resident_;  // on first use
  Launch launch_{}, cached_{};
  bool explicit_launch_ = false;
  std::size_t cached_n_ = 0;
};

}  // namespace nbody
