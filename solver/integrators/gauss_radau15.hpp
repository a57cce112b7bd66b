#pragma once
// gauss-radau15: Everhart's 15th-order Gauss-Radau integrator for y'' = a(y) (E. Everhart 1985,
// "An efficient integrator that uses Gauss-Radau spacings", IAU Colloq. 83, 185), with the
// adaptive step and round-off control of IAS15 (H. Rein & D. S. Spiegel 2015, MNRAS 446, 1424).
//
// Over a step of size dt from t0, the acceleration is a polynomial of degree 7 in the fraction
// s = (t - t0) / dt of the step,
//     a(s) = a0 + b0 s + b1 s^2 + ... + b6 s^7,
// which integrates twice in closed form (advance()). The b_k follow from the accelerations at the
// 8 Gauss-Radau spacings h_0 = 0 < h_1 < ... < h_7 < 1 through the Newton (divided-difference)
// form of the same polynomial, a(s) = a0 + g1 s + g2 s (s - h1) + ... + g7 s (s - h1)...(s - h6).
// The accelerations at h_n need positions from the b_k, so the b_k are found by predictor-corrector
// sweeps, iterated until they stop changing at the round-off level. Because the Radau rule
// with 8 nodes is exact to degree 14, the position after one step is accurate to O(dt^16): the
// method has order 15.
//
// IAS15's additions, all here: the iteration stops when the change of b6 relative to the
// acceleration is below the round-off, or when it stops shrinking (round-off noise), or at a cap
// (the steps taken from a capped iteration are counted: StepCounters::iteration_cap_hits); the
// step size follows from the converged polynomial and epsilon (--tol), and a step whose
// successor would be less than a quarter of it is redone (the safety factor); the b of the next
// step are predicted from the previous step's polynomial plus the previous prediction's error
// (Everhart's e/b correction); and the b over a step's sweeps, and positions and velocities over
// the steps, are updated with Kahan's compensated summation.
//
// Two step criteria, both REBOUND's (--ias15-criterion). Either way epsilon stands for the size of
// the polynomial's last term, b6 ~ a^(7) dt^7 / 7!, relative to the acceleration:
// - prs23 (default; D. Pham, H. Rein & D. S. Spiegel 2024, OJAp 7, 1): each body's timescale
//   tau = sqrt(2 |a|^2 / (|j|^2 + |a| |s|)) from its acceleration, jerk and snap at the end of the
//   step, and the next step (7! epsilon)^(1/7) min tau: the step at which a Taylor series with
//   derivatives a / tau^k has a last term epsilon |a|. These low derivatives are well above the
//   round-off, so the step never chases noise.
// - b6 (Rein & Spiegel 2015; REBOUND's default until 2024): the next step makes max|b6| / max|a|
//   equal to epsilon, the maxima over the bodies that move in the step by more than sqrt(u) of
//   their distance from the origin (u the unit round-off). For the others b6 is the noise of
//   accelerations at positions that barely change in their last digits: at a close pair far from
//   the origin it does not shrink with the step, which then falls without end. The guard turns
//   that into tiny steps, not none: through close encounters of unsoftened bodies, b6 at a tight
//   epsilon can crawl (REBOUND's as well), where PRS23 takes its usual steps.
//
// Cost: one force evaluation at the start of each step and 7 per sweep. With a good prediction a
// step takes 3 sweeps (the prediction's error, then its round-off, then a sweep that changes
// nothing), 4 or more when steps are long (as PRS23's are): 21 to 30 evaluations a step.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/real.hpp"
#include "integrators/explicit_rk.hpp"      // Coefficient
#include "integrators/integrator.hpp"
#include "integrators/step_controller.hpp"  // initial_step

