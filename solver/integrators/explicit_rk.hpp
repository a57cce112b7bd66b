#pragma once
// One driver for every explicit Runge-Kutta method, given its Butcher tableau. A method file
// (euler.hpp, rk4.hpp, dopri5.hpp, ...) only writes its tableau. With an embedded pair the method
// can run adaptively or at a fixed step; it always advances the solution of weights b (the higher
// order one, as docs/design.md's numerics rules require), and y_b - y_b_hat estimates the error of the lower-order one.
//
// Step control of the embedded methods (StepOptions::controller):
//   pi         the PI controller of step_controller.hpp on Hairer's scaled RMS norm (default);
//   subdivide  seed S0's scheme: every step starts at h_max (--h-max, or --dt when h_max is
//              infinite) and is split into 8 sub-steps, recursively, at most 8 levels deep, while
//              the absolute max-norm of the error estimate per unit time (S0's code omits the
//              factor h) exceeds atol.
#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/real.hpp"
#include "integrators/integrator.hpp"
#include "integrators/step_controller.hpp"

namespace nbody {

// A Butcher coefficient as text: an exact rational "num/den" (integers of any length) or a
// decimal with at least 60 significant digits (irrational coefficients). Converted to T at
// construction, so it is as exact as T allows, up to mp50; the tableau tests read the same text
// as exact rationals or in 100-digit arithmetic.
struct Coefficient {
  std::string_view text = "0";
  template <class T>
  T as() const {
    const auto slash = text.find('/');
    if (slash == std::string_view::npos) return RealTraits<T>::parse(text, "Butcher coefficient");
    return RealTraits<T>::parse(text.substr(0, slash), "Butcher coefficient") /
           RealTraits<T>::parse(text.substr(slash + 1), "Butcher coefficient");
  }
};

template <std::size_t S>
struct ButcherTableau {
  static constexpr std::size_t stages = S;
  std::array<Coefficient, S> c;
  std::array<std::array<Coefficient, S>, S> a;  // strictly lower triangular; omitted entries are 0
  std::array<Coefficient, S> b;                 // weights of the solution advanced
  std::array<Coefficient, S> b_hat;             // weights of the embedded solution (unused if none)
  int order;                                 // order of the b solution
  int embedded_order;                        // order of the b_hat solution, 0 if none
  bool fsal;                                 // last stage is f(y_new): reused as next first stage
  // A second embedded solution, for methods whose error estimate combines two (DOP853's
  // 3rd-order one); unused unless embedded_order2 > 0.
  std::array<Coefficient, S> b_hat2{};
  int embedded_order2 = 0;
};

// Customization point of a method's error estimate. By default it is the norm of y_b - y_b_hat,
// whose leading term is O(h^(embedded_order + 1)). A method that builds its estimate otherwise
// (DOP853) defines, next to its tableau,
//   static constexpr int error_order;                  // the power of h of its estimate
//   template <class T> static T combined_error(T e1, T e2);
// where e1 and e2 are the norms of y_b - y_b_hat and y_b - y_b_hat2 (the scaled RMS norm for the
// PI controller, the absolute max-norm for subdivision).
template <class Method, class T>
concept CombinesErrorEstimates = requires(T e) {
  { Method::template combined_error<T>(e, e) } -> std::convertible_to<T>;
  { Method::error_order } -> std::convertible_to<int>;
};

// Method: a struct with static members name, description and tableau.
template <class T, class Method>
class ExplicitRungeKutta final : public Integrator<T> {
  static constexpr auto tab = Method::tableau;
  static constexpr std::size_t S = tab.stages;
  static constexpr bool combined_estimate = CombinesErrorEstimates<Method, T>;
  static_assert(!combined_estimate || tab.embedded_order2 > 0, "a combined error estimate needs b_hat2");

 public:
  struct info {
    static constexpr std::string_view name = Method::name;
    static constexpr std::string_view description = Method::description;
    static constexpr int order = tab.order;
    static constexpr bool error_estimate = tab.embedded_order > 0;
    static constexpr std::string_view family = error_estimate ? "embedded Runge-Kutta" : "explicit Runge-Kutta";
    static constexpr int evaluations_per_step = tab.fsal ? int(S) - 1 : int(S);
    static constexpr bool symplectic = false;
    static constexpr bool implicit = false;
    static constexpr double state_vectors = S + 3 + (tab.embedded_order2 > 0);  // k_, y_stage_, y_new_, err_, err2_
  };

