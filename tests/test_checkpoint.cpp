// Checkpoints and resumption: a run restored from a checkpoint ends bit for bit where the
// uninterrupted run ends, with the same counts, for every registered method and for the carried
// state of each integrator family (explicit Runge-Kutta with both controllers, gauss-radau15 and
// its iteration-cap count, implicit and extrapolation, Adams start-up and Yoshida); snapshots continue after a resume; the
// checkpoint file's round trip, corruption and truncation checks and its backup; a run stopped
// between two steps by its interrupted hook; a fixed-step run continues only from a step time;
// per-body arrays read whole or for a block of the bodies; and a run in parts through the command
// line.
#include <catch2/catch.hpp>
#include <cstring>

#include <fstream>
#include <unistd.h>

#include "io/checkpoint.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;
namespace fs = std::filesystem;

namespace {

struct RunEnd {
  std::vector<double> y;
  std::uint64_t fevals, steps, rejected;
};

RunEnd outcome(const Simulation<double>& sim) {
  return {sim.state().y, sim.force_evaluations(), sim.counters().steps, sim.counters().rejected};
}

void check_resume_is_exact(const std::string& method, const StepOptions<double>& opt) {
  const IcParams ic = kepler("0.5");
  const State<double> start = make_initial_state<double>(ic);
  const double T = 2 * orbital_period(ic, start, 1.0);
  const auto ignore = [](const auto&) {};

  test::Driven<double> whole(start, ForceLaw<double>{}, "simple", method, opt);
  whole.run(T, T / 50, ignore);

  // The same run, checkpointed every T/7; the last checkpoint before 0.6 T is kept (mid-run).
  test::Driven<double> first(start, ForceLaw<double>{}, "simple", method, opt);
  const std::string saved = test::run_keeping_checkpoint(first, T, T / 50, T / 7, 0.6 * T);
  REQUIRE(!saved.empty());

  test::Driven<double> resumed(start, ForceLaw<double>{}, "simple", method, opt);
  ArchiveReader r(saved);
  resumed.load(r);
  REQUIRE(resumed.state().t < 0.6 * T);
  REQUIRE(resumed.state().t > 0.4 * T);
  resumed.run(T, T / 50, ignore);

  const RunEnd a = outcome(whole), b = outcome(resumed);
  CHECK(std::memcmp(a.y.data(), b.y.data(), a.y.size() * sizeof(double)) == 0);
  CHECK(a.fevals == b.fevals);
  CHECK(a.steps == b.steps);
  CHECK(a.rejected == b.rejected);
}

// Loads a checkpoint into an integrator; true when it read the whole archive. (GCC 12 warns
// falsely that the reader's string may be uninitialized once it inlines a speculatively
// devirtualized load; the string is constructed right here.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
bool restore(Integrator<double>& integrator, const std::string& bytes) {
  ArchiveReader r(bytes);
  integrator.load(r);
  return r.at_end();
}
#pragma GCC diagnostic pop

}  // namespace

TEST_CASE("every_method_resumes_from_a_checkpoint_bit_for_bit", "[checkpoint]") {
  for (const auto& entry : integrator_table<double>()) {
    const std::string method(entry.name);
    SECTION(method + " at a fixed step") {
      StepOptions<double> opt;
      opt.dt = 2 * M_PI / 300;
      check_resume_is_exact(method, opt);
    }
    if (entry.error_estimate) {
      SECTION(method + " adaptive") {
        StepOptions<double> opt;
        opt.adaptive = true;
        opt.atol = opt.rtol = 1e-9;
        check_resume_is_exact(method, opt);
      }
    }
    if (!entry.implicit && method != "bulirsch-stoer" && method != "gauss-radau15") {
      SECTION(method + " with compensated state updates") {  // the carries are state too
        StepOptions<double> opt;
        opt.dt = 2 * M_PI / 300;
        opt.compensated = true;
        check_resume_is_exact(method, opt);
      }
    }
  }
}