namespace nbody {

// The Gauss-Radau spacings on [0, 1]: 0 and the 7 roots of the degree-7 polynomial orthogonal to
// every lower degree under the weight s on [0, 1] (equivalently, the roots of (P7 + P8)(x) / (1 + x)
// on [-1, 1], mapped by s = (x + 1) / 2), so that the 8-point rule with a node at 0 integrates
// degree 14 exactly. Computed with mpmath at 110 digits; tests/test_gauss_radau15.cpp checks the
// orthogonality in 100-digit arithmetic. (The 28-digit table of REBOUND has a typo in h5 at the
// 17th digit; these do not come from it.)
inline constexpr std::array<Coefficient, 8> gauss_radau_spacings = {{
    {"0"},
    {"0.0562625605369221464656521910323111757797655147446230835724427916973942143"},
    {"0.180240691736892364987579942809181784542060620805470155322625555279817988"},
    {"0.352624717113169637373907770171241202808021883057274782399209338633832935"},
    {"0.54715362633055538300144855765234885464038592789914754130800934548567013"},
    {"0.734210177215410531523210608306610002563003118594390105979320313246944981"},
    {"0.88532094683909576809035976293248537292227017546802805461101026504843166"},
    {"0.977520613561287501891174500429154940077826092764399610140715723941241424"},
}};

template <class T>
class GaussRadau15 final : public Integrator<T> {
  static constexpr int K = 7;  // b_0..b_6, g_1..g_7, substeps 1..7
  using Coefficients = std::array<std::vector<T>, K>;

 public:
  struct info {
    static constexpr std::string_view name = "gauss-radau15";
    static constexpr std::string_view description =
        "IAS15 (Everhart's Gauss-Radau predictor-corrector), order 15, 21-30 force evaluations a step; --tol is IAS15's "
        "epsilon (REBOUND's default 1e-9), not an error norm: with --ias15-criterion prs23 (default; Pham, Rein & "
        "Spiegel 2024) the step is (7! epsilon)^(1/7) times the smallest timescale sqrt(2|a|^2/(|j|^2+|a||s|)) of the "
        "bodies' acceleration, jerk and snap; with b6 (Rein & Spiegel 2015) epsilon bounds max|b6|/max|a| in a step "
        "(floor 2.2e-11 in double)";
    static constexpr int order = 15;
    static constexpr bool error_estimate = true;
    static constexpr std::string_view family = "Gauss-Radau predictor-corrector";
    static constexpr int evaluations_per_step = 0;  // 1 + 7 per iteration
    static constexpr bool symplectic = false;
    static constexpr bool implicit = true;
    static constexpr double state_vectors = (6 * K + 5) / 2.0;  // b_ ... e_last_ (K half-states each), a0_ ... csv_
  };

