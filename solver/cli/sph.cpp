// `nbody sph`: weakly compressible SPH (issue 23; solver/shortrange/sph.hpp) on the 2-D validation
// cases of solver/shortrange/sph_cases.hpp, with the contract of `nbody dpd`: outputs checked
// before the run and written whole at its end (OutputSet), with their provenance records; a
// checkpoint that resumes the run bit for bit; SIGINT or SIGTERM stops it between two steps,
// writing the checkpoint only; bad input exit 2, a failed run exit 3.
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "cli/model.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/progress.hpp"
#include "core/real.hpp"
#include "core/registry.hpp"
#include "io/archive.hpp"
#include "io/checkpoint.hpp"
#include "io/output_set.hpp"
#include "io/provenance.hpp"
#include "shortrange/cuda/cell_list.hpp"
#include "shortrange/sph_cases.hpp"
#if NBODY_WITH_CUDA
#include "shortrange/cuda/sph.hpp"
#endif

namespace nbody::cli {

using shortrange::SphCase;
using shortrange::SphCpu;
using shortrange::SphDiagnostics;
using shortrange::SphState;

namespace {

struct SphCaseInfo {
  std::string_view name;
  std::string_view description;  // for --help, wrapped
  double dx;                     // the default spacing
};

// Morris et al.'s Poiseuille case: the gap (m), the kinematic viscosity (m^2/s) and the body force (m/s^2).
constexpr double poiseuille_gap = 1e-3, poiseuille_nu = 1e-6, poiseuille_force = 2e-4;

// Every case `nbody sph --case` runs: names, --help and the default spacings come from here.
constexpr std::array sph_cases = {
    SphCaseInfo{"dam-break",
                "DualSPHysics's 2-D validation: a water column 1 m wide and 2 m high\n"
                "    against the left wall of a tank 4 m wide, released at t = 0 (front against Koshizuka and Oka 1996)",
                0.02},
    SphCaseInfo{"dam-break-3d",
                "the dam break extruded into 3-D: a column 1 m long, 2 m high and 1 m wide against the\n"
                "    end wall of a tank 4 m long, 1 m wide and 2.5 m high, walls on every side (about 2^20 particles at the\n"
                "    default --dx; E19's time per step)",
                0.015},
    SphCaseInfo{"hydrostatic", "a column of water --depth deep in a tank as wide, settling at rest under gravity", 0.01},
    SphCaseInfo{"poiseuille",
                "Morris et al. (1997): flow between plates 1 mm apart driven by a\n"
                "    body force of 2e-4 m/s^2 along x, nu = 1e-6 m^2/s, periodic along x over 8 spacings; steady centre-line\n"
                "    speed 2.5e-5 m/s",
                poiseuille_gap / 60},
};

constexpr std::array<std::pair<std::string_view, sph::KernelKind>, 2> kernels = {
    std::pair{"wendland-c2", sph::KernelKind::wendland_c2}, {"cubic-spline", sph::KernelKind::cubic_spline}};
constexpr std::array<std::pair<std::string_view, sph::DensityDiffusion>, 2> diffusions = {
    std::pair{"fourtakas", sph::DensityDiffusion::fourtakas}, {"molteni", sph::DensityDiffusion::molteni}};

template <class Table>
std::string_view name_in(const Table& table, auto value) {
  for (const auto& [name, v] : table)
    if (v == value) return name;
  return "?";
}

// The case's state, parameters and walls, with the model flags given in place of its own.
template <class T>
SphCase<T> make_case(const SphOptions& o) {
  namespace sr = shortrange;
  SphCase<T> c = o.case_name == "dam-break"      ? sr::sph_dam_break<T>(o.dx)
                 : o.case_name == "dam-break-3d" ? sr::sph_dam_break_3d<T>(o.dx)
                 : o.case_name == "hydrostatic"  ? sr::sph_hydrostatic_tank<T>(o.depth, o.depth, o.dx)
                                                : sr::sph_poiseuille<T>(poiseuille_gap, 8 * o.dx, o.dx, poiseuille_nu,
                                                                        poiseuille_force);
  for (const auto& [name, kind] : kernels)
    if (name == o.kernel) c.params.kernel = kind;
  for (const auto& [name, kind] : diffusions)
    if (name == o.diffusion) c.params.diffusion = kind;
  if (o.alpha >= 0) c.params.alpha = o.alpha;
  if (o.delta >= 0) c.params.delta = o.delta;
  if (o.cfl > 0) c.params.cfl = o.cfl;
  try {
    shortrange::check_sph(c.params, c.state);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  return c;
}

// The options with every model value the case leaves to itself filled in (the identity a
// checkpoint keeps, and the provenance records).
SphOptions resolved(SphOptions o) {
  const SphCaseInfo& info = find_entry(sph_cases, o.case_name, "SPH case");
  if (o.dx == 0) o.dx = info.dx;
  const double extent = o.case_name.starts_with("dam-break") ? 1.0 : o.case_name == "hydrostatic" ? o.depth : poiseuille_gap;
  const double finest = extent / (o.case_name == "dam-break-3d" ? 200 : 2000);  // 3-D: about 2e7 particles
  if (!(o.dx <= extent / 4))
    throw InputError("--dx " + RealTraits<double>::format(o.dx) + " is too coarse for the " + o.case_name +
                     " case: at most " + RealTraits<double>::format(extent / 4) + " (four particles across it)");
  if (!(o.dx >= finest))
    throw InputError("--dx " + RealTraits<double>::format(o.dx) + " is too fine for the " + o.case_name + " case: at least " +
                     RealTraits<double>::format(finest));
  const SphCase<double> c = make_case<double>(o);  // the case's own values of the flags not given
  o.kernel = name_in(kernels, c.params.kernel);
  o.diffusion = name_in(diffusions, c.params.diffusion);
  o.alpha = c.params.alpha, o.delta = c.params.delta, o.cfl = c.params.cfl;
  return o;
}

// The model's flags: what makes a run what it is (a resume must keep them), each with its key.
constexpr auto sph_fields = [](auto& o, auto&& f) {
  f("case", o.case_name), f("precision", o.precision), f("dx", o.dx), f("depth", o.depth), f("kernel", o.kernel);
  f("diffusion", o.diffusion), f("alpha", o.alpha), f("delta", o.delta), f("cfl", o.cfl);
};

// Positions in the case's frame: the tank's inner left wall at x = 0, its floor (or the lower
// plate) at y = 0, and in 3-D its inner side wall at z = 0.
std::array<double, 3> origin_of(const shortrange::SphWalls& w) {
  const auto at = [](double face) { return std::isfinite(face) ? face : 0.0; };
  return {at(w.x_min), at(w.y_min), at(w.z_min)};
}

constexpr const char* kParticleHeader = "t,id,boundary,x,y,z,vx,vy,vz,rho,p";

template <class T>
std::string particle_rows(const SphCase<T>& c, const sph::Tait<double>& eos) {
  const SphState<T>& s = c.state;
  const std::size_t n = s.n;
  const auto origin = origin_of(c.walls);
  const auto f = [](T x) { return RealTraits<T>::format(x); };
  const auto d = [](double x) { return RealTraits<double>::format(x); };
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    out += d(s.time) + "," + std::to_string(i) + "," + std::to_string(int(s.boundary[i])) + "," +
           d(double(s.pos[i]) - origin[0]) + "," + d(double(s.pos[n + i]) - origin[1]) + "," +
           d(double(s.pos[2 * n + i]) - origin[2]) + "," + f(s.vel[i]) + "," + f(s.vel[n + i]) + "," + f(s.vel[2 * n + i]) +
           "," + f(s.rho[i]) + "," + d(eos.pressure(double(s.rho[i]))) + "\n";
  return out;
}

// The next time, after t, at which a sample falls due every `every` seconds.
double next_due(double t, double every) { return every * (std::floor(t / every) + 1); }

template <class T, class Driver>
int sph_steps(const SphOptions& o, OutputSet& outputs, SphCase<T>& c, Driver& sim, const std::string& device,
              std::chrono::steady_clock::time_point wall_start);

template <class T>
int sph_typed(const SphOptions& o, OutputSet& outputs, std::optional<Checkpoint> resumed) {
  const auto wall_start = std::chrono::steady_clock::now();
  SphCase<T> c = make_case<T>(o);
  SphState<T>& state = c.state;
  if (resumed) {
    ArchiveReader r(resumed->state);
    SphState<T> s;
    s.box = state.box;
    r.get(s.time), r.get(s.steps), r.get(s.pos), r.get(s.vel), r.get(s.rho), r.get(s.mass), r.get(s.boundary);
    r.get(s.to_face), r.get(s.lists_at);
    s.n = s.rho.size();
    if (s.n != state.n || s.pos.size() != 3 * s.n || s.vel.size() != 3 * s.n || s.mass.size() != s.n ||
        s.boundary.size() != s.n || s.to_face.size() != state.to_face.size() || s.lists_at.size() != 3 * s.n)
      throw InputError("--resume " + o.resume + ": the checkpoint's state is inconsistent with its case");
    state = std::move(s);
  }
  const double start_time = state.time;
  const auto start_step = static_cast<long long>(state.steps);
  if (!(o.t_end > start_time))
    throw InputError("--t-end " + RealTraits<double>::format(o.t_end) + ": the run " +
                     (resumed ? "of checkpoint '" + o.resume + "' " : std::string()) + "is already at t = " +
                     RealTraits<double>::format(start_time) + "; give a later one");
  if (o.stop_at && o.stop_at <= start_step)
    throw InputError("--stop-at must be after the start step " + std::to_string(start_step));

  if (o.engine == "cuda") {
#if NBODY_WITH_CUDA
    shortrange::SphCuda<T> gpu(c.params, state, shortrange::cell_builder_named(o.cell_list));
    return sph_steps(o, outputs, c, gpu, gpu.device_info(), wall_start);
#else
    throw InputError("--engine cuda: this build has no CUDA (no CUDA compiler was found when it was built)");
#endif
  }
  SphCpu<T> cpu(c.params, state);
  return sph_steps(o, outputs, c, cpu, "", wall_start);
}

// The time loop of either driver (SphCpu, SphCuda: time_step, step, sync, diagnostics), the
// samples, the checkpoints and the outputs.
template <class T, class Driver>
int sph_steps(const SphOptions& o, OutputSet& outputs, SphCase<T>& c, Driver& sim, const std::string& device,
              std::chrono::steady_clock::time_point wall_start) {
  SphState<T>& state = c.state;
  const double start_time = state.time;
  const auto start_step = static_cast<long long>(state.steps);
  const sph::Tait<double> eos{c.params.rho0, c.params.c0};
  const double front_band = 2 * o.dx;
  const double diag_every = o.diag_every > 0 ? o.diag_every : o.diagnostics.empty() ? o.t_end : o.t_end / 100;
  const double snapshot_every = o.snapshot_every > 0 ? o.snapshot_every : o.t_end / 10;
  const nlohmann::json identity = identity_of("sph", o, sph_fields);
  nlohmann::json parameters = identity;
  std::size_t fluid = 0;
  for (auto b : state.boundary) fluid += !b;
  parameters.update({{"n", state.n}, {"fluid", fluid}, {"h", c.params.h}, {"c0", c.params.c0}, {"t_end", o.t_end},
                     {"engine", o.engine}, {"device", device},
                     {"front_band", front_band}, {"diag_every", diag_every}, {"command_line", o.command_line},
                     {"frame", "x from the tank's inner left wall (Poiseuille: the box's start), y from its floor (the lower "
                               "plate), z from its inner side wall (3-D; 2-D: 0), in m"}});
  const auto save_checkpoint = [&] {
    sim.sync();
    ArchiveWriter w;
    w.put(state.time), w.put(state.steps), w.put(state.pos), w.put(state.vel), w.put(state.rho), w.put(state.mass);
    w.put(state.boundary), w.put(state.to_face), w.put(state.lists_at);
    write_checkpoint(o.checkpoint, {identity, w.bytes()});
  };

  std::ostream* diagnostics = o.diagnostics.empty() ? nullptr : &outputs.stream(o.diagnostics);
  std::ostream* snapshots = o.snapshots.empty() ? nullptr : &outputs.stream(o.snapshots);
  const auto origin = origin_of(c.walls);
  const SphDiagnostics first = sim.diagnostics(c.walls, front_band);
  double last_dt = 0;
  const auto sample = [&] {
    const SphDiagnostics d = sim.diagnostics(c.walls, front_band);
    if (!std::isfinite(d.kinetic) || !std::isfinite(d.density_deviation))
      throw RunError("the state is no longer finite at step " + std::to_string(state.steps) + " (a smaller --cfl?)");
    if (diagnostics) {
      const auto f = [](double x) { return RealTraits<double>::format(x); };
      *diagnostics << f(state.time) << "," << state.steps << "," << f(last_dt) << "," << f(d.kinetic) << "," << f(d.mass)
                   << "," << f(d.density_deviation) << "," << f(d.front - origin[0]) << "," << d.escaped << "\n";
    }
  };
  if (diagnostics) *diagnostics << "t,step,dt,kinetic,mass,density_deviation,front,escaped\n";
  if (snapshots) {
    sim.sync();
    *snapshots << kParticleHeader << "\n" << particle_rows(c, eos);
  }
  sample();

  double stepping = 0, device_seconds = 0, cells_seconds = 0, next_sample = next_due(state.time, diag_every), next_snapshot = next_due(state.time, snapshot_every);
  auto last_report = std::chrono::steady_clock::now();
  const auto done = [&] { return state.time >= o.t_end || (o.stop_at && static_cast<long long>(state.steps) >= o.stop_at); };
  std::optional<DeferInterrupts> defer(std::in_place);  // SIGINT, SIGTERM: the time loop stops between two steps
  while (!done()) {
    const auto before = std::chrono::steady_clock::now();
    const double dt = sim.time_step();
    if (!(dt > 0) || !std::isfinite(dt))
      throw RunError("the time step is no longer positive and finite at step " + std::to_string(state.steps) + ", t = " +
                     RealTraits<double>::format(state.time) + " (the state has blown up: a smaller --cfl?)");
    const bool last = dt >= o.t_end - state.time;  // the step that lands on --t-end
    last_dt = last ? o.t_end - state.time : dt;
    sim.step(T(last_dt));
    if (last) state.time = o.t_end;  // exactly, whatever the rounding of the sum
    const auto after = std::chrono::steady_clock::now();
    stepping += std::chrono::duration<double>(after - before).count();
    if constexpr (requires { sim.last_step_seconds(); })  // the GPU's own time of the step and of its cell lists
      device_seconds += sim.last_step_seconds(), cells_seconds += sim.last_cells_seconds();
    const bool end = done();
    if (state.time >= next_sample || end) sample(), next_sample = next_due(state.time, diag_every);
    if (snapshots && (state.time >= next_snapshot || end)) {
      sim.sync();
      *snapshots << particle_rows(c, eos);
      next_snapshot = next_due(state.time, snapshot_every);
    }
    const auto s = static_cast<long long>(state.steps);
    if (!o.checkpoint.empty() && o.checkpoint_every && s % o.checkpoint_every == 0 && !end) save_checkpoint();
    if (const int sig = interrupt_signal()) {
      if (!o.checkpoint.empty()) save_checkpoint();
      char where[96];
      std::snprintf(where, sizeof where, "interrupted at step %lld (t = %.6g); ", s, state.time);
      say_interrupted(where + (o.checkpoint.empty() ? "nothing saved" : "checkpoint " + o.checkpoint + " resumes it"));
      return 128 + sig;
    }
    if (!o.quiet && std::chrono::duration<double>(after - last_report).count() > 10) {  // progress of long runs
      char position[96];
      std::snprintf(position, sizeof position, "sph t = %.6g of %.6g, step %lld", state.time, o.t_end, s);
      std::fprintf(stderr, "nbody: %s\n",
                   progress_line(position, (state.time - start_time) / (o.t_end - start_time), double(s - start_step),
                                 stepping)
                       .c_str());
      last_report = after;
    }
  }
  defer.reset();  // from here on a signal acts at once
  if (!o.checkpoint.empty()) save_checkpoint();
  const SphDiagnostics d = sim.diagnostics(c.walls, front_band);  // synced: the outputs below read the state
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const long long taken = static_cast<long long>(state.steps) - start_step;
  nlohmann::json summary = {{"model", "sph"},
                                  {"case", o.case_name},
                                  {"precision", o.precision},
                                  {"n", state.n},
                                  {"fluid", fluid},
                                  {"dx", o.dx},
                                  {"t", state.time},
                                  {"step", state.steps},
                                  {"completed", state.time >= o.t_end},
                                  {"steps_taken", taken},
                                  {"kinetic", d.kinetic},
                                  {"mass", d.mass},
                                  {"mass_change", d.mass - first.mass},
                                  {"density_deviation", d.density_deviation},
                                  {"front", d.front - origin[0]},
                                  {"escaped", d.escaped},
                                  {"threads", host_info().value("openmp_max_threads", 0)},
                                  {"wall_s", wall},
                                  {"step_wall_s", stepping},
                                  {"seconds_per_step", taken ? stepping / double(taken) : 0.0},
                                  {"engine", o.engine},
                                  {"device", device},
                                  {"lists_made", sim.lists_made()}};
  const auto per_step = [&](double seconds) {
    return device_seconds > 0 && taken ? nlohmann::json(seconds / double(taken)) : nlohmann::json();
  };
  summary.update({{"device_seconds_per_step", per_step(device_seconds)}, {"cell_list_seconds_per_step", per_step(cells_seconds)}});
  // Each case's own measure (issue 23's targets), null in the others'.
  summary["pressure_error"] = summary["centre_line_ratio"] = nullptr;
  if (o.case_name == "hydrostatic")  // below the top two layers
    summary["pressure_error"] = shortrange::sph_hydrostatic_error(c, o.depth, 2 * o.dx).first;
  if (o.case_name == "poiseuille")
    summary["centre_line_ratio"] =
        shortrange::sph_poiseuille_centre_line(c, poiseuille_gap, poiseuille_nu, poiseuille_force).first;
  write_model_outputs(outputs, o, [&] { return kParticleHeader + ("\n" + particle_rows(c, eos)); }, summary, parameters);
  std::printf("sph %s %s: %zu particles (%zu fluid), t = %.6g after step %llu, %.3g ms per step, front %.4g m, "
              "max |rho/rho0 - 1| %.3g, %zu escaped, %.3g s\n",
              o.case_name.c_str(), o.precision.c_str(), state.n, fluid, state.time,
              static_cast<unsigned long long>(state.steps), taken ? 1e3 * stepping / double(taken) : 0.0,
              d.front - origin[0], d.density_deviation, d.escaped, wall);
  return 0;
}

}  // namespace

void add_sph_options(CLI::App& cmd, SphOptions& o) {
  std::string cases;
  for (const auto& e : sph_cases) {
    char dx[32];
    std::snprintf(dx, sizeof dx, "%.3g", e.dx);
    cases += "\n  " + std::string(e.name) + " (default --dx " + dx + "): " + std::string(e.description);
  }
  cmd.footer(
      "Weakly compressible SPH, SI units: Wendland C2 kernel with h = 1.5 dx, Tait's equation of state (gamma 7,\n"
      "c0 ten times the case's largest speed), Monaghan's artificial viscosity (Morris's laminar viscosity for Poiseuille),\n"
      "density diffusion (Fourtakas et al. 2019 or Molteni and Colagrossi 2009), walls of dynamic boundary particles,\n"
      "DualSPHysics's symplectic integrator with a time step from the CFL, force and viscous conditions. The cases:" +
      cases +
      "\nTimes are simulated seconds: the last step is shortened to land on --t-end; samples and snapshots are taken after\n"
      "the first step at or past each multiple of their interval (no step shortened for them: the outputs never change a\n"
      "run's bits, nor do the threads). Positions are in the case's frame: x from the tank's inner left wall, y from its\n"
      "floor, z from its inner side wall (3-D). Outputs and interruptions as `nbody dpd`: each output is written whole at the end; SIGINT or SIGTERM writes\n"
      "the checkpoint, if any, and exits 130 or 143; `nbody sph --resume FILE --t-end T` continues the run bit for bit\n"
      "(the model's flags come from FILE; giving one with another value is an error).");
  std::string names;
  for (const auto& e : sph_cases) names += std::string(names.empty() ? "" : ", ") + std::string(e.name);
  cmd.add_option("--case", o.case_name, "the validation case: " + names + " (below)");
  cmd.add_option("--t-end", o.t_end, "simulated seconds to reach")->required()->check(positive_real());
  cmd.add_option("--dx", o.dx, "particle spacing in m (default: the case's, below)")->check(positive_real());
  cmd.add_option("--depth", o.depth, "hydrostatic: the column's depth (and the tank's width) in m")
      ->capture_default_str()
      ->check(positive_real());
  cmd.add_option("--precision", o.precision, "real type")->capture_default_str()->check(CLI::IsMember({"float", "double"}));
  cmd.add_option("--kernel", o.kernel, "smoothing kernel: wendland-c2 (default) or cubic-spline")
      ->check(CLI::IsMember({"wendland-c2", "cubic-spline"}));
  cmd.add_option("--diffusion", o.diffusion, "density diffusion: fourtakas or molteni (default: the case's)")
      ->check(CLI::IsMember({"fourtakas", "molteni"}));
  cmd.add_option("--alpha", o.alpha, "artificial viscosity (default: the case's)")->check(positive_real(true));
  cmd.add_option("--delta", o.delta, "density diffusion coefficient, 0 for none (default: the case's, 0.1)")
      ->check(positive_real(true));
  add_engine_options(cmd, o.engine, o.cell_list);
  cmd.add_option("--cfl", o.cfl, "CFL number of the time step (default 0.2)")->check(CLI::Range(1e-6, 1.0));
  cmd.add_option("--diagnostics", o.diagnostics,
                 "write t,step,dt,kinetic,mass,density_deviation,front,escaped here (CSV, with its provenance record "
                 "X.meta.json; front: the largest x of fluid within 2 dx of the floor; escaped: fluid outside the walls): at "
                 "the start, every --diag-every seconds and at the end");
  cmd.add_option("--diag-every", o.diag_every, "simulated seconds between diagnostic samples (default: --t-end / 100)")
      ->check(positive_real());
  cmd.add_option("--snapshots", o.snapshots,
                 "write every particle (t,id,boundary,x,y,z,vx,vy,vz,rho,p; CSV, full precision, with X.meta.json) at the "
                 "start, every --snapshot-every seconds and at the end");
  cmd.add_option("--snapshot-every", o.snapshot_every, "simulated seconds between snapshots (default: --t-end / 10)")
      ->check(positive_real());
  cmd.add_option("--final-state", o.final_state, "write the final particles here (as --snapshots, one time)");
  cmd.add_option("--summary", o.summary,
                 "write a JSON summary here (steps, time per step, the final diagnostics, the change of the fluid's "
                 "mass; hydrostatic: pressure_error, the largest |p - rho0 g d| / (rho0 g d) below the top two layers; "
                 "poiseuille: centre_line_ratio, the centre line's speed over the analytic steady one)");
  add_checkpoint_options(cmd, o, o.checkpoint_every, o.stop_at);
  add_quiet_option(cmd, o.quiet);
}

int sph_command(const SphOptions& given) {
  if (given.case_name.empty() && given.resume.empty()) throw InputError("--case is required (or --resume FILE)");
  if (!given.case_name.empty()) (void)find_entry(sph_cases, given.case_name, "SPH case");  // the valid names, before any work
  check_engine_options(given.engine, given.cell_list, given.given("--cell-list"));
  OutputSet outputs =
      open_model_files(given, given.diag_every > 0, given.snapshot_every > 0, given.checkpoint_every || given.stop_at);

  std::optional<Checkpoint> resumed;
  SphOptions o = given;
  if (!given.resume.empty()) {
    resumed = read_checkpoint(given.resume);
    o = resumed_options("sph", given, resumed->parameters, sph_fields);
  } else {
    o = resolved(given);
  }
  if (o.precision == "float") return sph_typed<float>(o, outputs, std::move(resumed));
  return sph_typed<double>(o, outputs, std::move(resumed));
}

}  // namespace nbody::cli
