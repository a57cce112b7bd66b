#include "run/command.hpp"

#include <utility>

namespace nbody::run {

Checkpoint read_run_checkpoint(const std::string& command, const std::string& path) {
  Checkpoint c = read_checkpoint(path);
  const nlohmann::json& p = c.parameters;
  const std::string model = p.is_object() ? p.value("model", std::string()) : std::string();
  if (model != command)
    throw InputError("--resume " + path + ": not a checkpoint of `nbody " + command + "`" +
                     (model.empty() ? std::string() : " (`nbody " + model + " --resume` continues it)"));
  for (const char* key : {"identity", "clocks", "parameters"})
    if (!p.contains(key) || !p[key].is_object()) throw InputError("--resume " + path + ": the checkpoint holds no " + key);
  for (const char* clock : {"samples", "snapshots", "checkpoints"}) {
    const nlohmann::json& c = p["clocks"].value(clock, nlohmann::json());
    if (!c.is_object() || !c.value("every", nlohmann::json()).is_string() || !c.value("every_steps", nlohmann::json()).is_number_unsigned() ||
        !c.value("count", nlohmann::json()).is_number_unsigned())
      throw InputError("--resume " + path + ": the checkpoint's clocks are unreadable");
  }
  if (!p["clocks"].value("origin", nlohmann::json()).is_string() || !p["clocks"].value("origin_step", nlohmann::json()).is_number_unsigned())
    throw InputError("--resume " + path + ": the checkpoint's clocks are unreadable");
  return c;
}

void check_run_files(const Files& f, std::vector<InputFile> inputs) {
  std::vector<OutputFile> outputs;
  for (const auto& [flag, path] :
       {std::pair{"--diagnostics", f.diagnostics}, {"--snapshots", f.snapshots}, {"--final-state", f.final_state}})
    if (!path.empty()) outputs.push_back(output_with_meta(flag, path));
  for (OutputFile& out : outputs) {  // HDF5 holds its provenance; a series of snapshots has its XDMF sidecar
    if (!is_hdf5_path(out.path)) continue;
    out.companions.clear();
    if (out.flag == "--snapshots") out.companions.push_back({xdmf_path_for(out.path), "XDMF time series"});
  }
  if (!f.summary.empty()) outputs.push_back({"--summary", f.summary, {}});
  if (!f.checkpoint.empty()) outputs.push_back({"--checkpoint", f.checkpoint, {{checkpoint_backup(f.checkpoint), "backup"}}});
  if (!f.resume.empty()) inputs.push_back({"--resume", f.resume, "--checkpoint"});
  check_output_files(outputs, inputs);
}

}  // namespace nbody::run