TEST_CASE("explicit_rk_methods_resume_from_a_checkpoint_bit_for_bit", "[checkpoint]") {
  const double P = kepler05_period();
  std::vector<std::pair<std::string, StepOptions<double>>> runs;
  for (const std::string& method : explicit_rk_methods) {
    StepOptions<double> fixed;
    fixed.dt = P / 64;
    runs.emplace_back(method, fixed);
  }
  for (const std::string& method : embedded_methods) {
    StepOptions<double> pi;
    pi.adaptive = true;
    pi.atol = pi.rtol = 1e-9;
    runs.emplace_back(method, pi);
    StepOptions<double> sub;
    sub.adaptive = true;
    sub.controller = Controller::subdivide;
    sub.atol = 1e-9;
    sub.h_max = P / 16;
    runs.emplace_back(method, sub);
  }
  for (const auto& [method, opt] : runs) {
    INFO(method << (opt.adaptive ? (opt.controller == Controller::pi ? " pi" : " subdivide") : " fixed"));
    const State<double> start = make_initial_state<double>(kepler05());
    Stepper whole(start, method, opt);
    whole.steps(7 + 9, opt.dt);
    Stepper first(start, method, opt);
    first.steps(7, opt.dt);
    ArchiveWriter w;
    first.integrator->save(w);
    Stepper resumed(first.s, method, opt);  // a fresh integrator, the state of step 7
    ArchiveReader r(w.bytes());
    resumed.integrator->load(r);
    CHECK(r.at_end());
    resumed.steps(9, opt.dt);
    CHECK(std::memcmp(whole.s.y.data(), resumed.s.y.data(), whole.s.y.size() * sizeof(double)) == 0);
    CHECK(whole.s.t == resumed.s.t);
    CHECK(whole.rhs.evaluations() == first.rhs.evaluations() + resumed.rhs.evaluations());
    CHECK(whole.integrator->counters().steps == resumed.integrator->counters().steps);
    CHECK(whole.integrator->counters().rejected == resumed.integrator->counters().rejected);
  }
}

TEST_CASE("gauss_radau15_resumed_from_a_checkpoint_is_bit_for_bit_the_uninterrupted_run", "[gauss-radau15][checkpoint]") {
  // e = 0.9 with a too-large first step: rejections, growing and shrinking steps, all predicted
  // from the carried b and e.
  for (bool adaptive : {true, false}) {
    INFO((adaptive ? "adaptive" : "fixed step"));
    StepOptions<double> opt = adaptive ? with_tol(1e-9) : StepOptions<double>{};
    opt.dt = adaptive ? 1.0 : 0.01;
    const IcParams ic = kepler("0.9");
    GaussRadau15Stepper whole(ic, opt), first(ic, opt);
    whole.opt_dt = first.opt_dt = opt.dt;
    whole.steps(300, adaptive);
    first.steps(137, adaptive);

    ArchiveWriter w;
    first.method.save(w);
    GaussRadau15Stepper second(ic, opt);  // fresh engine, Rhs and integrator; the state and counts come along
    second.opt_dt = opt.dt;
    second.s = first.s;
    second.rhs.set_evaluations(first.rhs.evaluations());
    ArchiveReader r(w.bytes());
    second.method.load(r);
    CHECK(r.at_end());
    second.steps(300 - 137, adaptive);

    CHECK(second.s.t == whole.s.t);
    CHECK(second.s.y == whole.s.y);  // exact equality of every double
    CHECK(second.rhs.evaluations() == whole.rhs.evaluations());
    CHECK(second.method.counters().steps == whole.method.counters().steps);
    CHECK(second.method.counters().rejected == whole.method.counters().rejected);
    CHECK(second.method.sweeps() == whole.method.sweeps());
    CHECK(second.method.proposed_step(second.s) == whole.method.proposed_step(whole.s));
    if (adaptive) CHECK(whole.method.counters().rejected >= 1);
  }
}

TEST_CASE("gauss_radau15_iteration_cap_hits_are_carried_by_its_checkpoint", "[gauss-radau15][checkpoint][iteration-cap]") {
  // A fixed step too long for e = 0.9's pericentre: some steps end their sweeps at the cap, before
  // and after the checkpoint (test_gauss_radau15.cpp).
  StepOptions<double> opt;
  opt.dt = 0.1;
  const IcParams ic = kepler("0.9");
  GaussRadau15Stepper whole(ic, opt), first(ic, opt);
  whole.opt_dt = first.opt_dt = opt.dt;
  whole.steps(400, false);
  first.steps(200, false);
  const std::uint64_t at_checkpoint = first.method.counters().iteration_cap_hits;

  ArchiveWriter w;
  first.method.save(w);
  GaussRadau15Stepper second(ic, opt);
  second.opt_dt = opt.dt;
  second.s = first.s;
  ArchiveReader r(w.bytes());
  second.method.load(r);
  CHECK(r.at_end());
  CHECK(second.method.counters().iteration_cap_hits == at_checkpoint);
  second.steps(200, false);

  INFO(at_checkpoint << " at the checkpoint, " << whole.method.counters().iteration_cap_hits << " in all");
  CHECK(at_checkpoint > 0);
  CHECK(whole.method.counters().iteration_cap_hits > at_checkpoint);
  CHECK(second.method.counters().iteration_cap_hits == whole.method.counters().iteration_cap_hits);
  CHECK(second.s.y == whole.s.y);
}

