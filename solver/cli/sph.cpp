// `nbody sph`: weakly compressible SPH (solver/particles/sph/sph_cpu.hpp) on the validation cases of
// solver/particles/sph/sph_cases.hpp through the run contract (run/command.hpp): the flags, the run's
// identity, and the model made from them.
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>
#include <type_traits>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "cli/model.hpp"
#include "core/error.hpp"
#include "core/progress.hpp"
#include "core/real.hpp"
#include "core/registry.hpp"
#include "io/archive.hpp"
#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/provenance.hpp"
#include "particles/cells/cell_list_cuda.hpp"
#include "run/command.hpp"
#include "particles/sph/sph_cases.hpp"
#include "particles/sph/sph_model.hpp"
#if NBODY_WITH_CUDA
#include "particles/sph/sph_cuda.hpp"
#endif

namespace nbody::cli {

using particles::SphCase;
using particles::SphCpu;
using particles::SphDiagnostics;
using particles::SphState;

namespace {

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
  SphCase<T> c = find_entry(particles::sph_cases<T>, o.case_name, "SPH case").make(o.dx, o.depth);
  for (const auto& [name, kind] : kernels)
    if (name == o.kernel) c.params.kernel = kind;
  for (const auto& [name, kind] : diffusions)
    if (name == o.diffusion) c.params.diffusion = kind;
  if (o.alpha >= 0) c.params.alpha = o.alpha;
  if (o.delta >= 0) c.params.delta = o.delta;
  if (o.cfl > 0) c.params.cfl = o.cfl;
  try {
    particles::check_sph(c.params, c.state);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  return c;
}

// The options with every model value the case leaves to itself filled in (the identity a
// checkpoint keeps, and the provenance records).
SphOptions resolved(SphOptions o) {
  const auto& spec = find_entry(particles::sph_cases<double>, o.case_name, "SPH case");
  if (o.dx == 0) o.dx = spec.dx;
  const double extent = spec.extent(o.depth), finest = extent / spec.finest;
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

// The model's flags: what makes a run what it is (a resume takes them from its checkpoint).
constexpr auto sph_identity = [](auto& o, auto&& f) {
  f("case", o.case_name), f("precision", o.precision), f("dx", o.dx), f("depth", o.depth), f("kernel", o.kernel);
  f("diffusion", o.diffusion), f("alpha", o.alpha), f("delta", o.delta), f("cfl", o.cfl);
};
// What a part of the run chooses for itself, the checkpoint's unless given anew.
constexpr auto sph_part = [](auto& o, auto&& f) {
  f("t_end", o.t_end), f("engine", o.engine), f("cell_list", o.cell_list), f("diag_every", o.diag_every);
  f("snapshot_every", o.snapshot_every);
  contract_part(o.contract, f);
};

template <class T>
int sph_typed(const SphOptions& o, const std::optional<Checkpoint>& resumed, OutputSet& outputs) {
  SphCase<T> c = make_case<T>(o);
  if (resumed) {
    run::reading_checkpoint(o.contract.files.resume, [&] {
      ArchiveReader r(resumed->state);
      particles::read_sph_state(r, c);
      r.finish();
    });
  }
  const SphState<T>& state = c.state;
  if (!(o.t_end > state.time))
    throw InputError("--t-end " + RealTraits<double>::format(o.t_end) + ": the run " +
                     (resumed ? "of checkpoint '" + o.contract.files.resume + "' " : std::string()) + "is already at t = " +
                     RealTraits<double>::format(state.time) + "; give a later one");
  run::Request<double> request;
  run::Schedule<double>& s = request.schedule;
  s.end = run::Mark<double>::at_time(o.t_end);
  if (!o.contract.stop_at.empty()) {
    const std::uint64_t stop = parse_steps(o.contract.stop_at, "--stop-at");
    if (stop <= state.steps) throw InputError("--stop-at must be after the start step " + std::to_string(state.steps));
    s.stop_at = run::Mark<double>::at_step(stop);
  }
  std::optional<run::Every<double>> diag_every;
  if (o.diag_every > 0) diag_every = run::Every<double>::of_time(o.diag_every);
  s.sample(diag_every, run::Every<double>::of_time(o.contract.files.diagnostics.empty() ? o.t_end : o.t_end / 100),
           o.contract.diag_budget);
  if (!o.contract.files.snapshots.empty())
    s.snapshots = run::Every<double>::of_time(o.snapshot_every > 0 ? o.snapshot_every : o.t_end / 10);
  if (!o.contract.checkpoint_every.empty())
    s.checkpoints = run::Every<double>::of_steps(parse_steps(o.contract.checkpoint_every, "--checkpoint-every"));

  // Each case's own measure, null in the others'.
  const auto measures = [&](nlohmann::json& j) {
    for (const auto& e : particles::sph_cases<T>)
      if (!e.measure.empty()) j[e.measure] = nullptr;
    const auto& spec = find_entry(particles::sph_cases<T>, o.case_name, "SPH case");
    if (spec.measured) j[spec.measure] = spec.measured(c, o.dx, o.depth);
  };
  const nlohmann::json identity = fields_of(o, sph_identity), part = fields_of(o, sph_part),
                       provenance = {{"command_line", o.contract.command_line}, {"t_end", o.t_end}};
  const auto run_with = [&](auto& driver, const std::string& device) {
    particles::SphModel<T, std::remove_reference_t<decltype(driver)>> model(c, driver, o.case_name, o.engine, device, measures);
    return run::run_model(model, o.contract.files, outputs, request, resumed, identity, part, provenance);
  };
  if (o.engine == "cuda") {
#if NBODY_WITH_CUDA
    particles::SphCuda<T> gpu(c.params, c.state, particles::cell_builder_named(o.cell_list));
    return run_with(gpu, gpu.device_info());
#else
    throw InputError("--engine cuda: this build has no CUDA (no CUDA compiler was found when it was built)");
#endif
  }
  SphCpu<T> cpu(c.params, c.state);
  return run_with(cpu, "");
}

}  // namespace

void add_sph_options(CLI::App& cmd, SphOptions& o) {
  std::string cases;
  for (const auto& e : particles::sph_cases<double>) {
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
  for (const auto& e : particles::sph_cases<double>) names += std::string(names.empty() ? "" : ", ") + std::string(e.name);
  cmd.add_option("--case", o.case_name, "the validation case: " + names + " (below)");
  cmd.add_option("--t-end", o.t_end, "simulated seconds to reach (with --resume: the checkpoint's run's unless given)")
      ->check(positive_real());
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
  cmd.add_option("--diagnostics", o.contract.files.diagnostics,
                 "write t,step,dt,kinetic,mass,density_deviation,front,escaped here (CSV, with its provenance record "
                 "X.meta.json; front: the largest x of fluid within 2 dx of the floor; escaped: fluid outside the walls): at "
                 "the start, every --diag-every seconds and at the end");
  cmd.add_option("--diag-every", o.diag_every, "simulated seconds between diagnostic samples (default: --t-end / 100)")
      ->check(positive_real());
  cmd.add_option("--snapshots", o.contract.files.snapshots,
                 "write every particle (t,id,boundary,x,y,z,vx,vy,vz,rho,p; CSV, full precision, with X.meta.json) at the "
                 "start, every --snapshot-every seconds and at the end");
  cmd.add_option("--snapshot-every", o.snapshot_every, "simulated seconds between snapshots (default: --t-end / 10)")
      ->check(positive_real());
  cmd.add_option("--final-state", o.contract.files.final_state, "write the final particles here (as --snapshots, one time)");
  cmd.add_option("--summary", o.contract.files.summary,
                 "write a JSON summary here (steps, time per step, the final diagnostics, the change of the fluid's "
                 "mass; hydrostatic: pressure_error, the largest |p - rho0 g d| / (rho0 g d) below the top two layers; "
                 "poiseuille: centre_line_ratio, the centre line's speed over the analytic steady one)");
  add_contract_options(cmd, o.contract, "steps", 1);
}

int sph_command(const SphOptions& given) {
  SphOptions o = given;
  std::optional<Checkpoint> resumed;
  if (!given.contract.files.resume.empty()) {
    resumed = run::read_run_checkpoint("sph", given.contract.files.resume);
    o = resumed_options(given, resumed->parameters["identity"], sph_identity);
    o = inherited_options(o, resumed->parameters.value("part", nlohmann::json::object()), sph_part);
  }
  if (o.case_name.empty()) throw InputError("--case is required (or --resume FILE)");
  (void)find_entry(particles::sph_cases<double>, o.case_name, "SPH case");  // the valid names, before any work
  if (!(o.t_end > 0)) throw InputError("--t-end is required (simulated seconds to reach)");
  check_engine_options(o.engine, o.cell_list, o.contract.given("--cell-list"));
  check_particle_outputs(o.contract);
  OutputSet outputs = open_contract_files(o.contract, o.snapshot_every > 0);
  if (!resumed) o = resolved(o);
  if (o.precision == "float") return sph_typed<float>(o, resumed, outputs);
  return sph_typed<double>(o, resumed, outputs);
}

}  // namespace nbody::cli
