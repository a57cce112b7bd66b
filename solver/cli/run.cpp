// `nbody run`: check and lock the outputs, parse the flags in the run's precision, integrate, and
// write the outputs, which appear only if the whole run succeeds (io/output_set.hpp). A SIGINT or
// SIGTERM stops the run between two steps: the checkpoint, when one is asked for, is written and
// the other outputs are not (they would be partial); exit 128 + signal.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "cli/time_spec.hpp"
#include "core/interrupt.hpp"
#include "core/memory.hpp"
#include "driver/simulation.hpp"
#include "engines/engine.hpp"
#include "io/archive.hpp"
#include "io/checkpoint.hpp"
#include "io/output_set.hpp"
#include "io/provenance.hpp"
#include "io/snapshot_hdf5.hpp"
#include "io/state_csv.hpp"
#include "mpi/ranks.hpp"

namespace nbody::cli {

namespace {

constexpr const char* kDiagnosticsHeader =
    "t,steps,fevals,rejected,dt,E,dE_rel,dE_rel_max,P_rel,L_rel,com_x,com_y,com_z,min_pair_dist";

template <class T>
std::string diagnostics_row(const Sample<T>& s) {
  auto f = [](T x) { return RealTraits<T>::format(x); };
  const auto& c = s.snapshot.centre_of_mass;
  return f(s.t) + "," + std::to_string(s.counters.steps) + "," + std::to_string(s.force_evaluations) + "," +
         std::to_string(s.counters.rejected) + "," + f(s.dt) + "," + f(s.snapshot.energy) + "," + f(s.drift.dE_rel) + "," +
         f(s.drift.dE_rel_max) + "," + f(s.drift.P_rel) + "," + f(s.drift.L_rel) + "," + f(c[0]) + "," + f(c[1]) + "," +
         f(c[2]) + "," + f(s.snapshot.min_pair_distance) + "\n";
}

template <class T>
StepOptions<T> parse_steps(const RunOptions& o, const std::function<T(const std::string&, const std::string&)>& time) {
  StepOptions<T> steps;
  steps.order = o.order;
  steps.compensated = o.compensated == "state" || o.compensated == "both";
  steps.controller = o.controller == "subdivide" ? Controller::subdivide : Controller::pi;
  steps.stepping = o.stepping == "host" ? Stepping::host : o.stepping == "device" ? Stepping::device : Stepping::automatic;
  steps.ias15_criterion = o.ias15_criterion == "b6" ? Ias15Criterion::b6 : Ias15Criterion::prs23;
  const bool tol = !o.tol.empty(), atol = !o.atol.empty(), rtol = !o.rtol.empty();
  if (tol && (atol || rtol)) throw InputError("give either --tol or --atol with --rtol, not both");
  const bool subdivide = o.controller == "subdivide";  // S0's scheme uses only the absolute threshold
  if (atol != rtol && !(subdivide && atol)) throw InputError("--atol and --rtol go together (or use --tol for both)");
  steps.adaptive = tol || atol;
  if (steps.adaptive) {
    steps.atol = parse_positive<T>(tol ? o.tol : o.atol, tol ? "--tol" : "--atol");
    steps.rtol = tol ? steps.atol : rtol ? parse_non_negative<T>(o.rtol, "--rtol") : T(0);
    if (!o.dt.empty()) steps.dt = time(o.dt, "--dt");
    if (!o.h_min.empty()) steps.h_min = time(o.h_min, "--h-min");
    if (!o.h_max.empty()) steps.h_max = time(o.h_max, "--h-max");
    if (!(steps.h_min >= T(0) && steps.h_max > steps.h_min))
      throw InputError("need 0 <= --h-min < --h-max, got --h-min " + RealTraits<T>::format(steps.h_min) + " and --h-max " +
                       RealTraits<T>::format(steps.h_max));
  } else {
    if (o.dt.empty())
      throw InputError("give a step: --dt H (fixed step) or --tol TOL (adaptive; methods with an error estimate)");
    if (!o.h_min.empty() || !o.h_max.empty()) throw InputError("--h-min and --h-max apply to adaptive runs (--tol)");
    if (o.controller != "pi") throw InputError("--controller applies to adaptive runs (--tol)");
    steps.dt = time(o.dt, "--dt");
  }
  if (steps.dt < T(0) || (!steps.adaptive && !(steps.dt > T(0)))) throw InputError("--dt must be positive, got '" + o.dt + "'");
  if (o.ias15_criterion != "prs23" && o.integrator != "gauss-radau15")
    throw InputError("--ias15-criterion is gauss-radau15's step criterion, not " + o.integrator + "'s");
  if (o.ias15_criterion != "prs23" && !steps.adaptive) throw InputError("--ias15-criterion applies to adaptive runs (--tol)");
  return steps;
}

// The parameters that make a run what it is: a resume must match them.
// landing_every: the snapshot interval adaptive steps land on (it shapes the trajectory), or 0.
template <class T>
nlohmann::json run_identity(const RunOptions& o, const StepOptions<T>& steps, std::size_t n, T landing_every) {
  auto f = [](T x) { return RealTraits<T>::format(x); };
  return {{"precision", o.precision},
          {"lands_on_snapshots_every", landing_every > T(0) ? f(landing_every) : std::string()},
          {"integrator", o.integrator},
          {"n", n},
          {"force_law", to_json(o.force)},
          {"compensated", o.compensated},
          {"steps", {{"adaptive", steps.adaptive}, {"dt", f(steps.dt)}, {"atol", f(steps.atol)}, {"rtol", f(steps.rtol)},
                     {"h_min", f(steps.h_min)}, {"h_max", f(steps.h_max)}, {"order", steps.order}, {"controller", o.controller},
                     {"ias15_criterion", o.ias15_criterion}}}};
}

// A resume continues the run its checkpoint holds: the first identity key (path) that differs,
// in one line. (The command line already had the checkpoint's flags, cli/resume.hpp: this catches
// what flags cannot say, e.g. another version's defaults.)
void check_same_run(const nlohmann::json& identity, const Checkpoint& c, const std::string& file) {
  nlohmann::json was = nlohmann::json::object();
  for (const auto& [key, value] : identity.items()) was[key] = c.parameters.value(key, nlohmann::json());
  const auto patch = nlohmann::json::diff(was, identity);
  if (patch.empty()) return;
  const nlohmann::json::json_pointer at(patch[0]["path"].get<std::string>());
  auto text = [&](const nlohmann::json& j) { return j.contains(at) ? j.at(at).dump() : std::string("nothing"); };
  std::string name = at.to_string().substr(1);
  std::replace(name.begin(), name.end(), '/', '.');
  throw InputError("--resume " + file + ": the checkpoint's run has " + name + " = " + text(was) + ", this one " +
                   text(identity) + "; leave out the flags that change it");
}

template <class T>
int run_typed(const RunOptions& o, OutputSet& outputs) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (o.checkpoint.empty() && (!o.checkpoint_every.empty() || !o.stop_at.empty()))
    throw InputError("--checkpoint-every and --stop-at need --checkpoint FILE");
  if (o.snapshots.empty() && !o.snapshot_every.empty()) throw InputError("--snapshot-every needs --snapshots FILE");
  ForceLaw<T> law = parse_force_law<T>(o.force);
  law.compensated = o.compensated == "forces" || o.compensated == "both";

