#pragma once
// What the model commands (`nbody run`, `dpd`, `sph`) share on the command line: the flags of the
// run contract (run/command.hpp: outputs, checkpoints, progress, the diagnostics' share of the
// time) and a run's identity: the model's flags that make the run what it is, listed once per
// model as `fields(options, f)` calling f(key, member) for each. A checkpoint keeps them; a resume
// takes them from it and refuses one given anew with another value.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "run/command.hpp"

namespace nbody::cli {

// The contract's flags as given: the files, and the intervals and marks as text (each model reads
// them in its own units: simulated time, or steps).
struct ContractOptions {
  run::Files files;
  std::string checkpoint_every, stop_at;
  double diag_budget = 1;
  std::vector<std::string> command_line;
  std::function<bool(const std::string&)> given = [](const std::string&) { return false; };  // on the command line?
};

// --diagnostics, --snapshots, --final-state and --summary are the model's own (their help names
// its columns); these are every model's: --checkpoint, --checkpoint-every and --stop-at (in
// `unit`: "time" or "steps"), --resume, --quiet, --diag-budget (its default: the model's; 1 where
// a sample costs about what a step does).
void add_contract_options(CLI::App& cmd, ContractOptions& o, const std::string& unit, double diag_budget);

// --engine openmp|cuda and --cell-list BUILDER, as the particle models take them; the check, before
// any work: an unknown builder (naming the valid ones), --cell-list without --engine cuda.
void add_engine_options(CLI::App& cmd, std::string& engine, std::string& cell_list);
void check_engine_options(const std::string& engine, const std::string& cell_list, bool cell_list_given);

// Before any work: an interval without its file (--snapshot-every without --snapshots, ...), then
// every file, checked and locked (run::open_run_files). (--diag-every without --diagnostics
// samples for the summary.)
OutputSet open_contract_files(const ContractOptions& o, bool snapshot_every_given, std::vector<InputFile> inputs = {});

// The particle models write CSV: an HDF5 name for --snapshots or --final-state is refused.
void check_particle_outputs(const ContractOptions& o);

// A whole number of steps from a flag's text (--checkpoint-every, --stop-at of the particle models).
std::uint64_t parse_steps(const std::string& text, const std::string& flag);

namespace detail {
template <class V>
nlohmann::json to_field(const V& v) {
  if constexpr (requires { v.has_value(); }) return v ? nlohmann::json(*v) : nlohmann::json();
  else return v;
}
template <class V>
void from_field(const nlohmann::json& j, V& v) {
  if constexpr (requires { v.has_value(); }) {
    if (j.is_null()) v.reset();
    else v = j.get<typename V::value_type>();
  } else {
    j.get_to(v);
  }
}
// Throws InputError naming the flag and both values.
[[noreturn]] void refuse_changed_flag(const std::string& resume, const std::string& key, const nlohmann::json& stored,
                                      const nlohmann::json& given, const nlohmann::json& default_value);
}  // namespace detail

// A field's key and its flag: "mass_ratio" and "--mass-ratio".
std::string flag_of(const std::string& key);
std::string key_of(std::string_view flag);

// The contract's flags that each part of a run chooses for itself, the checkpoint's unless given
// anew: the outputs, the checkpoint and its interval, --quiet, --diag-budget.
constexpr auto contract_part = [](auto& c, auto&& f) {
  f("diagnostics", c.files.diagnostics), f("snapshots", c.files.snapshots), f("final_state", c.files.final_state);
  f("summary", c.files.summary), f("checkpoint", c.files.checkpoint), f("checkpoint_every", c.checkpoint_every);
  f("quiet", c.files.quiet), f("diag_budget", c.diag_budget);
};

// The fields' keys and values (a run's identity, or its part's choices).
template <class Options, class Fields>
nlohmann::json fields_of(const Options& o, Fields fields) {
  nlohmann::json j = nlohmann::json::object();
  fields(o, [&](const std::string& key, const auto& value) { j[key] = detail::to_field(value); });
  return j;
}

// The options of the run a checkpoint holds (`stored`: its identity): o (outputs, end, ...) with
// the stored fields. A flag given anew (o.contract.given("--KEY"), `_` in the key for `-`) must
// have the stored value: same(stored, given) decides (by default, equal JSON).
template <class Options, class Fields>
Options resumed_options(const Options& o, const nlohmann::json& stored, Fields fields,
                        const std::function<bool(const nlohmann::json&, const nlohmann::json&)>& same = {}) {
  Options r = o;
  const std::string& resume = o.contract.files.resume;
  const nlohmann::json defaults = fields_of(Options{}, fields);
  fields(r, [&](const std::string& key, auto& value) {
    if (!stored.contains(key)) throw InputError("--resume " + resume + ": the checkpoint does not hold the run's " + key);
    const nlohmann::json given = detail::to_field(value);
    if (o.contract.given(flag_of(key)) && stored[key] != given && !(same && same(stored[key], given)))
      detail::refuse_changed_flag(resume, key, stored[key], given, defaults[key]);
    try {
      detail::from_field(stored[key], value);
    } catch (const nlohmann::json::exception&) {
      throw InputError("--resume " + resume + ": the checkpoint's " + key + " is unreadable");
    }
  });
  return r;
}

// o with the part's choices of the checkpoint (`stored`) where not given anew.
template <class Options, class Fields>
Options inherited_options(const Options& o, const nlohmann::json& stored, Fields fields) {
  Options r = o;
  fields(r, [&](const std::string& key, auto& value) {
    if (o.contract.given(flag_of(key)) || !stored.contains(key)) return;
    try {
      detail::from_field(stored[key], value);
    } catch (const nlohmann::json::exception&) {
      throw InputError("--resume " + o.contract.files.resume + ": the checkpoint's " + key + " is unreadable");
    }
  });
  return r;
}

}  // namespace nbody::cli
