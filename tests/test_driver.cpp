// The run driver's clock: a fixed-step run ends exactly at t_end, and diagnostic samples fall on
// t0 + k * every however long the run.
#include <catch2/catch.hpp>
#include <algorithm>

#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

TEST_CASE("fixed_step_run_ends_exactly_at_t_end", "[driver]") {
  StepOptions<double> opt;
  opt.dt = 0.3;  // 1.0 / 0.3 is not an integer: the last step is shorter
  test::Driven<double> sim(make_initial_state<double>(kepler("0.5")), ForceLaw<double>{}, "simple", "rk4", opt);
  std::vector<double> dts;
  sim.run(1.0, 1.0, [&](const Sample<double>& s) { dts.push_back(s.dt); });
  CHECK(sim.state().t == 1.0);
  CHECK(sim.counters().steps == 4);
  CHECK(dts.back() == Approx(0.1).epsilon(1e-12));
}

TEST_CASE("diagnostic_samples_do_not_drift_over_long_runs", "[driver]") {
  // Sample times are t0 + k * every, not an accumulated sum: at --dt P/100 and a sample every P,
  // each of the 1000 samples falls on a multiple of 100 steps.
  const IcParams ic = kepler("0.5");
  const State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  StepOptions<double> opt;
  opt.dt = P / 100;
  test::Driven<double> sim(s0, ForceLaw<double>{}, "simple", "leapfrog", opt);
  std::vector<std::uint64_t> steps;
  sim.run(1000 * P, P, [&](const Sample<double>& s) { steps.push_back(s.counters.steps); });
  CHECK(steps.size() == 1001);
  CHECK(std::all_of(steps.begin(), steps.end(), [](std::uint64_t n) { return n % 100 == 0; }));
}