  // The start: a checkpoint (whose state opens its archive) or the initial condition, N checked
  // against the memory before the bodies are made (built-in) or the integrator's stages are.
  std::optional<Checkpoint> resumed;
  State<T> initial;
  if (!o.resume.empty()) {
    resumed = read_checkpoint(o.resume);
    if (const std::string was = resumed->parameters.value("precision", ""); was != o.precision)
      throw InputError("checkpoint '" + o.resume + "' holds a run in precision " + was + ", not " + o.precision);
    ArchiveReader r(resumed->state);
    r.get(initial.mass);
    r.get(initial.y);
    r.get(initial.t);
  } else {
    if (o.ic.n) check_memory_for_bodies<T>(*o.ic.n, "--n " + std::to_string(*o.ic.n));
    initial = make_initial_state<T>(o.ic);
  }
  if (resumed || !o.ic.n)
    check_memory_for_bodies<T>(initial.size(), "the " + std::to_string(initial.size()) + " bodies of " +
                                                   (resumed ? "--resume " + o.resume : "--ic " + o.ic.name));
  // The time unit P: the orbital period of the original start (kept in the checkpoint).
  std::optional<T> period_value;
  if (resumed) {
    if (const auto& p = resumed->parameters["period"]; p.is_string()) period_value = RealTraits<T>::parse(p.get<std::string>(), "period");
  } else if (initial.size() == 2) {
    try {
      period_value = orbital_period(o.ic, initial, law.G);
    } catch (const InputError&) {
    }
  }
  const std::function<T()> period = [&] {
    if (!period_value) return orbital_period(o.ic, initial, law.G);  // throws the reason
    return *period_value;
  };
  const std::function<T(const std::string&, const std::string&)> time = [&](const std::string& text, const std::string& flag) {
    const T v = parse_time<T>(text, flag, period);
    if (!is_finite(v) || v < T(0)) throw InputError(flag + " must be a finite time >= 0, got '" + text + "'");
    return v;
  };
  const T t_end = time(o.t_end, "--t-end");
  if (!(t_end > initial.t))
    throw InputError(resumed ? "--t-end " + o.t_end + ": the run of checkpoint '" + o.resume + "' is already at t = " +
                                   RealTraits<T>::format(initial.t) + "; give a later --t-end to extend it"
                             : "--t-end must be after the start time " + RealTraits<T>::format(initial.t) + ", got '" +
                                   o.t_end + "'");
  const StepOptions<T> steps = parse_steps<T>(o, time);
  // Intervals not given: the original run's (a resume keeps its clocks), else a fraction of t_end.
  auto interval = [&](const std::string& text, const std::string& flag, const std::string& key, T fraction) {
    const auto stored = resumed ? resumed->parameters.value(key, std::string()) : std::string();
    const T every = !text.empty() ? time(text, flag) : !stored.empty() ? RealTraits<T>::parse(stored, key) : t_end * fraction;
    if (!(every > T(0))) throw InputError(flag + " must be positive");
    return every;
  };
  const T diag_every = interval(o.diag_every, "--diag-every", "diag_every", T(1) / T(1000));
  RunHooks<T> hooks;
  if (!o.checkpoint_every.empty() && !((hooks.checkpoint_every = time(o.checkpoint_every, "--checkpoint-every")) > T(0)))
    throw InputError("--checkpoint-every must be positive");
  if (!o.stop_at.empty()) hooks.stop_at = time(o.stop_at, "--stop-at");
  if (!o.snapshots.empty())
    hooks.snapshot_every = interval(o.snapshot_every, "--snapshot-every", "snapshot_every", T(1) / T(100));
  hooks.interrupted = [] { return mpi::interrupt_signal() != 0; };  // under mpiexec: as all ranks agreed
  // The default: the first engine of the registry, or with compensated force sums the first that
  // has them (the registry refuses an engine without them).
  std::string engine = o.engine;
  for (const auto& e : engine_table<T>())
    if (engine.empty() && (!law.compensated || e.can.compensated_forces)) engine = e.name;
  check_engine_for_ranks(engine);

