#pragma once
// Adams multistep methods at a fixed step, for the first-order system y' = f(y), y = [r, v]:
//
//   adams-bashforth  explicit Adams of order k = --order (1..5, default 5):
//                      y_{n+1} = y_n + h sum_{j=0}^{k-1} b_kj f_{n-j}
//                    one force evaluation per step, f_n = f(y_n).
//   adams-moulton    Adams-Bashforth-Moulton predictor-corrector in PECE mode, order k = --order
//                    (2..5, default 5). The standard pairing of equal orders (Hairer, Norsett,
//                    Wanner, Solving ODEs I, 2nd ed. 1993, Sect. III.1, "Predictor-corrector
//                    methods"): the k-step Adams-Bashforth formula of order k predicts,
//                      P: y*_{n+1} = y_n + h sum_{j=0}^{k-1} b_kj f_{n-j}           E: f* = f(y*_{n+1})
//                    and the (k-1)-step Adams-Moulton formula of order k corrects,
//                      C: y_{n+1} = y_n + h (m_k0 f* + sum_{j=1}^{k-1} m_kj f_{n+1-j})  E: f_{n+1} = f(y_{n+1})
//                    Both use the same k back values f_n..f_{n-k+1} (the predictor all of them,
//                    the corrector the newest k-1), so both methods need the same start-up. Two
//                    force evaluations per step; the local error is the corrector's (error
//                    constant -3/160 at k = 5 against AB5's 95/288: HNW I, Sect. III.2), the
//                    order k.
//
// Start-up: the history f_0..f_{k-1} does not exist yet, so the first k-1 steps are rk4 steps at
// the same h, with the very arithmetic of the registered rk4 (bit for bit, tested); their first
// stage f(y_n) is the history value, so each costs 4 evaluations and nothing is evaluated twice.
// The history is valid at one step size only: a step of another size (the driver's last step,
// t_end - t_k, which may differ from dt in its last bits) starts up again from there, keeping
// f(y_n) if it is known. Counts for N >= k-1 steps: adams-bashforth 4(k-1) + (N-k+1);
// adams-moulton 4(k-1) + 1 + 2(N-k+1) (the first PECE step also evaluates f(y_{k-1}), which the
// rk4 steps never reach).
//
// Coefficients: HNW I, Sect. III.1, Table 1.1 (explicit Adams) and Table 1.2 (implicit Adams),
// exact rationals; tests check them against the order conditions in exact arithmetic.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "integrators/explicit_rk.hpp"
#include "integrators/integrator.hpp"
#include "integrators/rk4.hpp"

namespace nbody {

namespace adams {

constexpr int max_order = 5;

// Row k-1 holds the method of order k (entries beyond k are 0).
// Adams-Bashforth, order k: weights of f_n, f_{n-1}, ..., f_{n-k+1}. HNW I, Table III.1.1.
inline constexpr Coefficient bashforth[max_order][max_order] = {
    {{"1"}},
    {{"3/2"}, {"-1/2"}},
    {{"23/12"}, {"-16/12"}, {"5/12"}},
    {{"55/24"}, {"-59/24"}, {"37/24"}, {"-9/24"}},
    {{"1901/720"}, {"-2774/720"}, {"2616/720"}, {"-1274/720"}, {"251/720"}}};

// Adams-Moulton, order k ((k-1)-step): weights of f_{n+1}, f_n, ..., f_{n-k+2}. HNW I, Table III.1.2.
inline constexpr Coefficient moulton[max_order][max_order] = {
    {{"1"}},
    {{"1/2"}, {"1/2"}},
    {{"5/12"}, {"8/12"}, {"-1/12"}},
    {{"9/24"}, {"19/24"}, {"-5/24"}, {"1/24"}},
    {{"251/720"}, {"646/720"}, {"-264/720"}, {"106/720"}, {"-19/720"}}};

// --order 0 means the default, max_order; anything outside [lowest, max_order] is bad input.
inline int checked_order(int requested, std::string_view method, int lowest) {
  const int k = requested == 0 ? max_order : requested;
  if (k < lowest || k > max_order)
    throw InputError("--order " + std::to_string(requested) + " is not available for " + std::string(method) + " (valid: " +
                     std::to_string(lowest) + " to " + std::to_string(max_order) + ", default " + std::to_string(max_order) + ")");
  return k;
}

}  // namespace adams

// History, start-up and checkpoints of both Adams methods; a method adds only its Adams step.
template <class T>
class AdamsBase : public Integrator<T> {
 public:
  void restart() override {
    filled_ = 0;
    have_current_ = false;
  }

