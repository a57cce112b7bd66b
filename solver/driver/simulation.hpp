#pragma once
// The time loop: owns the state, the engine and the integrator, steps to t_end, and reports
// samples of the diagnostics to an observer. Fixed-step runs take steps of exactly dt (times are
// t0 + k dt, not an accumulated sum) and a last step that ends exactly on t_end; adaptive runs take
// the controller's steps, the last one clamped to t_end. Samples are taken at the first step end
// at or after each multiple of diag_every (never by shortening a step, which would change the
// trajectory), and always at the start and at t_end.
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/real.hpp"
#include "core/registry.hpp"
#include "integrators/integrator.hpp"
#include "physics/diagnostics.hpp"

namespace nbody {

template <class T>
struct Sample {
  T t, dt;
  StepCounters counters;
  std::uint64_t force_evaluations;
  Snapshot<T> snapshot;
  typename DriftTracker<T>::Drift drift;
};

template <class T>
class Simulation {
 public:
  Simulation(State<T> initial, const ForceLaw<T>& law, const std::string& engine, const std::string& integrator,
             const StepOptions<T>& steps)
      : state_(std::move(initial)),
        law_(law),
        engine_(make_engine<T>(engine, law)),
        rhs_(*engine_, state_.mass),
        steps_(steps),
        drift_(measure(state_, law)) {
    const auto& entry = find_entry(integrator_table<T>(), integrator, "integrator");
    if (steps.adaptive && !entry.error_estimate)
      throw InputError("integrator '" + integrator + "' has no error estimate, so it cannot run with --tol/--atol/--rtol; use --dt");
    integrator_ = entry.make(rhs_, steps);
  }

  const State<T>& state() const { return state_; }

  // Advances to t_end. observe(const Sample<T>&) is called for every sample; progress(text) now and
  // then on long runs.
  template <class Observer>
  void run(T t_end, T diag_every, Observer&& observe, const std::function<void(const std::string&)>& progress = {}) {
    const T t0 = state_.t;
    if (!(t_end > t0)) throw InputError("--t-end must be after the start time " + RealTraits<T>::format(t0));
    const T span = t_end - t0;
    std::uint64_t fixed_steps = 0;
    if (!steps_.adaptive) {
      const T ratio = span / steps_.dt;  // steps to t_end; within rounding of an integer: that integer
      fixed_steps = static_cast<std::uint64_t>(std::ceil(static_cast<double>(ratio - ratio * T(8) * std::numeric_limits<T>::epsilon())));
      if (fixed_steps == 0) fixed_steps = 1;
    }
    T next_sample = diag_every > T(0) ? t0 + diag_every : t_end;
    T h_last{0};
    emit(h_last, observe);
    const auto start = std::chrono::steady_clock::now();
    auto last_report = start;
    for (std::uint64_t k = 0; state_.t < t_end; ++k) {
      if (steps_.adaptive) {
        const T remaining = t_end - state_.t;
        const T h = std::min(integrator_->proposed_step(state_), remaining);
        h_last = integrator_->step(state_, h);
        if (h_last == remaining) state_.t = t_end;
      } else {
        const bool last = k + 1 == fixed_steps;
        const T t_k = t0 + T(k) * steps_.dt;
        h_last = last ? t_end - t_k : steps_.dt;
        integrator_->step(state_, h_last);
        state_.t = last ? t_end : t0 + T(k + 1) * steps_.dt;
      }
      check_finite();
      // a few ulps of slack, so that t0 + k dt that rounds just below a sample time still samples
      if (state_.t >= next_sample - T(8) * std::numeric_limits<T>::epsilon() * next_sample || state_.t >= t_end) {
        emit(h_last, observe);
        while (next_sample <= state_.t + T(8) * std::numeric_limits<T>::epsilon() * next_sample) next_sample += diag_every > T(0) ? diag_every : t_end;
      }
      if (progress) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last_report > std::chrono::seconds(10)) {
          last_report = now;
          const double elapsed = std::chrono::duration<double>(now - start).count();
          const double done = static_cast<double>((state_.t - t0) / span);
          progress("t = " + RealTraits<T>::format(state_.t) + " of " + RealTraits<T>::format(t_end) + " (" +
                   std::to_string(static_cast<int>(100 * done)) + "%), " + std::to_string(counters().steps) + " steps, " +
                   std::to_string(static_cast<long long>(elapsed)) + " s elapsed, ~" +
                   std::to_string(static_cast<long long>(elapsed * (1 - done) / std::max(done, 1e-9))) + " s left");
        }
      }
    }
  }

  const StepCounters& counters() const { return integrator_->counters(); }
  const Snapshot<T>& initial_snapshot() const { return drift_.initial(); }
  std::uint64_t force_evaluations() const { return rhs_.evaluations(); }

 private:
  template <class Observer>
  void emit(T h_last, Observer& observe) {
    Sample<T> s{state_.t, h_last, counters(), rhs_.evaluations(), measure(state_, law_), {}};
    s.drift = drift_.update(s.snapshot);
    observe(s);
  }

  void check_finite() const {
    for (const T& v : state_.y)
      if (!is_finite(v))
        throw RunError("the state became non-finite at t = " + RealTraits<T>::format(state_.t) + " after " +
                       std::to_string(counters().steps) + " steps (try a smaller --dt or --tol, or --eps / --r-min)");
  }

  State<T> state_;
  ForceLaw<T> law_;
  std::unique_ptr<ForceEngine<T>> engine_;
  Rhs<T> rhs_;
  StepOptions<T> steps_;
  DriftTracker<T> drift_;
  std::unique_ptr<Integrator<T>> integrator_;
};

}  // namespace nbody
