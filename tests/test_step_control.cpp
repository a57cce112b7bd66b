// Step-size control: the PI controller of the embedded methods (dopri5 and the higher pairs),
// gauss-radau15's epsilon (under b6 raised where it is below round-off) and bulirsch-stoer's order and step
// control meet their tolerance, and the error shrinks with it; steps shrink at pericentre; a
// too-large first step is rejected (and its force evaluations counted); a step that must fall
// below --h-min, or too small to move t (a collision), is an error, never a run with t frozen,
// while a step the driver cuts short to land on t_end is not;
// the accepted steps never go below --h-min; seed S0's subdivision controller (a step split into 8 substeps, at
// most 8 levels deep).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

// ---- The controllers meet their tolerance, and steps adapt to the orbit ----

TEST_CASE("dopri5_controller_meets_tolerance_and_shrinks_steps_at_pericentre", "[kepler][adaptive]") {
  const IcParams ic = kepler("0.9");
  const State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  double previous_error = 1;
  for (double tol : {1e-6, 1e-8, 1e-10}) {
    StepOptions<double> opt;
    opt.adaptive = true;
    opt.atol = opt.rtol = tol;
    test::Driven<double> sim(s0, ForceLaw<double>{}, "simple", "dopri5", opt);
    double dt_min = 1e300, dt_max = 0;
    sim.run(P, P / 200, [&](const Sample<double>& s) {
      if (s.dt > 0 && s.t < P) dt_min = std::min(dt_min, s.dt), dt_max = std::max(dt_max, s.dt);
    });
    const double err = position_error(sim.state(), kepler_state_at<double>(ic, P));
    INFO("tol " << tol << ": error " << err << ", dt in [" << dt_min << ", " << dt_max << "]");
    CHECK(err < 1e4 * tol);            // global error follows the local tolerance
    CHECK(err < previous_error / 10);  // and shrinks with it
    CHECK(dt_max > 20 * dt_min);       // e = 0.9: steps adapt to the pericentre passage
    previous_error = err;
  }
}

TEST_CASE("embedded_methods_meet_tolerance_1e-10_and_their_error_shrinks_with_it", "[kepler][adaptive]") {
  for (const std::string& method : embedded_methods) {
    double previous = 1;
    for (double tol : {1e-6, 1e-8, 1e-10}) {
      StepOptions<double> opt;
      opt.adaptive = true;
      opt.atol = opt.rtol = tol;
      const double err = kepler_run(method, opt, kepler05()).error;
      INFO(method << " tol " << tol << ": error after one period " << err);
      CHECK(err < 1e3 * tol);      // the global error follows the local tolerance
      CHECK(err < previous / 10);  // and shrinks with it
      previous = err;
    }
  }
}

TEST_CASE("gauss_radau15_epsilon_sets_the_error_and_steps_shrink_at_pericentre", "[gauss-radau15][kepler][adaptive]") {
  const IcParams ic = kepler("0.9");
  const State<double> s0 = make_initial_state<double>(ic);
  const double P = orbital_period(ic, s0, 1.0);
  double previous_error = 1;
  for (double eps : {1e-3, 1e-5}) {
    test::Driven<double> sim(s0, ForceLaw<double>{}, "simple", "gauss-radau15", with_tol(eps));
    double dt_min = 1e300, dt_max = 0;
    sim.run(10 * P, P / 100, [&](const Sample<double>& s) {
      if (s.dt > 0 && s.t < 10 * P) dt_min = std::min(dt_min, s.dt), dt_max = std::max(dt_max, s.dt);
    });
    const double err = position_error(sim.state(), kepler_state_at<double>(ic, 10 * P));
    INFO("epsilon " << eps << ": error " << err << ", dt in [" << dt_min << ", " << dt_max << "]");
    CHECK(err < previous_error / 100);
    CHECK(dt_max > 50 * dt_min);  // e = 0.9: pericentre distance 0.1, apocentre 1.9
    previous_error = err;
  }
}

