// `nbody dpd`: dissipative particle dynamics (seed S3; solver/shortrange/dpd.hpp) with the contract
// of `nbody run`: outputs checked before the run and written whole at its end (OutputSet), with
// their provenance records; a checkpoint that resumes the run bit for bit; SIGINT or SIGTERM
// stops it between two steps, writing the checkpoint only; bad input exit 2, a failed run exit 3.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "cli/model.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/progress.hpp"
#include "core/real.hpp"
#include "io/archive.hpp"
#include "io/checkpoint.hpp"
#include "io/output_set.hpp"
#include "io/provenance.hpp"
#include "shortrange/cuda/cell_list.hpp"
#include "shortrange/dpd.hpp"
#if NBODY_WITH_CUDA
#include "shortrange/cuda/dpd.hpp"
#endif

namespace nbody::cli {

using shortrange::DpdCpu;
using shortrange::DpdDiagnostics;
using shortrange::DpdParameters;
using shortrange::DpdState;

void add_dpd_options(CLI::App& cmd, DpdOptions& o) {
  cmd.footer(
      "Units: particle mass 1, cut-off --rc, energy kT. Groot and Warren's model: F_C = a_AB w e, F_D = -gamma w^2 (e.v) e,\n"
      "F_R = sigma w theta/sqrt(dt) e with w = 1 - r/rc, sigma^2 = 2 gamma kT, theta from Philox keyed by the pair, the step\n"
      "and --seed (both partners draw the same: momentum is conserved exactly but for rounding); their velocity Verlet with\n"
      "--lambda. Times are step counts; t = step x --dt. The particles start uniformly at random (--density x volume of\n"
      "them) with Gaussian velocities at --kT and zero total momentum. A run is the same bit for bit on any number of threads.\n"
      "Outputs and interruptions as `nbody run` (see `nbody run --help`): each output is written whole at the end; SIGINT or\n"
      "SIGTERM writes the checkpoint, if any, and exits 130 or 143; `nbody dpd --resume FILE --steps S` continues the run\n"
      "bit for bit to step S (the model's flags come from FILE; giving one with another value is an error).");
  cmd.add_option("--steps", o.steps, "steps to take from the start (with --resume: the step to reach)")
      ->required()
      ->check(whole_number<long long>(1));
  cmd.add_option("--box", o.box, "the periodic box: L (a cube) or Lx,Ly,Lz")->delimiter(',')->capture_default_str()
      ->check(positive_real());
  cmd.add_option("--density", o.density, "particles per unit volume (S3 and Groot-Warren: 3)")->capture_default_str()
      ->check(positive_real());
  cmd.add_option("--rc", o.rc, "cut-off of every force")->capture_default_str()->check(positive_real());
  cmd.add_option("--species", o.species, "number of species")->capture_default_str()->check(CLI::Range(1u, 64u));
  cmd.add_option("--a", o.a, "conservative amplitudes a_AB, species x species values row by row (symmetric; Groot-Warren: "
                             "25 for water at density 3, unlike pairs e.g. 25,40,40,25)")
      ->delimiter(',')
      ->capture_default_str();
  cmd.add_option("--gamma", o.gamma, "friction gamma (the thermostat; sigma^2 = 2 gamma kT)")->capture_default_str()
      ->check(positive_real(true));
  cmd.add_option("--kT", o.kT, "temperature of the thermostat")->capture_default_str()->check(positive_real(true));
  cmd.add_option("--dt", o.dt, "time step")->capture_default_str()->check(positive_real());
  cmd.add_option("--lambda", o.lambda, "Groot and Warren's velocity prediction factor (0.5: plain velocity Verlet)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--body-force", o.body_force,
                 "a constant force on each particle, gx,gy,gz per species (e.g. gravity; default none)")
      ->delimiter(',');
  cmd.add_option("--layout", o.layout, "how the species start: mixed (in turn) or layers (by height z, species 0 lowest)")
      ->capture_default_str()
      ->check(CLI::IsMember({"mixed", "layers"}));
  cmd.add_option("--seed", o.seed, "seed of the start and of the random forces")
      ->capture_default_str()
      ->check(whole_number<std::uint64_t>());
  cmd.add_option("--precision", o.precision, "real type")->capture_default_str()->check(CLI::IsMember({"float", "double"}));
  add_engine_options(cmd, o.engine, o.cell_list);
  cmd.add_option("--diagnostics", o.diagnostics,
                 "write t,step,kT,pressure,potential,kinetic,px,py,pz here (CSV, with its provenance record X.meta.json): at the "
                 "start, every --diag-every steps and at the end");
  cmd.add_option("--diag-every", o.diag_every, "steps between diagnostic samples (default: --steps / 100)")
      ->check(whole_number<long long>(1));
  cmd.add_option("--snapshots", o.snapshots,
                 "write every particle (t,id,species,x,y,z,vx,vy,vz; CSV, full precision, with X.meta.json) at the start, every "
                 "--snapshot-every steps and at the end");
  cmd.add_option("--snapshot-every", o.snapshot_every, "steps between snapshots (default: --steps / 10)")
      ->check(whole_number<long long>(1));
  cmd.add_option("--final-state", o.final_state, "write the final particles here (as --snapshots, one time)");
  cmd.add_option("--summary", o.summary,
                 "write a JSON summary here (steps, time per step, the mean kT and pressure of the diagnostic samples: "
                 "without --diagnostics those of the start and the end, ...)");
  add_checkpoint_options(cmd, o, o.checkpoint_every, o.stop_at);
  add_quiet_option(cmd, o.quiet);
}

namespace {

// The model's flags: what makes a run what it is (a resume must keep them), each with its key.
constexpr auto dpd_fields = [](auto& o, auto&& f) {
  f("precision", o.precision), f("box", o.box), f("density", o.density), f("rc", o.rc), f("gamma", o.gamma);
  f("kT", o.kT), f("dt", o.dt), f("lambda", o.lambda), f("species", o.species), f("a", o.a);
  f("body_force", o.body_force), f("layout", o.layout), f("seed", o.seed);
};

DpdParameters parameters_of(const DpdOptions& o) {
  DpdParameters p;
  p.rc = o.rc, p.gamma = o.gamma, p.kT = o.kT, p.dt = o.dt, p.lambda = o.lambda, p.seed = o.seed, p.species = o.species;
  p.a = o.a;
  if (o.a.size() != std::size_t(o.species) * o.species)
    throw InputError("--a needs --species x --species = " + std::to_string(o.species * o.species) + " values, got " +
                     std::to_string(o.a.size()));
  if (!o.body_force.empty()) {
    if (o.body_force.size() != 3 * std::size_t(o.species))
      throw InputError("--body-force needs 3 values (gx,gy,gz) per species, " + std::to_string(3 * o.species) + " in all, got " +
                       std::to_string(o.body_force.size()));
    for (unsigned s = 0; s < o.species; ++s)
      p.body_force.push_back({o.body_force[3 * s], o.body_force[3 * s + 1], o.body_force[3 * s + 2]});
  }
  try {
    p.check();
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  const auto L = box_sides(o.box);
  for (int a = 0; a < 3; ++a)
    if (!(L[a] >= o.rc)) throw InputError("--box sides must be at least --rc (" + RealTraits<double>::format(o.rc) + ")");
  return p;
}

template <class T>
std::string particle_rows(const DpdState<T>& s, double t) {
  std::string out;
  const auto f = [](T x) { return RealTraits<T>::format(x); };
  const std::size_t n = s.n;
  for (std::size_t i = 0; i < n; ++i)
    out += RealTraits<double>::format(t) + "," + std::to_string(i) + "," + std::to_string(s.species[i]) + "," + f(s.pos[i]) +
           "," + f(s.pos[n + i]) + "," + f(s.pos[2 * n + i]) + "," + f(s.vel[i]) + "," + f(s.vel[n + i]) + "," +
           f(s.vel[2 * n + i]) + "\n";
  return out;
}
constexpr const char* kParticleHeader = "t,id,species,x,y,z,vx,vy,vz";

template <class T, class Driver>
int dpd_steps(const DpdOptions& o, OutputSet& outputs, DpdState<T>& state, long long start_step, Driver& dpd,
              const std::string& device, std::chrono::steady_clock::time_point wall_start);

template <class T>
int dpd_typed(const DpdOptions& o, OutputSet& outputs, std::optional<Checkpoint> resumed) {
  const auto wall_start = std::chrono::steady_clock::now();
  const DpdParameters p = parameters_of(o);
  const auto L = box_sides(o.box);
  DpdState<T> state;
  if (resumed) {
    ArchiveReader r(resumed->state);
    r.get(state.step), r.get(state.box.L[0]), r.get(state.box.L[1]), r.get(state.box.L[2]);
    r.get(state.species), r.get(state.pos), r.get(state.vel), r.get(state.force);
    state.n = state.species.size();
    if (state.pos.size() != 3 * state.n || state.vel.size() != 3 * state.n || state.force.size() != 3 * state.n)
      throw InputError("--resume " + o.resume + ": the checkpoint's state is inconsistent");
  } else {
    const double count = std::round(o.density * L[0] * L[1] * L[2]);
    if (!(count >= 2 && count < 4e9))
      throw InputError("--density x volume must give from 2 to 4e9 particles, got " + RealTraits<double>::format(count));
    state = shortrange::dpd_random_state<T>(static_cast<std::size_t>(count), L, o.kT, o.species, o.seed,
                                            o.layout == "layers" ? shortrange::DpdLayout::layers : shortrange::DpdLayout::mixed);
  }
  const auto start_step = static_cast<long long>(state.step);
  if (o.steps <= start_step)
    throw InputError("--steps " + std::to_string(o.steps) + ": the run " +
                     (resumed ? "of checkpoint '" + o.resume + "' " : std::string()) + "is already at step " +
                     std::to_string(start_step) + "; give a later one");
  if (o.stop_at && o.stop_at <= start_step) throw InputError("--stop-at must be after the start step " + std::to_string(start_step));

  if (o.engine == "cuda") {
#if NBODY_WITH_CUDA
    shortrange::DpdCuda<T> gpu(p, state, resumed.has_value(), shortrange::cell_builder_named(o.cell_list));
    return dpd_steps(o, outputs, state, start_step, gpu, gpu.device_info(), wall_start);
#else
    throw InputError("--engine cuda: this build has no CUDA (no CUDA compiler was found when it was built)");
#endif
  }
  DpdCpu<T> cpu(p, state, resumed.has_value());
  return dpd_steps(o, outputs, state, start_step, cpu, "", wall_start);
}

// The time loop of either driver (DpdCpu, DpdCuda: step, sync, diagnostics), the samples, the
// checkpoints and the outputs.
template <class T, class Driver>
int dpd_steps(const DpdOptions& o, OutputSet& outputs, DpdState<T>& state, long long start_step, Driver& dpd,
              const std::string& device, std::chrono::steady_clock::time_point wall_start) {
  const long long end = o.stop_at ? std::min(o.stop_at, o.steps) : o.steps;
  // Without --diagnostics the samples (the summary's means) are the start and the end only.
  const long long diag_every = o.diag_every ? o.diag_every : o.diagnostics.empty() ? o.steps : std::max(1LL, o.steps / 100);
  const long long snapshot_every = o.snapshot_every ? o.snapshot_every : std::max(1LL, o.steps / 10);
  const nlohmann::json identity = identity_of("dpd", o, dpd_fields);
  nlohmann::json parameters = identity;
  parameters.update({{"n", state.n}, {"engine", o.engine}, {"device", device}, {"steps", o.steps},
                     {"command_line", o.command_line}, {"diag_every", diag_every}});
  const auto save_checkpoint = [&] {
    dpd.sync();
    ArchiveWriter w;
    w.put(state.step), w.put(state.box.L[0]), w.put(state.box.L[1]), w.put(state.box.L[2]);
    w.put(state.species), w.put(state.pos), w.put(state.vel), w.put(state.force);
    write_checkpoint(o.checkpoint, {identity, w.bytes()});
  };

  std::ostream* diagnostics = o.diagnostics.empty() ? nullptr : &outputs.stream(o.diagnostics);
  std::ostream* snapshots = o.snapshots.empty() ? nullptr : &outputs.stream(o.snapshots);
  const auto t_now = [&] { return double(state.step) * o.dt; };
  double kT_sum = 0, pressure_sum = 0;
  long long samples = 0;
  const auto sample = [&] {
    const DpdDiagnostics d = dpd.diagnostics();
    if (!std::isfinite(d.kT) || !std::isfinite(d.pressure))
      throw RunError("the state is no longer finite at step " + std::to_string(state.step) + " (a smaller --dt?)");
    kT_sum += d.kT, pressure_sum += d.pressure, ++samples;
    if (diagnostics) {
      const auto f = [](double x) { return RealTraits<double>::format(x); };
      *diagnostics << f(t_now()) << "," << state.step << "," << f(d.kT) << "," << f(d.pressure) << "," << f(d.potential)
                   << "," << f(d.kinetic) << "," << f(d.momentum[0]) << "," << f(d.momentum[1]) << "," << f(d.momentum[2])
                   << "\n";
    }
  };
  if (diagnostics) *diagnostics << "t,step,kT,pressure,potential,kinetic,px,py,pz\n";
  if (snapshots) *snapshots << kParticleHeader << "\n" << particle_rows(state, t_now());
  sample();

  double stepping = 0, device_seconds = 0, cells_seconds = 0;
  auto last_report = std::chrono::steady_clock::now();
  std::optional<DeferInterrupts> defer(std::in_place);  // SIGINT, SIGTERM: the time loop stops between two steps
  while (static_cast<long long>(state.step) < end) {
    const auto before = std::chrono::steady_clock::now();
    dpd.step();
    const auto after = std::chrono::steady_clock::now();
    stepping += std::chrono::duration<double>(after - before).count();
    if constexpr (requires { dpd.last_step_seconds(); })  // the GPU's own time of the step and of its cell list
      device_seconds += dpd.last_step_seconds(), cells_seconds += dpd.last_cells_seconds();
    const auto s = static_cast<long long>(state.step);
    if (s % diag_every == 0 || s == end) sample();
    if (snapshots && (s % snapshot_every == 0 || s == end)) {
      dpd.sync();
      *snapshots << particle_rows(state, t_now());
    }
    if (!o.checkpoint.empty() && o.checkpoint_every && s % o.checkpoint_every == 0 && s != end) save_checkpoint();
    if (const int sig = interrupt_signal()) {
      if (!o.checkpoint.empty()) save_checkpoint();
      say_interrupted("interrupted at step " + std::to_string(s) + "; " +
                      (o.checkpoint.empty() ? "nothing saved" : "checkpoint " + o.checkpoint + " resumes it"));
      return 128 + sig;
    }
    if (!o.quiet && std::chrono::duration<double>(after - last_report).count() > 10) {  // progress of long runs
      std::fprintf(stderr, "nbody: %s\n",
                   progress_line("dpd step " + std::to_string(s) + " of " + std::to_string(end),
                                 double(s - start_step) / double(end - start_step), double(s - start_step), stepping)
                       .c_str());
      last_report = after;
    }
  }
  defer.reset();  // from here on a signal acts at once
  if (!o.checkpoint.empty()) save_checkpoint();
  dpd.sync();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const long long taken = static_cast<long long>(state.step) - start_step;
  nlohmann::json summary = {{"model", "dpd"},
                            {"precision", o.precision},
                            {"engine", o.engine},
                            {"device", device},
                            {"n", state.n},
                            {"step", state.step},
                            {"t", t_now()},
                            {"completed", static_cast<long long>(state.step) == o.steps},
                            {"steps_taken", taken},
                            {"kT_mean", kT_sum / double(samples)},
                            {"pressure_mean", pressure_sum / double(samples)},
                            {"samples", samples},
                            {"threads", host_info().value("openmp_max_threads", 0)},
                            {"wall_s", wall},
                            {"step_wall_s", stepping},
                            {"seconds_per_step", stepping / double(taken)}};
  // The GPU's own time of a step and of its cell list (events); null on the CPU.
  const auto per_step = [&](double seconds) { return device_seconds > 0 ? nlohmann::json(seconds / double(taken)) : nlohmann::json(); };
  summary.update({{"device_seconds_per_step", per_step(device_seconds)}, {"cell_list_seconds_per_step", per_step(cells_seconds)}});
  write_model_outputs(
      outputs, o, [&] { return kParticleHeader + ("\n" + particle_rows(state, t_now())); }, summary, parameters);
  std::printf("dpd %s %s: %zu particles, step %llu (t = %.6g), %.3g ms per step, <kT> = %.4g, <p> = %.4g, %.3g s\n",
              o.precision.c_str(), o.engine.c_str(), state.n, static_cast<unsigned long long>(state.step), t_now(),
              1e3 * stepping / double(taken), kT_sum / double(samples),
              pressure_sum / double(samples), wall);
  return 0;
}

}  // namespace

int dpd_command(const DpdOptions& given) {
  check_engine_options(given.engine, given.cell_list, given.given("--cell-list"));
  OutputSet outputs = open_model_files(given, given.diag_every, given.snapshot_every, given.checkpoint_every || given.stop_at);

  std::optional<Checkpoint> resumed;
  DpdOptions o = given;
  if (!given.resume.empty()) {
    resumed = read_checkpoint(given.resume);
    o = resumed_options("dpd", given, resumed->parameters, dpd_fields);
  }
  if (o.precision == "float") return dpd_typed<float>(o, outputs, std::move(resumed));
  return dpd_typed<double>(o, outputs, std::move(resumed));
}

}  // namespace nbody::cli
