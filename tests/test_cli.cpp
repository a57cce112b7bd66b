// The command line, through the real `nbody` binary: a state written by `nbody ic` starts a run
// exactly as the built-in initial conditions do; `nbody` alone, `--version`, `list` (engines marked
// where they cannot run), build information, snapshot files in full precision, and `bench`'s CSV
// row and the quoting of its text fields; --order only for the methods that read it. Bad input and
// failed runs, case by case: tests/bad_input/corpus.txt (tests/runner/test_bad_input.py).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cli/parse.hpp"
#include "cli/timing.hpp"
#include "engines/engine.hpp"
#include "engines/gpu_engines.hpp"
#include "engines/openmp_simd.hpp"
#include "integrators/integrator.hpp"
#include "io/provenance.hpp"
#include "io/state_csv.hpp"
#include "physics/initial_conditions.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;
namespace fs = std::filesystem;

TEST_CASE("nbody_ic_then_run_from_file_reproduces_the_builtin_start_bit_for_bit", "[io][cli]") {
  const fs::path dir = scratch("ic_file");
  const std::string ic = "--ic two-galaxies --n 40 --seed 9";
  REQUIRE(run_nbody(dir, "ic " + ic + " --out start.csv").exit_code == 0);
  // Every sample (--diag-budget 1): under the default budget the samples taken depend on the time they take.
  const std::string run = " --integrator dopri5 --tol 1e-9 --t-end 0.5 --r-min 1e-4 --diag-budget 1";
  REQUIRE(run_nbody(dir, "run " + ic + run + " --final-state builtin.csv --diagnostics builtin_diag.csv").exit_code == 0);
  REQUIRE(run_nbody(dir, "run --ic file:start.csv" + run + " --final-state file.csv --diagnostics file_diag.csv").exit_code == 0);
  CHECK(read(dir / "builtin.csv") == read(dir / "file.csv"));
  CHECK(read(dir / "builtin_diag.csv") == read(dir / "file_diag.csv"));
  CHECK(fs::exists(dir / "file.meta.json"));
  CHECK(read(dir / "file.meta.json").find("\"git_commit\"") != std::string::npos);
}

TEST_CASE("list_prints_one_line_per_item", "[cli]") {
  const fs::path dir = scratch("list");
  REQUIRE(run_nbody(dir, "list integrators").exit_code == 0);
  const std::string out = read(dir / "stdout.txt");
  CHECK(std::count(out.begin(), out.end(), '\n') == long(integrator_table<double>().size()));
  CHECK_THAT(out, Catch::StartsWith("euler"));
}

TEST_CASE("nbody_alone_prints_the_help_with_the_exit_codes_and_succeeds", "[cli]") {
  const fs::path dir = scratch("alone");
  const Outcome o = run_nbody(dir, "");
  CHECK(o.exit_code == 0);
  CHECK(o.err.empty());
  const std::string help = read(dir / "stdout.txt");
  CHECK_THAT(help, Catch::Contains("Subcommands:") && Catch::Contains("Exit codes") && Catch::Contains("143"));
}

TEST_CASE("version_names_the_project_version_and_the_commit_built", "[cli]") {
  const fs::path dir = scratch("version");
  REQUIRE(run_nbody(dir, "--version").exit_code == 0);
  const nlohmann::json build = build_info();
  const std::string expected = "nbody " + build["version"].get<std::string>() + " (commit " +
                               build["git_commit"].get<std::string>();
  CHECK_THAT(read(dir / "stdout.txt"), Catch::StartsWith(expected) && Catch::EndsWith(")\n"));
}

TEST_CASE("list_engines_names_how_each_engine_evaluates_body_potentials_as_its_registry_entry_says", "[cli][engines]") {
  const fs::path dir = scratch("list_engines_potentials");
  REQUIRE(run_nbody(dir, "list engines --json").exit_code == 0);
  for (const auto& e : nlohmann::json::parse(read(dir / "stdout.txt"))) {
    const std::string name = e["name"].get<std::string>();
    INFO(name);
    dispatch_precision(e["launch_precision"].get<std::string>(), [&]<class T>() {
      CHECK(e["body_potentials"].get<std::string>() == potentials_name(find_engine<T>(name).can.potentials));
    });
  }
}

TEST_CASE("list_engines_marks_the_engines_whose_device_is_missing", "[cli][engines]") {
  const fs::path dir = scratch("list_engines");
  REQUIRE(run_nbody(dir, "list engines --json").exit_code == 0);
  const nlohmann::json listed = nlohmann::json::parse(read(dir / "stdout.txt"));
  REQUIRE(listed.size() == all_engines().size());
  REQUIRE(run_nbody(dir, "list engines").exit_code == 0);
  std::istringstream text(read(dir / "stdout.txt"));
  const std::vector<std::string> features = gpu_features();
  for (const auto& e : listed) {
    INFO(e["name"]);
    const std::string device = e["device"].get<std::string>();
    const bool here = device == "cpu" || std::find(features.begin(), features.end(), device) != features.end();
    CHECK(e["available"].get<bool>() == here);
    CHECK(e.contains("unavailable_reason") == !here);
    std::string line;
    REQUIRE(std::getline(text, line));
    CHECK(line.starts_with(e["name"].get<std::string>() + " "));
    CHECK((line.find("[cannot run here: no " + device + " device on this machine]") != std::string::npos) == !here);
  }
}

