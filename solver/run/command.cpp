#include "run/command.hpp"

#include <utility>

namespace nbody::run {

Checkpoint read_run_checkpoint(const std::string& command, const std::string& path, std::string given) {
  if (given.empty()) given = "--resume " + path;
  Checkpoint c = read_checkpoint(path);
  const nlohmann::json& p = c.parameters;
  const std::string model = checkpoint_model(c);
  if (model != command)
    throw InputError(given + ": not a checkpoint of `nbody " + command + "`" +
                     (model.empty() ? std::string() : " (`nbody " + model + " --resume` continues it)"));
  for (const char* key : {"identity", "clocks", "parameters"})
    if (!p.contains(key) || !p[key].is_object()) throw InputError(given + ": the checkpoint holds no " + key);
  for (const char* clock : {"samples", "snapshots", "checkpoints"}) {
    const nlohmann::json& c = p["clocks"].value(clock, nlohmann::json());
    if (!c.is_object() || !c.value("every", nlohmann::json()).is_string() || !c.value("every_steps", nlohmann::json()).is_number_unsigned() ||
        !c.value("count", nlohmann::json()).is_number_unsigned())
      throw InputError(given + ": the checkpoint's clocks are unreadable");
  }
  if (!p["clocks"].value("origin", nlohmann::json()).is_string() || !p["clocks"].value("origin_step", nlohmann::json()).is_number_unsigned())
    throw InputError(given + ": the checkpoint's clocks are unreadable");
  if (p.contains("part") && !p["part"].is_object()) throw InputError(given + ": the checkpoint's part is unreadable");
  if (p.contains("snapshots_written") && !p["snapshots_written"].is_number_unsigned())
    throw InputError(given + ": the checkpoint's count of snapshots is unreadable");
  return c;
}

OutputSet open_run_files(const Files& f, std::vector<InputFile> inputs) {
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

}  // namespace nbody::run