TEST_CASE("implicit_and_extrapolation_runs_resume_from_a_checkpoint_bit_for_bit", "[checkpoint][implicit][extrapolation]") {
  const State<double> s0 = make_initial_state<double>(kepler("0.7"));
  StepOptions<double> fixed;
  fixed.dt = 0.013;
  StepOptions<double> adaptive;
  adaptive.adaptive = true;
  adaptive.atol = adaptive.rtol = 1e-11;
  struct Case {
    std::string method;
    StepOptions<double> opt;
  };
  for (const Case& c : {Case{"gauss-legendre6", fixed}, Case{"lobatto-iiic4", fixed}, Case{"bulirsch-stoer", fixed},
                        Case{"bulirsch-stoer", adaptive}}) {
    INFO(c.method << (c.opt.adaptive ? " --tol" : " --dt"));
    Stepper<double> whole(s0, c.method, c.opt);
    whole.advance(40);
    Stepper<double> first(s0, c.method, c.opt);
    first.advance(17);
    const std::string bytes = first.checkpoint();
    Stepper<double> resumed(s0, c.method, c.opt);
    resumed.resume(bytes);
    resumed.advance(23);
    CHECK(same_bits(resumed.s.y, whole.s.y));
    CHECK(resumed.s.t == whole.s.t);
    CHECK(resumed.rhs.evaluations() == whole.rhs.evaluations());
    CHECK(resumed.integrator->counters().steps == whole.integrator->counters().steps);
    CHECK(resumed.integrator->counters().rejected == whole.integrator->counters().rejected);
  }
}

TEST_CASE("runs_resumed_from_a_checkpoint_are_bit_for_bit_the_uninterrupted_ones", "[adams][yoshida][checkpoint]") {
  const State<double> s0 = make_initial_state<double>(kepler05());
  const double h = 0.01;
  const int total = 12;
  struct Case {
    const char* method;
    int order, save_after;
  };
  // Saves in the Adams start-up (2), at its last rk4 step (4), at the first Adams step (5) and
  // later (8); orders 2 and 3 start up in 1 and 2 steps.
  for (const Case& c : {Case{"adams-bashforth", 5, 0}, Case{"adams-bashforth", 5, 2}, Case{"adams-bashforth", 5, 4},
                        Case{"adams-bashforth", 5, 5}, Case{"adams-bashforth", 5, 8}, Case{"adams-bashforth", 2, 1},
                        Case{"adams-moulton", 5, 2}, Case{"adams-moulton", 5, 4}, Case{"adams-moulton", 5, 5},
                        Case{"adams-moulton", 5, 8}, Case{"adams-moulton", 3, 1}, Case{"yoshida4", 0, 0}, Case{"yoshida4", 0, 3},
                        Case{"yoshida6", 0, 5}}) {
    INFO(c.method << " --order " << c.order << ", saved after " << c.save_after << " steps");
    Stepper straight(s0, c.method, fixed_step(h, c.order));
    straight.steps(total, h);

    Stepper first(s0, c.method, fixed_step(h, c.order));
    first.steps(c.save_after, h);
    ArchiveWriter w;
    first.integrator->save(w);
    Stepper resumed(first.s, c.method, fixed_step(h, c.order));
    CHECK(restore(*resumed.integrator, w.bytes()));
    resumed.rhs.set_evaluations(first.rhs.evaluations());
    resumed.steps(total - c.save_after, h);

    CHECK(same_bits(resumed.s.y, straight.s.y));
    CHECK(resumed.rhs.evaluations() == straight.rhs.evaluations());
    CHECK(resumed.integrator->counters().steps == straight.integrator->counters().steps);
  }
  SECTION("a checkpoint of another --order is refused") {
    Stepper fifth(s0, "adams-bashforth", fixed_step(h, 5));
    fifth.steps(3, h);
    ArchiveWriter w;
    fifth.integrator->save(w);
    Stepper third(s0, "adams-bashforth", fixed_step(h, 3));
    CHECK_THROWS_AS(restore(*third.integrator, w.bytes()), InputError);
  }
}

