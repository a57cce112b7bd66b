// `nbody dpd`: dissipative particle dynamics (seed S3; solver/particles/dpd/dpd_cpu.hpp) through the run
// contract (run/command.hpp): the flags, the run's identity, and the model made from them.
#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

#include "cli/model.hpp"
#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "core/error.hpp"
#include "core/real.hpp"
#include "io/archive.hpp"
#include "run/command.hpp"
#include "particles/cells/cell_list_cuda.hpp"
#include "particles/dpd/dpd_cpu.hpp"
#include "particles/dpd/dpd_model.hpp"
#if NBODY_WITH_CUDA
#include "particles/dpd/dpd_cuda.hpp"
#endif

namespace nbody::cli {

using particles::DpdCpu;
using particles::DpdParameters;
using particles::DpdState;

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
  cmd.add_option("--steps", o.steps, "steps to take from the start (with --resume: the step to reach; the checkpoint's run's "
                                     "unless given)")
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
  cmd.add_option("--diagnostics", o.contract.files.diagnostics,
                 "write t,step,kT,pressure,potential,kinetic,px,py,pz here (CSV, with its provenance record X.meta.json): at the "
                 "start, every --diag-every steps and at the end");
  cmd.add_option("--diag-every", o.diag_every, "steps between diagnostic samples (default: --steps / 100)")
      ->check(whole_number<long long>(1));
  cmd.add_option("--snapshots", o.contract.files.snapshots,
                 "write every particle (t,id,species,x,y,z,vx,vy,vz; CSV, full precision, with X.meta.json) at the start, every "
                 "--snapshot-every steps and at the end");
  cmd.add_option("--snapshot-every", o.snapshot_every, "steps between snapshots (default: --steps / 10)")
      ->check(whole_number<long long>(1));
  cmd.add_option("--final-state", o.contract.files.final_state, "write the final particles here (as --snapshots, one time)");
  cmd.add_option("--summary", o.contract.files.summary,
                 "write a JSON summary here (steps, time per step, the mean kT and pressure of the diagnostic samples: "
                 "without --diagnostics those of the start and the end, ...)");
  add_contract_options(cmd, o.contract, "steps", 1);
}

namespace {

// The model's flags: what makes a run what it is (a resume takes them from its checkpoint).
constexpr auto dpd_identity = [](auto& o, auto&& f) {
  f("precision", o.precision), f("box", o.box), f("density", o.density), f("rc", o.rc), f("gamma", o.gamma);
  f("kT", o.kT), f("dt", o.dt), f("lambda", o.lambda), f("species", o.species), f("a", o.a);
  f("body_force", o.body_force), f("layout", o.layout), f("seed", o.seed);
};
// What a part of the run chooses for itself, the checkpoint's unless given anew.
constexpr auto dpd_part = [](auto& o, auto&& f) {
  f("steps", o.steps), f("engine", o.engine), f("cell_list", o.cell_list), f("diag_every", o.diag_every);
  f("snapshot_every", o.snapshot_every);
  contract_part(o.contract, f);
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
int dpd_typed(const DpdOptions& o, const std::optional<Checkpoint>& resumed, OutputSet& outputs) {
  const DpdParameters p = parameters_of(o);
  const auto L = box_sides(o.box);
  DpdState<T> state;
  if (resumed) {
    state = run::reading_checkpoint(o.contract.files.resume, [&] {
      ArchiveReader r(resumed->state);
      DpdState<T> s = particles::read_dpd_state<T>(r, p, L);
      r.finish();
      return s;
    });
  } else {
    const double count = std::round(o.density * L[0] * L[1] * L[2]);
    if (!(count >= 2 && count < 4e9))
      throw InputError("--density x volume must give from 2 to 4e9 particles, got " + RealTraits<double>::format(count));
    state = particles::dpd_random_state<T>(static_cast<std::size_t>(count), L, o.kT, o.species, o.seed,
                                           o.layout == "layers" ? particles::DpdLayout::layers : particles::DpdLayout::mixed);
  }
  const auto start_step = static_cast<long long>(state.step);
  if (o.steps <= start_step)
    throw InputError("--steps " + std::to_string(o.steps) + ": the run " +
                     (resumed ? "of checkpoint '" + o.contract.files.resume + "' " : std::string()) + "is already at step " +
                     std::to_string(start_step) + "; give a later one");
  run::Request<double> request;
  run::Schedule<double>& s = request.schedule;
  s.end = run::Mark<double>::at_step(o.steps);
  if (!o.contract.stop_at.empty()) {
    const std::uint64_t stop = parse_steps(o.contract.stop_at, "--stop-at");
    if (stop <= std::uint64_t(start_step)) throw InputError("--stop-at must be after the start step " + std::to_string(start_step));
    s.stop_at = run::Mark<double>::at_step(stop);
  }
  // Without --diagnostics the samples (the summary's means) are the start and the end only.
  std::optional<run::Every<double>> diag_every;
  if (o.diag_every > 0) diag_every = run::Every<double>::of_steps(o.diag_every);
  s.sample(diag_every, run::Every<double>::of_steps(o.contract.files.diagnostics.empty() ? o.steps : std::max(1LL, o.steps / 100)),
           o.contract.diag_budget);
  if (!o.contract.files.snapshots.empty())
    s.snapshots = run::Every<double>::of_steps(o.snapshot_every > 0 ? o.snapshot_every : std::max(1LL, o.steps / 10));
  if (!o.contract.checkpoint_every.empty())
    s.checkpoints = run::Every<double>::of_steps(parse_steps(o.contract.checkpoint_every, "--checkpoint-every"));

  const nlohmann::json identity = fields_of(o, dpd_identity), part = fields_of(o, dpd_part),
                       provenance = {{"command_line", o.contract.command_line}, {"steps", o.steps}};
  const auto run_with = [&](auto& driver, const std::string& device) {
    particles::DpdModel<T, std::remove_reference_t<decltype(driver)>> model(state, driver, p, o.engine, device);
    return run::run_model(model, o.contract.files, outputs, request, resumed, identity, part, provenance);
  };
  if (o.engine == "cuda") {
#if NBODY_WITH_CUDA
    particles::DpdCuda<T> gpu(p, state, resumed.has_value(), particles::cell_builder_named(o.cell_list));
    return run_with(gpu, gpu.device_info());
#else
    throw InputError("--engine cuda: this build has no CUDA (no CUDA compiler was found when it was built)");
#endif
  }
  DpdCpu<T> cpu(p, state, resumed.has_value());
  return run_with(cpu, "");
}

}  // namespace

int dpd_command(const DpdOptions& given) {
  DpdOptions o = given;
  std::optional<Checkpoint> resumed;
  if (!given.contract.files.resume.empty()) {
    resumed = run::read_run_checkpoint("dpd", given.contract.files.resume);
    o = resumed_options(given, resumed->parameters["identity"], dpd_identity);
    o = inherited_options(o, resumed->parameters.value("part", nlohmann::json::object()), dpd_part);
  }
  if (o.steps == 0) throw InputError("--steps is required (the step to reach)");
  check_engine_options(o.engine, o.cell_list, o.contract.given("--cell-list"));
  check_particle_outputs(o.contract);
  OutputSet outputs = open_contract_files(o.contract, o.snapshot_every > 0);
  if (o.precision == "float") return dpd_typed<float>(o, resumed, outputs);
  return dpd_typed<double>(o, resumed, outputs);
}

}  // namespace nbody::cli
