// A run's energy through the real `nbody` binary: --energy engine takes the force engine's
// potential (the exact sum for the CPU all-pairs engines, the same bits as --energy exact; a tree's
// own walk, its error against the direct sum in the summary), --energy off measures none (nan in the
// diagnostics, null in the summary), and the summary names the method.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "support.hpp"

using namespace nbody::test;

namespace {
nlohmann::json summary_of(const std::filesystem::path& dir, const std::string& args) {
  const Outcome o = run_nbody(dir, args + " --summary s.json --diagnostics d.csv");
  REQUIRE(o.exit_code == 0);
  return nlohmann::json::parse(read(dir / "s.json"));
}
}  // namespace

TEST_CASE("the_energy_of_a_run_comes_from_the_engine_the_exact_sum_or_nowhere_and_the_summary_says_which", "[cli][energy]") {
  const std::filesystem::path dir = scratch("energy");
  const std::string run = "run --ic plummer --n 300 --seed 3 --eps 0.05 --integrator leapfrog --dt 0.01 --t-end 0.1 --diag-every 0.05";

  SECTION("an all-pairs CPU engine's potential is the exact sum, bit for bit") {
    const nlohmann::json engine = summary_of(dir, run + " --engine openmp-simd");
    const std::string engine_diagnostics = read(dir / "d.csv");
    const nlohmann::json exact = summary_of(dir, run + " --engine openmp-simd --energy exact");
    CHECK(engine["energy_method"] == "exact pair sum on the CPU (OpenMP, compensated)");
    CHECK(engine["E"] == exact["E"]);
    CHECK(engine_diagnostics == read(dir / "d.csv"));
    CHECK(engine["potential_error"].is_null());
    CHECK(engine["min_pair_dist"].is_number());
  }
  SECTION("a tree's potential is its own walk, its error measured against the direct sum") {
    const nlohmann::json tree = summary_of(dir, run + " --engine octree");
    const nlohmann::json exact = summary_of(dir, run + " --engine octree --energy exact");
    CHECK_THAT(tree["energy_method"].get<std::string>(), Catch::Contains("octree walk"));
    const nlohmann::json& error = tree["potential_error"];
    REQUIRE(error.is_object());
    CHECK(error["bodies"] == 64);
    CHECK(error["max_rel"].get<double>() > 0);  // a tree is not exact ...
    CHECK(error["max_rel"].get<double>() < 1e-2);  // ... but close at theta 0.5
    // Its energy differs from the exact one by about the measured error of the potential.
    const double E = tree["E"].get<double>(), E_exact = exact["E"].get<double>();
    CHECK(E != E_exact);
    CHECK(std::abs(E - E_exact) < 1e-2 * std::abs(E_exact));
    CHECK(tree["min_pair_dist"].is_null());  // measured by the exact sum only
    CHECK(exact["min_pair_dist"].is_number());
  }
  SECTION("off measures no energy: nan in the diagnostics, null in the summary") {
    const nlohmann::json off = summary_of(dir, run + " --energy off");
    CHECK(off["energy_method"] == "not measured");
    CHECK(off["E"].is_null());
    CHECK(off["dE_rel"].is_null());
    CHECK(off["P_rel"].is_number());  // the motion is measured still
    const std::string diagnostics = read(dir / "d.csv");
    const std::string first_row = diagnostics.substr(diagnostics.find('\n') + 1);
    CHECK(first_row.find(",nan,nan,nan,") != std::string::npos);  // E, dE_rel, dE_rel_max
  }
  SECTION("the energy method is the run's: a resume with another is refused") {
    REQUIRE(run_nbody(dir, run + " --engine octree --checkpoint c.bin --stop-at 0.05").exit_code == 0);
    const Outcome other = run_nbody(dir, "run --resume c.bin --energy exact");
    CHECK(other.exit_code == 2);
    CHECK_THAT(other.err, Catch::Contains("--energy is exact here but engine (the default) in the checkpoint's run"));
  }
}