  void save(ArchiveWriter& w) const override {
    Integrator<T>::save(w);
    w.put(k_);
    w.put(filled_);
    w.put(have_current_);
    w.put(h_);
    for (const auto& f : hist_) w.put_bodies(f, 6);
  }
  void load(ArchiveReader& r) override {
    Integrator<T>::load(r);
    if (r.get<int>() != k_) throw InputError("checkpoint was written by an Adams method of another --order");
    r.get(filled_);
    r.get(have_current_);
    r.get(h_);
    for (auto& f : hist_) r.get_bodies(f, 6);
  }

  T step(State<T>& s, T h) final {
    if (filled_ > 0 && h != h_) filled_ = have_current_ ? 1 : 0;  // history of another step size
    h_ = h;
    T* y = s.y.data();
    if (!have_current_) push_derivative(y);
    if (filled_ < k_) {  // start-up: the registered rk4, its first stage f_n taken from the history
      starter_.set_first_stage(hist_[0]);
      starter_.step(s, h);
      have_current_ = false;
    } else {
      adams_step(y, h);
      s.t += h;
    }
    ++this->counters_.steps;
    return h;
  }

 protected:
  AdamsBase(Rhs<T>& f, const StepOptions<T>& opt, int k)
      : Integrator<T>(f, opt), k_(k), m_(6 * f.size()), hist_(k, std::vector<T>(m_)), starter_(f, uncompensated(opt)) {
    this->init_carry(m_);
  }

  // Advances y by one Adams step; hist_[0..k) = f_n, f_{n-1}, ... on entry. Leaves have_current_
  // true when it evaluated f(y_{n+1}) (and pushed it), false otherwise.
  virtual void adams_step(T* y, T h) = 0;

  // hist_[0] = f(y), the older values move down one place (the oldest is dropped).
  void push_derivative(const T* y) {
    std::rotate(hist_.begin(), hist_.end() - 1, hist_.end());  // moves buffers, copies nothing
    this->f_.derivative(y, hist_[0].data());
    filled_ = std::min(filled_ + 1, k_);
    have_current_ = true;
  }

  // y <- y + h sum_j c[j] hist_[j], summed in the order of ExplicitRungeKutta.
  void combine(const T* y, T h, const std::vector<T>& c, T* out) const {
    for (std::size_t i = 0; i < m_; ++i) {
      T sum{0};
      for (int j = 0; j < k_; ++j) sum += c[j] * hist_[j][i];
      out[i] = y[i] + h * sum;
    }
  }
  // The same as combine(y, h, c, y), the new state: compensated with --compensated.
  void advance(T* y, T h, const std::vector<T>& c) {
    for (std::size_t i = 0; i < m_; ++i) {
      T sum{0};
      for (int j = 0; j < k_; ++j) sum += c[j] * hist_[j][i];
      y[i] = this->add_to_state(i, y[i], h * sum);
    }
  }

  int k_;
  std::size_t m_;
  std::vector<std::vector<T>> hist_;  // f_n, f_{n-1}, ..., f_{n-k+1}; the first filled_ are valid
  int filled_ = 0;
  bool have_current_ = false;  // hist_[0] is f at the current state
  T h_{0};                     // the step size the history was taken at

