// HDF5 snapshots (solver/io/snapshot_hdf5.hpp): every precision read back exactly, the series
// numbered and committed as one output, bad files refused in one line, and the CLI's use of them.
// Their layout as yt, pynbody and h5py see it: tests/runner/test_hdf5_snapshots.py.
#include <catch2/catch.hpp>
#include <algorithm>
#include <fstream>
#include <set>

#include "io/output_set.hpp"
#include "io/snapshot_hdf5.hpp"
#include "io/state_csv.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;
namespace fs = std::filesystem;

namespace {

// A state whose values use every bit of T: a Plummer sphere divided by 3 in T, at a time of 1/3.
template <class T>
State<T> full_precision_state(std::size_t n) {
  State<T> s = plummer<T>(n, 7);
  for (T& x : s.y) x = x / T(3);
  for (T& m : s.mass) m = m / T(3);
  s.t = T(1) / T(3);
  return s;
}

// One snapshot, as a command's one output (ic --out).
template <class T>
void write_snapshot(const fs::path& path, const State<T>& s, const nlohmann::json& parameters) {
  OutputSet outputs({{"--out", path, OutputKind::plain}});
  write_hdf5_snapshot(outputs, path, s, parameters);
  outputs.commit(parameters);
}

template <class T>
bool same_state(const State<T>& a, const State<T>& b) {
  if (a.size() != b.size() || !(a.t == b.t)) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a.mass[i] == b.mass[i])) return false;
  for (std::size_t i = 0; i < a.y.size(); ++i)
    if (!(a.y[i] == b.y[i])) return false;
  return true;
}

}  // namespace

TEMPLATE_TEST_CASE("an_hdf5_snapshot_reads_back_bit_for_bit_in_every_precision", "[hdf5]", float, double, dd, qd, quad, mp50) {
  using T = TestType;
  const fs::path dir = scratch(std::string("hdf5_round_trip_") + std::string(RealTraits<T>::name));
  const State<T> s = full_precision_state<T>(50);
  write_snapshot(dir / "s.hdf5", s, {{"test", true}});
  CHECK(same_state(read_hdf5_snapshot<T>(dir / "s.hdf5"), s));
  // The standard datasets alone hold each value rounded to double (what other tools read).
  const State<double> as_double = read_hdf5_snapshot<double>(dir / "s.hdf5");
  for (std::size_t i = 0; i < s.y.size(); ++i) REQUIRE(as_double.y[i] == static_cast<double>(static_cast<T>(s.y[i])));
  CHECK(names_in(dir) == std::set<std::string>{"s.hdf5"});
}

TEST_CASE("extended_precision_is_kept_only_by_the_expansions", "[hdf5]") {
  // dd values with a low part: read as double they lose it, read as dd they keep it.
  const fs::path dir = scratch("hdf5_expansion");
  const State<dd> s = full_precision_state<dd>(8);
  write_snapshot(dir / "s.h5", s, {});
  const State<dd> back = read_hdf5_snapshot<dd>(dir / "s.h5");
  bool some_low_part = false;
  for (std::size_t i = 0; i < s.y.size(); ++i) some_low_part = some_low_part || s.y[i].lo != 0.0;
  REQUIRE(some_low_part);
  CHECK(same_state(back, s));
  // qd from dd's file: the two terms summed in qd, still exact.
  const State<qd> wider = read_hdf5_snapshot<qd>(dir / "s.h5");
  for (std::size_t i = 0; i < s.y.size(); ++i) CHECK(wider.y[i] == qd(s.y[i].hi) + qd(s.y[i].lo));
}