  GaussRadau15(Rhs<T>& f, const StepOptions<T>& opt)
      : Integrator<T>(f, opt), m_(3 * f.size()), a0_(m_), acc_(m_), pos_(m_), csx_(m_), csv_(m_) {
    if (opt.controller == Controller::subdivide)
      throw InputError("gauss-radau15 controls its step itself (IAS15); --controller subdivide is for the embedded Runge-Kutta pairs");
    for (auto* set : {&b_, &e_, &g_, &csb_, &b_last_, &e_last_})
      for (auto& v : *set) v.assign(m_, T(0));
    for (int n = 0; n <= K; ++n) h_[n] = gauss_radau_spacings[n].template as<T>();
    for (int n = 0; n <= K; ++n)
      for (int k = 0; k < n; ++k) diff_[n][k] = h_[n] - h_[k];
    // c_[k][j]: coefficient of s^k in (s - h_1)...(s - h_j), i.e. the weight of g_{j+1} in b_k.
    std::array<T, K> poly{};
    poly[0] = T(1);
    for (int j = 0; j < K; ++j) {
      for (int k = 0; k < K; ++k) c_[k][j] = poly[k];
      if (j + 1 == K) break;
      for (int k = j + 1; k > 0; --k) poly[k] = poly[k - 1] - h_[j + 1] * poly[k];  // times (s - h_{j+1})
      poly[0] = -h_[j + 1] * poly[0];
    }
    // binom_[k][i] = C(i + 1, k + 1): s^(i+1) re-expanded about the end of the step.
    for (int i = 0; i < K; ++i) {
      long long binom = 1;  // C(i + 1, k + 1), k = 0, 1, ...
      for (int k = 0; k <= i; ++k) {
        binom = binom * (i + 1 - k) / (k + 1);
        binom_[k][i] = T(binom);
      }
    }
    for (int k = 0; k < K; ++k) {
      pos_den_[k] = T((k + 2) * (k + 3));  // integrating b_k s^(k+1) twice
      vel_den_[k] = T(k + 2);              // and once
    }
    h_next_ = opt.dt;
    // --tol sets atol = rtol = epsilon. Under b6, rounded accelerations put noise of about 1e4
    // units of round-off (relative to max|a|, measured on Kepler orbits in float and double) into
    // b6, since it is their 7th divided difference; a smaller epsilon would chase that noise and
    // shrink the steps without end, so epsilon is at least 1e5 round-off units (2.2e-11 in double).
    // PRS23 reads no b6, so any epsilon gives finite steps, only more of them (as epsilon^(-1/7)).
    epsilon_ = opt.rtol > T(0) ? opt.rtol : opt.atol;
    if (opt.ias15_criterion == Ias15Criterion::b6) {
      const T floor = T(1e5) * RealTraits<T>::epsilon();
      if (opt.adaptive && epsilon_ < floor)  // say so: the user asked for something else
        std::fprintf(stderr, "nbody: note: gauss-radau15: --tol %s is below the b6 criterion's floor in this precision; using %s\n",
                     RealTraits<T>::format(epsilon_).c_str(), RealTraits<T>::format(floor).c_str());
      epsilon_ = std::max(epsilon_, floor);
    }
    prs23_factor_ = pow(T(5040) * epsilon_, T(1) / T(K));  // (7! epsilon)^(1/7)
  }

  T proposed_step(const State<T>& s) override {
    if (h_next_ > T(0)) return h_next_;
    // No step given: Hairer's starting step for order 15 (two force evaluations, counted); the
    // first one is the acceleration the first step needs anyway.
    std::vector<T> f0(2 * m_);
    this->f_.derivative(s.y.data(), f0.data());
    std::copy(f0.begin() + m_, f0.end(), a0_.begin());
    have_a0_ = true;
    h_next_ = initial_step(s.y.data(), f0.data(), 2 * m_, info::order, this->opt_.atol, this->opt_.rtol, this->opt_.h_max,
                           [&](const T* y, T* dydt) { this->f_.derivative(y, dydt); });
    return h_next_;
  }

  void restart() override {
    have_a0_ = false;
    h_last_ = T(0);  // no polynomial to predict from
    std::fill(csx_.begin(), csx_.end(), T(0));
    std::fill(csv_.begin(), csv_.end(), T(0));
    if (this->opt_.adaptive) h_next_ = this->opt_.dt;
  }

  // Between steps the method carries: the acceleration at the start (if already evaluated), the
  // compensation terms, the last step's converged b and the prediction e it started from (the
  // next step's b and e are predicted from them), and the step sizes.
  void save(ArchiveWriter& w) const override {
    Integrator<T>::save(w);
    w.put(have_a0_);
    for (const auto* v : {&a0_, &csx_, &csv_}) w.put_bodies(*v, 3);
    for (const auto* set : {&b_last_, &e_last_})
      for (const auto& v : *set) w.put_bodies(v, 3);
    w.put(h_last_);
    w.put(h_next_);
    w.put(sweeps_);
    w.put(this->counters_.iteration_cap_hits);  // only this method sets it, so only it saves it
  }
  void load(ArchiveReader& r) override {
    Integrator<T>::load(r);
    r.get(have_a0_);
    for (auto* v : {&a0_, &csx_, &csv_}) r.get_bodies(*v, 3);
    for (auto* set : {&b_last_, &e_last_})
      for (auto& v : *set) r.get_bodies(v, 3);
    r.get(h_last_);
    r.get(h_next_);
    r.get(sweeps_);
    r.get(this->counters_.iteration_cap_hits);
  }

