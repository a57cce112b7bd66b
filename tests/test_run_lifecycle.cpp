// A run's life through the real `nbody` binary: SIGTERM and SIGINT stop it between two steps with
// its checkpoint (when asked for) as the only file left, and `--resume FILE` alone ends it bit for
// bit where the uninterrupted run ends; an interrupted `nbody ic` exits 143 and leaves no file; a
// resume that changes a flag of the stored run is refused in one line naming the flag and both
// values; outputs that cannot be written, that collide (sidecars and backups included) or that
// would overwrite an input, and body counts beyond the memory, are refused before any work.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "support.hpp"

using namespace nbody::test;
namespace fs = std::filesystem;

namespace {

// `nbody args` started in dir (stdout.txt, stderr.txt there), with SIGINT and SIGTERM at their
// defaults whatever the test runner was started with.
pid_t start_nbody(const fs::path& dir, const std::string& args) {
  std::vector<std::string> words{NBODY_BINARY};
  std::istringstream in(args);
  for (std::string w; in >> w;) words.push_back(w);
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const std::string where = dir.string();
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    if (::chdir(where.c_str()) != 0) ::_exit(126);
    ::dup2(::open("stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
    ::dup2(::open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// Sends sig to the nbody started in dir as pid and waits for it: its exit code (-1 when the signal
// ended it) and stderr.
Outcome stop(const fs::path& dir, pid_t pid, int sig) {
  REQUIRE(::kill(pid, sig) == 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(dir / "stderr.txt")};
}

bool has_temporary(const fs::path& dir) {
  for (const auto& name : names_in(dir))
    if (name.find(".tmp.") != std::string::npos) return true;
  return false;
}

// Waits until an output's temporary file exists in dir (the command has begun writing, or for
// `run`, is about to enter its time loop); false when the command ended first or after 60 s.
bool wait_for_temporary(const fs::path& dir, pid_t pid) {
  for (int i = 0; i < 6000; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(10))) {
    if (has_temporary(dir)) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
  }
  return false;
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// A softened Plummer sphere that takes about a second on one core.
const std::string kRun = "run --ic plummer --n 128 --seed 3 --integrator dopri5 --tol 1e-10 --eps 0.01 --engine simple";

}  // namespace

TEST_CASE("a_run_stopped_by_sigterm_writes_only_its_checkpoint_and_resume_alone_ends_it_bit_for_bit", "[cli][lifecycle]") {
  const fs::path dir = scratch("sigterm");
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(run_nbody(dir, kRun + " --t-end 4 --final-state whole.csv").exit_code == 0);
  const auto whole = std::chrono::steady_clock::now() - t0;

  const pid_t pid = start_nbody(dir, kRun + " --t-end 4 --checkpoint c.bin --final-state part.csv --diagnostics d.csv");
  REQUIRE(wait_for_temporary(dir, pid));
  std::this_thread::sleep_for(whole / 3);
  const Outcome stopped = stop(dir, pid, SIGTERM);
  CHECK(stopped.exit_code == 143);
  CHECK(lines(stopped.err) == 1);
  CHECK_THAT(stopped.err, Catch::StartsWith("nbody: interrupted at t = ") && Catch::EndsWith("; checkpoint c.bin resumes it\n"));
  CHECK(names_in(dir) == std::set<std::string>{"c.bin", "whole.csv", "whole.meta.json"});  // no partial output, no temporary

  const Outcome resumed = run_nbody(dir, "run --resume c.bin");
  REQUIRE(resumed.exit_code == 0);
  CHECK(read(dir / "part.csv") == read(dir / "whole.csv"));
  CHECK(fs::exists(dir / "d.csv"));
  CHECK(!has_temporary(dir));
}

TEST_CASE("sigint_stops_a_run_with_exit_130_and_leaves_no_file", "[cli][lifecycle]") {
  const fs::path dir = scratch("sigint");
  const pid_t pid = start_nbody(dir, kRun + " --t-end 100 --final-state f.csv --diagnostics d.csv --snapshots s.csv");
  REQUIRE(wait_for_temporary(dir, pid));
  const Outcome stopped = stop(dir, pid, SIGINT);
  CHECK(stopped.exit_code == 130);
  CHECK(lines(stopped.err) == 1);
  CHECK_THAT(stopped.err, Catch::StartsWith("nbody: interrupted at t = ") && Catch::EndsWith("; nothing saved\n"));
  CHECK(names_in(dir).empty());
}

TEST_CASE("an_interrupted_nbody_ic_exits_143_in_one_line_and_leaves_no_file", "[cli][lifecycle]") {
  const fs::path dir = scratch("ic_sigterm");
  const pid_t pid = start_nbody(dir, "ic --ic plummer --n 500000 --out big.csv");
  REQUIRE(wait_for_temporary(dir, pid));
  const Outcome stopped = stop(dir, pid, SIGTERM);
  CHECK(stopped.exit_code == 143);
  CHECK(stopped.err == "nbody: interrupted by SIGTERM; nothing saved\n");
  CHECK(names_in(dir).empty());
}

TEST_CASE("a_resume_continues_the_stored_run_and_refuses_a_changed_flag_in_one_line_naming_both_values", "[cli][lifecycle][checkpoint]") {
  const fs::path dir = scratch("resume_flags");
  const std::string run = "run --ic two-galaxies --n 32 --seed 4 --integrator dopri5 --tol 1e-9 --t-end 1.5 --r-min 1e-4";
  REQUIRE(run_nbody(dir, run + " --final-state whole.csv").exit_code == 0);
  REQUIRE(run_nbody(dir, run + " --checkpoint c.bin --stop-at 0.5 --final-state part.csv").exit_code == 0);
  struct Case {
    std::string flags, message;
  };
  const std::vector<Case> refused = {
      {"--tol 1e-8", "--resume c.bin: --tol is 1e-8 here but 1e-9 in the checkpoint's run"},
      {"--dt 0.01", "--dt is 0.01 here but not given in the checkpoint's run"},
      {"--eps 0.1", "--eps is 0.1 here but 0 (the default) in the checkpoint's run"},
      {"--precision float", "--precision is float here but double (the default) in the checkpoint's run"},
      {"--n 33", "--n is 33 here but 32 in the checkpoint's run"},
      {"--final-state c.bin", "--final-state c.bin and --checkpoint c.bin are the same file"},
      {"--t-end 0.5", "the run of checkpoint 'c.bin' is already at t = 0.5"},
  };
  for (const auto& c : refused) {
    INFO(c.flags);
    const Outcome o = run_nbody(dir, "run --resume c.bin " + c.flags);
    CHECK(o.exit_code == 2);
    CHECK(lines(o.err) == 1);
    CHECK_THAT(o.err, Catch::Contains(c.message));
  }
  // Flags equal to the stored ones (as numbers in the run's precision) are accepted; the outputs,
  // the checkpoint included, are the stored run's unless given anew.
  REQUIRE(run_nbody(dir, "run --resume c.bin --tol 1.0e-9 --n 32 --stop-at 1").exit_code == 0);
  REQUIRE(run_nbody(dir, "run --resume c.bin").exit_code == 0);
  CHECK(read(dir / "part.csv") == read(dir / "whole.csv"));
  CHECK(names_in(dir) == std::set<std::string>{"c.bin", "c.bin.bak", "part.csv", "part.meta.json", "whole.csv", "whole.meta.json"});
}

TEST_CASE("outputs_that_cannot_be_written_collide_or_overwrite_an_input_are_refused_before_the_run", "[cli][lifecycle]") {
  const fs::path dir = scratch("outputs");
  fs::create_directory(dir / "folder");
  std::ofstream(dir / "plain.txt") << "a file\n";
  REQUIRE(run_nbody(dir, "ic --ic kepler --out start.csv").exit_code == 0);
  const std::string rk4 = "run --integrator rk4 --dt 0.01 ", run = rk4 + "--ic kepler --t-end 1 ";
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {run + "--final-state folder", "--final-state folder: is a directory"},
      {run + "--diagnostics missing/d.csv", "--diagnostics missing/d.csv: folder 'missing' does not exist"},
      {run + "--summary plain.txt/s.json", "'plain.txt' is not a folder"},
      {run + "--snapshots /proc/s.csv", "cannot write in folder '/proc'"},
      {run + "--final-state out --diagnostics out.csv", "out.meta.json"},
      {run + "--final-state a.csv --summary ./folder/../a.csv", "are the same file"},
      {run + "--checkpoint c.bin --summary c.bin.bak", "the backup c.bin.bak of --checkpoint c.bin"},
      {rk4 + "--ic file:start.csv --t-end 1 --final-state start.csv",
       "--final-state start.csv would overwrite the input --ic start.csv"},
      {"ic --ic kepler --out folder", "--out folder: is a directory"},
      {rk4 + "--ic plummer --n 1000000000000 --t-end 1", "--n 1000000000000 needs about"},
      {"ic --ic plummer --n 1000000000000 --out x.csv", "--n 1000000000000 needs about"},
      {"bench --n 1000000000000", "--n 1000000000000 needs about"},
      {rk4 + "--ic kepler --t-end 0", "--t-end must be after the start time 0, got '0'"},
      {"run --ic kepler --integrator dopri5 --tol 1e-8 --t-end 1 --h-max 0", "got --h-min 0 and --h-max 0"},
  };
  const auto before = names_in(dir);
  for (const auto& c : cases) {
    INFO(c.args);
    const Outcome o = run_nbody(dir, c.args);
    CHECK(o.exit_code == 2);
    CHECK(lines(o.err) == 1);
    CHECK_THAT(o.err, Catch::Contains(c.message));
    CHECK(names_in(dir) == before);
    CHECK(fs::is_empty(dir / "folder"));
  }
}

// A run's checkpoint gives the bodies it holds (`nbody ic --ic file:CK`): those of the run's end,
// exactly as --final-state writes them, in another precision rounded once; the checkpoints of the
// other models, and a checkpoint given to `run --ic`, are refused naming what they are.
TEST_CASE("a_finished_runs_checkpoint_gives_its_final_state_through_ic", "[cli][checkpoint]") {
  const fs::path dir = scratch("checkpoint_to_ic");
  const std::string run = "run --ic plummer --n 20 --integrator rk4 --dt 0.01 --t-end 0.1 ";
  REQUIRE(run_nbody(dir, run + "--checkpoint ck.bin --final-state end.csv").exit_code == 0);
  REQUIRE(run_nbody(dir, "ic --ic file:ck.bin --out from_ck.csv").exit_code == 0);
  const auto bodies = [&](const char* name) {  // the CSV's lines, its comments left out
    std::string kept, line;
    std::istringstream in(read(dir / name));
    while (std::getline(in, line))
      if (!line.starts_with("#")) kept += line + "\n";
    return kept;
  };
  CHECK(bodies("from_ck.csv") == bodies("end.csv"));
  REQUIRE(run_nbody(dir, "ic --ic file:ck.bin --precision float --out float.csv").exit_code == 0);
  REQUIRE(run_nbody(dir, "ic --ic file:end.csv --precision float --out float_of_end.csv").exit_code == 0);
  CHECK(bodies("float.csv") == bodies("float_of_end.csv"));

  REQUIRE(run_nbody(dir, "dpd --box 4 --steps 2 --checkpoint dpd.bin").exit_code == 0);
  const Outcome dpd = run_nbody(dir, "ic --ic file:dpd.bin --out x.csv");
  CHECK(dpd.exit_code == 2);
  CHECK_THAT(dpd.err, Catch::Contains("not a checkpoint of `nbody run` (`nbody dpd --resume` continues it)"));
  const Outcome as_ic = run_nbody(dir, "run --ic file:ck.bin --integrator rk4 --dt 0.01 --t-end 1");
  CHECK(as_ic.exit_code == 2);
  CHECK_THAT(as_ic.err, Catch::Contains("is a checkpoint: `nbody run --resume ck.bin` continues its run"));
  CHECK(!fs::exists(dir / "x.csv"));
}