TEST_CASE("snapshots_are_at_exact_times_on_the_true_orbit_and_continue_after_a_resume", "[checkpoint][snapshots]") {
  const IcParams ic = kepler("0.5");
  const State<double> start = make_initial_state<double>(ic);
  const double T = 2 * orbital_period(ic, start, 1.0), every = T / 10;
  StepOptions<double> opt;
  opt.adaptive = true;
  opt.atol = opt.rtol = 1e-11;
  const auto ignore = [](const auto&) {};
  struct Shot {
    double t;
    std::vector<double> y;
  };
  auto recorder = [](std::vector<Shot>& shots) { return [&shots](const State<double>& s) { shots.push_back({s.t, s.y}); }; };

  std::vector<Shot> whole_shots;
  RunHooks<double> whole_hooks;
  whole_hooks.snapshot_every = every;
  whole_hooks.snapshot = recorder(whole_shots);
  test::Driven<double> whole(start, ForceLaw<double>{}, "simple", "dop853", opt);
  whole.run(T, T / 50, ignore, whole_hooks);
  REQUIRE(whole_shots.size() == 11);
  for (std::size_t k = 0; k < whole_shots.size(); ++k) {
    CHECK(whole_shots[k].t == static_cast<double>(k) * every);  // landed on, not the next step end
    State<double> s = start;
    s.y = whole_shots[k].y;
    CHECK(position_error(s, kepler_state_at<double>(ic, whole_shots[k].t)) < 1e-8);
  }

  // Interrupted by a checkpoint near 0.55 T and resumed: the remaining snapshots are the same bits.
  std::vector<Shot> first_shots, resumed_shots;
  std::string saved;
  test::Driven<double> first(start, ForceLaw<double>{}, "simple", "dop853", opt);
  RunHooks<double> hooks = whole_hooks;
  hooks.snapshot = recorder(first_shots);
  hooks.checkpoint = [&] {
    ArchiveWriter w;
    first.save(w);
    saved = w.bytes();
  };
  hooks.stop_at = 0.55 * T;
  REQUIRE_FALSE(first.run(T, T / 50, ignore, hooks));
  test::Driven<double> resumed(start, ForceLaw<double>{}, "simple", "dop853", opt);
  ArchiveReader r(saved);
  resumed.load(r);
  RunHooks<double> resumed_hooks = whole_hooks;
  resumed_hooks.snapshot = recorder(resumed_shots);
  REQUIRE(resumed.run(T, T / 50, ignore, resumed_hooks));
  REQUIRE(first_shots.size() + resumed_shots.size() == whole_shots.size());
  for (std::size_t k = 0; k < resumed_shots.size(); ++k) {
    const Shot &a = whole_shots[first_shots.size() + k], &b = resumed_shots[k];
    CHECK(a.t == b.t);
    CHECK(std::memcmp(a.y.data(), b.y.data(), a.y.size() * sizeof(double)) == 0);
  }

  // Fixed steps cannot be shortened onto a snapshot time: an interval they do not divide is refused.
  StepOptions<double> fixed;
  fixed.dt = every / 7.5;
  test::Driven<double> stepped(start, ForceLaw<double>{}, "simple", "rk4", fixed);
  CHECK_THROWS_AS(stepped.run(T, T / 50, ignore, whole_hooks), InputError);
}

TEST_CASE("checkpoint_files_round_trip_and_reject_corruption", "[checkpoint]") {
  const auto path = std::filesystem::temp_directory_path() / ("nbody_ckpt_" + std::to_string(::getpid()));
  Checkpoint c{{{"integrator", "rk4"}}, std::string("\0\1\2 state bytes", 15)};
  write_checkpoint(path, c);
  const Checkpoint back = read_checkpoint(path);
  CHECK(back.parameters == c.parameters);
  CHECK(back.state == c.state);
  write_checkpoint(path, c);  // the previous one becomes the backup
  CHECK(std::filesystem::exists(path.string() + ".bak"));
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(30);
    f.put('X');  // flip a byte
  }
  CHECK_THROWS_AS(read_checkpoint(path), InputError);
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + ".bak");
}