  T step(State<T>& s, T h) override {
    const T* x0 = s.y.data();
    const T* v0 = x0 + m_;
    if (!have_a0_) {
      this->f_.accelerations(x0, a0_.data());
      have_a0_ = true;
    }
    // The first step's size is a guess (the starting-step estimate, or --dt) that no criterion has
    // seen: it stands only if its sweeps converge and the criterion, having seen it, asks for at
    // least as much. Otherwise a step up to 4 times too long (about 4^16 times the error of one
    // step) would be accepted, or one so long that its polynomial, and so the criterion, is noise.
    bool guessed = h_last_ == T(0);
    Sweeps ended;
    for (;;) {
      predict(h);
      ended = converge(x0, v0, h);
      const bool converged = ended == Sweeps::converged;
      if (!this->opt_.adaptive) break;
      const T h_new = guessed && !converged ? safety_ * h : controlled_step(v0, h);
      // IAS15: a much smaller next step means this one was too large
      if (h_new < (guessed ? T(1) : safety_) * h) {
        ++this->counters_.rejected;
        check_new_step(info::name, s.t, h, h_new, this->opt_.h_min);
        h = h_new;
        guessed = guessed && !converged;
        continue;
      }
      h_next_ = std::min({h_new, h / safety_, this->opt_.h_max});  // grow at most 4x
      check_new_step(info::name, s.t, h, h_next_, this->opt_.h_min);
      break;
    }
    // A capped trial that was redone smaller does not count: only what the step advanced with.
    if (ended == Sweeps::capped) ++this->counters_.iteration_cap_hits;
    advance(s, h);
    std::swap(b_last_, b_);  // b_ and e_ are rebuilt by the next predict()
    std::swap(e_last_, e_);
    h_last_ = h;
    have_a0_ = false;
    s.t += h;
    ++this->counters_.steps;
    return h;
  }

  // Predictor-corrector sweeps so far (each costs 7 force evaluations), rejected trials included.
  std::uint64_t sweeps() const { return sweeps_; }

 private:
  // Kahan's compensated sum: the true value is sum - c.
  static void kahan_add(T& sum, T& c, T term) {
    const T y = term - c;
    const T t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }

  // Starting b (and g) for a step of size h. The last step's polynomial, re-expanded about its end
  // in units of the new step (q = h / h_last), is the prediction e; the error of the last
  // prediction, b_last - e_last, is added to it (Everhart's correction). After a much larger
  // growth than IAS15 allows, or with no previous step, the iteration starts from b = 0.
  void predict(T h) {
    const T q = h_last_ > T(0) ? h / h_last_ : T(0);
    if (q == T(0) || q > T(20)) {
      for (auto* set : {&b_, &e_})
        for (auto& v : *set) std::fill(v.begin(), v.end(), T(0));
    } else {
      T qk = q;
      for (int k = 0; k < K; ++k, qk *= q)
        for (std::size_t j = 0; j < m_; ++j) {
          T sum{0};
          for (int i = K - 1; i >= k; --i) sum += binom_[k][i] * b_last_[i][j];
          e_[k][j] = qk * sum;
          b_[k][j] = e_[k][j] + (b_last_[k][j] - e_last_[k][j]);
        }
    }
    // g from b: c_ is unit upper triangular, so back substitution.
    for (int k = K - 1; k >= 0; --k)
      for (std::size_t j = 0; j < m_; ++j) {
        T v = b_[k][j];
        for (int l = k + 1; l < K; ++l) v -= c_[k][l] * g_[l][j];
        g_[k][j] = v;
      }
  }

  enum class Sweeps { converged, capped, not_finite };

