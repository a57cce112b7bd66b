#pragma once
// What the model subcommands (`nbody dpd`, `nbody sph`) share: their checkpoint flags, their files
// checked and locked before any work (`nbody run`'s too), and the identity of the run a checkpoint
// resumes.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "io/output_set.hpp"

namespace nbody::cli {

// The files of a model run: its outputs, its checkpoint and the checkpoint it resumes.
struct ModelFiles {
  std::string diagnostics, snapshots, final_state, summary, checkpoint, resume;
  bool quiet = false;  // no progress lines
};

// --engine openmp|cuda and --cell-list BUILDER, as the particle models take them; the check, before
// any work: an unknown builder (naming the valid ones), --cell-list without --engine cuda.
void add_engine_options(CLI::App& cmd, std::string& engine, std::string& cell_list);
void check_engine_options(const std::string& engine, const std::string& cell_list, bool cell_list_given);

// --quiet, as run, sph and dpd take it.
void add_quiet_option(CLI::App& cmd, bool& quiet);

// --checkpoint, --checkpoint-every STEPS, --stop-at STEP and --resume, as the model subcommands
// take them.
void add_checkpoint_options(CLI::App& cmd, ModelFiles& f, long long& checkpoint_every, long long& stop_at);

// The files of a run, checked and locked (io/output_set.hpp): f's outputs (a CSV with its provenance
// record, an HDF5 series, the checkpoint) and inputs (f's --resume, and `inputs`). InputError, in
// one line naming the flag and the file, at the first problem.
OutputSet open_run_files(const ModelFiles& f, std::vector<InputFile> inputs = {});

// open_run_files, after an InputError naming the flag when an interval is given without its file
// (diag_every: --diag-every, snapshot_every: --snapshot-every, checkpointing: --checkpoint-every or
// --stop-at).
OutputSet open_model_files(const ModelFiles& f, bool diag_every, bool snapshot_every, bool checkpointing);

// A model's checkpoint stores its identity (the model's flags as JSON, key `model` naming the
// subcommand, each other key a flag's name without its dashes, `_` for `-`). Checks that the
// checkpoint (`stored`) is of `model` and holds every key of this command line's `identity`, and
// that each flag given anew (`given`) has the stored value; throws InputError (one line naming the
// flag and both values) otherwise.
void check_resumed_identity(const std::string& model, const std::string& resume, const nlohmann::json& identity,
                            const nlohmann::json& stored, const std::function<bool(const std::string&)>& given);

// The end of a model run: the final particles (final_state(): the CSV's text, asked only when
// --final-state is given) and the summary written, then every output committed with its
// provenance record (parameters).
void write_model_outputs(OutputSet& outputs, const ModelFiles& f, const std::function<std::string()>& final_state,
                         const nlohmann::json& summary, const nlohmann::json& parameters);

// A model's flags are listed once, as `fields(options, f)` calling f(key, member) for each: the
// identity of a run (key `model` and each flag's value) ...
template <class Options, class Fields>
nlohmann::json identity_of(const std::string& model, const Options& o, Fields fields) {
  nlohmann::json identity = {{"model", model}};
  fields(o, [&](const char* key, const auto& value) { identity[key] = value; });
  return identity;
}

// ... and the options of the run a checkpoint holds: o (outputs, end, ...) with the checkpoint's
// model flags, each flag given anew checked against them (check_resumed_identity).
template <class Options, class Fields>
Options resumed_options(const std::string& model, const Options& o, const nlohmann::json& stored, Fields fields) {
  check_resumed_identity(model, o.resume, identity_of(model, o, fields), stored, o.given);
  Options r = o;
  fields(r, [&](const char* key, auto& value) { stored.at(key).get_to(value); });
  return r;
}

}  // namespace nbody::cli
