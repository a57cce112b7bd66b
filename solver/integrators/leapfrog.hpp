#pragma once
// Leapfrog in kick-drift-kick form (velocity Verlet, seed S4): symplectic, time-reversible,
// order 2, and its compositions (yoshida.hpp): a step of size h is the sequence of leapfrog steps
// of sizes w_1 h, ..., w_s h. The leapfrog itself is the composition with the single weight 1.
// The acceleration at the end of a sub-step is the one at the start of the next (and of the next
// step), so a step costs one force evaluation per weight.
#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

#include "integrators/explicit_rk.hpp"  // Coefficient
#include "integrators/integrator.hpp"

namespace nbody {

// Method: static members name, description, family, order, and the weights (Coefficient text).
template <class T, class Method>
class LeapfrogComposition final : public Integrator<T> {
 public:
  struct info {
    static constexpr std::string_view name = Method::name;
    static constexpr std::string_view description = Method::description;
    static constexpr int order = Method::order;
    static constexpr bool error_estimate = false;
    static constexpr std::string_view family = Method::family;
    static constexpr int evaluations_per_step = int(Method::weights.size());
    static constexpr bool symplectic = true;
    static constexpr bool implicit = false;
    static constexpr double state_vectors = 0.5;  // acc_
  };

  LeapfrogComposition(Rhs<T>& f, const StepOptions<T>& opt) : Integrator<T>(f, opt), acc_(3 * f.size()) {
    for (std::size_t i = 0; i < w_.size(); ++i) w_[i] = Method::weights[i].template as<T>();
    this->init_carry(6 * f.size());
    ResidentMethod<T> device;
    device.splitting = true;
    device.stages = int(w_.size());
    device.b.assign(w_.begin(), w_.end());
    this->offer_device_steps(std::move(device));
  }

  // On an engine that steps leapfrogs on the device (the CUDA octree engines): the acceleration
  // at the current positions goes with the state and comes back with it.
  std::uint64_t advance_on_device(State<T>& s, ResidentSegment<T>& seg) override {
    if (!this->steps_on_device()) return 0;
    seg.history = {acc_.data()};
    seg.history_current = have_acc_;
    this->run_on_device(s, seg);
    have_acc_ = seg.history_current;
    return seg.steps;
  }

  void restart() override { have_acc_ = false; }

  void save(ArchiveWriter& w) const override {
    Integrator<T>::save(w);
    w.put(have_acc_);
    w.put_bodies(acc_, 3);
  }
  void load(ArchiveReader& r) override {
    Integrator<T>::load(r);
    r.get(have_acc_);
    r.get_bodies(acc_, 3);
  }

  T step(State<T>& s, T h) override {
    const std::size_t m = 3 * s.size();
    T* pos = s.y.data();
    T* vel = s.y.data() + m;
    if (!have_acc_) {
      this->f_.accelerations(pos, acc_.data());
      have_acc_ = true;
    }
    for (const T& w : w_) {
      const T hw = w * h;
      const T half = hw / T(2);
      for (std::size_t k = 0; k < m; ++k) vel[k] = this->add_to_state(m + k, vel[k], half * acc_[k]);  // kick
      for (std::size_t k = 0; k < m; ++k) pos[k] = this->add_to_state(k, pos[k], hw * vel[k]);          // drift
      this->f_.accelerations(pos, acc_.data());
      for (std::size_t k = 0; k < m; ++k) vel[k] = this->add_to_state(m + k, vel[k], half * acc_[k]);  // kick
    }
    s.t += h;
    ++this->counters_.steps;
    return h;
  }

 private:
  std::array<T, Method::weights.size()> w_{};
  std::vector<T> acc_;
  bool have_acc_ = false;
};

struct LeapfrogMethod {
  static constexpr std::string_view name = "leapfrog";
  static constexpr std::string_view description =
      "leapfrog kick-drift-kick (velocity Verlet), symplectic, order 2, 1 force evaluation per step";
  static constexpr std::string_view family = "splitting";
  static constexpr int order = 2;
  static constexpr std::array<Coefficient, 1> weights{Coefficient{"1"}};
};
template <class T>
using Leapfrog = LeapfrogComposition<T, LeapfrogMethod>;

}  // namespace nbody
