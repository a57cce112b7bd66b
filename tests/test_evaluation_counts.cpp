// Force evaluations are counted honestly: what each method costs per step, fixed or adaptive, with
// every rejected trial, every sweep of an implicit or gauss-radau15 step and every start-up step
// counted, as the work-precision figures need. (Rejected first steps and subdivided steps are
// counted in test_step_control.cpp, with their controllers.)
#include <catch2/catch.hpp>

#include "integrators/gauss_legendre6.hpp"
#include "integrators/lobatto_iiic4.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

std::uint64_t sweeps_of(const Integrator<double>& integrator) {
  if (const auto* gauss = dynamic_cast<const GaussLegendre6<double>*>(&integrator)) return gauss->sweeps();
  return dynamic_cast<const LobattoIIIC4<double>&>(integrator).sweeps();
}

}  // namespace

TEST_CASE("leapfrog_costs_one_force_evaluation_per_step", "[kepler]") {
  StepOptions<double> opt;
  opt.dt = 0.01;
  test::Driven<double> sim(make_initial_state<double>(kepler("0.5")), ForceLaw<double>{}, "simple", "leapfrog", opt);
  sim.run(1.0, 1.0, [](const auto&) {});
  CHECK(sim.counters().steps == 100);
  CHECK(sim.force_evaluations() == 101);
}

TEST_CASE("force_evaluations_per_step_are_counted_honestly", "[adams][yoshida][fevals]") {
  // dt = 1/16 and t_end = 40/16 are exact, so every step is a full one.
  const State<double> s0 = make_initial_state<double>(kepler05());
  const std::uint64_t N = 40;
  auto fevals = [&](const char* method, int order) {
    test::Driven<double> sim(s0, ForceLaw<double>{}, "simple", method, fixed_step(1.0 / 16, order));
    sim.run(double(N) / 16, 1.0, [](const auto&) {});
    CHECK(sim.counters().steps == N);
    CHECK(sim.counters().rejected == 0);
    return sim.force_evaluations();
  };
  for (std::uint64_t k = 1; k <= 5; ++k) {
    INFO("order " << k);
    CHECK(fevals("adams-bashforth", int(k)) == 4 * (k - 1) + (N - (k - 1)));  // 1 per Adams step
    if (k >= 2) CHECK(fevals("adams-moulton", int(k)) == 4 * (k - 1) + 1 + 2 * (N - (k - 1)));  // PECE: 2 per step
  }
  CHECK(fevals("yoshida4", 0) == 1 + 3 * N);  // the last acceleration of a step is the next one's first
  CHECK(fevals("yoshida6", 0) == 1 + 7 * N);
}

TEST_CASE("bulirsch_stoer_fixed_step_costs_1_plus_k_times_k_plus_1_evaluations_per_step", "[extrapolation]") {
  for (int k : {1, 3, 4, 6}) {
    StepOptions<double> opt;
    opt.dt = 0.01;
    opt.order = 2 * k;
    test::Driven<double> sim(make_initial_state<double>(kepler("0.5")), ForceLaw<double>{}, "simple", "bulirsch-stoer", opt);
    sim.run(1.0, 1.0, [](const auto&) {});
    CHECK(sim.counters().steps == 100);
    CHECK(sim.force_evaluations() == std::uint64_t(100 * (1 + k * (k + 1))));
  }
}

TEST_CASE("embedded_methods_count_every_force_evaluation_including_rejected_trials", "[adaptive]") {
  // k1 once, plus Hairer's starting-step probe, plus stages-1 per trial (accepted or rejected),
  // plus a fresh k1 after every accepted step but the last unless the method is FSAL.
  const IcParams ic = kepler("0.9");
  for (const std::string& method : embedded_methods) {
    StepOptions<double> opt;
    opt.adaptive = true;
    opt.atol = opt.rtol = 1e-10;
    const KeplerRun run = kepler_run(method, opt, ic);
    const Cost c = cost_of(method);
    const std::uint64_t accepted = run.counters.steps, rejected = run.counters.rejected;
    INFO(method << ": " << accepted << " steps, " << rejected << " rejected, " << run.force_evaluations
                << " force evaluations");
    CHECK(rejected > 0);  // e = 0.9: the pericentre passage forces rejections
    CHECK(run.force_evaluations == 2 + (c.stages - 1) * (accepted + rejected) + (c.fsal ? 0 : accepted - 1));
  }
}

