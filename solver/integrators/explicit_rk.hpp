#pragma once
// One driver for every explicit Runge-Kutta method, given its Butcher tableau. A method file
// (euler.hpp, rk4.hpp, dopri5.hpp, ...) only writes its tableau. With an embedded pair the method
// can run adaptively (PI controller) or at a fixed step; it always advances the solution of
// weights b (the higher order one for dopri5, as DESIGN.md requires), and b - b_hat estimates the
// error of the lower-order one.
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "integrators/integrator.hpp"
#include "core/real.hpp"
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
};

// Method: a struct with static members name, description and tableau.
template <class T, class Method>
class ExplicitRungeKutta final : public Integrator<T> {
  static constexpr auto tab = Method::tableau;
  static constexpr std::size_t S = tab.stages;

 public:
  struct info {
    static constexpr std::string_view name = Method::name;
    static constexpr std::string_view description = Method::description;
    static constexpr int order = tab.order;
    static constexpr bool error_estimate = tab.embedded_order > 0;
  };

  ExplicitRungeKutta(Rhs<T>& f, const StepOptions<T>& opt)
      : Integrator<T>(f, opt), m_(6 * f.size()), k_(S, std::vector<T>(m_)), y_stage_(m_), y_new_(m_), err_(m_),
        controller_(tab.embedded_order + 1, opt.h_min, opt.h_max) {
    for (std::size_t i = 0; i < S; ++i) {
      b_[i] = tab.b[i].template as<T>();
      e_[i] = b_[i] - tab.b_hat[i].template as<T>();
      for (std::size_t j = 0; j < S; ++j) a_[i][j] = tab.a[i][j].template as<T>();
    }
    h_next_ = opt.dt;
  }

  T proposed_step(const State<T>& s) override {
    if (h_next_ > T(0)) return h_next_;
    ensure_first_stage(s.y.data());
    h_next_ = initial_step(s.y.data(), k_[0].data(), m_, tab.order, this->opt_.atol, this->opt_.rtol, this->opt_.h_max,
                           [&](const T* y, T* dydt) { this->f_.derivative(y, dydt); });
    return h_next_;
  }

  void restart() override {
    have_first_stage_ = false;
    if (this->opt_.adaptive) h_next_ = this->opt_.dt;
  }

  void save(ArchiveWriter& w) const override {
    Integrator<T>::save(w);
    w.put(have_first_stage_);
    w.put(k_[0]);
    w.put(h_next_);
    controller_.save(w);
  }
  void load(ArchiveReader& r) override {
    Integrator<T>::load(r);
    r.get(have_first_stage_);
    r.get(k_[0]);
    r.get(h_next_);
    controller_.load(r);
  }

  T step(State<T>& s, T h) override {
    for (;;) {
      trial(s.y.data(), h);
      if (!this->opt_.adaptive) break;
      T h_next;
      const T err = error_norm(s.y.data(), y_new_.data(), err_.data(), m_, this->opt_.atol, this->opt_.rtol);
      if (controller_.judge(err, h, h_next)) {
        h_next_ = h_next;
        break;
      }
      ++this->counters_.rejected;
      h = h_next;
    }
    std::swap(s.y, y_new_);
    s.t += h;
    ++this->counters_.steps;
    if constexpr (tab.fsal) {
      std::swap(k_[0], k_[S - 1]);  // f(y_new) was the last stage
    } else {
      have_first_stage_ = false;
    }
    return h;
  }

 private:
  void ensure_first_stage(const T* y) {
    if (!have_first_stage_) {
      this->f_.derivative(y, k_[0].data());
      have_first_stage_ = true;
    }
  }

  // Computes y_new (and err_ when adaptive) for a step of size h from y; y is left unchanged.
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
      y_new_[k] = y[k] + h * sum;
    }
    if constexpr (tab.fsal) this->f_.derivative(y_new_.data(), k_[S - 1].data());
    if (this->opt_.adaptive) {
      for (std::size_t k = 0; k < m_; ++k) {
        T sum{0};
        for (std::size_t j = 0; j < S; ++j) sum += e_[j] * k_[j][k];
        err_[k] = h * sum;
      }
    }
  }

  std::size_t m_;
  std::array<std::array<T, S>, S> a_{};
  std::array<T, S> b_{}, e_{};
  std::vector<std::vector<T>> k_;
  std::vector<T> y_stage_, y_new_, err_;
  PIController<T> controller_;
  bool have_first_stage_ = false;
  T h_next_{0};
};

}  // namespace nbody
