// The run loop (solver/run/loop.hpp) on a model that only counts: samples, snapshots and
// checkpoints fall due on time and step clocks as the contract says, a stopped run resumed from
// the loop's clocks continues with the uninterrupted run's events, and samples without a chosen
// interval stay within their budget of the run's time.
#include <catch2/catch.hpp>

#include <chrono>
#include <vector>

#include "run/loop.hpp"

using namespace nbody;
using namespace nbody::run;

namespace {

void spin(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Steps of dt; a step and a sample cost what they are told to (busy waits).
struct Counter {
  using Time = double;
  using Sample = Position<double>;
  double dt = 0.1, step_cost = 0, sample_cost = 0;
  std::uint64_t steps = 0;

  Position<double> position() const { return {double(steps) * dt, steps}; }
  void begin(const Mark<double>&, const Every<double>&) {}
  bool lands_on_snapshots() const { return false; }
  void advance(const Bounds<double>&) { ++steps, spin(step_cost); }
  Sample sample() { return spin(sample_cost), position(); }
};

struct Events {
  std::vector<std::uint64_t> samples, snapshots, checkpoints;
  RunLoop<Counter>::Events of(Counter& m) {
    return {[this](const Position<double>& p) { samples.push_back(p.step); }, [this, &m] { snapshots.push_back(m.steps); },
            [this, &m] { checkpoints.push_back(m.steps); }, {}, {}};
  }
};

}  // namespace

TEST_CASE("events_fall_due_at_the_first_step_end_at_or_after_each_tick_of_a_time_or_step_clock", "[run]") {
  Counter m;
  Events e;
  Schedule<double> s;
  s.samples = Every<double>::of_time(0.25);    // ticks 0.25, 0.5, ...: steps 3, 5, 8, 10
  s.snapshots = Every<double>::of_steps(4);    // steps 4, 8
  s.checkpoints = Every<double>::of_steps(3);  // steps 3, 6, 9
  s.end = Mark<double>::at_time(1.0);
  RunLoop<Counter> loop(m, s, e.of(m));
  REQUIRE(loop.run());
  CHECK(m.steps == 10);
  CHECK(e.samples == std::vector<std::uint64_t>{0, 3, 5, 8, 10});  // the start, each tick, the end
  CHECK(e.snapshots == std::vector<std::uint64_t>{0, 4, 8, 10});
  CHECK(e.checkpoints == std::vector<std::uint64_t>{3, 6, 9});
}

TEST_CASE("a_stopped_run_resumed_from_the_loops_clocks_has_the_uninterrupted_runs_events", "[run]") {
  Schedule<double> s;
  s.samples = Every<double>::of_steps(7);
  s.snapshots = Every<double>::of_time(0.5);
  s.end = Mark<double>::at_step(40);
  Counter whole_model;
  Events whole;
  RunLoop<Counter> loop(whole_model, s, whole.of(whole_model));
  REQUIRE(loop.run());

  Counter first_model;
  Events first;
  Schedule<double> stopping = s;
  stopping.stop_at = Mark<double>::at_step(17);
  RunLoop<Counter> first_loop(first_model, stopping, first.of(first_model));
  REQUIRE_FALSE(first_loop.run());
  CHECK(first.checkpoints == std::vector<std::uint64_t>{17});  // where it stopped
  const nlohmann::json clocks = first_loop.clocks();

  Counter resumed_model;
  resumed_model.steps = first_model.steps;
  Events resumed;
  RunLoop<Counter> resumed_loop(resumed_model, s, resumed.of(resumed_model));
  resumed_loop.resume(clocks);
  REQUIRE(resumed_loop.run());
  std::vector<std::uint64_t> samples = first.samples, snapshots = first.snapshots;
  samples.insert(samples.end(), resumed.samples.begin(), resumed.samples.end());
  snapshots.insert(snapshots.end(), resumed.snapshots.begin(), resumed.snapshots.end());
  CHECK(samples == whole.samples);  // no sample at the stop, none again at the resume
  CHECK(snapshots == whole.snapshots);

  // Checkpoints at another interval count on from where the run stands.
  Counter other_model;
  other_model.steps = first_model.steps;
  Events other;
  Schedule<double> every_ten = s;
  every_ten.checkpoints = Every<double>::of_steps(10);
  RunLoop<Counter> other_loop(other_model, every_ten, other.of(other_model));
  other_loop.resume(clocks);
  REQUIRE(other_loop.run());
  CHECK(other.checkpoints == std::vector<std::uint64_t>{20, 30});  // not 10 again, and not at the end (the caller's)
}

TEST_CASE("samples_without_a_chosen_interval_stay_within_their_budget_the_first_and_last_always_taken", "[run]") {
  Counter m;
  m.step_cost = 2e-4, m.sample_cost = 2e-3;  // a sample costs ten steps
  Events e;
  Schedule<double> s;
  s.samples = Every<double>::of_steps(1);
  s.end = Mark<double>::at_step(500);
  s.sample_budget = 0.05;
  RunLoop<Counter> loop(m, s, e.of(m));
  REQUIRE(loop.run());
  REQUIRE(e.samples.size() >= 2);
  CHECK(e.samples.front() == 0);
  CHECK(e.samples.back() == 500);
  CHECK(loop.samples_taken() == e.samples.size());
  CHECK(loop.samples_taken() + loop.samples_skipped() == 501);  // every one due was taken or counted
  CHECK(loop.samples_skipped() > 400);
  // Over budget by at most the last sample, which is always taken.
  const double share = loop.sampling_seconds() / (loop.stepping_seconds() + loop.sampling_seconds());
  CHECK(share < 0.05 + 2 * m.sample_cost / (loop.stepping_seconds() + loop.sampling_seconds()) + 0.02);

  // The same with every sample asked for (budget 1): all taken.
  Counter all_model;
  all_model.step_cost = 2e-5, all_model.sample_cost = 2e-4;
  Events all;
  s.sample_budget = 1;
  s.end = Mark<double>::at_step(50);
  RunLoop<Counter> all_loop(all_model, s, all.of(all_model));
  REQUIRE(all_loop.run());
  CHECK(all.samples.size() == 51);
  CHECK(all_loop.samples_skipped() == 0);
}