TEST_CASE("a_series_of_snapshots_appears_only_when_committed_numbered_with_its_xdmf", "[hdf5]") {
  const fs::path dir = scratch("hdf5_series");
  State<double> s = full_precision_state<double>(10);
  const std::vector<OutputFile> declared = {{"--snapshots", dir / "run.hdf5", OutputKind::series}};
  {
    OutputSet outputs(declared);
    Hdf5Snapshots series(outputs, dir / "run.hdf5", {});
    series.write(s);
    series.write(s);
    const auto names = names_in(dir);  // under temporary names, beside the series' lock files
    CHECK(std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.find(".tmp.") != std::string::npos; }) == 2);
  }  // not committed (a failed run): nothing stays
  CHECK(names_in(dir).empty());
  {
    OutputSet outputs(declared);
    Hdf5Snapshots series(outputs, dir / "run.hdf5", {}, 7);  // a resumed run's numbering
    for (int k = 0; k < 3; ++k) {
      s.t = 0.5 * k;
      series.write(s);
    }
    CHECK(series.next_index() == 10);
    series.finish();
    outputs.commit({});
  }
  CHECK(names_in(dir) == std::set<std::string>{"run.xdmf", "run_007.hdf5", "run_008.hdf5", "run_009.hdf5"});
  CHECK(read_hdf5_snapshot<double>(dir / "run_009.hdf5").t == 1.0);
  const std::string xdmf = read(dir / "run.xdmf");
  for (const char* text : {"run_007.hdf5:/PartType1/Coordinates", "run_009.hdf5:/PartType1/ParticleIDs", "<Time Value=\"0.5\"/>",
                           "CollectionType=\"Temporal\"", "NumberOfElements=\"10\""})
    CHECK_THAT(xdmf, Catch::Contains(text));
}

TEST_CASE("a_missing_truncated_or_foreign_snapshot_is_refused_in_one_line", "[hdf5][cli]") {
  const fs::path dir = scratch("hdf5_bad");
  write_snapshot(dir / "good.hdf5", full_precision_state<double>(200), {});
  const std::string whole = read(dir / "good.hdf5");
  std::ofstream(dir / "truncated.hdf5", std::ios::binary) << whole.substr(0, whole.size() / 2);
  std::ofstream(dir / "text.hdf5") << kStateHeader << "\n0,1,0,0,0,0,0,0\n";
  for (const auto& [file, message] : std::vector<std::pair<std::string, std::string>>{
           {"none.hdf5", "(no such file)"}, {"truncated.hdf5", "truncated"}, {"text.hdf5", "is not an HDF5 file"}}) {
    INFO(file);
    try {
      read_hdf5_snapshot<double>(dir / file);
      FAIL("read");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(message));
    }
    const Outcome o = run_nbody(dir, "run --ic file:" + file + " --integrator rk4 --dt 0.1 --t-end 0.1");
    CHECK(o.exit_code == 2);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
  }
}

TEST_CASE("hdf5_snapshots_of_a_run_in_parts_equal_those_of_the_whole_run", "[hdf5][cli]") {
  const fs::path dir = scratch("hdf5_cli_resume");
  const std::string run = "run --ic plummer --n 64 --seed 3 --integrator dopri5 --tol 1e-8 --t-end 1 --snapshot-every 0.25 --precision dd";
  REQUIRE(run_nbody(dir, run + " --snapshots whole.hdf5").exit_code == 0);
  REQUIRE(run_nbody(dir, run + " --snapshots part.hdf5 --checkpoint c.bin --stop-at 0.5").exit_code == 0);
  REQUIRE(run_nbody(dir, "run --resume c.bin --t-end 1 --snapshots part.hdf5").exit_code == 0);
  // The first part wrote part_000..002 (t = 0, 0.25, 0.5), the second part_003, part_004.
  for (int k = 0; k <= 4; ++k) {
    INFO(k);
    const std::string number = "_00" + std::to_string(k) + ".hdf5";
    CHECK(same_state(read_hdf5_snapshot<dd>(dir / ("part" + number)), read_hdf5_snapshot<dd>(dir / ("whole" + number))));
  }
  CHECK(read_hdf5_snapshot<dd>(dir / "part_004.hdf5").t == dd(1.0));
  // A run started from a snapshot starts where it stands, exactly.
  REQUIRE(run_nbody(dir, "run --ic file:whole_002.hdf5 --precision dd --integrator rk4 --dt 0.125 --t-end 0.625 --final-state next.hdf5")
              .exit_code == 0);
  CHECK(read_hdf5_snapshot<dd>(dir / "next.hdf5").t == dd(0.625));
}

TEST_CASE("the_particle_models_refuse_hdf5_names_in_one_line", "[hdf5][cli]") {
  const fs::path dir = scratch("hdf5_models");
  const Outcome o = run_nbody(dir, "sph --case hydrostatic --t-end 0.01 --snapshots s.hdf5");
  CHECK(o.exit_code == 2);
  CHECK_THAT(o.err, Catch::Contains("the particle models write CSV"));
  CHECK(names_in(dir).empty());
}
