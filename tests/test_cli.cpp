// The command line, through the real `nbody` binary: a state written by `nbody ic` starts a run
// exactly as the built-in initial conditions do; bad input exits 2 with one line that names the
// problem and leaves no output file; a run that blows up exits 3; `list`, build information,
// snapshot files in full precision, and `bench`'s CSV row.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engines/engine.hpp"
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
  const std::string run = " --integrator dopri5 --tol 1e-9 --t-end 0.5 --r-min 1e-4";
  REQUIRE(run_nbody(dir, "run " + ic + run + " --final-state builtin.csv --diagnostics builtin_diag.csv").exit_code == 0);
  REQUIRE(run_nbody(dir, "run --ic file:start.csv" + run + " --final-state file.csv --diagnostics file_diag.csv").exit_code == 0);
  CHECK(read(dir / "builtin.csv") == read(dir / "file.csv"));
  CHECK(read(dir / "builtin_diag.csv") == read(dir / "file_diag.csv"));
  CHECK(fs::exists(dir / "file.meta.json"));
  CHECK(read(dir / "file.meta.json").find("\"git_commit\"") != std::string::npos);
}

TEST_CASE("bad_input_exits_nonzero_with_one_line_and_no_output_file", "[cli]") {
  const fs::path dir = scratch("bad_input");
  std::ofstream(dir / "nan.csv") << "id,mass,x,y,z,vx,vy,vz\n0,1,0,0,0,0,0,0\n1,1,nan,0,0,0,1,0\n";
  std::ofstream(dir / "negative_mass.csv") << "id,mass,x,y,z,vx,vy,vz\n0,1,0,0,0,0,0,0\n1,-2,1,0,0,0,1,0\n";
  std::ofstream(dir / "malformed.csv") << "id,mass,x,y,z,vx,vy,vz\n0,1,0,0,0,0,0\n";
  std::ofstream(dir / "wrong_header.csv") << "x,y,z\n1,2,3\n";
  const std::string tail = " --dt 0.01 --t-end 1 --final-state out.csv --diagnostics diag.csv --summary out.json";
  struct Case {
    std::string args, must_mention;
  };
  const std::vector<Case> cases = {
      {"run --ic kepler --integrator nosuch" + tail, "dopri5"},  // names the valid choices
      {"run --ic plummer --n -5 --integrator rk4" + tail, "--n"},
      {"run --ic file:missing.csv --integrator rk4" + tail, "missing.csv"},
      {"run --ic file:nan.csv --integrator rk4" + tail, "line 3"},
      {"run --ic file:negative_mass.csv --integrator rk4" + tail, "mass must be positive"},
      {"run --ic file:malformed.csv --integrator rk4" + tail, "expected 8 fields"},
      {"run --ic file:wrong_header.csv --integrator rk4" + tail, "header"},
      {"run --ic kepler --integrator rk4 --precision half" + tail, "mp50"},
      {"run --ic kepler --integrator rk4 --engine warp" + tail, "simple"},
      {"run --ic kepler --integrator rk4 --tol 1e-6 --t-end 1 --final-state out.csv", "no error estimate"},
      {"run --ic kepler --e 1.2 --integrator rk4" + tail, "0 <= e < 1"},
      {"run --ic kepler --integrator rk4 --dt x --t-end 1 --final-state out.csv", "--dt"},
      {"tune --engine openmp --n 64", "must be a GPU engine"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const Outcome o = run_nbody(dir, c.args);
    CHECK(o.exit_code == 2);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK_THAT(o.err, Catch::Contains(c.must_mention));
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      CHECK((name.ends_with(".csv") && name != "out.csv" && name != "diag.csv" ? true : name.ends_with(".txt")));
    }
  }
}

TEST_CASE("a_run_whose_state_becomes_non_finite_fails_and_leaves_no_output", "[cli]") {
  const fs::path dir = scratch("non_finite");
  // Two bodies at the same point, no softening: the first force evaluation divides by zero.
  std::ofstream(dir / "collision.csv") << "id,mass,x,y,z,vx,vy,vz\n0,1,0,0,0,0,0,0\n1,1,0,0,0,0,0,0\n";
  const Outcome o = run_nbody(dir, "run --ic file:collision.csv --integrator rk4 --dt 0.1 --t-end 1 --final-state out.csv --diagnostics d.csv");
  CHECK(o.exit_code == 3);
  CHECK_THAT(o.err, Catch::Contains("non-finite"));
  CHECK(!fs::exists(dir / "out.csv"));
  CHECK(!fs::exists(dir / "d.csv"));
  for (const auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("list_prints_one_line_per_item", "[cli]") {
  const fs::path dir = scratch("list");
  REQUIRE(run_nbody(dir, "list integrators").exit_code == 0);
  const std::string out = read(dir / "stdout.txt");
  CHECK(std::count(out.begin(), out.end(), '\n') == long(integrator_table<double>().size()));
  CHECK_THAT(out, Catch::StartsWith("euler"));
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
