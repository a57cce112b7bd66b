#include "cli/model.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "cli/parse.hpp"
#include "core/error.hpp"
#include "io/snapshot_hdf5.hpp"
#include "shortrange/cuda/cell_list.hpp"

namespace nbody::cli {

void add_checkpoint_options(CLI::App& cmd, ModelFiles& f, long long& checkpoint_every, long long& stop_at) {
  cmd.add_option("--checkpoint", f.checkpoint,
                 "save the whole run here, atomically (the previous one kept as FILE.bak): at the end, at --stop-at, every "
                 "--checkpoint-every steps and when interrupted");
  cmd.add_option("--checkpoint-every", checkpoint_every, "steps between checkpoints (needs --checkpoint)")
      ->check(whole_number<long long>(1));
  cmd.add_option("--stop-at", stop_at, "stop after this step, save the checkpoint and write this part's outputs")
      ->check(whole_number<long long>(1));
  cmd.add_option("--resume", f.resume, "continue the run saved in this checkpoint, bit for bit");
}

void add_engine_options(CLI::App& cmd, std::string& engine, std::string& cell_list) {
  cmd.add_option("--engine", engine,
                 "where the steps are taken: openmp (the CPU's cores) or cuda (the GPU: the same bits as openmp, step for step)")
      ->capture_default_str()
      ->check(CLI::IsMember({"openmp", "cuda"}));
  std::string builders;
  for (const auto& b : shortrange::cell_builders) builders += std::string(builders.empty() ? "" : ", ") + std::string(b.name);
  cmd.add_option("--cell-list", cell_list, "--engine cuda: the cell-list builder, one of " + builders +
                                               " (the same lists: a run's bits do not depend on it)")
      ->capture_default_str();
}

void check_engine_options(const std::string& engine, const std::string& cell_list, bool cell_list_given) {
  (void)shortrange::cell_builder_named(cell_list);  // an unknown name: the valid ones
  if (engine != "cuda" && cell_list_given) throw InputError("--cell-list applies to --engine cuda");
}

void add_quiet_option(CLI::App& cmd, bool& quiet) {
  cmd.add_flag("--quiet", quiet,
               "print no progress lines (a long run prints one on stderr every 10 s: where it stands, steps per second, "
               "the time left and when it should end)");
}

OutputSet open_run_files(const ModelFiles& f, std::vector<InputFile> inputs) {
  std::vector<OutputFile> outputs;
  for (const auto& [flag, path] :
       {std::pair{"--diagnostics", f.diagnostics}, {"--snapshots", f.snapshots}, {"--final-state", f.final_state}})
    if (!path.empty())  // HDF5 holds its provenance; HDF5 snapshots are a file per time
      outputs.push_back({flag, path,
                         !is_hdf5_path(path)                  ? OutputKind::recorded
                         : flag == std::string("--snapshots") ? OutputKind::series
                                                              : OutputKind::plain});
  if (!f.summary.empty()) outputs.push_back({"--summary", f.summary, OutputKind::plain});
  if (!f.checkpoint.empty()) outputs.push_back({"--checkpoint", f.checkpoint, OutputKind::checkpoint});
  if (!f.resume.empty()) inputs.push_back({"--resume", f.resume, "--checkpoint"});
  return OutputSet(outputs, inputs);
}

OutputSet open_model_files(const ModelFiles& f, bool diag_every, bool snapshot_every, bool checkpointing) {
  if (f.checkpoint.empty() && checkpointing) throw InputError("--checkpoint-every and --stop-at need --checkpoint FILE");
  if (f.snapshots.empty() && snapshot_every) throw InputError("--snapshot-every needs --snapshots FILE");
  if (f.diagnostics.empty() && diag_every) throw InputError("--diag-every needs --diagnostics FILE");
  for (const auto& [flag, path] : {std::pair{"--snapshots", f.snapshots}, {"--final-state", f.final_state}})
    if (is_hdf5_path(path))
      throw InputError(std::string(flag) + " " + path + ": the particle models write CSV (give a .csv name); HDF5 snapshots are nbody run's");
  return open_run_files(f);
}

void write_model_outputs(OutputSet& outputs, const ModelFiles& f, const std::function<std::string()>& final_state,
                         const nlohmann::json& summary, const nlohmann::json& parameters) {
  if (!f.final_state.empty()) outputs.stream(f.final_state) << final_state();
  if (!f.summary.empty()) outputs.stream(f.summary) << summary.dump(2) << "\n";
  outputs.commit(parameters);
}

void check_resumed_identity(const std::string& model, const std::string& resume, const nlohmann::json& identity,
                            const nlohmann::json& stored, const std::function<bool(const std::string&)>& given) {
  if (stored.value("model", std::string()) != model)
    throw InputError("--resume " + resume + ": not a checkpoint of `nbody " + model + "` (`nbody " +
                     stored.value("model", std::string("run")) + " --resume` continues it)");
  for (const auto& [key, value] : identity.items()) {
    if (key == "model") continue;
    if (!stored.contains(key)) throw InputError("--resume " + resume + ": the checkpoint does not hold the run's " + key);
    std::string flag = "--" + key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (given(flag) && stored[key] != value)
      throw InputError("--resume " + resume + ": the checkpoint's run has " + flag + " " + stored[key].dump() + ", this one " +
                       value.dump() + "; leave out the flags that change it");
  }
}

}  // namespace nbody::cli
