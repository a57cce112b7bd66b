#pragma once
// When things happen in a run (run/loop.hpp): a run stands at a position (its time and the steps
// taken since its start); recurring events (samples, snapshots, checkpoints) fall due every so much
// simulated time or every so many steps, one-off marks (the end, --stop-at) at a time or a step.
// Tick k of a recurring event is at origin + k every, computed, never accumulated, so that ticks do
// not drift; an event is due at the first step end at or after its tick, a time tick with a few
// ulps of slack, so that a step time t0 + k dt that rounds just below a tick still counts.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/real.hpp"

namespace nbody::run {

template <class Time>
struct Position {
  Time t{0};
  std::uint64_t step = 0;
};

// Every `time` of simulated time, or every `steps` steps; neither: never.
template <class Time>
struct Every {
  Time time{0};
  std::uint64_t steps = 0;

  static Every of_time(Time t) { return {t, 0}; }
  static Every of_steps(std::uint64_t s) { return {Time(0), s}; }
  bool on() const { return time > Time(0) || steps > 0; }
  bool operator==(const Every& o) const { return time == o.time && steps == o.steps; }
};

// A time or a step count, whichever comes first; neither: never.
template <class Time>
struct Mark {
  Time time = RealTraits<Time>::infinity();
  std::uint64_t step = std::numeric_limits<std::uint64_t>::max();

  static Mark at_time(Time t) { return {t, std::numeric_limits<std::uint64_t>::max()}; }
  static Mark at_step(std::uint64_t s) { return {RealTraits<Time>::infinity(), s}; }
  bool by_steps() const { return step != std::numeric_limits<std::uint64_t>::max(); }
  bool on() const { return by_steps() || time < RealTraits<Time>::infinity(); }
  bool reached(const Position<Time>& p) const { return p.t >= time || p.step >= step; }
};

// A recurring event's ticks, counted from the run's origin.
template <class Time>
class Clock {
 public:
  Clock() = default;
  explicit Clock(Every<Time> every) : every_(every) {}

  const Every<Time>& every() const { return every_; }
  bool on() const { return every_.on(); }
  std::uint64_t count() const { return count_; }
  void set_count(std::uint64_t c) { count_ = c; }

  // The ticks passed at p since the last call (0: the event is not due), each counted, so that one
  // late step does not make the event fall due again at the next.
  std::uint64_t reached(const Position<Time>& p, const Position<Time>& origin) {
    std::uint64_t passed = 0;
    while (on() && due(count_ + 1, p, origin)) ++count_, ++passed;
    return passed;
  }
  // The time and step at which the next tick falls due (for the steps a device takes in one call).
  Time next_time(const Position<Time>& origin) const {
    return every_.time > Time(0) ? due_time(tick_time(count_ + 1, origin)) : RealTraits<Time>::infinity();
  }
  std::uint64_t next_step(const Position<Time>& origin) const {
    return every_.steps > 0 ? origin.step + (count_ + 1) * every_.steps : std::numeric_limits<std::uint64_t>::max();
  }
  // Time tick k (exact time events, such as snapshots that adaptive steps land on).
  Time tick_time(std::uint64_t k, const Position<Time>& origin) const { return origin.t + Time(k) * every_.time; }

 private:
  static Time due_time(Time tick) { return tick - Time(8) * RealTraits<Time>::epsilon() * (tick < Time(0) ? -tick : tick); }
  bool due(std::uint64_t k, const Position<Time>& p, const Position<Time>& origin) const {
    if (every_.time > Time(0)) return p.t >= due_time(tick_time(k, origin));
    return p.step >= origin.step + k * every_.steps;
  }

  Every<Time> every_;
  std::uint64_t count_ = 0;
};

}  // namespace nbody::run
