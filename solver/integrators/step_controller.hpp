#pragma once
// Error norm and step-size control shared by every embedded method: Hairer's scaled norm, the PI
// controller and the starting step (Hairer, Norsett & Wanner, "Solving ODEs I", II.4 and the
// DOPRI5 code), and seed S0's recursive subdivision (--controller subdivide).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/real.hpp"
#include "common/step_control.hpp"
#include "io/archive.hpp"

namespace nbody {

// RMS over all components of err_k / (atol + rtol * max(|y0_k|, |y1_k|)); a step is acceptable
// when this is <= 1 (docs/design.md, "Error norm and step control").
template <class T>
T error_norm(const T* y0, const T* y1, const T* err, std::size_t m, T atol, T rtol) {
  T sum{0};
  for (std::size_t k = 0; k < m; ++k) {
    const T sc = atol + rtol * std::max(abs(y0[k]), abs(y1[k]));
    const T q = err[k] / sc;
    sum += q * q;
  }
  return sqrt(sum / T(m));
}

// The step control of `method` asked at time t for a step h that step_underflows
// (common/step_control.hpp): below --h-min, or too small to move t.
template <class T>
RunError step_size_underflow(std::string_view method, T t, T h, T h_min) {
  auto f = [](T x) { return RealTraits<T>::format(x); };
  const std::string where = "step size underflow at t = " + f(t) + ": " + std::string(method) + " needs h = " + f(h);
  if (!(h >= h_min))
    return RunError(where + " < --h-min " + f(h_min) + " (loosen --tol or lower --h-min)");
  return RunError(where + ", too small to advance t (a close encounter or collision; try --eps or a looser --tol)");
}

// Throws step_size_underflow when a controller that tried a step h_tried at time t and now asks
// for h_next has collapsed (controller_collapsed): the host side of every adaptive method.
template <class T>
void check_new_step(std::string_view method, T t, T h_tried, T h_next, T h_min) {
  if (controller_collapsed(t, h_tried, h_next, h_min, RealTraits<T>::epsilon()))
    throw step_size_underflow(method, t, h_next, h_min);
}

// A proportional-integral controller (Gustafsson; Hairer's DOPRI5 settings): the new step is
// h * safety * err^-alpha * err_prev^beta, limited to [h * shrink_limit, h * growth_limit] and
// to h_max; after a rejection the next step may not grow. A step it shrinks below h_min, or to one
// too small to move t, stops the run (controller_collapsed). The rule itself is pi_judge
// (common/step_control.hpp), shared with the device-resident stepping of the GPU engines.
template <class T>
class PIController {
 public:
  // error_order: the power of h in the error estimate (5 for a 5(4) pair).
  PIController(std::string_view method, int error_order, T h_min, T h_max, T beta = T(0.04))
      : method_(method), rule_{T(1) / T(error_order) - T(0.75) * beta, beta, h_min, h_max, RealTraits<T>::epsilon()} {}

  // Judges a trial step of size h from time t with error norm err; sets h_next. Returns true if
  // accepted.
  bool judge(T t, T err, T h, T& h_next) {
    const bool accepted = pi_judge(rule_, memory_, err, h, h_next);
    check_new_step(method_, t, h, h_next, rule_.h_min);
    return accepted;
  }

  const PIRule<T>& rule() const { return rule_; }
  PIMemory<T>& memory() { return memory_; }

  void save(ArchiveWriter& w) const {
    w.put(memory_.err_prev);
    w.put(memory_.last_rejected);
  }
  void load(ArchiveReader& r) {
    r.get(memory_.err_prev);
    r.get(memory_.last_rejected);
  }

 private:
  std::string_view method_;
  PIRule<T> rule_;
  PIMemory<T> memory_;
};

// Seed S0's step control (nbody_solver_rk_butcher in S0's code): a step is tried at its full size;
// if its error measure exceeds the threshold, the trial is rejected and the step is replaced by
// `parts` steps of 1/parts its size, each judged the same way, at most `max_depth` levels below
// the full step. At the deepest level, or once h <= h_min (S0's "min step"), a step is accepted as
// it is. A non-finite error measure counts as too large. Nothing is carried between steps.
template <class T>
class SubdivisionController {
 public:
  static constexpr int parts = 8;      // S0's substep_subdivisions
  static constexpr int max_depth = 8;  // S0's max_recursion

  SubdivisionController(T threshold, T h_min) : threshold_(threshold), h_min_(h_min) {}

  // Advances over a step of size h: try_step(h_sub) computes a trial of size h_sub from the
  // current state and returns its error measure; accept() makes the last trial the current state.
  // Returns the number of rejected trials.
  template <class Try, class Accept>
  std::uint64_t advance(T h, Try&& try_step, Accept&& accept, int depth = 0) const {
    const T err = try_step(h);
    if (err <= threshold_ || depth == max_depth || !(h > h_min_)) {
      accept();
      return 0;
    }
    std::uint64_t rejected = 1;
    const T sub = h / T(parts);
    for (int k = 0; k < parts; ++k) rejected += advance(sub, try_step, accept, depth + 1);
    return rejected;
  }

 private:
  T threshold_, h_min_;
};

// Hairer's starting step (Solving ODEs I, II.4): h0 from the size of y and f, refined by one
// explicit Euler trial whose derivative difference estimates the second derivative. One force
// evaluation; f0 = f(y0) is given. `order` is the order of the method.
template <class T, class Derivative>
T initial_step(const T* y0, const T* f0, std::size_t m, int order, T atol, T rtol, T h_max, Derivative&& derivative) {
  auto rms = [&](auto value) {
    T sum{0};
    for (std::size_t k = 0; k < m; ++k) {
      const T q = value(k) / (atol + rtol * abs(y0[k]));
      sum += q * q;
    }
    return sqrt(sum / T(m));
  };
  const T d0 = rms([&](std::size_t k) { return y0[k]; });
  const T d1 = rms([&](std::size_t k) { return f0[k]; });
  T h0 = (d0 < T(1e-5) || d1 < T(1e-5)) ? T(1e-6) : T(0.01) * d0 / d1;
  h0 = std::min(h0, h_max);
  std::vector<T> y1(m), f1(m);
  for (std::size_t k = 0; k < m; ++k) y1[k] = y0[k] + h0 * f0[k];
  derivative(y1.data(), f1.data());
  const T d2 = rms([&](std::size_t k) { return f1[k] - f0[k]; }) / h0;
  const T dmax = std::max(d1, d2);
  const T h1 = dmax <= T(1e-15) ? std::max(T(1e-6), h0 * T(1e-3)) : pow(T(0.01) / dmax, T(1) / T(order + 1));
  return std::min({T(100) * h0, h1, h_max});
}

}  // namespace nbody
