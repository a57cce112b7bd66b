#pragma once
// The one run loop of every model (gravity, DPD, SPH): it steps a model from its start, or from a
// checkpoint, to the end of the run or to a stop, and says when to sample the diagnostics, take a
// snapshot and save a checkpoint; it polls for interrupts between steps and reports progress.
// What a sample, a snapshot or a checkpoint writes is the caller's (run/command.hpp: files).
//
// A model offers (see driver/simulation.hpp, particles/*/*_model.hpp):
//   using Time;                   the type of its simulated time
//   using Sample;                 what one measurement of its diagnostics holds
//   Position<Time> position();    where it stands: its time and the steps taken since the run began
//   void begin(const Mark<Time>& end, const Every<Time>& snapshots);
//                                 before the first step of this process: refuse a schedule it cannot
//                                 keep (InputError)
//   bool lands_on_snapshots();    whether steps are shortened to end on snapshot times
//   void advance(const Bounds<Time>&);  at least one step; several only where a device takes many
//                                 in one call, never past the bounds
//   Sample sample();              measures the diagnostics now
//   void save(ArchiveWriter&), load(ArchiveReader&)   the model's whole state, bit for bit (the
//                                 caller's, with the loop's clocks() beside it)
// and optionally
//   bool agreed(bool);            a decision of this process as all the processes of the run take
//                                 it (ranks that each hold part of the state and sample together)
//
// Samples are taken at the start of the run, at the first step end at or after each tick of the
// sample clock, and at the end; snapshots likewise; checkpoints at their ticks before the end and
// when the run stops early (--stop-at, an interrupt). A run resumed from a checkpoint (the model loaded, then
// resume() with the loop's clocks) continues bit for bit as the uninterrupted run would have. The samples of a run
// whose interval was not chosen are kept within a share of its time (sample_budget): a sample that
// falls due is skipped while the samples so far took more; the first and the last are always taken.
// The times differ between processes, so a model whose processes sample together agrees on it.
#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/progress.hpp"
#include "core/real.hpp"
#include "run/schedule.hpp"

namespace nbody::run {

// Where a model's next call must stop (Model::advance).
template <class Time>
struct Bounds {
  Time land_on;             // a step that would pass it ends on it (the end of the run, or the next snapshot)
  Time stop_when;           // steps taken in one call stop at the first step end at or after it ...
  std::uint64_t last_step;  // ... or at this step count
};

template <class Time>
struct Schedule {
  Every<Time> samples, snapshots, checkpoints;
  Mark<Time> end, stop_at;
  double sample_budget = 1;  // the largest share of the run's time its samples may take; 1: take every one

  // Samples every `chosen` interval, each taken; or, none chosen, every `otherwise`, kept within `budget`.
  void sample(std::optional<Every<Time>> chosen, Every<Time> otherwise, double budget) {
    samples = chosen ? *chosen : otherwise;
    sample_budget = chosen ? 1.0 : budget;
  }
};

template <class Model>
class RunLoop {
 public:
  using Time = typename Model::Time;
  using Sample = typename Model::Sample;

  // What happens at each event; any may be empty.
  struct Events {
    std::function<void(const Sample&)> sample;
    std::function<void()> snapshot;
    std::function<void()> checkpoint;   // at each checkpoint tick, and when the run stops early
    std::function<bool()> interrupted;  // polled between steps: true stops the run
    std::function<void(const std::string&)> progress;  // a line every 10 s of wall time
    std::function<void()> begun;  // once the model accepted this part's schedule (begin), before any step
  };

  RunLoop(Model& model, Schedule<Time> schedule, Events events)
      : model_(model),
        schedule_(schedule),
        events_(std::move(events)),
        samples_(schedule.samples),
        snapshots_(schedule.snapshots),
        checkpoints_(schedule.checkpoints) {}

  const Schedule<Time>& schedule() const { return schedule_; }
  void set_events(Events events) { events_ = std::move(events); }
  // Where this part of the run ends or stops.
  void set_end(Mark<Time> end, Mark<Time> stop_at) { schedule_.end = end, schedule_.stop_at = stop_at; }
  bool started() const { return started_; }

  // Steps to the end of the run: true when it got there, false when it stopped early (stop_at, an
  // interrupt) after its checkpoint.
  bool run() {
    if (!schedule_.end.on()) throw InputError("a run needs an end");
    model_.begin(schedule_.end, snapshots_.every());
    if (events_.begun) events_.begun();
    if (!started_) {
      origin_ = model_.position();
      take_sample();
      if (snapshots_.on() && events_.snapshot) events_.snapshot();
      started_ = true;
    }
    const auto start = std::chrono::steady_clock::now();
    auto last_report = start;
    const Position<Time> begin = model_.position();  // of this process's part, for the progress line
    while (!schedule_.end.reached(model_.position())) {
      if (schedule_.stop_at.reached(model_.position()) || (events_.interrupted && events_.interrupted())) {
        if (events_.checkpoint) events_.checkpoint();
        return false;
      }
      const auto before = std::chrono::steady_clock::now();
      model_.advance(bounds());
      stepping_seconds_ += seconds_since(before);
      const Position<Time> p = model_.position();
      const bool end = schedule_.end.reached(p);
      const std::uint64_t ticks = samples_.reached(p, origin_);
      const bool sampled = end || (ticks > 0 && budget_allows());
      if (sampled) take_sample();
      skipped_ += ticks - (sampled && ticks > 0 ? 1 : 0);  // ticks passed without a sample of their own
      if (snapshots_.on() && (snapshots_.reached(p, origin_) || end) && events_.snapshot) events_.snapshot();
      if (!end && checkpoints_.reached(p, origin_) && events_.checkpoint) events_.checkpoint();  // the end's is the caller's
      if (events_.progress && std::chrono::steady_clock::now() - last_report > std::chrono::seconds(10)) {
        last_report = std::chrono::steady_clock::now();
        report_progress(begin, seconds_since(start));
      }
    }
    return true;
  }