TEST_CASE("gauss_radau15_b6_epsilon_below_the_round_off_of_b6_is_raised_not_chased", "[gauss-radau15][adaptive][precision]") {
  // Under the b6 criterion (PRS23 needs no floor: test_gauss_radau15.cpp). b6 carries ~1e4 units
  // of round-off (its 7th divided difference of rounded accelerations); an epsilon below that made
  // the steps shrink without end (a float run took 3e8 steps for one period). It is raised to 1e5
  // units: 2.2e-11 in double, 1.2e-2 in float.
  const IcParams ic = kepler("0.5");
  {
    const State<double> s0 = make_initial_state<double>(ic);
    const double P = orbital_period(ic, s0, 1.0);
    StepOptions<double> opt = with_tol(1e-15);
    opt.ias15_criterion = Ias15Criterion::b6;
    test::Driven<double> sim(s0, ForceLaw<double>{}, "simple", "gauss-radau15", opt);
    sim.run(P, P, [](const auto&) {});
    const double err = position_error(sim.state(), kepler_state_at<double>(ic, P));
    INFO("double, --tol 1e-15: error " << err << " after " << sim.counters().steps << " steps");
    CHECK(sim.counters().steps < 400);  // measured 207
    CHECK(err < 1e-14);
  }
  {
    const State<float> s0 = make_initial_state<float>(ic);
    const float P = orbital_period(ic, s0, 1.0f);
    StepOptions<float> opt;
    opt.adaptive = true;
    opt.atol = opt.rtol = 1e-6f;
    opt.ias15_criterion = Ias15Criterion::b6;
    test::Driven<float> sim(s0, ForceLaw<float>{}, "simple", "gauss-radau15", opt);
    sim.run(P, P, [](const auto&) {});
    const float err = position_error(sim.state(), kepler_state_at<float>(ic, P));
    INFO("float, --tol 1e-6: error " << err << " after " << sim.counters().steps << " steps");
    CHECK(sim.counters().steps < 100);  // measured 11
    CHECK(err < 2e-5f);                 // measured 1.9e-6
  }
}

TEST_CASE("bulirsch_stoer_error_follows_its_tolerance", "[kepler][adaptive][extrapolation]") {
  // e = 0.9, one period: the global error follows the local tolerance (ODEX advances the
  // extrapolated value, so the estimate is pessimistic locally; errors add up over the orbit).
  double previous = 1;
  for (double tol : {1e-7, 1e-9, 1e-11, 1e-13}) {
    const KeplerRun r = kepler_run("bulirsch-stoer", with_tol(tol), kepler("0.9"));
    INFO("tol " << tol << ": error " << r.error << ", " << r.force_evaluations << " force evaluations, " << r.counters.steps
                << " steps, " << r.counters.rejected << " rejected");
    CHECK(r.error < 1e3 * tol);
    CHECK(r.error < previous / 5);
    previous = r.error;
  }
}

// ---- Rejected first steps and step-size underflow ----

TEST_CASE("dopri5_rejects_a_too_large_first_step_and_counts_its_force_evaluations", "[adaptive]") {
  const IcParams ic = kepler("0.5");
  const State<double> s0 = make_initial_state<double>(ic);
  StepOptions<double> opt;
  opt.adaptive = true;
  opt.atol = opt.rtol = 1e-10;
  opt.dt = 1.0;  // first trial far too large
  test::Driven<double> sim(s0, ForceLaw<double>{}, "simple", "dopri5", opt);
  sim.run(2.0, 2.0, [](const auto&) {});
  CHECK(sim.counters().rejected >= 1);
  // FSAL: 1 initial evaluation + 6 per trial, accepted or rejected.
  CHECK(sim.force_evaluations() == 1 + 6 * (sim.counters().steps + sim.counters().rejected));
}

TEST_CASE("bulirsch_stoer_rejects_a_too_large_first_step_and_counts_its_force_evaluations", "[adaptive][extrapolation]") {
  const State<double> s0 = make_initial_state<double>(kepler("0.9"));
  StepOptions<double> opt;
  opt.adaptive = true;
  opt.atol = opt.rtol = 1e-10;
  opt.dt = 3.0;  // first trial far too large at pericentre
  Stepper<double> run(s0, "bulirsch-stoer", opt);
  run.advance(1);
  CHECK(run.integrator->counters().rejected >= 1);
  CHECK(run.integrator->counters().steps == 1);
  CHECK(run.s.t < 3.0);
  // A rejected trial costs at least its first column (n_1 = 2) besides the shared f(y_0).
  CHECK(run.rhs.evaluations() >= 1 + 2 * (1 + run.integrator->counters().rejected));
}

TEST_CASE("step_size_underflow_below_h_min_is_an_error", "[adaptive]") {
  StepOptions<double> opt;
  opt.adaptive = true;
  opt.atol = opt.rtol = 1e-14;
  opt.h_min = 0.01;
  test::Driven<double> sim(make_initial_state<double>(kepler("0.9")), ForceLaw<double>{}, "simple", "dopri5", opt);
  CHECK_THROWS_AS(sim.run(10.0, 10.0, [](const auto&) {}), RunError);
}