TEST_CASE("implicit_stage_equations_are_iterated_to_round_off_and_every_sweep_is_counted", "[implicit]") {
  const IcParams ic = kepler("0.5");
  const State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  for (const std::string method : {"gauss-legendre6", "lobatto-iiic4"}) {
    INFO(method);
    std::vector<double> sweeps_per_step;
    for (long steps : {64L, 256L, 1024L}) {
      StepOptions<double> opt;
      opt.dt = P / double(steps);
      Stepper<double> run(s0, method, opt);
      run.advance(int(steps));
      const std::uint64_t sweeps = sweeps_of(*run.integrator);
      // f(y_0) for the first guess, then 3 evaluations per sweep, nothing else.
      CHECK(run.rhs.evaluations() == 1 + 3 * sweeps);
      CHECK(run.integrator->counters().steps == std::uint64_t(steps));
      sweeps_per_step.push_back(double(sweeps) / double(steps));
    }
    INFO("sweeps per step at 64, 256, 1024 steps per period: " << sweeps_per_step[0] << ", " << sweeps_per_step[1] << ", "
                                                                << sweeps_per_step[2]);
    // Iterated to convergence, not a fixed number of sweeps: coarser steps (a worse starting
    // guess, a weaker contraction) need more sweeps.
    CHECK(sweeps_per_step[0] > sweeps_per_step[1]);
    CHECK(sweeps_per_step[1] > sweeps_per_step[2]);
    CHECK(sweeps_per_step[2] >= 2);
  }
}

TEST_CASE("gauss_radau15_counts_every_force_evaluation_of_every_sweep_and_rejected_trial", "[gauss-radau15][adaptive]") {
  SECTION("too large a first step is rejected, and its sweeps are counted") {
    StepOptions<double> opt = with_tol(1e-9);
    opt.dt = 3.0;  // half a period
    GaussRadau15Stepper run(kepler("0.5"), opt);
    run.steps(50, true);
    const auto& c = run.method.counters();
    CHECK(c.steps == 50);
    CHECK(c.rejected >= 1);
    CHECK(run.method.sweeps() >= c.steps + c.rejected);
    // a0 once per accepted step (a rejected trial restarts from the same a0), 7 per sweep
    CHECK(run.rhs.evaluations() == c.steps + 7 * run.method.sweeps());
  }
  SECTION("the automatic first step costs two evaluations, one of which is the first a0") {
    GaussRadau15Stepper run(kepler("0.5"), with_tol(1e-9));
    run.steps(50, true);
    const auto& c = run.method.counters();
    CHECK(run.rhs.evaluations() == 1 + c.steps + 7 * run.method.sweeps());
    // after the start, a step takes 3 sweeps (the prediction's error, its round-off, a check), or 4
    // when steps are long, as PRS23's are
    CHECK(run.method.sweeps() <= 4 * (c.steps + c.rejected) + 20);
  }
  SECTION("fixed step") {
    StepOptions<double> opt;
    opt.dt = 0.05;
    GaussRadau15Stepper run(kepler("0.5"), opt);
    run.opt_dt = opt.dt;
    run.steps(40, false);
    CHECK(run.method.counters().steps == 40);
    CHECK(run.method.counters().rejected == 0);
    CHECK(run.method.counters().iteration_cap_hits == 0);
    CHECK(run.rhs.evaluations() == 40 + 7 * run.method.sweeps());
  }
}