// Per-body arrays hold every body, component after component; a rank that holds a block of the
// bodies reads its block's values, and an array of another number of values per body is refused.
TEST_CASE("per_body_arrays_are_read_for_a_block_of_the_bodies_and_refused_at_another_size", "[checkpoint]") {
  ArchiveWriter w;
  w.put_bodies(std::vector<double>{1, 2, 3}, 1);  // the masses: 3 bodies
  w.put_bodies(std::vector<double>{10, 11, 12, 20, 21, 22}, 2);
  w.put_bodies(std::vector<double>{}, 0);  // none a body (compensation terms of a run without them)
  w.put_bodies(std::vector<double>{1, 2, 3, 4}, 1);
  std::vector<double> v;
  SECTION("every body, the count taken from the first array") {
    ArchiveReader r(w.bytes());
    r.get_bodies(v, 1);
    r.get_bodies(v, 2);
    CHECK(v == std::vector<double>{10, 11, 12, 20, 21, 22});
    r.get_bodies(v, 0);
    CHECK(v.empty());
    CHECK_THROWS_WITH(r.get_bodies(v, 1), Catch::Contains("corrupt") && Catch::Contains("4 values for 3 bodies"));
  }
  SECTION("a block of them") {
    ArchiveReader r(w.bytes(), BodyBlock{1, 2, 3, true});
    r.get_bodies(v, 1);
    CHECK(v == std::vector<double>{2, 3});
    r.get_bodies(v, 2);
    CHECK(v == std::vector<double>{11, 12, 21, 22});
    r.get_bodies(v, 0);
    CHECK_THROWS_WITH(r.get_bodies(v, 1), Catch::Contains("corrupt"));
  }
  SECTION("none a body, given some") {
    ArchiveReader r(w.bytes());
    r.get_bodies(v, 1);
    CHECK_THROWS_WITH(r.get_bodies(v, 0), Catch::Contains("6 values for 3 bodies"));
  }
}

TEST_CASE("a_run_in_parts_through_the_cli_equals_the_uninterrupted_run", "[cli][checkpoint]") {
  const fs::path dir = scratch("parts");
  const std::string run = "run --ic two-galaxies --n 32 --seed 4 --integrator dopri5 --tol 1e-9 --t-end 1.5 --r-min 1e-4";
  REQUIRE(run_nbody(dir, run + " --final-state whole.csv").exit_code == 0);
  REQUIRE(run_nbody(dir, run + " --checkpoint c.bin --stop-at 0.5").exit_code == 0);
  REQUIRE(run_nbody(dir, run + " --resume c.bin --checkpoint c.bin --stop-at 1.0").exit_code == 0);
  REQUIRE(run_nbody(dir, run + " --resume c.bin --final-state parts.csv").exit_code == 0);
  CHECK(read(dir / "whole.csv") == read(dir / "parts.csv"));
  CHECK(fs::exists(dir / "c.bin.bak"));
  // A resume with other run parameters is refused, naming what differs.
  const std::string other = "run --ic two-galaxies --n 32 --seed 4 --integrator dopri5 --tol 1e-8 --t-end 1.5 --r-min 1e-4";
  const Outcome o = run_nbody(dir, other + " --resume c.bin --final-state x.csv");
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("--tol is 1e-8 here but 1e-9"));
  CHECK(!fs::exists(dir / "x.csv"));
}

TEST_CASE("a_checkpoint_cut_short_anywhere_is_called_truncated_and_the_previous_one_is_kept_as_backup", "[checkpoint]") {
  const fs::path dir = scratch("truncated");
  const fs::path path = dir / "c.bin";
  write_checkpoint(path, {{{"precision", "double"}}, std::string(100, 'a')});
  const std::string first = read(path);
  write_checkpoint(path, {{{"precision", "double"}}, std::string(100, 'b')});
  CHECK(read(checkpoint_backup(path)) == first);
  CHECK(read_checkpoint(path).state == std::string(100, 'b'));
  const std::string whole = read(path);
  for (const std::size_t length : {std::size_t(5), std::size_t(17), std::size_t(19), std::size_t(30), whole.size() - 8,
                                   whole.size() - 1}) {
    INFO(length);
    std::ofstream(dir / "cut.bin", std::ios::binary) << whole.substr(0, length);
    CHECK_THROWS_WITH(read_checkpoint(dir / "cut.bin"), Catch::Contains("is truncated (" + std::to_string(length) + " bytes)"));
  }
  std::ofstream(dir / "empty.bin", std::ios::binary).flush();
  CHECK_THROWS_WITH(read_checkpoint(dir / "empty.bin"), Catch::Contains("is empty"));
  CHECK_THROWS_WITH(read_checkpoint(dir), Catch::Contains("is a directory"));
}

