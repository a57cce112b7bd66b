#pragma once
// Gragg-Bulirsch-Stoer extrapolation (Gragg 1965; Bulirsch & Stoer 1966) in the form of Hairer's
// ODEX code (Hairer, Norsett & Wanner, "Solving ODEs I", 2nd ed., Sect. II.9; the Fortran ODEX):
//
// - Column j of the extrapolation tableau, T_j1, is Gragg's modified midpoint rule over the step H
//   with n_j = 2j sub-steps (ODEX's default sequence 2, 4, 6, 8, ...), started by one Euler step
//   and ended by Gragg's smoothing step; its error expands in even powers of H/n_j, so polynomial
//   (Aitken-Neville) extrapolation in (H/n_j)^2 gives T_jj of order 2j. T_j1 costs n_j force
//   evaluations; f(y_n) is shared by all columns: one more per step.
// - Adaptive (--tol, --atol/--rtol): the error estimate of column j is T_jj - T_j,j-1 in the
//   project's scaled RMS norm (error_norm: atol + rtol max(|y_n|, |y_n+1|)), so --tol has its
//   standard meaning, applied to the local error of T_j,j-1; the step advances T_jj (local
//   extrapolation, as ODEX does). Step sizes H_j = H / clamp((err_j/0.65)^(1/(2j-1)) / 0.94) for
//   every column, the work per unit step W_j = A_j / H_j (A_j = 1 + n_1 + ... + n_j force
//   evaluations) chooses the number of columns k of the next step, and the convergence monitor
//   of II.9 rejects a step early when column k or k+1 cannot be expected to converge. The order
//   and step-size logic follows ODEX line by line (its labels are named in the comments), with
//   its default parameters; one difference: the scale of the stability check is taken from y_n at
//   every step (ODEX carries it from the previous step).
// - Fixed step (--dt): k columns, order 2k, k = --order / 2 (default order 8): the plain GBS
//   method, 1 + k(k+1) force evaluations per step.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/real.hpp"
#include "integrators/integrator.hpp"
#include "integrators/step_controller.hpp"

namespace nbody {

template <class T>
class BulirschStoer final : public Integrator<T> {
 public:
  static constexpr int default_fixed_columns = 4;     // fixed step: order 8
  static constexpr int default_adaptive_columns = 9;  // ODEX's KM: at most 9 columns, order 18
  static constexpr int max_columns = 16;              // --order at most 32 (extended precisions)

  struct info {
    static constexpr std::string_view name = "bulirsch-stoer";
    static constexpr std::string_view description =
        "Gragg-Bulirsch-Stoer extrapolation (ODEX, Hairer-Norsett-Wanner II.9), modified midpoint n_j = 2j: --tol = the "
        "usual atol/rtol error norm on the extrapolation error estimate, adaptive order (max --order, default 18) and "
        "step; --dt: fixed step with --order 2k = k columns (default 8)";
    static constexpr int order = 2 * default_fixed_columns;
    static constexpr bool error_estimate = true;
    static constexpr std::string_view family = "extrapolation";
    static constexpr int evaluations_per_step = 0;  // depends on the order reached
    static constexpr bool symplectic = false;
    static constexpr bool implicit = false;
    static constexpr bool selectable_order = true;  // --order
    static constexpr double state_vectors = default_adaptive_columns + 1 + 6;  // table_ (default --tol order), f0_ ... scal_
  };