  // The power of h of the error estimate, which sets the PI controller's exponents.
  static constexpr int error_order() {
    if constexpr (combined_estimate)
      return Method::error_order;
    else
      return tab.embedded_order + 1;
  }

  ExplicitRungeKutta(Rhs<T>& f, const StepOptions<T>& opt)
      : Integrator<T>(f, opt), m_(6 * f.size()), k_(S, std::vector<T>(m_)), y_stage_(m_), y_new_(m_), err_(m_),
        err2_(tab.embedded_order2 > 0 ? m_ : 0), controller_(Method::name, error_order(), opt.h_min, opt.h_max),
        subdivider_(opt.atol, opt.h_min) {
    for (std::size_t i = 0; i < S; ++i) {
      b_[i] = tab.b[i].template as<T>();
      e_[i] = b_[i] - tab.b_hat[i].template as<T>();
      e2_[i] = b_[i] - tab.b_hat2[i].template as<T>();
      for (std::size_t j = 0; j < S; ++j) a_[i][j] = tab.a[i][j].template as<T>();
    }
    this->init_carry(m_);
    carry_trial_ = this->carry_;
    h_next_ = opt.dt;
    if (!subdividing()) this->offer_device_steps(device_description());
    if (subdividing()) {
      // S0 starts every step at the largest step allowed.
      h_next_ = opt.h_max < RealTraits<T>::infinity() ? opt.h_max : opt.dt;
      if (!(h_next_ > T(0)))
        throw InputError("--controller subdivide needs --h-max (or --dt): the size every step starts at");
    }
  }

  T proposed_step(const State<T>& s) override {
    if (h_next_ > T(0)) return h_next_;
    ensure_first_stage(s.y.data());
    h_next_ = initial_step(s.y.data(), k_[0].data(), m_, tab.order, this->opt_.atol, this->opt_.rtol, this->opt_.h_max,
                           [&](const T* y, T* dydt) { this->f_.derivative(y, dydt); });
    return h_next_;
  }

  // The first stage f(y) at the current state, when the caller already has it (the Adams methods'
  // rk4 start-up takes it from their history): the next step then does not evaluate it again.
  void set_first_stage(const std::vector<T>& f) {
    k_[0] = f;
    have_first_stage_ = true;
  }

  std::uint64_t advance_on_device(State<T>& s, ResidentSegment<T>& seg) override {
    if (!this->steps_on_device()) return 0;
    if (this->opt_.adaptive) (void)proposed_step(s);  // the starting step, once, on the host
    seg.history = {k_[0].data()};
    seg.history_current = have_first_stage_;
    seg.h_next = h_next_;
    seg.pi = controller_.memory();
    this->run_on_device(s, seg);
    have_first_stage_ = seg.history_current;
    h_next_ = seg.h_next;
    controller_.memory() = seg.pi;
    if (seg.underflow) throw step_size_underflow(Method::name, s.t, seg.h_next, this->opt_.h_min);
    return seg.steps;
  }

  void restart() override {
    have_first_stage_ = false;
    if (this->opt_.adaptive && !subdividing()) h_next_ = this->opt_.dt;
  }

  void save(ArchiveWriter& w) const override {
    Integrator<T>::save(w);
    w.put(have_first_stage_);
    w.put_bodies(k_[0], 6);
    w.put(h_next_);
    controller_.save(w);
  }
  void load(ArchiveReader& r) override {
    Integrator<T>::load(r);
    r.get(have_first_stage_);
    r.get_bodies(k_[0], 6);
    r.get(h_next_);
    controller_.load(r);
  }

  T step(State<T>& s, T h) override {
    if (!this->opt_.adaptive) {
      trial(s.y.data(), h);
      accept(s);
    } else if (subdividing()) {
      this->counters_.rejected += subdivider_.advance(
          h,
          [&](T sub) {
            trial(s.y.data(), sub);
            // As seed S0's code: the max-norm of sum_j (b_j - b_hat_j) k_j, i.e. of the error
            // estimate per unit time (without the factor h), against the threshold --atol.
            return error_estimate([](const std::vector<T>& e) { return max_abs(e); }) / sub;
          },
          [&] { accept(s); });
    } else {
      for (;;) {
        trial(s.y.data(), h);
        const T err = error_estimate([&](const std::vector<T>& e) {
          return error_norm(s.y.data(), y_new_.data(), e.data(), m_, this->opt_.atol, this->opt_.rtol);
        });
        T h_next;
        if (controller_.judge(s.t, err, h, h_next)) {
          h_next_ = h_next;
          break;
        }
        ++this->counters_.rejected;
        h = h_next;
      }
      accept(s);
    }
    s.t += h;
    return h;
  }