  // The loop's part of a checkpoint: where the run began and its clocks (times as exact text).
  nlohmann::json clocks() const {
    auto clock = [](const Clock<Time>& c) {
      return nlohmann::json{{"every", RealTraits<Time>::format(c.every().time)}, {"every_steps", c.every().steps}, {"count", c.count()}};
    };
    return {{"origin", RealTraits<Time>::format(origin_.t)}, {"origin_step", origin_.step}, {"samples", clock(samples_)},
            {"snapshots", clock(snapshots_)}, {"checkpoints", clock(checkpoints_)}};
  }
  // The interval of `key` ("samples", "snapshots", "checkpoints") in a checkpoint's clocks.
  static Every<Time> stored_every(const nlohmann::json& clocks, const char* key) {
    const nlohmann::json& c = clocks.at(key);
    return {RealTraits<Time>::parse(c.at("every").get<std::string>(), "checkpoint clock"), c.at("every_steps").get<std::uint64_t>()};
  }
  // Continues the run whose model was just loaded from a checkpoint with these clocks. A clock of
  // this schedule that the checkpoint's run had counts on; one it did not have (another interval,
  // or none) starts here, its ticks already passed counted.
  void resume(const nlohmann::json& clocks) {
    origin_ = {RealTraits<Time>::parse(clocks.at("origin").get<std::string>(), "checkpoint origin"),
               clocks.at("origin_step").get<std::uint64_t>()};
    for (const char* key : {"samples", "snapshots", "checkpoints"}) {
      Clock<Time>& c = clock(key);
      if (stored_every(clocks, key) == c.every()) c.set_count(clocks.at(key).at("count").get<std::uint64_t>());
      else c.reached(model_.position(), origin_);
    }
    started_ = true;
  }

  double stepping_seconds() const { return stepping_seconds_; }  // in advance(), this process
  double sampling_seconds() const { return sampling_seconds_; }  // in the samples, this process
  std::uint64_t samples_taken() const { return taken_; }
  // Ticks of the sample clock passed without a sample of their own: skipped to keep the budget, or
  // several passed in one step.
  std::uint64_t samples_skipped() const { return skipped_; }

 private:
  Clock<Time>& clock(std::string_view key) {
    return key == "samples" ? samples_ : key == "snapshots" ? snapshots_ : checkpoints_;
  }
  static double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }

  // A sample now, within the budget: the samples so far, this one and the last of the run (each
  // costing what the last did: the last is always taken) at most sample_budget of the time stepped
  // and sampled.
  bool budget_allows() const {
    if (schedule_.sample_budget >= 1) return true;
    const double after = sampling_seconds_ + 2 * last_sample_seconds_;
    const bool allows = after <= schedule_.sample_budget * (stepping_seconds_ + after);
    if constexpr (requires { model_.agreed(allows); }) return model_.agreed(allows);
    return allows;
  }
  void take_sample() {
    const auto before = std::chrono::steady_clock::now();
    const Sample s = model_.sample();
    if (events_.sample) events_.sample(s);
    last_sample_seconds_ = seconds_since(before);
    sampling_seconds_ += last_sample_seconds_;
    ++taken_;
  }

  Bounds<Time> bounds() const {
    Bounds<Time> b{schedule_.end.time, schedule_.stop_at.time, std::min(schedule_.end.step, schedule_.stop_at.step)};
    if (budget_allows()) {  // else the next sample due is skipped: no reason to stop for it
      b.stop_when = std::min(b.stop_when, samples_.next_time(origin_));
      b.last_step = std::min(b.last_step, samples_.next_step(origin_));
    }
    if (snapshots_.on()) {
      if (model_.lands_on_snapshots()) b.land_on = std::min(b.land_on, snapshots_.tick_time(snapshots_.count() + 1, origin_));
      b.stop_when = std::min(b.stop_when, snapshots_.next_time(origin_));
      b.last_step = std::min(b.last_step, snapshots_.next_step(origin_));
    }
    if (events_.checkpoint) {
      b.stop_when = std::min(b.stop_when, checkpoints_.next_time(origin_));
      b.last_step = std::min(b.last_step, checkpoints_.next_step(origin_));
    }
    return b;
  }

  void report_progress(const Position<Time>& begin, double elapsed) const {
    const Position<Time> p = model_.position();
    const Mark<Time>& end = schedule_.end;
    const double done = end.by_steps() ? double(p.step - begin.step) / double(end.step - begin.step)
                                       : static_cast<double>((p.t - begin.t) / (end.time - begin.t));
    const std::string where = end.by_steps() ? "step " + std::to_string(p.step) + " of " + std::to_string(end.step)
                                             : "t = " + RealTraits<Time>::format(p.t) + " of " +
                                                   RealTraits<Time>::format(end.time) + ", step " + std::to_string(p.step);
    events_.progress(progress_line(where, done, double(p.step - begin.step), elapsed));
  }

  Model& model_;
  Schedule<Time> schedule_;
  Events events_;
  Clock<Time> samples_, snapshots_, checkpoints_;
  Position<Time> origin_;
  bool started_ = false;
  double stepping_seconds_ = 0, sampling_seconds_ = 0, last_sample_seconds_ = 0;
  std::uint64_t taken_ = 0, skipped_ = 0;
};

}  // namespace nbody::run
