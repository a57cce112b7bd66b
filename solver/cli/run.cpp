// `nbody run`: parse the flags in the run's precision, integrate, and write the outputs, each of
// which appears only if the whole run succeeds (AtomicFile).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "cli/time_spec.hpp"
#include "driver/simulation.hpp"
#include "engines/engine.hpp"
#include "io/atomic_file.hpp"
#include "io/provenance.hpp"
#include "io/state_csv.hpp"

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
  steps.controller = o.controller == "subdivide" ? Controller::subdivide : Controller::pi;
  const bool tol = !o.tol.empty(), atol = !o.atol.empty(), rtol = !o.rtol.empty();
  if (tol && (atol || rtol)) throw InputError("give either --tol or --atol with --rtol, not both");
  if (atol != rtol) throw InputError("--atol and --rtol go together (or use --tol for both)");
  steps.adaptive = tol || atol;
  if (steps.adaptive) {
    steps.atol = parse_positive<T>(tol ? o.tol : o.atol, tol ? "--tol" : "--atol");
    steps.rtol = tol ? steps.atol : parse_non_negative<T>(o.rtol, "--rtol");
    if (!o.dt.empty()) steps.dt = time(o.dt, "--dt");
    if (!o.h_min.empty()) steps.h_min = time(o.h_min, "--h-min");
    if (!o.h_max.empty()) steps.h_max = time(o.h_max, "--h-max");
    if (!(steps.h_min >= T(0) && steps.h_max > steps.h_min))
      throw InputError("need 0 <= --h-min < --h-max, got " + o.h_min + " and " + o.h_max);
  } else {
    if (o.dt.empty())
      throw InputError("give a step: --dt H (fixed step) or --tol TOL (adaptive; methods with an error estimate)");
    if (!o.h_min.empty() || !o.h_max.empty()) throw InputError("--h-min and --h-max apply to adaptive runs (--tol)");
    steps.dt = time(o.dt, "--dt");
  }
  if (steps.dt < T(0) || (!steps.adaptive && !(steps.dt > T(0)))) throw InputError("--dt must be positive, got '" + o.dt + "'");
  return steps;
}

template <class T>
int run_typed(const RunOptions& o) {
  const auto wall_start = std::chrono::steady_clock::now();
  const std::vector<std::string> outputs = {o.diagnostics, o.final_state, o.summary};
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (!outputs[i].empty() && outputs[i] == outputs[j])
        throw InputError("--diagnostics, --final-state and --summary must name different files, got '" + outputs[i] + "' twice");
  const ForceLaw<T> law = parse_force_law<T>(o.force);
  State<T> initial = make_initial_state<T>(o.ic);
  const std::function<T()> period = [&] { return orbital_period(o.ic, initial, law.G); };
  const std::function<T(const std::string&, const std::string&)> time = [&](const std::string& text, const std::string& flag) {
    const T v = parse_time<T>(text, flag, period);
    if (!is_finite(v) || v < T(0)) throw InputError(flag + " must be a finite time >= 0, got '" + text + "'");
    return v;
  };
  const T t_end = time(o.t_end, "--t-end");
  const StepOptions<T> steps = parse_steps<T>(o, time);
  T diag_every = o.diag_every.empty() ? t_end / T(1000) : time(o.diag_every, "--diag-every");
  if (!(diag_every > T(0))) throw InputError("--diag-every must be positive");
  const std::string engine = o.engine.empty() ? std::string(engine_table<T>().front().name) : o.engine;

  std::optional<T> period_value;  // for the summary, when the time unit P exists
  if (initial.size() == 2) {
    try {
      period_value = period();
    } catch (const InputError&) {
    }
  }
  Simulation<T> sim(std::move(initial), law, engine, o.integrator, steps);

  std::optional<AtomicFile> diagnostics;
  if (!o.diagnostics.empty()) {
    diagnostics.emplace(o.diagnostics);
    diagnostics->stream() << kDiagnosticsHeader << "\n";
  }
  std::optional<Sample<T>> last;
  sim.run(
      t_end, diag_every,
      [&](const Sample<T>& s) {
        if (diagnostics) diagnostics->stream() << diagnostics_row(s);
        last = s;
      },
      [](const std::string& line) { std::fprintf(stderr, "nbody: %s\n", line.c_str()); });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  nlohmann::json parameters = {
      {"command_line", o.command_line},
      {"precision", o.precision},
      {"engine", engine},
      {"integrator", o.integrator},
      {"initial_condition", to_json(o.ic)},
      {"force_law", to_json(o.force)},
      {"steps", {{"adaptive", steps.adaptive}, {"dt", o.dt}, {"tol", o.tol}, {"atol", o.atol}, {"rtol", o.rtol},
                 {"h_min", o.h_min}, {"h_max", o.h_max}, {"controller", o.controller}, {"order", o.order}}},
      {"t_end", RealTraits<T>::format(t_end)},
      {"diag_every", RealTraits<T>::format(diag_every)},
  };
  const auto& d = last->drift;
  const nlohmann::json summary = {
      {"integrator", o.integrator},
      {"precision", o.precision},
      {"engine", engine},
      {"n", sim.state().size()},
      {"t", static_cast<double>(last->t)},
      {"steps", last->counters.steps},
      {"fevals", last->force_evaluations},
      {"rejected", last->counters.rejected},
      {"dt_last", static_cast<double>(last->dt)},
      {"E0", static_cast<double>(sim.initial_snapshot().energy)},
      {"E", static_cast<double>(last->snapshot.energy)},
      {"dE_rel", static_cast<double>(d.dE_rel)},
      {"dE_rel_max", static_cast<double>(d.dE_rel_max)},
      {"P_rel", static_cast<double>(d.P_rel)},
      {"L_rel", static_cast<double>(d.L_rel)},
      {"min_pair_dist", static_cast<double>(last->snapshot.min_pair_distance)},
      {"wall_s", wall},
      {"period", period_value ? nlohmann::json(static_cast<double>(*period_value)) : nlohmann::json()},
  };

  std::optional<AtomicFile> final_state, summary_file;
  if (!o.final_state.empty()) {
    final_state.emplace(o.final_state);
    final_state->stream() << format_state_csv(sim.state());
  }
  if (!o.summary.empty()) {
    summary_file.emplace(o.summary);
    summary_file->stream() << summary.dump(2) << "\n";
  }
  for (auto* f : {&diagnostics, &final_state, &summary_file})
    if (*f) (*f)->commit();
  if (diagnostics) write_meta(o.diagnostics, parameters);
  if (final_state) write_meta(o.final_state, parameters);

  std::printf("%s %s %s: t = %s, %llu steps (%llu rejected), %llu force evaluations, dE/E0 = %s (max %s), %.3g s\n",
              o.integrator.c_str(), o.precision.c_str(), engine.c_str(), RealTraits<T>::format(last->t).c_str(),
              static_cast<unsigned long long>(last->counters.steps), static_cast<unsigned long long>(last->counters.rejected),
              static_cast<unsigned long long>(last->force_evaluations), RealTraits<T>::format(d.dE_rel).c_str(),
              RealTraits<T>::format(d.dE_rel_max).c_str(), wall);
  return 0;
}

}  // namespace

int run_command(const RunOptions& o) {
  return dispatch_precision(o.precision, [&]<class T>() { return run_typed<T>(o); });
}

}  // namespace nbody::cli