TEST_CASE("accepted_steps_fail_rather_than_go_below_h_min", "[adaptive]") {
  // The controller of an accepted step wants less than --h-min at pericentre: the run stops there
  // instead of going on at --h-min with an error the tolerance does not allow. (gauss-radau15's
  // PRS23 steps are longer: about 2.4e-3 at pericentre at this tolerance.)
  for (const std::string method : {"dopri5", "gauss-radau15"}) {
    StepOptions<double> opt = with_tol(1e-10);
    opt.h_min = method == "gauss-radau15" ? 3e-3 : 1e-3;
    test::Driven<double> sim(make_initial_state<double>(kepler("0.9")), ForceLaw<double>{}, "simple", method, opt);
    double smallest = 1;
    INFO(method);
    CHECK_THROWS_AS(sim.run(10.0, 1e-9, [&](const Sample<double>& s) { if (s.dt > 0) smallest = std::min(smallest, s.dt); }),
                    RunError);
    CHECK(smallest >= opt.h_min);
  }
}

TEST_CASE("a_step_cut_short_to_land_on_t_end_is_no_underflow_below_h_min", "[adaptive]") {
  // The driver cuts the last step to land on t_end: here 1e-9, a thousandth of --h-min. The
  // controller did not choose it, so neither it nor the steps growing from it after the run goes
  // on stop the run; only a step the controller shrinks below --h-min does.
  for (const std::string method : {"dopri5", "bulirsch-stoer", "gauss-radau15"}) {
    StepOptions<double> opt = with_tol(1e-10);
    opt.h_min = 1e-6;
    test::Driven<double> sim(make_initial_state<double>(kepler("0.5")), ForceLaw<double>{}, "simple", method, opt);
    INFO(method);
    REQUIRE(sim.run(1.0, 1.0, [](const auto&) {}));
    CHECK_NOTHROW(sim.run(1.0 + 1e-9, 1.0, [](const auto&) {}));
    CHECK(sim.state().t == 1.0 + 1e-9);
    CHECK_NOTHROW(sim.run(2.0, 1.0, [](const auto&) {}));
    CHECK(sim.state().t == 2.0);
  }
}

TEST_CASE("every_adaptive_method_stops_at_a_head_on_collision_instead_of_freezing_t", "[adaptive]") {
  // Two bodies of mass 1/2 at rest 2 apart fall onto each other at t = pi: the step must shrink without bound, so the
  // controller asks for a step that no longer moves t. Each method stops there with the underflow.
  State<double> s0;
  s0.mass = {0.5, 0.5};
  s0.y = {-1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // x = (-1, 1), the rest 0
  std::vector<std::string> methods = embedded_methods;
  for (const char* m : {"dopri5", "bulirsch-stoer", "gauss-radau15"}) methods.emplace_back(m);
  for (const auto& method : methods) {
    test::Driven<double> sim(s0, ForceLaw<double>{}, "simple", method, with_tol(1e-9));
    INFO(method);
    try {
      sim.run(5.0, 5.0, [](const auto&) {});
      FAIL("the run went through the collision");
    } catch (const RunError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("step size underflow at t = 3.14159") == 0);
    }
  }
}

TEST_CASE("gauss_radau15_stops_with_an_error_when_the_step_must_fall_below_h_min", "[gauss-radau15][adaptive]") {
  StepOptions<double> opt = with_tol(1e-9);
  opt.h_min = 0.05;
  test::Driven<double> sim(make_initial_state<double>(kepler("0.9")), ForceLaw<double>{}, "simple", "gauss-radau15", opt);
  CHECK_THROWS_AS(sim.run(10.0, 10.0, [](const auto&) {}), RunError);
}

// ---- Seed S0's subdivision controller ----

TEST_CASE("subdivision_splits_a_step_into_8_substeps_at_most_8_levels_deep", "[subdivide]") {
  // The controller alone, with synthetic trials: only its recursion is under test here.
  SECTION("an error that never falls below the threshold stops at depth 8") {
    SubdivisionController<double> control(1.0, 0.0);
    std::uint64_t trials = 0, accepted = 0;
    double smallest = 1;
    const std::uint64_t rejected = control.advance(
        1.0,
        [&](double h) {
          ++trials, smallest = std::min(smallest, h);
          return 2.0;
        },
        [&] { ++accepted; });
    CHECK(accepted == 16777216);  // 8^8 substeps of 1/8^8
    CHECK(rejected == (16777216 - 1) / 7);
    CHECK(trials == accepted + rejected);
    CHECK(smallest == std::ldexp(1.0, -24));
  }
  SECTION("an error proportional to h^5 is met two levels down") {
    SubdivisionController<double> control(1e-6, 0.0);  // (1/8)^5 > 1e-6 > (1/64)^5
    double h_sum = 0;
    double h_last = 0;
    std::uint64_t accepted = 0;
    const std::uint64_t rejected = control.advance(
        1.0,
        [&](double h) {
          h_last = h;
          return std::pow(h, 5);
        },
        [&] { ++accepted, h_sum += h_last; });
    CHECK(accepted == 64);
    CHECK(rejected == 1 + 8);
    CHECK(h_sum == 1.0);  // the substeps tile the step exactly (h / 8 is exact in binary)
  }
  SECTION("a non-finite error counts as too large; h_min stops the splitting") {
    SubdivisionController<double> control(1.0, 1.0 / 64);
    std::uint64_t accepted = 0;
    const std::uint64_t rejected = control.advance(
        1.0, [](double) { return std::numeric_limits<double>::quiet_NaN(); }, [&] { ++accepted; });
    CHECK(accepted == 64);  // 1 -> 1/8 -> 1/64 = h_min: accepted as it is
    CHECK(rejected == 9);
  }
}

