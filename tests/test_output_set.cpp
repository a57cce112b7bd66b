// The files a command writes (solver/io/output_set.hpp): refused before any work when a place is
// bad or two names clash (companions, backups, a series' files and the inputs included), locked
// against a second process and no longer after the first dies, a dead run's temporary files
// removed, committed together, and nothing left by a set that is not committed.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/output_set.hpp"
#include "io/snapshot_hdf5.hpp"
#include "support.hpp"

using namespace nbody;
using namespace nbody::test;
namespace fs = std::filesystem;

namespace {

// The message of the InputError that opening the set throws ("" if it opens).
std::string refusal(const std::vector<OutputFile>& outputs, const std::vector<InputFile>& inputs = {}) {
  try {
    OutputSet set(outputs, inputs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Runs `child` in a forked process: its exit code (child returns true: 0).
template <class Child>
int in_child(Child child) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    bool ok = false;
    try {
      ok = child();
    } catch (...) {
    }
    ::_exit(ok ? 0 : 1);  // no atexit: the parent's
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("an_output_set_refuses_bad_places_in_one_line_naming_the_flag_and_the_file", "[io][outputs]") {
  const fs::path dir = scratch("output_set_places");
  fs::create_directory(dir / "folder");
  fs::create_directory(dir / "f.meta.json");
  fs::create_directory(dir / "c.bin.bak");
  fs::create_directory(dir / "d.csv.lock");
  fs::create_directory(dir / "s_002.hdf5");
  fs::create_directory(dir / "t.xdmf");
  const auto before = names_in(dir);
  const std::vector<std::pair<OutputFile, std::string>> cases = {
      {{"--final-state", dir / "folder"}, "--final-state " + (dir / "folder").string() + ": is a directory"},
      {{"--summary", dir / "missing" / "s.json", OutputKind::plain}, "folder '" + (dir / "missing").string() + "' does not exist"},
      {{"--final-state", dir / "f.csv"}, "the provenance record " + (dir / "f.meta.json").string() + " of --final-state"},
      {{"--checkpoint", dir / "c.bin", OutputKind::checkpoint}, "the backup " + (dir / "c.bin.bak").string() + " of --checkpoint"},
      {{"--diagnostics", dir / "d.csv"}, "the lock file " + (dir / "d.csv.lock").string() + " of --diagnostics"},
      {{"--snapshots", dir / "s.hdf5", OutputKind::series}, "the snapshot s_002.hdf5 of --snapshots"},
      {{"--snapshots", dir / "t.hdf5", OutputKind::series}, "the XDMF time series " + (dir / "t.xdmf").string()},
      {{"--summary", "/proc/s.json", OutputKind::plain}, "cannot write in folder '/proc'"},
  };
  for (const auto& [output, message] : cases) {
    INFO(output.flag << " " << output.path);
    CHECK_THAT(refusal({output}), Catch::Contains(message));
  }
  CHECK(names_in(dir) == before);
}

TEST_CASE("an_output_set_refuses_two_names_of_one_file_and_an_input_it_would_overwrite", "[io][outputs]") {
  const fs::path dir = scratch("output_set_clashes");
  std::ofstream(dir / "start.hdf5") << "";
  std::ofstream(dir / "s_000.hdf5") << "";
  const auto in = [&](const char* name) { return dir / name; };
  CHECK_THAT(refusal({{"--final-state", in("out")}, {"--diagnostics", in("out.csv")}}),
             Catch::Contains("the provenance record " + in("out.meta.json").string() + " of --final-state") &&
                 Catch::Contains("are the same file"));
  CHECK_THAT(refusal({{"--checkpoint", in("k.bin"), OutputKind::checkpoint}, {"--summary", in("k.bin.bak"), OutputKind::plain}}),
             Catch::Contains("the backup " + in("k.bin.bak").string() + " of --checkpoint"));
  CHECK_THAT(refusal({{"--snapshots", in("s.hdf5"), OutputKind::series}, {"--final-state", in("s_0012.hdf5"), OutputKind::plain}}),
             Catch::Contains("the snapshot s_0012.hdf5 of --snapshots") && Catch::Contains("are the same file"));
  CHECK_THAT(refusal({{"--diagnostics", in("a")}, {"--summary", in("a.lock"), OutputKind::plain}}),
             Catch::Contains("the lock file " + in("a.lock").string() + " of --diagnostics"));
  CHECK_THAT(refusal({{"--snapshots", in("s.hdf5"), OutputKind::series}}, {{"--ic", in("s_000.hdf5"), ""}}),
             Catch::Contains("the snapshot s_000.hdf5 of --snapshots " + in("s.hdf5").string() + " would overwrite the input --ic"));
  fs::create_directory(dir / "sub");
  CHECK_THAT(refusal({{"--final-state", dir / "sub" / ".." / "start.hdf5", OutputKind::plain}}, {{"--ic", in("start.hdf5"), ""}}),
             Catch::Contains("would overwrite the input --ic"));
  // --resume FILE may be --checkpoint FILE, but not its backup nor another output.
  CHECK(refusal({{"--checkpoint", in("start.hdf5"), OutputKind::checkpoint}}, {{"--resume", in("start.hdf5"), "--checkpoint"}}) == "");
  CHECK_THAT(refusal({{"--final-state", in("start.hdf5"), OutputKind::plain}}, {{"--resume", in("start.hdf5"), "--checkpoint"}}),
             Catch::Contains("would overwrite the input --resume"));
  CHECK(names_in(dir) == std::set<std::string>{"start.hdf5", "s_000.hdf5", "sub"});
}

TEST_CASE("a_second_process_writing_a_file_of_the_set_is_refused_naming_the_first", "[io][outputs]") {
  const fs::path dir = scratch("output_set_lock");
  OutputSet first({{"--diagnostics", dir / "d.csv"}});
  // Another process, whose output shares only the provenance record d.meta.json.
  const std::string holder = "(process " + std::to_string(::getpid()) + ")";
  CHECK(in_child([&] {
          try {
            OutputSet second({{"--final-state", dir / "d"}});
          } catch (const InputError& e) {
            return std::string(e.what()).find("is being written by another nbody run " + holder) != std::string::npos;
          }
          return false;
        }) == 0);
}

TEST_CASE("the_lock_of_a_dead_process_is_not_in_force_and_its_temporary_files_are_removed", "[io][outputs]") {
  const fs::path dir = scratch("output_set_dead");
  const std::vector<OutputFile> files = {{"--diagnostics", dir / "d.csv"}, {"--snapshots", dir / "s.hdf5", OutputKind::series}};
  // A run killed while it writes: its lock files and temporary files stay behind.
  REQUIRE(in_child([&] {
            OutputSet set(files);
            set.stream(dir / "d.csv") << "partial\n" << std::flush;
            std::ofstream(set.stage(hdf5_snapshot_file(dir / "s.hdf5", 0))) << "partial";
            ::_exit(0);  // the set alive
            return true;
          }) == 0);
  std::ofstream(dir / "d.csv.tmp.other") << "not a temporary file of nbody's";
  const auto left = names_in(dir);
  CHECK(left.count("d.csv.lock") == 1);
  CHECK(std::count_if(left.begin(), left.end(), [](const std::string& n) { return n.find(".tmp.") != std::string::npos; }) == 3);
  {
    OutputSet again(files);  // takes the locks, and removes what the dead run left
    CHECK(names_in(dir) == std::set<std::string>{"d.csv.lock", "d.csv.tmp.other", "d.meta.json.lock", "s.hdf5.lock", "s.xdmf.lock"});
  }
  CHECK(names_in(dir) == std::set<std::string>{"d.csv.tmp.other"});
}

TEST_CASE("an_output_set_commits_its_outputs_and_their_records_together", "[io][outputs]") {
  const fs::path dir = scratch("output_set_commit");
  std::ofstream(dir / "f.csv") << "the previous run's\n";
  const std::vector<OutputFile> files = {{"--diagnostics", dir / "d.csv"},
                                         {"--final-state", dir / "f.csv"},
                                         {"--summary", dir / "s.json", OutputKind::plain},
                                         {"--checkpoint", dir / "c.bin", OutputKind::checkpoint}};
  {
    OutputSet set(files);
    set.stream(dir / "d.csv") << "t\n0\n";
    set.stream(dir / "f.csv") << "id\n0\n";
    CHECK(read(dir / "f.csv") == "the previous run's\n");  // staged: nothing under its name yet
    CHECK(!fs::exists(dir / "d.csv"));
    // A declared output left unwritten: the commit fails before any file takes its name.
    CHECK_THROWS_WITH(set.commit({{"run", 1}}), Catch::Contains("nothing was written to --summary"));
    CHECK(!fs::exists(dir / "d.csv"));
  }
  CHECK(names_in(dir) == std::set<std::string>{"f.csv"});
  CHECK(read(dir / "f.csv") == "the previous run's\n");
  {
    OutputSet set(files);
    set.stream(dir / "d.csv") << "t\n0\n";
    set.stream(dir / "f.csv") << "id\n0\n";
    set.stream(dir / "s.json") << "{}\n";
    set.commit({{"run", 1}});
  }
  CHECK(names_in(dir) == std::set<std::string>{"d.csv", "d.meta.json", "f.csv", "f.meta.json", "s.json"});
  CHECK(read(dir / "f.csv") == "id\n0\n");
  CHECK_THAT(read(dir / "d.meta.json"), Catch::Contains("\"file\": \"d.csv\"") && Catch::Contains("\"run\": 1"));
}

TEST_CASE("a_write_that_fails_throws_at_once_and_the_set_leaves_nothing", "[io][outputs]") {
  const fs::path dir = scratch("output_set_full");
  std::ofstream(dir / "f.csv") << "the previous run's\n";
  // A file size limit in a child process: the write past it fails (EFBIG, SIGXFSZ ignored).
  CHECK(in_child([&] {
          std::signal(SIGXFSZ, SIG_IGN);
          const rlimit limit{100000, 100000};
          ::setrlimit(RLIMIT_FSIZE, &limit);
          std::string message;
          {
            OutputSet set({{"--diagnostics", dir / "d.csv"}, {"--final-state", dir / "f.csv"}});
            set.stream(dir / "d.csv") << "t\n0\n";
            try {
              for (int i = 0; i < 100000; ++i) set.stream(dir / "f.csv") << "0,1,2,3,4,5,6,7\n";
            } catch (const RunError& e) {
              message = e.what();
            }
          }
          return message == "cannot write '" + (dir / "f.csv").string() + "': File too large" &&
                 names_in(dir) == std::set<std::string>{"f.csv"};
        }) == 0);
  CHECK(read(dir / "f.csv") == "the previous run's\n");
}

TEST_CASE("an_output_set_destroyed_uncommitted_leaves_nothing", "[io][outputs]") {
  const fs::path dir = scratch("output_set_uncommitted");
  {
    OutputSet set({{"--diagnostics", dir / "d.csv"},
                   {"--snapshots", dir / "s.hdf5", OutputKind::series},
                   {"--checkpoint", dir / "c.bin", OutputKind::checkpoint}});
    set.stream(dir / "d.csv") << "t\n0\n";
    for (std::uint64_t k = 0; k < 3; ++k) std::ofstream(set.stage(hdf5_snapshot_file(dir / "s.hdf5", k))) << "snapshot";
    set.stream(dir / "s.xdmf") << "<Xdmf/>";
    CHECK(names_in(dir).size() == 11);  // 5 temporary files, 6 lock files
  }
  CHECK(names_in(dir).empty());
}