  // Iterates the sweeps until b6 stops changing: its change relative to the acceleration is below
  // the unit round-off, or it grew again after the third sweep (round-off noise). Otherwise the
  // sweeps end at the cap or at a non-finite change.
  Sweeps converge(const T* x0, const T* v0, T h) {
    for (auto& v : csb_) std::fill(v.begin(), v.end(), T(0));
    const T converged = RealTraits<T>::epsilon() / T(2);
    T change = RealTraits<T>::max(), previous = change;
    for (int sweep = 0;; ++sweep) {
      if (change < converged) return Sweeps::converged;
      if (!is_finite(change)) return Sweeps::not_finite;
      if (sweep > 2 && previous <= change) return Sweeps::converged;
      if (sweep >= max_sweeps_) return Sweeps::capped;
      previous = change;
      change = sweep_once(x0, v0, h);
    }
  }

  // One predictor-corrector sweep over the 7 substeps; returns max|change of b6| / max|a|.
  T sweep_once(const T* x0, const T* v0, T h) {
    ++sweeps_;
    T max_a{0}, max_db6{0};
    for (int n = 1; n <= K; ++n) {
      const T hn = h_[n];
      const T tau = hn * h;
      for (std::size_t j = 0; j < m_; ++j) {
        // x(h_n) = x0 + tau v0 + tau^2 (a0/2 + hn b0/6 + hn^2 b1/12 + ... + hn^7 b6/72), smallest terms first
        T p = b_[K - 1][j] / pos_den_[K - 1];
        for (int k = K - 2; k >= 0; --k) p = b_[k][j] / pos_den_[k] + hn * p;
        p = a0_[j] / T(2) + hn * p;
        pos_[j] = x0[j] + ((tau * tau * p + tau * v0[j]) - csx_[j]);
      }
      this->f_.accelerations(pos_.data(), acc_.data());
      for (std::size_t j = 0; j < m_; ++j) {
        T g = (acc_[j] - a0_[j]) / diff_[n][0];  // divided differences
        for (int l = 1; l < n; ++l) g = (g - g_[l - 1][j]) / diff_[n][l];
        const T dg = g - g_[n - 1][j];
        g_[n - 1][j] = g;
        for (int k = 0; k < n; ++k) kahan_add(b_[k][j], csb_[k][j], c_[k][n - 1] * dg);
        if (n == K) {  // like IAS15, ignore non-finite entries in the maxima
          if (is_finite(dg)) max_db6 = std::max(max_db6, T(abs(dg)));
          if (is_finite(acc_[j])) max_a = std::max(max_a, T(abs(acc_[j])));
        }
      }
    }
    return max_a > T(0) ? max_db6 / max_a : T(0);
  }

  static bool positive_finite(T x) { return x > T(0) && is_finite(x); }

  // The next step after a trial of size h from velocities v0 (see the top of the file).
  // Where the criterion has nothing to go by (no body counts, or the forces cancel to round-off),
  // the step grows by the most it may.
  T controlled_step(const T* v0, T h) const {
    return this->opt_.ias15_criterion == Ias15Criterion::b6 ? b6_step(v0, h) : prs23_step(h);
  }

  // PRS23. In units of the step, the polynomial gives a(1) = a0 + sum b_k, the jerk h j(1) =
  // sum (k+1) b_k and the snap h^2 s(1) = sum (k+1) k b_k, so tau^2 / h^2 below. Bodies with no
  // acceleration at the start, or a timescale that is zero or not finite, do not count.
  T prs23_step(T h) const {
    T min_tau2 = RealTraits<T>::infinity();
    const std::size_t n = m_ / 3;
    for (std::size_t body = 0; body < n; ++body) {
      T a0_2{0}, a_2{0}, jerk_2{0}, snap_2{0};
      for (std::size_t j = body; j < m_; j += n) {  // its x, y and z
        T a = a0_[j], jerk{0}, snap{0};
        for (int k = 0; k < K; ++k) {
          a += b_[k][j];
          jerk += T(k + 1) * b_[k][j];
          snap += T((k + 1) * k) * b_[k][j];
        }
        a0_2 += a0_[j] * a0_[j];
        a_2 += a * a;
        jerk_2 += jerk * jerk;
        snap_2 += snap * snap;
      }
      if (!positive_finite(a0_2)) continue;
      const T tau2 = T(2) * a_2 / (jerk_2 + sqrt(snap_2 * a_2));
      if (positive_finite(tau2)) min_tau2 = std::min(min_tau2, tau2);
    }
    if (!is_finite(min_tau2)) return h / safety_;
    return sqrt(min_tau2) * h * prs23_factor_;
  }

