#pragma once
// One driver for every implicit Runge-Kutta method, given its full Butcher tableau (a method file,
// gauss_legendre6.hpp or lobatto_iiic4.hpp, only writes its tableau). Fixed step only.
//
// The stage equations  Z_i = h sum_j a_ij f(y + Z_j)  (i = 1..S) are solved by fixed-point
// iteration, as Hairer, Lubich & Wanner recommend for non-stiff problems ("Geometric Numerical
// Integration", 2nd ed., VIII.6), and solved TO CONVERGENCE: seed S0 stopped after a fixed number of
// sweeps, which leaves an O(h^(sweeps+1)) error in the stages and made its Gauss method order 2.
// A sweep costs S force evaluations; we sweep until the increments of Z reach the round-off
// level of T or stop decreasing there (GNI VIII.6, the criterion of Hairer's gni_irk2 code), and a
// step whose iteration does not converge within a cap is an error naming the step (the step is
// too large for fixed-point iteration: its contraction factor is about h L rho(A)).
//
// The starting guess is the previous step's interpolation polynomial extrapolated over the new
// step (GNI VIII.6.1, eq. (6.6)): with the stage derivatives F_j of the previous step, of size
// h_p, u(t_p + theta h_p) = y_p + h_p sum_j L_j(theta) F_j, where L_j is the integral from 0 of the
// Lagrange polynomial of the nodes c; so Z_i^0 = h_p sum_j (L_j(1 + r c_i) - L_j(1)) F_j with
// r = h / h_p. For collocation methods (Gauss) u is the collocation polynomial itself; for
// Lobatto IIIC it is the polynomial interpolating its stage derivatives; for both
// y_n = u(t_p + h_p) because b_j = L_j(1) (interpolatory quadrature). The first step after a
// (re)start has no history and starts from Z_i^0 = c_i h f(y_n) (one force evaluation).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/real.hpp"
#include "integrators/explicit_rk.hpp"  // Coefficient
#include "integrators/integrator.hpp"

namespace nbody {

template <std::size_t S>
struct ImplicitTableau {
  static constexpr std::size_t stages = S;
  std::array<Coefficient, S> c;                  // distinct nodes (the predictor interpolates on them)
  std::array<std::array<Coefficient, S>, S> a;  // full matrix
  std::array<Coefficient, S> b;
  int order;
};

// Method: a struct with static members name, description and tableau.
template <class T, class Method>
class ImplicitRungeKutta final : public Integrator<T> {
  static constexpr auto tab = Method::tableau;
  static constexpr std::size_t S = tab.stages;

 public:
  struct info {
    static constexpr std::string_view name = Method::name;
    static constexpr std::string_view description = Method::description;
    static constexpr int order = tab.order;
    static constexpr bool error_estimate = false;
    static constexpr std::string_view family = "implicit Runge-Kutta";
    static constexpr int evaluations_per_step = 0;  // 1 + 3 per fixed-point sweep
    static constexpr bool symplectic = Method::symplectic;
    static constexpr bool implicit = true;
    static constexpr double state_vectors = 2 * S + 2;  // z_, F_, y_stage_, scale_
  };

  // The cap on sweeps per step. Near a close encounter with a large step the iteration may
  // contract slowly (by a factor near 1 per sweep) and still converge, so the cap is generous; a
  // diverging iteration reaches it all the same and is reported.
  static constexpr int max_sweeps = 4 * RealTraits<T>::digits;

  ImplicitRungeKutta(Rhs<T>& f, const StepOptions<T>& opt)
      : Integrator<T>(f, opt), m_(6 * f.size()), z_(S, std::vector<T>(m_)), F_(S, std::vector<T>(m_)), y_stage_(m_),
        scale_(m_) {
    this->refuse_compensation(info::name);
    for (std::size_t i = 0; i < S; ++i) {
      c_[i] = tab.c[i].template as<T>();
      b_[i] = tab.b[i].template as<T>();
      for (std::size_t j = 0; j < S; ++j) a_[i][j] = tab.a[i][j].template as<T>();
    }
    // Coefficients of the Lagrange basis polynomials l_j(theta) = prod_{m != j} (theta - c_m) / (c_j - c_m),
    // lowest power first, and of their integrals L_j from 0 (one power higher).
    for (std::size_t j = 0; j < S; ++j) {
      std::array<T, S> p{};
      p[0] = T(1);
      std::size_t degree = 0;
      for (std::size_t m = 0; m < S; ++m) {
        if (m == j) continue;
        const T d = c_[j] - c_[m];
        ++degree;
        for (std::size_t q = degree + 1; q-- > 0;) p[q] = ((q > 0 ? p[q - 1] : T(0)) - c_[m] * p[q]) / d;
      }
      for (std::size_t q = 0; q < S; ++q) L_[j][q + 1] = p[q] / T(q + 1);
    }
  }

  void restart() override { have_history_ = false; }

  void save(ArchiveWriter& w) const override {
    Integrator<T>::save(w);
    w.put(have_history_);
    w.put(h_prev_);
    for (const auto& F : F_) w.put_bodies(F, 6);
    w.put(sweeps_);
    w.put(last_sweeps_);
  }
  void load(ArchiveReader& r) override {
    Integrator<T>::load(r);
    r.get(have_history_);
    r.get(h_prev_);
    for (auto& F : F_) r.get_bodies(F, 6);
    r.get(sweeps_);
    r.get(last_sweeps_);
  }

  // Fixed-point sweeps in all steps so far (each costs S force evaluations), and in the last step.
  std::uint64_t sweeps() const { return sweeps_; }
  int last_sweeps() const { return last_sweeps_; }