TEST_CASE("a_run_stopped_by_its_interrupted_hook_checkpoints_there_and_resumes_bit_for_bit", "[checkpoint]") {
  const IcParams ic = kepler("0.5");
  const State<double> start = make_initial_state<double>(ic);
  const double T = 2 * orbital_period(ic, start, 1.0);
  const auto ignore = [](const auto&) {};
  for (const StepOptions<double>& opt : {fixed_step(T / 600), with_tol(1e-10)}) {
    test::Driven<double> whole(start, ForceLaw<double>{}, "simple", "dopri5", opt);
    REQUIRE(whole.run(T, T / 50, ignore));

    test::Driven<double> stopped(start, ForceLaw<double>{}, "simple", "dopri5", opt);
    RunHooks<double> hooks;
    int polls = 0, checkpoints = 0;
    std::string saved;
    hooks.interrupted = [&] { return ++polls > 137; };  // between steps 137 and 138
    hooks.checkpoint = [&] {
      ++checkpoints;
      ArchiveWriter w;
      stopped.save(w);
      saved = w.bytes();
    };
    CHECK(!stopped.run(T, T / 50, ignore, hooks));
    CHECK(checkpoints == 1);
    CHECK(stopped.counters().steps == 137);

    test::Driven<double> resumed(start, ForceLaw<double>{}, "simple", "dopri5", opt);
    ArchiveReader r(saved);
    resumed.load(r);
    REQUIRE(resumed.run(T, T / 50, ignore));
    const RunEnd a = outcome(whole), b = outcome(resumed);
    CHECK(same_bits(a.y, b.y));
    CHECK(a.fevals == b.fevals);
    CHECK(a.steps == b.steps);
  }
}

TEST_CASE("a_fixed_step_run_continues_only_from_one_of_its_step_times", "[checkpoint]") {
  // The last step of a run whose end is not a multiple of dt is shortened onto t_end: from there
  // the times t0 + k dt of further steps would not be the state's, so extending it is refused.
  const State<double> start = make_initial_state<double>(kepler("0.5"));
  const auto ignore = [](const auto&) {};
  test::Driven<double> on_grid(start, ForceLaw<double>{}, "simple", "rk4", fixed_step(0.125));
  on_grid.run(1.0, 0.5, ignore);
  CHECK_NOTHROW(on_grid.run(2.0, 0.5, ignore));
  test::Driven<double> off_grid(start, ForceLaw<double>{}, "simple", "rk4", fixed_step(0.125));
  off_grid.run(1.05, 0.5, ignore);
  CHECK_THROWS_WITH(off_grid.run(2.0, 0.5, ignore), Catch::Contains("continues only from one of them"));
}

TEST_CASE("a_resume_with_another_engine_says_it_is_not_bit_for_bit_and_cpu_engines_refuse_a_launch_shape", "[cli][checkpoint]") {
  const fs::path dir = scratch("engines");
  const std::string run = "run --ic two-galaxies --n 16 --integrator rk4 --dt 0.01 --t-end 0.5";
  REQUIRE(run_nbody(dir, run + " --engine openmp --checkpoint c.bin --stop-at 0.2").exit_code == 0);
  // Each continuation saves its end elsewhere: the checkpoint it resumes from stays at 0.2.
  const Outcome same = run_nbody(dir, run + " --engine openmp --resume c.bin --checkpoint same.bin --summary same.json");
  REQUIRE(same.exit_code == 0);
  CHECK_THAT(same.err, !Catch::Contains("not bit for bit"));
  const Outcome other = run_nbody(dir, run + " --engine simple --resume c.bin --checkpoint other.bin --summary other.json");
  REQUIRE(other.exit_code == 0);
  CHECK_THAT(other.err, Catch::Contains("engine openmp") && Catch::Contains("not bit for bit"));
  CHECK_THAT(read(dir / "other.json"), Catch::Contains("\"engine\": \"simple\""));
  // A continuation refused by the run's schedule says only why: the note waits for an accepted run.
  const Outcome refused = run_nbody(dir, run + " --engine simple --resume c.bin --snapshots s.csv --snapshot-every 0.015");
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("not a multiple of --dt") && !Catch::Contains("note"));

  const Outcome launch = run_nbody(dir, run + " --engine openmp --launch block=128 --final-state x.csv");
  CHECK(launch.exit_code == 2);
  CHECK_THAT(launch.err, Catch::Contains("GPU engines only"));
  CHECK(!fs::exists(dir / "x.csv"));
}