  // b6: the error of the degree-7 polynomial is O(dt^7) relative to a, so the step that makes
  // max|b6| / max|a| equal to epsilon is h (epsilon / error)^(1/7). A body counts when it moves
  // more than sqrt(u) of its distance from the origin in the step (REBOUND's guard, with u the unit
  // round-off where REBOUND has 1e-16): positions at the last substep, velocities at the start.
  T b6_step(const T* v0, T h) const {
    const T moves = RealTraits<T>::epsilon() / T(2);
    T max_a{0}, max_b6{0};
    const std::size_t n = m_ / 3;
    for (std::size_t body = 0; body < n; ++body) {
      T v2{0}, x2{0};
      for (std::size_t j = body; j < m_; j += n) v2 += v0[j] * v0[j], x2 += pos_[j] * pos_[j];
      if (v2 * h * h < moves * x2) continue;
      for (std::size_t j = body; j < m_; j += n) {
        if (is_finite(acc_[j])) max_a = std::max(max_a, T(abs(acc_[j])));
        if (is_finite(b_[K - 1][j])) max_b6 = std::max(max_b6, T(abs(b_[K - 1][j])));
      }
    }
    const T error = max_b6 / max_a;
    if (positive_finite(error)) return h * pow(epsilon_ / error, T(1) / T(K));
    return h / safety_;
  }

  // x += dt v0 + dt^2 (a0/2 + b0/6 + ... + b6/72), v += dt (a0 + b0/2 + ... + b6/8): each term
  // added, smallest first, into a Kahan sum whose compensation lives on across steps.
  void advance(State<T>& s, T h) {
    T* x = s.y.data();
    T* v = x + m_;
    const T h2 = h * h;
    for (std::size_t j = 0; j < m_; ++j) {
      for (int k = K - 1; k >= 0; --k) kahan_add(x[j], csx_[j], b_[k][j] / pos_den_[k] * h2);
      kahan_add(x[j], csx_[j], a0_[j] / T(2) * h2);
      kahan_add(x[j], csx_[j], v[j] * h);
      for (int k = K - 1; k >= 0; --k) kahan_add(v[j], csv_[j], b_[k][j] / vel_den_[k] * h);
      kahan_add(v[j], csv_[j], a0_[j] * h);
    }
  }

  const std::size_t m_;  // 3N
  std::array<T, K + 1> h_{};
  std::array<std::array<T, K + 1>, K + 1> diff_{};  // h_n - h_k
  std::array<std::array<T, K>, K> c_{};             // b = C g
  std::array<std::array<T, K>, K> binom_{};
  std::array<T, K> pos_den_{}, vel_den_{};
  const T safety_{0.25};  // IAS15's safety factor: largest growth 1/0.25, rejection below 0.25
  // IAS15 caps the sweeps at 12 in double; each sweep gains a roughly fixed number of digits, so
  // wider types (double-double, quad, mp50) get proportionally more.
  const int max_sweeps_ = std::max(12, 12 * RealTraits<T>::digits / 53);
  T epsilon_{0};
  T prs23_factor_{0};

  Coefficients b_, e_, g_;       // this step: coefficients, their prediction, Newton form
  Coefficients csb_;             // Kahan compensation of b over this trial's sweeps
  Coefficients b_last_, e_last_;  // the last accepted step's b and its prediction e
  std::vector<T> a0_, acc_, pos_;
  std::vector<T> csx_, csv_;  // Kahan compensation of positions and velocities
  bool have_a0_ = false;
  T h_last_{0}, h_next_{0};
  std::uint64_t sweeps_ = 0;
};

}  // namespace nbody
