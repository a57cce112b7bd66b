#pragma once
// The time loop: owns the state, the engine and the integrator, steps to t_end, and reports
// samples of the diagnostics to an observer. Fixed-step runs take steps of exactly dt (times are
// t0 + k dt, not an accumulated sum) and a last step that ends exactly on t_end; adaptive runs take
// the controller's steps, the last one clamped to t_end. Samples and checkpoints are taken at the
// first step end at or after each multiple of their interval (never by shortening a step, which
// would change the trajectory); samples also at the start and at t_end. Snapshots of the whole
// state, when asked for, are taken at exactly t0 + k snapshot_every: adaptive steps are shortened
// to land on those times, as on t_end (so the trajectory depends on snapshot_every); fixed steps
// land on them, snapshot_every having to be a multiple of dt. A run restored from a
// checkpoint (load) continues bit for bit as the uninterrupted run would have. With device-resident
// stepping (engines/resident.hpp) the steps between two such events are taken in one call on the
// device; the events, and what happens at them, are the same. A run stops early at stop_at or
// when its `interrupted` hook says so, polled between steps (between device calls when the steps
// are taken on the device), and writes its checkpoint there.
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/progress.hpp"
#include "core/real.hpp"
#include "core/registry.hpp"
#include "integrators/integrator.hpp"
#include "io/archive.hpp"
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

