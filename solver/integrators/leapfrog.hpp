#pragma once
// Leapfrog in kick-drift-kick form (velocity Verlet, seed S4): symplectic, time-reversible,
// order 2. The acceleration at the end of a step is the one at the start of the next, so a step
// costs one force evaluation.
#include "integrators/integrator.hpp"

namespace nbody {

template <class T>
class Leapfrog final : public Integrator<T> {
 public:
  struct info {
    static constexpr std::string_view name = "leapfrog";
    static constexpr std::string_view description =
        "leapfrog kick-drift-kick (velocity Verlet), symplectic, order 2, 1 force evaluation per step";
    static constexpr int order = 2;
    static constexpr bool error_estimate = false;
    static constexpr std::string_view family = "splitting";
    static constexpr int evaluations_per_step = 1;
    static constexpr bool symplectic = true;
    static constexpr bool implicit = false;
  };

  Leapfrog(Rhs<T>& f, const StepOptions<T>& opt) : Integrator<T>(f, opt), acc_(3 * f.size()) {}

  void restart() override { have_acc_ = false; }

  void save(ArchiveWriter& w) const override {
    Integrator<T>::save(w);
    w.put(have_acc_);
    w.put(acc_);
  }
  void load(ArchiveReader& r) override {
    Integrator<T>::load(r);
    r.get(have_acc_);
    r.get(acc_);
  }

  T step(State<T>& s, T h) override {
    const std::size_t m = 3 * s.size();
    T* pos = s.y.data();
    T* vel = s.y.data() + m;
    if (!have_acc_) {
      this->f_.accelerations(pos, acc_.data());
      have_acc_ = true;
    }
    const T half = h / T(2);
    for (std::size_t k = 0; k < m; ++k) vel[k] += half * acc_[k];  // kick
    for (std::size_t k = 0; k < m; ++k) pos[k] += h * vel[k];      // drift
    this->f_.accelerations(pos, acc_.data());
    for (std::size_t k = 0; k < m; ++k) vel[k] += half * acc_[k];  // kick
    s.t += h;
    ++this->counters_.steps;
    return h;
  }

 private:
  std::vector<T> acc_;
  bool have_acc_ = false;
};

}  // namespace nbody
