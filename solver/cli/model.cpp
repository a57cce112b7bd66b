#include "cli/model.hpp"

#include <algorithm>
#include <charconv>

#include "cli/parse.hpp"
#include "core/error.hpp"
#include "io/snapshot_hdf5.hpp"
#include "particles/cells/cell_list_cuda.hpp"

namespace nbody::cli {

void add_contract_options(CLI::App& cmd, ContractOptions& o, const std::string& unit, double diag_budget) {
  o.diag_budget = diag_budget;
  const std::string every = unit == "steps" ? "steps" : "simulated time";
  cmd.add_option("--checkpoint", o.files.checkpoint,
                 "save the whole run here, atomically (the previous checkpoint kept as FILE.bak): at the end of the run, "
                 "when it is interrupted (SIGINT, SIGTERM), at --stop-at, and every --checkpoint-every if given");
  cmd.add_option("--checkpoint-every", o.checkpoint_every,
                 "also save the checkpoint at the first step end after each multiple of this many " + every +
                     " (needs --checkpoint)");
  cmd.add_option("--stop-at", o.stop_at,
                 (unit == "steps" ? std::string("stop after this step") : std::string("stop at the first step end at or after this time")) +
                     ", save the checkpoint and write this part's outputs (runs in parts; needs --checkpoint)");
  cmd.add_option("--resume", o.files.resume,
                 "continue the run saved in this checkpoint, bit for bit: the model's flags come from it (one given anew must "
                 "have the same value); the end, --stop-at, the outputs, the checkpoint and where the steps are taken may change");
  cmd.add_flag("--quiet", o.files.quiet,
               "print no progress lines (a long run prints one on stderr every 10 s: where it stands, steps per second, "
               "the time left and when it should end)");
  cmd.add_option("--diag-budget", o.diag_budget,
                 "without --diag-every: the largest share of the run's time its diagnostic samples may take; a sample that "
                 "falls due while the samples so far took more is skipped (the summary counts them), so which are taken depends on "
                 "the machine's speed; 1 takes every one. The first and the last sample are always taken")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
}

void add_engine_options(CLI::App& cmd, std::string& engine, std::string& cell_list) {
  cmd.add_option("--engine", engine,
                 "where the steps are taken: openmp (the CPU's cores) or cuda (the GPU: the same bits as openmp, step for step)")
      ->capture_default_str()
      ->check(CLI::IsMember({"openmp", "cuda"}));
  std::string builders;
  for (const auto& b : particles::cell_builders) builders += std::string(builders.empty() ? "" : ", ") + std::string(b.name);
  cmd.add_option("--cell-list", cell_list, "--engine cuda: the cell-list builder, one of " + builders +
                                               " (the same lists: a run's bits do not depend on it)")
      ->capture_default_str();
}

void check_engine_options(const std::string& engine, const std::string& cell_list, bool cell_list_given) {
  (void)particles::cell_builder_named(cell_list);  // an unknown name: the valid ones
  if (engine != "cuda" && cell_list_given) throw InputError("--cell-list applies to --engine cuda");
}

OutputSet open_contract_files(const ContractOptions& o, bool snapshot_every_given, std::vector<InputFile> inputs) {
  const run::Files& f = o.files;
  if (f.checkpoint.empty() && (!o.checkpoint_every.empty() || !o.stop_at.empty()))
    throw InputError("--checkpoint-every and --stop-at need --checkpoint FILE");
  if (f.snapshots.empty() && snapshot_every_given) throw InputError("--snapshot-every needs --snapshots FILE");
  return run::open_run_files(f, std::move(inputs));
}

void check_particle_outputs(const ContractOptions& o) {
  for (const auto& [flag, path] : {std::pair{"--snapshots", o.files.snapshots}, {"--final-state", o.files.final_state}})
    if (is_hdf5_path(path))
      throw InputError(std::string(flag) + " " + path + ": the particle models write CSV (give a .csv name); HDF5 snapshots are nbody run's");
}

std::uint64_t parse_steps(const std::string& text, const std::string& flag) {
  std::uint64_t v = 0;
  const char* e = text.data() + text.size();
  const auto r = std::from_chars(text.data(), e, v);
  if (r.ec != std::errc() || r.ptr != e || v == 0)
    throw InputError(flag + ": " + quoted_excerpt(text) + " is not a whole number of steps of at least 1");
  return v;
}

std::string flag_of(const std::string& key) {
  std::string flag = "--" + key;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string key_of(std::string_view flag) {
  std::string key(flag.substr(2));
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

namespace detail {

void refuse_changed_flag(const std::string& resume, const std::string& key, const nlohmann::json& stored,
                         const nlohmann::json& given, const nlohmann::json& default_value) {
  auto text = [](const nlohmann::json& j) {
    return j.is_null() || j == "" ? std::string("not given") : j.is_string() ? j.get<std::string>() : j.dump();
  };
  const bool is_default = stored == default_value && !(stored.is_null() || stored == "");
  throw InputError("--resume " + resume + ": " + flag_of(key) + " is " + text(given) + " here but " + text(stored) +
                   (is_default ? " (the default)" : "") + " in the checkpoint's run; leave it out to continue that run");
}
}  // namespace detail

}  // namespace nbody::cli