  T step(State<T>& s, T h) override {
    const T* y = s.y.data();
    predict(y, h);
    set_scale(y);
    // Sweep until the increments reach round-off (a few ulps), or stop decreasing once they are near it.
    const T eps = RealTraits<T>::epsilon();
    T delta_prev = RealTraits<T>::infinity();
    for (int sweep = 1;; ++sweep) {
      for (std::size_t j = 0; j < S; ++j) {
        for (std::size_t k = 0; k < m_; ++k) y_stage_[k] = y[k] + z_[j][k];
        this->f_.derivative(y_stage_.data(), F_[j].data());
      }
      const T delta = update_stages(h);
      ++sweeps_;
      if (!is_finite(delta)) fail(s, h, sweep, "diverged to a non-finite value");
      // Round-off reached: the increments no longer move the stage values Y = y + Z. Stalling
      // means round-off too, provided we are close to it (far from it, a transient rise of a
      // contracting iteration goes on, and a diverging one reaches the cap).
      if (delta <= T(8) * eps || (delta >= delta_prev && delta <= stall_level())) {
        last_sweeps_ = sweep;
        break;
      }
      if (sweep == max_sweeps) fail(s, h, sweep, "did not converge (last increment " + RealTraits<T>::format(delta) + ")");
      delta_prev = delta;
    }
    // y_{n+1} = y_n + h sum_j b_j F_j, with the F_j of the last sweep (their Z changed by round-off
    // since): no further evaluation.
    for (std::size_t k = 0; k < m_; ++k) {
      T sum{0};
      for (std::size_t j = 0; j < S; ++j) sum += b_[j] * F_[j][k];
      s.y[k] += h * sum;
    }
    have_history_ = true;
    h_prev_ = h;
    s.t += h;
    ++this->counters_.steps;
    return h;
  }

 private:
  // A stalled increment (no smaller than the one before) is taken for round-off only below 2^10
  // ulps: room for the round-off of long force sums, while a contracting iteration that has not
  // reached round-off does not stall there but goes on down to eps.
  static T stall_level() { return T(1024) * RealTraits<T>::epsilon(); }

  // Initial guess Z^0 (see the header comment).
  void predict(const T* y, T h) {
    if (!have_history_) {
      this->f_.derivative(y, F_[0].data());
      for (std::size_t i = 0; i < S; ++i)
        for (std::size_t k = 0; k < m_; ++k) z_[i][k] = c_[i] * h * F_[0][k];
      return;
    }
    const T r = h / h_prev_;
    std::array<std::array<T, S>, S> beta{};
    for (std::size_t i = 0; i < S; ++i)
      for (std::size_t j = 0; j < S; ++j) beta[i][j] = h_prev_ * (integral(j, T(1) + r * c_[i]) - integral(j, T(1)));
    for (std::size_t i = 0; i < S; ++i)
      for (std::size_t k = 0; k < m_; ++k) {
        T sum{0};
        for (std::size_t j = 0; j < S; ++j) sum += beta[i][j] * F_[j][k];
        z_[i][k] = sum;
      }
  }

  // L_j(x) by Horner's rule.
  T integral(std::size_t j, T x) const {
    T v{0};
    for (std::size_t q = S + 1; q-- > 0;) v = v * x + L_[j][q];
    return v;
  }

  // Scale of component k for the convergence test: |y_k|, but at least the RMS of its block
  // (positions or velocities), so that a coordinate passing through zero is judged against the
  // size of the system rather than against itself.
  void set_scale(const T* y) {
    const std::size_t half = m_ / 2;
    for (std::size_t block = 0; block < 2; ++block) {
      T sum{0};
      for (std::size_t k = block * half; k < (block + 1) * half; ++k) sum += y[k] * y[k];
      const T rms = sqrt(sum / T(half));
      for (std::size_t k = block * half; k < (block + 1) * half; ++k) scale_[k] = std::max(abs(y[k]), rms);
    }
  }

  // Z_i <- h sum_j a_ij F_j; returns max_{i,k} |dZ_ik| / max(scale_k, |Z_ik| before and after).
  T update_stages(T h) {
    T delta{0};
    for (std::size_t i = 0; i < S; ++i)
      for (std::size_t k = 0; k < m_; ++k) {
        T sum{0};
        for (std::size_t j = 0; j < S; ++j) sum += a_[i][j] * F_[j][k];
        const T z = h * sum;
        if (!is_finite(z)) return z;
        const T dz = abs(z - z_[i][k]);
        if (dz > T(0)) delta = std::max(delta, dz / std::max({scale_[k], abs(z), abs(z_[i][k])}));
        z_[i][k] = z;
      }
    return delta;
  }

  [[noreturn]] void fail(const State<T>& s, T h, int sweep, const std::string& what) const {
    throw RunError(std::string(Method::name) + ": the implicit stage equations of step " +
                   std::to_string(this->counters_.steps + 1) + " (t = " + RealTraits<T>::format(s.t) + ", h = " +
                   RealTraits<T>::format(h) + ") " + what + " after " +
                   std::to_string(sweep) + " fixed-point sweeps; the step is too large for fixed-point iteration, use a smaller --dt");
  }

  std::size_t m_;
  std::array<T, S> c_{}, b_{};
  std::array<std::array<T, S>, S> a_{};
  std::array<std::array<T, S + 1>, S> L_{};  // L_j(x) = sum_q L_[j][q] x^q
  std::vector<std::vector<T>> z_, F_;         // stage increments Z_i and derivatives F_j = f(y + Z_j)
  std::vector<T> y_stage_, scale_;
  bool have_history_ = false;
  T h_prev_{0};
  std::uint64_t sweeps_ = 0;
  int last_sweeps_ = 0;
};

}  // namespace nbody