TEST_CASE("subdivision_with_a_loose_threshold_takes_whole_steps_of_h_max", "[subdivide]") {
  const double P = kepler05_period();
  StepOptions<double> fixed;
  fixed.dt = P / 64;
  StepOptions<double> sub;
  sub.adaptive = true;
  sub.controller = Controller::subdivide;
  sub.atol = 1e300;
  sub.h_max = P / 64;
  for (const std::string& method : embedded_methods) {
    Stepper a(make_initial_state<double>(kepler05()), method, fixed),
        b(make_initial_state<double>(kepler05()), method, sub);
    a.steps(10, P / 64);
    b.steps(10, 0);
    INFO(method);
    CHECK(std::memcmp(a.s.y.data(), b.s.y.data(), a.s.y.size() * sizeof(double)) == 0);
    CHECK(b.integrator->counters().steps == 10);
    CHECK(b.integrator->counters().rejected == 0);
    CHECK(a.rhs.evaluations() == b.rhs.evaluations());
  }
}

TEST_CASE("subdivision_of_one_step_equals_8_fixed_substeps_bit_for_bit", "[subdivide]") {
  // From pericentre, one step of P/8 with dop853: the threshold lies between the max-norm error
  // estimate of the whole step and those of its eighths, so the step is split exactly once.
  const double P = kepler05_period(), H = P / 8;
  StepOptions<double> sub;
  sub.adaptive = true;
  sub.controller = Controller::subdivide;
  sub.atol = 1e-6;
  sub.h_max = H;
  Stepper split(make_initial_state<double>(kepler05()), "dop853", sub);
  split.steps(1, 0);
  StepOptions<double> fixed;
  fixed.dt = H / 8;
  Stepper eighths(make_initial_state<double>(kepler05()), "dop853", fixed);
  eighths.steps(8, H / 8);
  CHECK(split.integrator->counters().steps == 8);
  CHECK(split.integrator->counters().rejected == 1);
  CHECK(split.s.t == H);
  CHECK(std::memcmp(split.s.y.data(), eighths.s.y.data(), split.s.y.size() * sizeof(double)) == 0);
  // The rejected trial costs its 12 evaluations; its first stage f(y0) is reused by the first eighth.
  CHECK(split.rhs.evaluations() == eighths.rhs.evaluations() + 12);
}

TEST_CASE("subdivision_meets_smaller_thresholds_with_more_substeps", "[subdivide][kepler]") {
  const IcParams ic = kepler("0.9");
  const double P = orbital_period(ic, make_initial_state<double>(ic), 1.0);
  for (const std::string& method : embedded_methods) {
    double previous_error = 1;
    std::uint64_t previous_steps = 0;
    for (double atol : {1e-6, 1e-9, 1e-12}) {
      StepOptions<double> opt;
      opt.adaptive = true;
      opt.controller = Controller::subdivide;
      opt.atol = atol;
      opt.h_max = P / 16;
      const KeplerRun run = kepler_run(method, opt, ic);
      const Cost c = cost_of(method);
      const std::uint64_t accepted = run.counters.steps, rejected = run.counters.rejected;
      INFO(method << " atol " << atol << ": error " << run.error << ", " << accepted << " steps, " << rejected
                  << " rejected");
      CHECK(run.error < previous_error);
      CHECK(accepted > previous_steps);
      CHECK(rejected > 0);
      // No starting-step probe: every trial costs stages - 1, plus k1 at each new state.
      CHECK(run.force_evaluations == 1 + (c.stages - 1) * (accepted + rejected) + (c.fsal ? 0 : accepted - 1));
      previous_error = run.error;
      previous_steps = accepted;
    }
  }
}

TEST_CASE("subdivision_needs_a_step_size_to_start_from", "[subdivide]") {
  StepOptions<double> opt;
  opt.adaptive = true;
  opt.controller = Controller::subdivide;
  opt.atol = 1e-8;
  CHECK_THROWS_AS(Stepper(make_initial_state<double>(kepler05()), "dop853", opt), InputError);
  opt.dt = 0.1;  // --dt is the step every subdivision starts from when --h-max is not given
  Stepper s(make_initial_state<double>(kepler05()), "dop853", opt);
  CHECK(s.integrator->proposed_step(s.s) == 0.1);
}