  BulirschStoer(Rhs<T>& f, const StepOptions<T>& opt) : Integrator<T>(f, opt), m_(6 * f.size()) {
    this->refuse_compensation(info::name);
    if (opt.controller == Controller::subdivide)
      throw InputError("bulirsch-stoer controls order and step itself; --controller subdivide is for the embedded Runge-Kutta pairs");
    const int min_columns = opt.adaptive ? 3 : 1;  // ODEX needs k <= km - 1 with k >= 2
    km_ = opt.order == 0 ? (opt.adaptive ? default_adaptive_columns : default_fixed_columns) : opt.order / 2;
    if (opt.order % 2 != 0 || km_ < min_columns || km_ > max_columns)
      throw InputError("bulirsch-stoer: --order must be even (2 x the number of extrapolation columns), from " +
                       std::to_string(2 * min_columns) + " to " + std::to_string(2 * max_columns) + (opt.adaptive ? " with --tol" : "") +
                       ", got " + std::to_string(opt.order));
    // Indices 1..km_ as in ODEX; n_[km_ + 1] is read by the convergence monitor's bound.
    n_.resize(km_ + 2);
    a_.resize(km_ + 2);
    for (int j = 1; j <= km_ + 1; ++j) n_[j] = 2 * j;
    a_[1] = T(1 + n_[1]);
    for (int j = 2; j <= km_ + 1; ++j) a_[j] = a_[j - 1] + T(n_[j]);
    hh_.assign(km_ + 1, T(0));
    w_.assign(km_ + 1, T(0));
    table_.assign(km_ + 1, std::vector<T>(m_));
    f0_.resize(m_);
    yh1_.resize(m_);
    yh2_.resize(m_);
    dy_.resize(m_);
    diff_.resize(m_);
    scal_.resize(m_);
    // ODEX's first number of columns from the tolerance: about 0.6 per digit asked for.
    const double digits = -std::log10(static_cast<double>(opt.rtol) + 1e-40);
    k_ = std::max(2, std::min(km_ - 1, static_cast<int>(digits * 0.6 + 1.5)));
    h_next_ = opt.dt;
  }

  T proposed_step(const State<T>& s) override {
    if (h_next_ > T(0)) return h_next_;
    ensure_f0(s.y.data());
    h_next_ = initial_step(s.y.data(), f0_.data(), m_, 2 * k_, this->opt_.atol, this->opt_.rtol, this->opt_.h_max,
                           [&](const T* y, T* dydt) { this->f_.derivative(y, dydt); });
    return h_next_;
  }

  void restart() override {
    have_f0_ = false;
    started_ = false;
    if (this->opt_.adaptive) h_next_ = this->opt_.dt;
  }

  void save(ArchiveWriter& w) const override {
    Integrator<T>::save(w);
    w.put(k_);
    w.put(h_next_);
    w.put(started_);
    w.put(have_f0_);
    w.put_bodies(f0_, 6);
  }
  void load(ArchiveReader& r) override {
    Integrator<T>::load(r);
    r.get(k_);
    r.get(h_next_);
    r.get(started_);
    r.get(have_f0_);
    r.get_bodies(f0_, 6);
    if (k_ < 1 || k_ > km_) throw InputError("checkpoint does not match this bulirsch-stoer run");
  }

  // Columns the next adaptive step starts with (ODEX's k).
  int columns() const { return k_; }

  T step(State<T>& s, T h) override {
    const T* y = s.y.data();
    ensure_f0(y);
    if (!this->opt_.adaptive) {
      for (int j = 1; j <= km_; ++j) midex(j, y, h);
      finish(s, h);
      return h;
    }
    for (std::size_t i = 0; i < m_; ++i) scal_[i] = this->opt_.atol + this->opt_.rtol * abs(y[i]);
    // The first step knows nothing of the problem, and a step the driver cut short (to end on
    // t_end) had no order selected for it: both stop at the first column that converges (ODEX's
    // "first and last step").
    bool first_or_last = !started_ || h < h_next_;
    bool reject = false;
    int kc = 0;  // the last column computed
    // The step is judged where the control shrinks it (controller_collapsed), not where the
    // driver cut it short.
    for (;;) {
      const Outcome outcome = attempt(y, h, first_or_last, reject, kc);
      if (outcome == Outcome::accepted) break;
      ++this->counters_.rejected;
      reject = true;
      first_or_last = false;
      const T h_tried = h;
      if (outcome == Outcome::diverged) {  // ODEX's ATOV: halve the step, keep the order
        h *= T(0.5);
      } else {  // label 100
        k_ = std::min({k_, kc, km_ - 1});
        if (k_ > 2 && w_[k_ - 1] < w_[k_] * fac3_) --k_;
        h = hh_[k_];
      }
      check_step(s, h_tried, h);
    }
    select_order_and_step(kc, h, reject);
    check_step(s, h, h_next_);
    finish(s, h);
    started_ = true;
    return h;
  }