  nlohmann::json identity = run_identity(o, steps, initial.size(), steps.adaptive ? hooks.snapshot_every : T(0));
  if (resumed) check_same_run(identity, *resumed, o.resume);
  nlohmann::json checkpoint_parameters = identity;
  checkpoint_parameters["period"] = period_value ? nlohmann::json(RealTraits<T>::format(*period_value)) : nlohmann::json();
  checkpoint_parameters["command_line"] = o.command_line;
  checkpoint_parameters["diag_every"] = RealTraits<T>::format(diag_every);
  if (!o.snapshots.empty()) checkpoint_parameters["snapshot_every"] = RealTraits<T>::format(hooks.snapshot_every);

  check_tree_flags(o.force, find_engine<T>(engine).can.tree, engine);
  Simulation<T> sim(initial, law, engine, o.integrator, steps);
  sim.engine().set_launch(o.launch);
  checkpoint_parameters["engine"] = engine;
  if (resumed) {
    ArchiveReader r(resumed->state);
    sim.load(r);
  }

  std::ostream* diagnostics = o.diagnostics.empty() ? nullptr : &outputs.stream(o.diagnostics);
  if (diagnostics) *diagnostics << kDiagnosticsHeader << "\n";
  std::optional<Hdf5Snapshots> hdf5_snapshots;  // one file per time, numbered on from the resumed run's
  std::uint64_t snapshots_taken = resumed ? resumed->parameters.value("snapshots_taken", std::uint64_t{0}) : 0;
  if (is_hdf5_path(o.snapshots)) {
    hdf5_snapshots.emplace(outputs, o.snapshots, checkpoint_parameters, snapshots_taken);
    hooks.snapshot = [&](const State<T>& s) { hdf5_snapshots->write(s), ++snapshots_taken; };
  } else if (!o.snapshots.empty()) {
    std::ostream& snapshots = outputs.stream(o.snapshots);
    snapshots << kSnapshotHeader << "\n";
    hooks.snapshot = [&](const State<T>& s) { snapshots << format_snapshot_rows(s), ++snapshots_taken; };
  }
  if (!o.checkpoint.empty())
    hooks.checkpoint = [&] {
      checkpoint_parameters["snapshots_taken"] = snapshots_taken;
      checkpoint_parameters["device"] = sim.engine().device_info();  // GPU: the device and launch shape
      ArchiveWriter w;
      sim.save(w);
      write_checkpoint(o.checkpoint, {checkpoint_parameters, w.bytes()});
    };
  if (!o.quiet) hooks.progress = [](const std::string& line) { std::fprintf(stderr, "nbody: %s\n", line.c_str()); };
  std::optional<Sample<T>> last;
  std::optional<DeferInterrupts> defer(std::in_place);  // SIGINT, SIGTERM: the time loop stops between two steps
  const bool completed = sim.run(
      t_end, diag_every,
      [&](const Sample<T>& s) {
        if (diagnostics) *diagnostics << diagnostics_row(s);
        last = s;
      },
      hooks);
  defer.reset();  // from here on a signal acts at once
  // Interrupted: the checkpoint (written by the driver on stopping) is the run's one output; the
  // others would be partial, so their temporary files go (OutputSet).
  if (const int sig = mpi::interrupt_signal(); !completed && sig) {
    say_interrupted("interrupted at t = " + RealTraits<T>::format(sim.state().t) + "; " +
                    (o.checkpoint.empty() ? "nothing saved" : "checkpoint " + o.checkpoint + " resumes it"));
    return 128 + sig;
  }
  if (completed && hooks.checkpoint) hooks.checkpoint();  // the end: a later --t-end extends the run
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  nlohmann::json parameters = identity;
  parameters.update({{"command_line", o.command_line},
                     {"engine", engine},
                     {"initial_condition", resumed ? nlohmann::json{{"resumed_from", o.resume}} : to_json(o.ic)},
                     {"t_end", RealTraits<T>::format(t_end)},
                     {"diag_every", RealTraits<T>::format(diag_every)}});
  if (!o.snapshots.empty()) parameters["snapshot_every"] = RealTraits<T>::format(hooks.snapshot_every);
  const std::string device = sim.engine().device_info();  // GPU engines: the device and launch shape used
  parameters["device"] = device;
  // Another engine or launch shape than the checkpoint's sums the forces in another order: the
  // continuation is a valid run, but not bit for bit the uninterrupted one. Say so.
  if (resumed) {
    const std::string was_engine = resumed->parameters.value("engine", std::string("?")),
                      was_device = resumed->parameters.value("device", std::string());
    if (local_engine_name(was_engine) != local_engine_name(engine) || was_device != device)  // ranks: the same bits
      std::fprintf(stderr, "nbody: note: the checkpoint was written with engine %s%s, this part ran with %s%s: the continuation is not bit for bit the uninterrupted run\n",
                   was_engine.c_str(), was_device.empty() ? "" : (" (" + was_device + ")").c_str(), engine.c_str(),
                   device.empty() ? "" : (" (" + device + ")").c_str());
  }
  // The final sample: the last one emitted, or (stopped early, or resumed with no sample due yet)
  // a fresh measurement of where the run stands.
  const bool sampled_at_end = last && last->t == sim.state().t;
  const Snapshot<T> now = sampled_at_end ? last->snapshot : measure(sim.state(), law);  // O(N^2): once
  const auto d = sampled_at_end ? last->drift : DriftTracker<T>(sim.initial_snapshot()).update(now);
  const int order = steps.order ? steps.order : find_entry(integrator_table<T>(), o.integrator, "integrator").order;
  const T dE_rel_max = last ? std::max(d.dE_rel_max, last->drift.dE_rel_max) : d.dE_rel_max;
  nlohmann::json summary = {
      {"integrator", o.integrator},
      {"method_order", order},  // the order of the method as run (Adams: --order)
      {"precision", o.precision},
      {"engine", engine},
      {"device", device},
      {"n", sim.state().size()},
      {"t", static_cast<double>(sim.state().t)},
      {"completed", completed},
      {"steps", sim.counters().steps},
      {"fevals", sim.force_evaluations()},
      {"rejected", sim.counters().rejected},
      {"dt_last", last ? static_cast<double>(last->dt) : 0.0},
      {"E0", static_cast<double>(sim.initial_snapshot().energy)},
      {"E", static_cast<double>(now.energy)},
      {"dE_rel", static_cast<double>(d.dE_rel)},
      {"dE_rel_max", static_cast<double>(dE_rel_max)},
      {"P_rel", static_cast<double>(d.P_rel)},
      {"L_rel", static_cast<double>(d.L_rel)},
      {"min_pair_dist", static_cast<double>(now.min_pair_distance)},  // at the end
      {"min_pair_dist_min", static_cast<double>(last ? std::min(d.min_pair_distance_min, last->drift.min_pair_distance_min)
                                                     : d.min_pair_distance_min)},  // over the samples
      {"wall_s", wall},
      {"step_wall_s", sim.stepping_seconds()},  // of wall_s, the steps alone (no samples, outputs, checkpoints)
      {"period", period_value ? nlohmann::json(static_cast<double>(*period_value)) : nlohmann::json()},
  };
  if (const RankProfile r = sim.engine().last_rank_profile(); r.ranks > 0)  // mpi:<engine>: rank 0's times
    summary["mpi"] = {{"ranks", r.ranks}, {"exchange", r.exchange}, {"compute_s", r.total_compute_seconds},
                      {"exchange_s", r.total_exchange_seconds}};

