// `nbody ic`: write an initial condition (or, for kepler, the analytic state at --at-time).
#include <algorithm>
#include <cstdio>
#include <type_traits>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "cli/time_spec.hpp"
#include "core/memory.hpp"
#include "driver/simulation.hpp"
#include "io/checkpoint.hpp"
#include "io/output_set.hpp"
#include "io/snapshot_hdf5.hpp"
#include "io/state_csv.hpp"
#include "run/command.hpp"

namespace nbody::cli {

namespace {

// The bodies of a gravity run's checkpoint (`nbody run --checkpoint`), at the time it was saved,
// in T: the state a finished run ends with, or where an interrupted one stopped.
template <class T>
State<T> checkpoint_state(const std::string& path) {
  const Checkpoint c = run::read_run_checkpoint("run", path, "--ic file:" + path);
  const nlohmann::json& identity = c.parameters["identity"];
  if (!identity.contains("precision") || !identity["precision"].is_string())
    throw InputError("--ic file:" + path + ": the checkpoint names no precision");
  return dispatch_precision(identity["precision"].get<std::string>(), [&]<class U>() {
    ArchiveReader r(c.state);
    State<U> saved;
    try {
      saved = Simulation<U>::saved_state(r);
    } catch (const InputError& e) {
      throw InputError("--ic file:" + path + ": " + e.what());
    }
    if constexpr (std::is_same_v<U, T>) {
      return saved;
    } else {  // through the text that reads back exactly, rounded once to T
      State<T> s(saved.size());
      const auto to_t = [](const U& x) { return RealTraits<T>::parse(RealTraits<U>::format(x), "checkpoint value"); };
      std::transform(saved.mass.begin(), saved.mass.end(), s.mass.begin(), to_t);
      std::transform(saved.y.begin(), saved.y.end(), s.y.begin(), to_t);
      s.t = to_t(saved.t);
      return s;
    }
  });
}

template <class T>
int ic_typed(const IcOptions& o) {
  std::vector<InputFile> inputs;
  if (!ic_file(o.ic).empty()) inputs.push_back({"--ic", ic_file(o.ic), ""});
  OutputSet outputs({{"--out", o.out, is_hdf5_path(o.out) ? OutputKind::plain : OutputKind::recorded}}, inputs);
  // The bodies, and the text of a CSV or HDF5's arrays in double as the file is built (core/memory.hpp).
  const BodyMemory body{is_hdf5_path(o.out) ? 14.0 : 7.0, 0, is_hdf5_path(o.out) ? 0 : state_text_bytes<T>()};
  if (o.ic.n) check_memory(memory_need<T>(*o.ic.n, body), "--n " + std::to_string(*o.ic.n), o.skip_memory_check);
  State<T> s;
  if (o.at_time.empty() && looks_like_checkpoint(ic_file(o.ic))) {
    if (o.ic.n) throw InputError("--n cannot be combined with --ic file: (the file sets N)");
    s = checkpoint_state<T>(ic_file(o.ic));
  } else if (o.at_time.empty()) {
    s = make_initial_state<T>(o.ic);
  } else {
    const T G = RealTraits<T>::parse(o.ic.G, "--G");
    const T t = parse_time<T>(o.at_time, "--at-time", [&] { return orbital_period(o.ic, kepler_state_at<T>(o.ic, T(0)), G); });
    if (!is_finite(t)) throw InputError("--at-time must be finite, got '" + o.at_time + "'");
    s = kepler_state_at<T>(o.ic, t);  // says so if the IC is not kepler
  }
  if (!o.ic.n)
    check_memory(memory_need<T>(s.size(), body), "the " + std::to_string(s.size()) + " bodies of --ic " + o.ic.name,
                 o.skip_memory_check);
  const nlohmann::json parameters = {{"command_line", o.command_line},
                                     {"precision", o.precision},
                                     {"initial_condition", to_json(o.ic)},
                                     {"G", o.ic.G},
                                     {"at_time", o.at_time}};
  if (is_hdf5_path(o.out))  // a snapshot at the start time, its provenance inside
    write_hdf5_snapshot(outputs, o.out, s, parameters);
  else
    outputs.stream(o.out) << format_state_csv(s);
  outputs.commit(parameters);
  std::printf("wrote %zu bodies (%s) to %s\n", s.size(), o.precision.c_str(), o.out.c_str());
  return 0;
}
}  // namespace

int ic_command(const IcOptions& o) {
  return dispatch_precision(o.precision, [&]<class T>() { return ic_typed<T>(o); });
}

}  // namespace nbody::cli