 private:
  enum class Outcome { accepted, rejected, diverged };

  // One trial of size h (ODEX's labels 30 to 60); kc is set to the last column computed.
  Outcome attempt(const T* y, T h, bool first_or_last, bool reject, int& kc) {
    auto column = [&](int j) {
      kc = j;
      return midex(j, y, h);
    };
    if (first_or_last) {
      for (int j = 1; j <= k_; ++j) {
        if (!column(j)) return Outcome::diverged;
        if (j > 1 && err_ <= T(1)) return Outcome::accepted;
      }
    } else {
      for (int j = 1; j <= k_ - 1; ++j)
        if (!column(j)) return Outcome::diverged;
      // Convergence monitor (II.9): column k-1 should be within reach of convergence in k+1.
      if (k_ != 2 && !reject) {
        if (err_ <= T(1)) return Outcome::accepted;
        if (err_ > square(T(n_[k_ + 1] * n_[k_]) / T(4))) return Outcome::rejected;
      }
      if (!column(k_)) return Outcome::diverged;  // label 50
      if (err_ <= T(1)) return Outcome::accepted;
    }
    // Label 55: hope for convergence in column k+1.
    if (err_ > square(T(n_[k_ + 1]) / T(2))) return Outcome::rejected;
    if (!column(k_ + 1)) return Outcome::diverged;
    return err_ <= T(1) ? Outcome::accepted : Outcome::rejected;
  }

  // Computes column j of the tableau for a step h from y and extrapolates (ODEX's MIDEX): the
  // diagonal entry T_jj is left in table_[1], T_j,j-1 in table_[2]. Adaptive: also err_, hh_[j],
  // w_[j] for j >= 2. Returns false where ODEX sets ATOV (the step must be halved).
  bool midex(int j, const T* y, T h) {
    const T hj = h / T(n_[j]);
    const T two_hj = T(2) * hj;  // exact
    for_each_element<T>(m_, [&](std::size_t i) {  // Euler starting step
      yh1_[i] = y[i];
      yh2_[i] = y[i] + hj * f0_[i];
    });
    for (int mm = 1; mm < n_[j]; ++mm) {  // explicit midpoint rule
      this->f_.derivative(yh2_.data(), dy_.data());
      if (this->opt_.adaptive && mm == 1 && j <= 2 && !stable()) return false;
      for_each_element<T>(m_, [&](std::size_t i) {
        const T ys = yh1_[i];
        yh1_[i] = yh2_[i];
        yh2_[i] = ys + two_hj * dy_[i];
      });
    }
    this->f_.derivative(yh2_.data(), dy_.data());  // Gragg's smoothing step
    for_each_element<T>(m_, [&](std::size_t i) { table_[j][i] = (yh1_[i] + yh2_[i] + hj * dy_[i]) / T(2); });
    for (int l = j; l >= 2; --l) {  // Aitken-Neville in (h/n)^2
      const T fac = square(T(n_[j]) / T(n_[l - 1])) - T(1);
      for_each_element<T>(m_, [&](std::size_t i) {
        table_[l - 1][i] = table_[l][i] + (table_[l][i] - table_[l - 1][i]) / fac;
      });
    }
    if (!this->opt_.adaptive || j == 1) return true;
    for_each_element<T>(m_, [&](std::size_t i) { diff_[i] = table_[1][i] - table_[2][i]; });
    err_ = error_norm(y, table_[1].data(), diff_.data(), m_, this->opt_.atol, this->opt_.rtol);
    const T uround = RealTraits<T>::epsilon();
    if (!(err_ * uround < T(1))) return false;        // hopeless (or not finite)
    if (j > 2 && err_ >= err_old_) return false;      // the extrapolation diverges
    err_old_ = std::max(T(4) * err_, T(1));
    const T expo = T(1) / T(2 * j - 1);
    const T facmin = pow(fac1_, expo);
    const T fac = std::min(fac2_ / facmin, std::max(facmin, pow(err_ / safe1_, expo) / safe2_));
    hh_[j] = std::min(h / fac, this->opt_.h_max);
    w_[j] = a_[j] / hh_[j];
    return true;
  }