TEST_CASE("build_info_names_exactly_the_gpu_engines_of_the_registry", "[io]") {
  // Provenance must say which GPU engines a binary has: every cuda-*/opencl-* engine of any
  // precision, and nothing the registry lacks.
  std::set<std::string> in_registry;
#define NBODY_COLLECT_GPU_ENGINES(U)                                        \
  for (const auto& e : engine_table<U>())                                   \
    if (e.name.starts_with("cuda-") || e.name.starts_with("opencl-")) in_registry.emplace(e.name);
  NBODY_FOR_EACH_PRECISION(NBODY_COLLECT_GPU_ENGINES)
#undef NBODY_COLLECT_GPU_ENGINES
  const nlohmann::json info = build_info();
  std::set<std::string> in_build_info;
  for (const auto& name : info.at("gpu_engines")) in_build_info.insert(name.get<std::string>());
  CHECK(in_build_info == in_registry);
#if NBODY_WITH_CUDA
  CHECK(in_build_info.count("cuda-pairs") == 1);
#endif
}

TEST_CASE("snapshots_hold_the_state_at_each_output_time_in_full_precision", "[cli][snapshots]") {
  const fs::path dir = scratch("snapshots");
  const std::string run = "run --ic two-galaxies --n 6 --integrator dop853 --tol 1e-20 --t-end 1 --precision quad";
  REQUIRE(run_nbody(dir, run + " --snapshots s.csv --snapshot-every 0.25 --final-state f.csv").exit_code == 0);
  std::istringstream snaps(read(dir / "s.csv"));
  std::string line;
  std::getline(snaps, line);
  CHECK(line == kSnapshotHeader);
  std::vector<std::string> times, last_rows;
  while (std::getline(snaps, line)) {
    const std::string t = line.substr(0, line.find(','));
    if (times.empty() || times.back() != t) times.push_back(t), last_rows.clear();
    last_rows.push_back(line.substr(line.find(',') + 1));
  }
  CHECK(times == std::vector<std::string>{"0", "0.25", "0.5", "0.75", "1"});
  // The last snapshot is the final state, digit for digit.
  std::istringstream final_state(read(dir / "f.csv"));
  std::getline(final_state, line);
  for (const std::string& row : last_rows) {
    REQUIRE(std::getline(final_state, line));
    CHECK(row == line);
  }
  CHECK(last_rows.size() == 6);

  // Fixed steps must land on the snapshot times; a refused run leaves no file.
  const Outcome o = run_nbody(dir, "run --ic two-galaxies --n 6 --integrator rk4 --dt 0.03 --t-end 1 --snapshots x.csv --snapshot-every 0.25");
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("not a multiple of --dt"));
  CHECK(!fs::exists(dir / "x.csv"));
  // Adaptive steps land on the snapshot times, so a resume must keep the interval.
  REQUIRE(run_nbody(dir, run + " --snapshots a.csv --snapshot-every 0.25 --checkpoint c.bin --stop-at 0.4").exit_code == 0);
  const Outcome other = run_nbody(dir, run + " --snapshots b.csv --snapshot-every 0.2 --resume c.bin");
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.err, Catch::Contains("--snapshot-every is 0.2 here but 0.25"));
}

TEST_CASE("nbody_bench_prints_a_csv_row_naming_the_simd_path_it_ran", "[engines][cli]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("nbody_test_bench_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* precision : {"double", "float"}) {
    const std::string cmd = "cd '" + dir.string() + "' && '" NBODY_BINARY "' bench --engine openmp-simd --precision " +
                            precision + " --n 301 --repeats 3 >out.csv 2>err.txt";
    const int status = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    std::istringstream lines(read(dir / "out.csv"));
    std::string header, row, extra;
    std::getline(lines, header);
    std::getline(lines, row);
    CHECK(!std::getline(lines, extra));
    CHECK(header.rfind("engine,precision,n,threads,repeats,seconds_per_eval,interactions_per_s,gflops,simd,", 0) == 0);
    CHECK(row.rfind(std::string("openmp-simd,") + precision + ",301,", 0) == 0);
    CHECK(row.find("," + std::string(simd::isa_name(simd::best_isa())) + ",") != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("csv_field_quotes_exactly_the_fields_with_a_comma_a_quote_or_a_line_break", "[cli]") {
  CHECK(cli::csv_field("NVIDIA H100 80GB HBM3") == "NVIDIA H100 80GB HBM3");
  CHECK(cli::csv_field("") == "");
  CHECK(cli::csv_field("-O3 -DNDEBUG,x") == "\"-O3 -DNDEBUG,x\"");
  CHECK(cli::csv_field("a \"b\"") == "\"a \"\"b\"\"\"");
  CHECK(cli::csv_field("line\nbreak") == "\"line\nbreak\"");
}

TEST_CASE("order_is_read_by_exactly_the_methods_the_command_line_lets_choose_one", "[cli][input]") {
  // The command line refuses --order for every method whose registry entry does not say
  // selectable_order; a method that starts reading StepOptions::order must say it. 99 is beyond
  // every method's range.
  Stepper<double> any(make_initial_state<double>(kepler05()), "rk4", StepOptions<double>{.dt = 0.01});
  for (const auto& e : integrator_table<double>()) {
    INFO(e.name);
    StepOptions<double> opt{.dt = 0.01};
    opt.order = 99;
    if (e.selectable_order)
      CHECK_THROWS_WITH(e.make(any.rhs, opt), Catch::Contains("--order"));
    else
      CHECK_NOTHROW(e.make(any.rhs, opt));
  }
}