 private:
  bool subdividing() const { return this->opt_.adaptive && this->opt_.controller == Controller::subdivide; }

  // The tableau and the step control as the device-resident stepper takes them. A second error
  // estimate is combined there as DOP853 combines it (the only method that has one).
  ResidentMethod<T> device_description() const {
    ResidentMethod<T> d;
    d.stages = static_cast<int>(S);
    d.fsal = tab.fsal;
    for (std::size_t i = 0; i < S; ++i) d.a.insert(d.a.end(), a_[i].begin(), a_[i].end());
    d.b.assign(b_.begin(), b_.end());
    d.adaptive = this->opt_.adaptive;
    if (d.adaptive) {
      d.e.assign(e_.begin(), e_.end());
      if constexpr (tab.embedded_order2 > 0) d.e2.assign(e2_.begin(), e2_.end());
      d.atol = this->opt_.atol;
      d.rtol = this->opt_.rtol;
      d.rule = controller_.rule();
    }
    return d;
  }

  void ensure_first_stage(const T* y) {
    if (!have_first_stage_) {
      this->f_.derivative(y, k_[0].data());
      have_first_stage_ = true;
    }
  }

  // Computes y_new (and the error estimates when adaptive) for a step of size h from y; y is
  // left unchanged, and so is the first stage f(y), which a retry from y reuses.
  void trial(const T* y, T h) {
    ensure_first_stage(y);
    const std::size_t last = tab.fsal ? S - 1 : S;  // the FSAL stage is evaluated at y_new
    for (std::size_t i = 1; i < last; ++i) {
      for (std::size_t k = 0; k < m_; ++k) {
        T sum{0};
        for (std::size_t j = 0; j < i; ++j) sum += a_[i][j] * k_[j][k];
        y_stage_[k] = y[k] + h * sum;
      }
      this->f_.derivative(y_stage_.data(), k_[i].data());
    }
    for (std::size_t k = 0; k < m_; ++k) {
      T sum{0};
      for (std::size_t j = 0; j < last; ++j) sum += b_[j] * k_[j][k];
      y_new_[k] = this->add_to_state(k, y[k], h * sum, carry_trial_);
    }
    if constexpr (tab.fsal) this->f_.derivative(y_new_.data(), k_[S - 1].data());
    if (this->opt_.adaptive) {
      difference(e_, h, err_);
      if constexpr (tab.embedded_order2 > 0) difference(e2_, h, err2_);
    }
  }

  // out = y_b - y_b_hat = h sum_j (b_j - b_hat_j) k_j.
  void difference(const std::array<T, S>& e, T h, std::vector<T>& out) const {
    for (std::size_t k = 0; k < m_; ++k) {
      T sum{0};
      for (std::size_t j = 0; j < S; ++j) sum += e[j] * k_[j][k];
      out[k] = h * sum;
    }
  }

  // The method's error measure of the last trial, given the norm to apply to each estimate.
  template <class Norm>
  T error_estimate(Norm&& norm) const {
    if constexpr (combined_estimate)
      return Method::template combined_error<T>(norm(err_), norm(err2_));
    else
      return norm(err_);
  }

  // Largest |e_k|; a non-finite component is returned as it is, so that it never passes a test.
  static T max_abs(const std::vector<T>& e) {
    T worst{0};
    for (const T& x : e) {
      if (!is_finite(x)) return abs(x);
      worst = std::max(worst, T(abs(x)));
    }
    return worst;
  }

  // Commits the last trial: y_new becomes the state.
  void accept(State<T>& s) {
    std::swap(s.y, y_new_);
    if (this->opt_.compensated) std::swap(this->carry_, carry_trial_);
    ++this->counters_.steps;
    if constexpr (tab.fsal) {
      std::swap(k_[0], k_[S - 1]);  // f(y_new) was the last stage
    } else {
      have_first_stage_ = false;
    }
  }

  std::size_t m_;
  std::array<std::array<T, S>, S> a_{};
  std::array<T, S> b_{}, e_{}, e2_{};  // e = b - b_hat, e2 = b - b_hat2
  std::vector<std::vector<T>> k_;
  std::vector<T> y_stage_, y_new_, err_, err2_;
  std::vector<T> carry_trial_;  // --compensated: the carries after the trial step, kept if accepted
  PIController<T> controller_;
  SubdivisionController<T> subdivider_;
  bool have_first_stage_ = false;
  T h_next_{0};
};

}  // namespace nbody