  // ODEX's stability check after the first midpoint evaluation: |f(y_1) - f(y_0)| > 2 |f(y_0)|
  // (scaled) means the step is far too large for the midpoint rule.
  bool stable() const {
    const T uround = RealTraits<T>::epsilon();
    T del1{0}, del2{0};
    for (std::size_t i = 0; i < m_; ++i) {
      del1 += square(f0_[i] / scal_[i]);
      del2 += square((dy_[i] - f0_[i]) / scal_[i]);
    }
    return del2 <= T(4) * std::max(uround, del1);
  }

  // Label 60 onwards: the order of the next step and its size, from the work per unit step.
  void select_order_and_step(int kc, T h, bool reject) {
    int kopt;
    if (kc == 2) {
      kopt = std::min(3, km_ - 1);
      if (reject) kopt = 2;
    } else if (kc <= k_) {
      kopt = kc;
      if (w_[kc - 1] < w_[kc] * fac3_) kopt = kc - 1;
      if (w_[kc] < w_[kc - 1] * fac4_) kopt = std::min(kc + 1, km_ - 1);
    } else {
      kopt = kc - 1;
      if (kc > 3 && w_[kc - 2] < w_[kc - 1] * fac3_) kopt = kc - 2;
      if (w_[kc] < w_[kopt] * fac4_) kopt = std::min(kc, km_ - 1);
    }
    T h_next;
    if (reject) {  // label 80: no growth right after a rejection
      k_ = std::min(kopt, kc);
      h_next = std::min(h, hh_[k_]);
    } else {
      if (kopt <= kc) {
        h_next = hh_[kopt];
      } else if (kc < k_ && w_[kc] < w_[kc - 1] * fac4_) {
        h_next = hh_[kc] * a_[kopt + 1] / a_[kc];
      } else {
        h_next = hh_[kc] * a_[kopt] / a_[kc];
      }
      k_ = kopt;
    }
    h_next_ = std::min(h_next, this->opt_.h_max);
  }

  void finish(State<T>& s, T h) {
    std::swap(s.y, table_[1]);  // T_kk
    s.t += h;
    have_f0_ = false;
    ++this->counters_.steps;
  }

  void ensure_f0(const T* y) {
    if (!have_f0_) {
      this->f_.derivative(y, f0_.data());
      have_f0_ = true;
    }
  }

  void check_step(const State<T>& s, T h_tried, T h_next) const {
    check_new_step("bulirsch-stoer", s.t, h_tried, h_next, this->opt_.h_min);
  }

  static T square(T x) { return x * x; }

  std::size_t m_;
  int km_ = 0;            // columns: fixed, or at most (adaptive)
  int k_ = 2;             // adaptive: columns the next step aims at (ODEX's K)
  std::vector<int> n_;    // step-number sequence n_j = 2j
  std::vector<T> a_;      // A_j: force evaluations of columns 1..j, f(y_n) included
  std::vector<T> hh_, w_; // step size proposed by column j, and work per unit step A_j / hh_j
  std::vector<std::vector<T>> table_;
  std::vector<T> f0_, yh1_, yh2_, dy_, diff_, scal_;
  T err_{0}, err_old_{1e10};
  T h_next_{0};
  bool have_f0_ = false, started_ = false;
  // ODEX's default parameters: step-size factor limits, order selection, safety factors.
  const T fac1_{0.02}, fac2_{4}, fac3_{0.8}, fac4_{0.9}, safe1_{0.65}, safe2_{0.94};
};

}  // namespace nbody
