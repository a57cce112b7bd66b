// Checkpoint and resume: for every registered method, a run restored from a checkpoint taken
// mid-run ends bit for bit where the uninterrupted run ends, with the same counts.
#include <catch2/catch.hpp>
#include <cstring>

#include <fstream>
#include <unistd.h>

#include "io/checkpoint.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;

namespace {

struct Outcome {
  std::vector<double> y;
  std::uint64_t fevals, steps, rejected;
};

Outcome outcome(const Simulation<double>& sim) {
  return {sim.state().y, sim.force_evaluations(), sim.counters().steps, sim.counters().rejected};
}

void check_resume_is_exact(const std::string& method, const StepOptions<double>& opt) {
  const IcParams ic = kepler("0.5");
  const State<double> start = make_initial_state<double>(ic);
  const double T = 2 * orbital_period(ic, start, 1.0);
  const auto ignore = [](const auto&) {};

  Simulation<double> whole(start, ForceLaw<double>{}, "simple", method, opt);
  whole.run(T, T / 50, ignore);

  // The same run, checkpointed every T/7; the last checkpoint before 0.6 T is kept (mid-run).
  Simulation<double> first(start, ForceLaw<double>{}, "simple", method, opt);
  const std::string saved = test::run_keeping_checkpoint(first, T, T / 50, T / 7, 0.6 * T);
  REQUIRE(!saved.empty());

  Simulation<double> resumed(start, ForceLaw<double>{}, "simple", method, opt);
  ArchiveReader r(saved);
  resumed.load(r);
  REQUIRE(resumed.state().t < 0.6 * T);
  REQUIRE(resumed.state().t > 0.4 * T);
  resumed.run(T, T / 50, ignore);

  const Outcome a = outcome(whole), b = outcome(resumed);
  CHECK(std::memcmp(a.y.data(), b.y.data(), a.y.size() * sizeof(double)) == 0);
  CHECK(a.fevals == b.fevals);
  CHECK(a.steps == b.steps);
  CHECK(a.rejected == b.rejected);
}

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
  Simulation<double> whole(start, ForceLaw<double>{}, "simple", "dop853", opt);
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
  Simulation<double> first(start, ForceLaw<double>{}, "simple", "dop853", opt);
  RunHooks<double> hooks = whole_hooks;
  hooks.snapshot = recorder(first_shots);
  hooks.checkpoint = [&] {
    ArchiveWriter w;
    first.save(w);
    saved = w.bytes();
  };
  hooks.stop_at = 0.55 * T;
  REQUIRE_FALSE(first.run(T, T / 50, ignore, hooks));
  Simulation<double> resumed(start, ForceLaw<double>{}, "simple", "dop853", opt);
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
  Simulation<double> stepped(start, ForceLaw<double>{}, "simple", "rk4", fixed);
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
