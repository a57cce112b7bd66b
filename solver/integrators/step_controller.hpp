#pragma once
// Error norm and step-size control shared by every embedded method (Hairer, Norsett & Wanner,
// "Solving ODEs I", II.4 and the DOPRI5 code).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "core/error.hpp"
#include "core/real.hpp"
#include "io/archive.hpp"

namespace nbody {

// RMS over all components of err_k / (atol + rtol * max(|y0_k|, |y1_k|)); a step is acceptable
// when this is <= 1 (DESIGN.md).
template <class T>
T error_norm(const T* y0, const T* y1, const T* err, std::size_t m, T atol, T rtol) {
  using std::abs;
  using std::sqrt;
  T sum{0};
  for (std::size_t k = 0; k < m; ++k) {
    const T sc = atol + rtol * std::max(abs(y0[k]), abs(y1[k]));
    const T q = err[k] / sc;
    sum += q * q;
  }
  return sqrt(sum / T(m));
}

// A proportional-integral controller (Gustafsson; Hairer's DOPRI5 settings): the new step is
// h * safety * err^-alpha * err_prev^beta, limited to [h * shrink_limit, h * growth_limit] and
// to [h_min, h_max]; after a rejection the next step may not grow.
template <class T>
class PIController {
 public:
  // error_order: the power of h in the error estimate (5 for a 5(4) pair).
  PIController(int error_order, T h_min, T h_max, T beta = T(0.04))
      : alpha_(T(1) / T(error_order) - T(0.75) * beta), beta_(beta), h_min_(h_min), h_max_(h_max) {}

  // Judges a trial step of size h with error norm err; sets h_next. Returns true if accepted.
  bool judge(T err, T h, T& h_next) {
    using std::pow;
    if (!(err <= T(1))) {  // rejected (NaN included: a trial that blew up shrinks maximally)
      const T shrink = is_finite(err) ? std::max(shrink_limit_, safety_ / pow(err, alpha_)) : shrink_limit_;
      h_next = h * shrink;
      last_rejected_ = true;
      if (h_next < h_min_)
        throw RunError("step size underflow: the controller needs h = " + RealTraits<T>::format(h_next) +
                       " < --h-min " + RealTraits<T>::format(h_min_) + " (loosen --tol or lower --h-min)");
      return false;
    }
    const T e = std::max(err, T(1e-4));  // Hairer's floor: avoids an infinite growth request
    T factor = safety_ * pow(e, -alpha_) * pow(err_prev_, beta_);
    factor = std::clamp(factor, shrink_limit_, growth_limit_);
    if (last_rejected_) factor = std::min(factor, T(1));
    h_next = std::min(std::max(h * factor, h_min_), h_max_);
    err_prev_ = e;
    last_rejected_ = false;
    return true;
  }

  void save(ArchiveWriter& w) const {
    w.put(err_prev_);
    w.put(last_rejected_);
  }
  void load(ArchiveReader& r) {
    r.get(err_prev_);
    r.get(last_rejected_);
  }

 private:
  T alpha_, beta_, h_min_, h_max_;
  T safety_{0.9}, shrink_limit_{0.2}, growth_limit_{10};
  T err_prev_{1e-4};
  bool last_rejected_ = false;
};

// Hairer's starting step (Solving ODEs I, II.4): h0 from the size of y and f, refined by one
// explicit Euler trial whose derivative difference estimates the second derivative. One force
// evaluation; f0 = f(y0) is given. `order` is the order of the method.
template <class T, class Derivative>
T initial_step(const T* y0, const T* f0, std::size_t m, int order, T atol, T rtol, T h_max, Derivative&& derivative) {
  using std::abs;
  using std::pow;
  using std::sqrt;
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