 private:
  // The k-1 start-up steps are not compensated: the starter then carries nothing from one step to
  // the next, so it has no checkpoint state.
  static StepOptions<T> uncompensated(StepOptions<T> opt) {
    opt.compensated = false;
    return opt;
  }
  Rk4<T> starter_;
};

template <class T>
class AdamsBashforth final : public AdamsBase<T> {
 public:
  struct info {
    static constexpr std::string_view name = "adams-bashforth";
    static constexpr std::string_view family = "explicit multistep";
    static constexpr int evaluations_per_step = 1;
    static constexpr bool symplectic = false;
    static constexpr bool implicit = false;
    static constexpr bool selectable_order = true;  // --order
    static constexpr std::string_view description =
        "Adams-Bashforth, explicit multistep of order --order 1..5 (default 5), fixed step, 1 force evaluation per step "
        "after k-1 rk4 start-up steps";
    static constexpr int order = adams::max_order;
    static constexpr bool error_estimate = false;
    static constexpr double state_vectors = adams::max_order + 7;  // hist_ at the default order; rk4 starter_
  };

  AdamsBashforth(Rhs<T>& f, const StepOptions<T>& opt)
      : AdamsBase<T>(f, opt, adams::checked_order(opt.order, info::name, 1)), b_(this->k_) {
    for (int j = 0; j < this->k_; ++j) b_[j] = adams::bashforth[this->k_ - 1][j].template as<T>();
    ResidentMethod<T> d;
    d.adams = true;
    d.stages = this->k_;
    d.b = b_;
    this->offer_device_steps(std::move(d));
  }

  // Adams steps at the history's step size, once the history is full after the next evaluation;
  // the rk4 start-up and a step of another size are the host's.
  std::uint64_t advance_on_device(State<T>& s, ResidentSegment<T>& seg) override {
    if (!this->steps_on_device() || seg.dt != this->h_ || this->filled_ + (this->have_current_ ? 0 : 1) < this->k_) return 0;
    seg.history.clear();
    for (auto& f : this->hist_) seg.history.push_back(f.data());
    seg.history_current = this->have_current_;
    this->run_on_device(s, seg);
    this->filled_ = this->k_;
    this->have_current_ = seg.history_current;
    return seg.steps;
  }

 private:
  void adams_step(T* y, T h) override {
    this->advance(y, h, b_);
    this->have_current_ = false;
  }

  std::vector<T> b_;
};

template <class T>
class AdamsMoulton final : public AdamsBase<T> {
 public:
  struct info {
    static constexpr std::string_view name = "adams-moulton";
    static constexpr std::string_view family = "multistep predictor-corrector";
    static constexpr int evaluations_per_step = 2;
    static constexpr bool symplectic = false;
    static constexpr bool implicit = false;
    static constexpr bool selectable_order = true;  // --order
    static constexpr std::string_view description =
        "Adams-Bashforth-Moulton predictor-corrector PECE: AB(k) predicts, Adams-Moulton of order k corrects; "
        "order --order 2..5 (default 5), fixed step, 2 force evaluations per step after k-1 rk4 start-up steps";
    static constexpr int order = adams::max_order;
    static constexpr bool error_estimate = false;
    static constexpr double state_vectors = adams::max_order + 9;  // hist_ at the default order; starter_; y_pred_, f_pred_
  };

  AdamsMoulton(Rhs<T>& f, const StepOptions<T>& opt)
      : AdamsBase<T>(f, opt, adams::checked_order(opt.order, info::name, 2)), b_(this->k_), c_(this->k_),
        y_pred_(this->m_), f_pred_(this->m_) {
    for (int j = 0; j < this->k_; ++j) {
      b_[j] = adams::bashforth[this->k_ - 1][j].template as<T>();
      c_[j] = adams::moulton[this->k_ - 1][j].template as<T>();
    }
  }

 private:
  void adams_step(T* y, T h) override {
    this->combine(y, h, b_, y_pred_.data());          // P
    this->f_.derivative(y_pred_.data(), f_pred_.data());  // E
    const auto& hist = this->hist_;
    for (std::size_t i = 0; i < this->m_; ++i) {       // C
      T sum{0};
      sum += c_[0] * f_pred_[i];
      for (int j = 1; j < this->k_; ++j) sum += c_[j] * hist[j - 1][i];
      y[i] = this->add_to_state(i, y[i], h * sum);
    }
    this->push_derivative(y);  // E: f_{n+1}, the newest history value of the next step
  }

  std::vector<T> b_, c_;  // predictor (Adams-Bashforth) and corrector (Adams-Moulton) weights
  std::vector<T> y_pred_, f_pred_;
};

}  // namespace nbody