  if (is_hdf5_path(o.final_state))
    write_hdf5_snapshot(outputs, o.final_state, sim.state(), parameters);
  else if (!o.final_state.empty())
    outputs.stream(o.final_state) << format_state_csv(sim.state());
  if (!o.summary.empty()) outputs.stream(o.summary) << summary.dump(2) << "\n";
  if (hdf5_snapshots) hdf5_snapshots->finish();
  outputs.commit(parameters);

  std::printf("%s %s %s: t = %s%s, %llu steps (%llu rejected), %llu force evaluations, dE/E0 = %.3g (max %.3g), %.3g s\n",
              o.integrator.c_str(), o.precision.c_str(), engine.c_str(), RealTraits<T>::format(sim.state().t).c_str(),
              completed ? "" : (" (stopped; checkpoint " + o.checkpoint + ")").c_str(),
              static_cast<unsigned long long>(sim.counters().steps), static_cast<unsigned long long>(sim.counters().rejected),
              static_cast<unsigned long long>(sim.force_evaluations()), static_cast<double>(d.dE_rel),
              static_cast<double>(dE_rel_max), wall);
  return 0;
}

}  // namespace

int run_command(const RunOptions& o) {
  std::vector<InputFile> inputs;
  if (o.ic.name.starts_with("file:") && o.ic.name.size() > 5) inputs.push_back({"--ic", o.ic.name.substr(5), ""});
  OutputSet outputs = open_run_files({o.diagnostics, o.snapshots, o.final_state, o.summary, o.checkpoint, o.resume}, inputs);
  return dispatch_precision(o.precision, [&]<class T>() { return run_typed<T>(o, outputs); });
}

}  // namespace nbody::cli