// Optional services of a run: progress lines, periodic checkpoints, stopping early (runs in
// parts: stop at the first step end at or after stop_at, then checkpoint; or when `interrupted`,
// polled between steps, says so), and snapshots of the state at exact output times (at the
// start, every snapshot_every, and at t_end).
template <class T>
struct RunHooks {
  std::function<void(const std::string&)> progress;
  T snapshot_every{0};                                 // 0: no snapshots
  std::function<void(const State<T>&)> snapshot;
  T checkpoint_every{0};            // 0: no periodic checkpoints
  std::function<void()> checkpoint;  // called at each checkpoint time and when stopping early
  T stop_at{RealTraits<T>::infinity()};
  std::function<bool()> interrupted;  // true: stop now (between two steps or device calls)
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
    if (steps.stepping == Stepping::device && !integrator_->steps_on_device())
      throw InputError("--stepping device: steps stay on the device only in float or double without --compensated, with a "
                       "CUDA all-pairs engine and an explicit Runge-Kutta method (fixed --dt, or --tol with --controller pi) "
                       "or adams-bashforth, or with a CUDA octree engine and leapfrog or a composition of it; use --stepping "
                       "auto or host");
  }

  const State<T>& state() const { return state_; }
  ForceEngine<T>& engine() { return *engine_; }
  const StepCounters& counters() const { return integrator_->counters(); }
  std::uint64_t force_evaluations() const { return rhs_.evaluations(); }
  // Wall time spent taking steps in this process (samples, outputs and checkpoints left out).
  double stepping_seconds() const { return stepping_seconds_; }
  const Snapshot<T>& initial_snapshot() const { return drift_.initial(); }

  // Advances to t_end (or to hooks.stop_at). observe(const Sample<T>&) is called for every sample.
  // Returns true when t_end was reached, false when the run stopped early (stop_at, interrupted).
  template <class Observer>
  bool run(T t_end, T diag_every, Observer&& observe, const RunHooks<T>& hooks = {}) {
    const bool snapshots = hooks.snapshot && hooks.snapshot_every > T(0);
    if (snapshots && !steps_.adaptive) {  // fixed steps land on the snapshot times only if they divide them
      const T ratio = hooks.snapshot_every / steps_.dt, k = floor(ratio + T(0.5));
      if (k < T(1) || abs(ratio - k) > T(64) * RealTraits<T>::epsilon() * k)
        throw InputError("--snapshot-every " + RealTraits<T>::format(hooks.snapshot_every) + " is not a multiple of --dt " +
                         RealTraits<T>::format(steps_.dt) + " (fixed steps land on snapshot times only then)");
    }
    if (!started_) {
      t0_ = state_.t;
      emit(observe);
      if (snapshots) hooks.snapshot(state_);
      started_ = true;
    }
    if (!(t_end > t0_)) throw InputError("--t-end must be after the start time " + RealTraits<T>::format(t0_));
    if (!steps_.adaptive && state_.t < due_time(tick(step_index_, steps_.dt)))  // a last step shortened onto t_end
      throw InputError("the run stands at t = " + RealTraits<T>::format(state_.t) + ", between its steps t0 + k dt (dt = " +
                       RealTraits<T>::format(steps_.dt) + "): a run at a fixed step continues only from one of them");
    const std::uint64_t fixed_steps = steps_.adaptive ? 0 : fixed_step_count(t_end);
    const auto start = std::chrono::steady_clock::now();
    auto last_report = start;
    const T t_begin = state_.t;  // this process's part of the run, for the progress line
    const std::uint64_t steps_begin = counters().steps;
    while (state_.t < t_end) {
      if (state_.t >= hooks.stop_at || (hooks.interrupted && hooks.interrupted())) {
        if (hooks.checkpoint) hooks.checkpoint();
        return false;
      }
      const T land_on = snapshots ? std::min(t_end, tick(snapshots_ + 1, hooks.snapshot_every)) : t_end;
      const auto stepping = std::chrono::steady_clock::now();
      if (!(integrator_->steps_on_device() && advance_on_device(land_on, fixed_steps, diag_every, hooks)))
        advance(land_on, t_end, fixed_steps);
      stepping_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - stepping).count();
      if (reached(samples_, diag_every) || state_.t >= t_end) emit(observe);
      if (snapshots && (reached(snapshots_, hooks.snapshot_every) || state_.t >= t_end)) hooks.snapshot(state_);
      if (hooks.checkpoint && hooks.checkpoint_every > T(0) && reached(checkpoints_, hooks.checkpoint_every))
        hooks.checkpoint();
      if (hooks.progress) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last_report > std::chrono::seconds(10)) {
          last_report = now;
          report_progress(t_begin, steps_begin, t_end, std::chrono::duration<double>(now - start).count(), hooks.progress);
        }
      }
    }
    return true;
  }

  // The whole run as it stands between two steps: state, position in the step schedule, sampling
  // and checkpoint clocks, the diagnostics' baseline and running max, the integrator's own state.
  void save(ArchiveWriter& w) const {
    w.put(state_.mass);
    w.put(state_.y);
    w.put(state_.t);
    w.put(t0_);
    w.put(step_index_);
    w.put(samples_);
    w.put(checkpoints_);
    w.put(snapshots_);
    w.put(h_last_);
    w.put(rhs_.evaluations());
    drift_.save(w);
    integrator_->save(w);
  }
  void load(ArchiveReader& r) {
    std::vector<T> mass;
    r.get(mass);
    if (mass.size() != state_.size())
      throw InputError("checkpoint holds " + std::to_string(mass.size()) + " bodies, the run " + std::to_string(state_.size()));
    state_.mass = std::move(mass);  // same vector object: Rhs keeps referring to it
    r.get(state_.y);
    r.get(state_.t);
    r.get(t0_);
    r.get(step_index_);
    r.get(samples_);
    r.get(checkpoints_);
    r.get(snapshots_);
    r.get(h_last_);
    rhs_.set_evaluations(r.get<std::uint64_t>());
    drift_.load(r);
    integrator_->load(r);
    if (!r.at_end()) throw InputError("checkpoint has trailing data (written by another version?)");
    started_ = true;
  }

 private:
  // Steps of exactly dt to t_end: within rounding of an integer, that integer.
  std::uint64_t fixed_step_count(T t_end) const {
    const T ratio = (t_end - t0_) / steps_.dt;
    const double n = std::ceil(static_cast<double>(ratio - ratio * T(8) * RealTraits<T>::epsilon()));
    return n < 1 ? 1 : static_cast<std::uint64_t>(n);
  }

  // One step; an adaptive one is clamped to end exactly on `land_on` (t_end or the next snapshot).
  void advance(T land_on, T t_end, std::uint64_t fixed_steps) {
    if (steps_.adaptive) {
      const T remaining = land_on - state_.t;
      const T h = std::min(integrator_->proposed_step(state_), remaining);
      h_last_ = integrator_->step(state_, h);
      if (h_last_ == remaining) state_.t = land_on;
    } else {
      const bool last = step_index_ + 1 >= fixed_steps;
      const T t_k = t0_ + T(step_index_) * steps_.dt;
      h_last_ = last ? t_end - t_k : steps_.dt;
      integrator_->step(state_, h_last_);
      state_.t = last ? t_end : t0_ + T(step_index_ + 1) * steps_.dt;
    }
    ++step_index_;
    check_finite();
  }

  // Device-resident steps: as many as the next event allows (a sample, checkpoint or snapshot
  // due, stop_at, landing on land_on; fixed steps: all but the last, which ends exactly on t_end
  // and is the host's) in one call, at most device_batch_ of them. False when the integrator
  // cannot take them now; the caller then takes one step on the host.
  bool advance_on_device(T land_on, std::uint64_t fixed_steps, T diag_every, const RunHooks<T>& hooks) {
    ResidentSegment<T> seg;
    seg.land_on = land_on;
    seg.stop_when = std::min(hooks.stop_at, due_time(tick(samples_ + 1, diag_every)));
    if (hooks.checkpoint && hooks.checkpoint_every > T(0))
      seg.stop_when = std::min(seg.stop_when, due_time(tick(checkpoints_ + 1, hooks.checkpoint_every)));
    if (hooks.snapshot && hooks.snapshot_every > T(0))
      seg.stop_when = std::min(seg.stop_when, due_time(tick(snapshots_ + 1, hooks.snapshot_every)));
    seg.max_steps = device_batch_;
    if (!steps_.adaptive) {
      if (step_index_ + 1 >= fixed_steps) return false;
      seg.max_steps = std::min<std::uint64_t>(seg.max_steps, fixed_steps - 1 - step_index_);
    }
    seg.t0 = t0_;
    seg.dt = steps_.dt;
    seg.step_index = step_index_;
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t taken = integrator_->advance_on_device(state_, seg);
    if (taken == 0) return false;
    // Calls of about a second: progress lines stay regular, and launches stay rare.
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (taken == seg.max_steps && seconds < 0.25 && device_batch_ < (std::uint64_t(1) << 24)) device_batch_ *= 2;
    if (seconds > 2 && device_batch_ > 1) device_batch_ /= 2;
    step_index_ += taken;
    h_last_ = seg.h_last;
    check_finite();
    return true;
  }

  void check_finite() const {
    for (const T& v : state_.y)
      if (!is_finite(v))
        throw RunError("the state became non-finite at t = " + RealTraits<T>::format(state_.t) + " after " +
                       std::to_string(counters().steps) + " steps (try a smaller --dt or --tol, or --eps / --r-min)");
  }

  // True if the next tick of a clock (t0 + (count + 1) every; computed, never accumulated, so
  // that tick times do not drift) is due at the current time, with a few ulps of slack so that a
  // step time t0 + k dt that rounds just below a tick still counts; counts the ticks passed.
  T tick(std::uint64_t k, T every) const { return t0_ + T(k) * every; }
  T due_time(T tick) const { return tick - T(8) * RealTraits<T>::epsilon() * (tick < T(0) ? -tick : tick); }
  bool reached(std::uint64_t& count, T every) const {
    auto due = [&](T t) { return state_.t >= due_time(t); };
    if (!due(tick(count + 1, every))) return false;
    while (due(tick(count + 1, every))) ++count;
    return true;
  }

  template <class Observer>
  void emit(Observer& observe) {
    Sample<T> s{state_.t, h_last_, counters(), rhs_.evaluations(), measure(state_, law_), {}};
    s.drift = drift_.update(s.snapshot);
    observe(s);
  }

  void report_progress(T t_begin, std::uint64_t steps_begin, T t_end, double elapsed,
                       const std::function<void(const std::string&)>& progress) const {
    const double done = static_cast<double>((state_.t - t_begin) / (t_end - t_begin));
    progress(progress_line("t = " + RealTraits<T>::format(state_.t) + " of " + RealTraits<T>::format(t_end) + ", step " +
                               std::to_string(counters().steps),
                           done, static_cast<double>(counters().steps - steps_begin), elapsed));
  }

  State<T> state_;
  ForceLaw<T> law_;
  std::unique_ptr<ForceEngine<T>> engine_;
  Rhs<T> rhs_;
  StepOptions<T> steps_;
  DriftTracker<T> drift_;
  std::unique_ptr<Integrator<T>> integrator_;
  bool started_ = false;
  T t0_{0}, h_last_{0};
  std::uint64_t step_index_ = 0;  // steps taken (fixed-step times are t0 + k dt)
  std::uint64_t samples_ = 0, checkpoints_ = 0, snapshots_ = 0;  // ticks of the sampling, checkpoint, snapshot clocks passed
  double stepping_seconds_ = 0;
  std::uint64_t device_batch_ = 256;  // the most steps of one device-resident call (adapted to its wall time)
};

}  // namespace nbody
