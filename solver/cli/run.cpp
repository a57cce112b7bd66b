// `nbody run`: gravity (driver/simulation.hpp) through the run contract (run/command.hpp): the flags,
// the run's identity, and the model made from them, from its start or from a checkpoint.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "cli/model.hpp"
#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "cli/time_spec.hpp"
#include "core/memory.hpp"
#include "driver/simulation.hpp"
#include "engines/gpu_engines.hpp"
#include "engines/request.hpp"
#include "io/archive.hpp"
#include "mpi/ranks.hpp"
#include "physics/initial_conditions.hpp"
#include "run/command.hpp"

namespace nbody::cli {

void add_run_options(CLI::App& cmd, RunOptions& run) {
  cmd.footer(
      "Time values (--dt --t-end --diag-every --snapshot-every --h-min --h-max) are numbers or, for a bound two-body system, multiples of its\n"
      "orbital period: 10P, P/1024, 0.5P. Give a fixed step with --dt, or tolerances with --tol (atol = rtol)\n"
      "or --atol and --rtol for methods with an error estimate (dopri5): the error norm is the RMS over all\n"
      "components of err / (atol + rtol max(|y_old|, |y_new|)), a step is accepted when it is <= 1.\n"
      "Outputs are checked before the run starts: each names a file in an existing folder this process can write, and no two\n"
      "files written (outputs, their provenance records X.meta.json of X.csv or X, the checkpoint's FILE.bak) nor an input may be\n"
      "the same file, nor may another nbody run be writing any of them (X.lock while it runs). Each output appears whole\n"
      "when the run ends (or stops at --stop-at), never in part.\n"
      "Diagnostics: a sample measures the energy (--energy), momentum, angular momentum and centre of mass at the start, every\n"
      "--diag-every and at the end; without --diag-every they are kept within --diag-budget of the run's time.\n"
      "Interrupted by SIGINT (Ctrl-C) or SIGTERM (a batch system's time limit), the run finishes its step, writes its checkpoint\n"
      "if --checkpoint names one (and no other output: they would be partial), says so in one line and exits 130 or 143; a\n"
      "second signal stops it at once. `nbody run --resume FILE` continues the run bit for bit with the flags FILE holds.\n"
      "Runs in parts: `--checkpoint c.bin --stop-at T1`, then `--resume c.bin --stop-at T2`, ...; each part writes its own\n"
      "diagnostics and snapshots (from where it starts) and, at its end, the final state it reached.\n"
      "Exit codes (the table: `nbody --help`): 0 also when stopped at --stop-at; 3 (the run failed) writes no output but\n"
      "keeps the checkpoints already written; 130/143 (interrupted): the checkpoint, if any, resumes the run.");
  add_ic_options(cmd, run.ic, run.n);
  std::vector<std::string> integrators;
  for (const auto& e : integrator_table<double>()) integrators.emplace_back(e.name);
  cmd.add_option("--integrator", run.integrator, "integration method (`nbody list integrators`)")->check(CLI::IsMember(integrators));
  cmd.add_option("--order", run.order,
                 "order of the methods that have one to choose: adams-bashforth, adams-moulton, bulirsch-stoer (`nbody list "
                 "integrators`)")
      ->check(whole_number<int>(1));
  cmd.add_option("--dt", run.dt, "fixed step size (with --tol: first trial step)");
  cmd.add_option("--tol", run.tol,
                 "adaptive: atol = rtol = TOL of the error norm below (gauss-radau15: IAS15's epsilon, see --ias15-criterion; "
                 "bulirsch-stoer: the norm on its extrapolation error; `nbody list integrators`)");
  cmd.add_option("--atol", run.atol, "adaptive: absolute tolerance (with --rtol)");
  cmd.add_option("--rtol", run.rtol, "adaptive: relative tolerance (with --atol)");
  cmd.add_option("--h-min", run.h_min,
                 "adaptive: smallest step allowed; the run fails (exit 3) if the controller needs less (default 0; a step too "
                 "small to move t, h <= 4 eps |t|, fails the run in any case)");
  cmd.add_option("--h-max", run.h_max, "adaptive: largest step allowed (default: none)");
  cmd.add_option("--controller", run.controller,
                 "adaptive step-size control: pi (proportional-integral, Hairer's DOPRI5 settings) or subdivide (seed S0: every "
                 "step starts at --h-max and is split into 8, recursively up to 8 levels, while the max-norm of the error "
                 "estimate per unit time exceeds --atol, or --tol; S0 used 1e-4)")
      ->capture_default_str()
      ->check(CLI::IsMember({"pi", "subdivide"}));
  cmd.add_option("--ias15-criterion", run.ias15_criterion,
                 "gauss-radau15's step criterion, with --tol as IAS15's epsilon: prs23 (Pham, Rein & Spiegel 2024): the step is "
                 "(7! epsilon)^(1/7) times the smallest timescale sqrt(2|a|^2/(|j|^2+|a||s|)) of the bodies' acceleration a, jerk "
                 "j and snap s; b6 (Rein & Spiegel 2015): epsilon bounds max|b6|/max|a| in a step (at least 1e5 round-off units)")
      ->capture_default_str()
      ->check(CLI::IsMember({"prs23", "b6"}));
  cmd.add_option("--t-end", run.t_end, "end time (with --resume: the checkpoint's run's unless given)");
  std::vector<std::string> precisions;
  std::apply([&](auto... t) { (precisions.emplace_back(RealTraits<decltype(t)>::name), ...); }, Precisions{});
  cmd.add_option("--precision", run.precision, "real type")->capture_default_str()->check(CLI::IsMember(precisions));
  cmd.add_option("--engine", run.engine,
                 "force engine (`nbody list engines`; default: the first of that list that runs in --precision, with "
                 "--compensated forces the first that has them); under `mpiexec -n P`, mpi:<engine> splits the force "
                 "evaluation over the P ranks (each computes its block of bodies from all positions, with the bits of one "
                 "process; cuda-pairs: its passes, summed in turn), mpi-ring:<engine> the same with a ring exchange; "
                 "mpi-octree distributes the bodies and the octree (each rank makes and steps its block of the bodies: a fixed --dt "
                 "with an explicit method, --energy engine or off; octree's bits on any number of ranks, the outputs and checkpoints "
                 "gathered by rank 0, a checkpoint resumed on any number of ranks)")
      ->check(engine_name_validator());
  cmd.add_option("--launch", run.launch, launch_help());
  cmd.add_option("--stepping", run.stepping,
                 "where the steps are taken: auto (on the device when a CUDA engine in float or double runs an explicit "
                 "Runge-Kutta method at a fixed --dt or under --controller pi, or adams-bashforth, without --compensated: many "
                 "steps per launch, the state staying on the GPU, forces from the stepping kernel with --launch block=, split= "
                 "(threads per body) and cluster= (default 1: grid-wide sync; 2-16: the blocks form one thread-block cluster, "
                 "sm_90 and later); or when a CUDA octree engine runs leapfrog or a composition of it: the tree rebuilt on the GPU "
                 "every step, as seed S4; else on the host), host, or device (an error when that is not possible)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "host", "device"}));
  add_force_options(cmd, run.force);
  add_memory_check_flag(cmd, run.skip_memory_check);
  cmd.add_option("--compensated", run.compensated,
                 "Kahan/Neumaier compensation: of the force sums (forces: the engines that `nbody list engines` marks "
                 "[--compensated forces]), of the state updates y + h dy (state: explicit Runge-Kutta, Adams, symplectic; "
                 "gauss-radau15 always), or both")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "forces", "state", "both"}));
  cmd.add_option("--energy", run.energy,
                 "the potential energy of each sample: engine (from the force engine: the CPU all-pairs engines' exact sum, on the "
                 "GPU the engines' own kernels, a tree's own walk with its error estimated at the start; the summary says which), "
                 "exact (the O(N^2) pair sum on the CPU, with the smallest pair distance), or off")
      ->capture_default_str()
      ->check(CLI::IsMember({"engine", "exact", "off"}));
  cmd.add_option("--diagnostics", run.contract.files.diagnostics,
                 "write the diagnostics CSV (t,steps,fevals,rejected,dt,E,dE_rel,dE_rel_max,P_rel,L_rel,com_x,com_y,com_z,"
                 "min_pair_dist; nan where not measured) here, with its provenance record X.meta.json");
  cmd.add_option("--diag-every", run.diag_every,
                 "time between diagnostic samples (default: t_end/1000, the samples kept within --diag-budget of the run's time)");
  cmd.add_option("--final-state", run.contract.files.final_state,
                 "write the final state here: CSV with its provenance record (X.meta.json), or, named .hdf5 or .h5, one snapshot "
                 "in GADGET's HDF5 layout (as --snapshots)");
  cmd.add_option("--summary", run.contract.files.summary, "write a JSON summary of the run here");
  cmd.add_option("--snapshots", run.contract.files.snapshots,
                 "write the whole state at the start, every --snapshot-every and at the end here: CSV t,id,mass,x,y,z,vx,vy,vz "
                 "(full precision) with its provenance record (X.meta.json); or, for NAME.hdf5 or NAME.h5, one file per time "
                 "NAME_000.hdf5, NAME_001.hdf5, ... in GADGET's HDF5 layout (Header, PartType1/Coordinates, Velocities, Masses, "
                 "ParticleIDs; read by yt, pynbody, h5py) with NAME.xdmf for ParaView. HDF5 holds float for float runs, double "
                 "otherwise, and extended precisions exactly as sums of doubles (*Expansion datasets); the provenance is in the "
                 "Header. A resumed run numbers its files on from the checkpoint's");
  cmd.add_option("--snapshot-every", run.snapshot_every,
                 "time between snapshots (needs --snapshots; default t_end/100). Snapshots are at exact times: adaptive steps are "
                 "shortened to land on them; with --dt it must be a multiple of the step");
  add_contract_options(cmd, run.contract, "time", 0.05);
}

namespace {

// The flags that make a gravity run what it is: a resume takes them from its checkpoint.
constexpr auto run_identity = [](auto& o, auto&& f) {
  f("ic", o.ic.name), f("n", o.ic.n), f("seed", o.ic.seed), f("a", o.ic.a), f("e", o.ic.e), f("mass_ratio", o.ic.mass_ratio);
  f("box", o.ic.box), f("central_fraction", o.ic.central_fraction), f("precision", o.precision), f("integrator", o.integrator);
  f("order", o.order), f("dt", o.dt), f("tol", o.tol), f("atol", o.atol), f("rtol", o.rtol), f("h_min", o.h_min);
  f("h_max", o.h_max), f("controller", o.controller), f("compensated", o.compensated), f("ias15_criterion", o.ias15_criterion);
  f("energy", o.energy);
  force_fields(o.force, f);
};
// What a part of the run chooses for itself, the checkpoint's unless given anew: where it ends, where
// the forces are computed (another engine continues the run, though not bit for bit), the outputs.
constexpr auto run_part = [](auto& o, auto&& f) {
  f("t_end", o.t_end), f("engine", o.engine), f("launch", o.launch), f("stepping", o.stepping);
  f("diag_every", o.diag_every), f("snapshot_every", o.snapshot_every);
  contract_part(o.contract, f);
};

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

template <class T>
int run_typed(const RunOptions& o, const std::optional<Checkpoint>& resumed, OutputSet& outputs) {
  ForceLaw<T> law = parse_force_law<T>(o.force);
  law.compensated = o.compensated == "forces" || o.compensated == "both";

  // The memory of N bodies: the state, the integrator's vectors, the engine's arrays, the energy's
  // potentials and the text of a state file (core/memory.hpp).
  const ResolvedEngine<T> engine = resolve_engine<T>(engine_request(o.engine, o.launch, o.force), law);
  const auto& method = find_entry(integrator_table<T>(), o.integrator, "integrator");
  const auto is_text = [](const std::string& f) { return !f.empty() && !is_hdf5_path(f); };
  const BodyMemory body = engine.entry.can.memory_with(
      7 + 6 * method.state_vectors + (o.energy == "off" ? 0 : 1),
      is_text(o.contract.files.final_state) || is_text(o.contract.files.snapshots) ? state_text_bytes<T>() : 0);
  const auto check_memory_of = [&](std::uint64_t n, const std::string& what) {
    check_memory(memory_need<T>(n, body), what, o.skip_memory_check, free_gpu_memory(engine.entry.can));
  };

  // An engine that distributes the bodies itself, under several ranks: each rank makes and steps
  // its block of them alone (driver/simulation.hpp), and checks its memory for that block.
  // A checkpoint holds every body (gathered by rank 0), whatever the number of ranks that wrote it.
  BodyBlock block;
  block.distributed = engine.entry.can.distributed && mpi::size() > 1;

  // The start: the checkpoint's bodies (the model then loads the rest) or the initial condition, N
  // checked against the memory before the bodies are made (built-in) or the integrator's stages are.
  State<T> initial;
  std::optional<ArchiveReader> archive;
  if (block.distributed) {
    block.total = resumed ? run::reading_checkpoint(o.contract.files.resume,
                                                    [&] { return Simulation<T>::saved_body_count(resumed->state); })
                          : initial_body_count<T>(o.ic);
    const std::vector<std::size_t> bounds = mpi::block_bounds(block.total);
    block.first = bounds[mpi::rank()];
    block.count = bounds[mpi::rank() + 1] - block.first;
    check_memory_of(block.count, "this rank's block of " + std::to_string(block.count) + " of the " + std::to_string(block.total) + " bodies");
  }
  if (resumed) {
    archive.emplace(resumed->state, block);
    initial = run::reading_checkpoint(o.contract.files.resume, [&] {
      ArchiveReader peek(resumed->state, block);
      return Simulation<T>::saved_state(peek);
    });
  } else if (block.distributed) {
    initial = make_initial_block<T>(o.ic, block.first, block.count);
  } else {
    if (o.ic.n) check_memory_of(*o.ic.n, "--n " + std::to_string(*o.ic.n));
    initial = make_initial_state<T>(o.ic);
  }
  if ((resumed || !o.ic.n) && !block.distributed)
    check_memory_of(initial.size(), "the " + std::to_string(initial.size()) + " bodies of " +
                                        (resumed ? "--resume " + o.contract.files.resume : "--ic " + o.ic.name));
  // The time unit P: the orbital period of the original start (kept in the checkpoint).
  std::optional<T> period_value;
  if (resumed) {
    if (const nlohmann::json p = resumed->parameters["parameters"].value("period", nlohmann::json()); p.is_string())
      period_value = RealTraits<T>::parse(p.get<std::string>(), "period");
  }
  // The bodies the period is of: the start's (a rank's block may hold fewer of two bodies).
  std::optional<State<T>> whole_start;
  if (block.distributed && block.total == 2 && !resumed) whole_start = make_initial_state<T>(o.ic);
  const State<T>& start = whole_start ? *whole_start : initial;
  if (!resumed && (block.distributed ? block.total : initial.size()) == 2) {
    try {
      period_value = orbital_period(o.ic, start, law.G);
    } catch (const InputError&) {
    }
  }
  const std::function<T()> period = [&] {
    if (!period_value) return orbital_period(o.ic, start, law.G);  // throws the reason
    return *period_value;
  };
  const std::function<T(const std::string&, const std::string&)> time = [&](const std::string& text, const std::string& flag) {
    const T v = parse_time<T>(text, flag, period);
    if (!is_finite(v) || v < T(0)) throw InputError(flag + " must be a finite time >= 0, got '" + text + "'");
    return v;
  };
  const auto positive = [&](const std::string& text, const std::string& flag) {
    const T v = time(text, flag);
    if (!(v > T(0))) throw InputError(flag + " must be positive");
    return v;
  };
  if (o.t_end.empty()) throw InputError("--t-end is required (the end time)");
  const T t_end = time(o.t_end, "--t-end");
  if (!(t_end > initial.t))
    throw InputError(resumed ? "--t-end " + o.t_end + ": the run of checkpoint '" + o.contract.files.resume +
                                   "' is already at t = " + RealTraits<T>::format(initial.t) +
                                   "; give a later --t-end to extend it (`nbody ic --ic file:" + o.contract.files.resume +
                                   " --out FILE` writes its bodies)"
                             : "--t-end must be after the start time " + RealTraits<T>::format(initial.t) + ", got '" + o.t_end + "'");
  const StepOptions<T> steps = parse_steps<T>(o, time);

  run::Request<T> request;
  run::Schedule<T>& s = request.schedule;
  s.end = run::Mark<T>::at_time(t_end);
  if (!o.contract.stop_at.empty()) s.stop_at = run::Mark<T>::at_time(time(o.contract.stop_at, "--stop-at"));
  std::optional<run::Every<T>> diag_every;
  if (!o.diag_every.empty()) diag_every = run::Every<T>::of_time(positive(o.diag_every, "--diag-every"));
  s.sample(diag_every, run::Every<T>::of_time(t_end / T(1000)), o.contract.diag_budget);
  request.snapshots_given = o.snapshot_every;
  request.memory = memory_need<T>(initial.size(), body);  // this rank's bodies
  if (!o.contract.files.snapshots.empty())
    s.snapshots = run::Every<T>::of_time(!o.snapshot_every.empty() ? positive(o.snapshot_every, "--snapshot-every") : t_end / T(100));
  if (!o.contract.checkpoint_every.empty()) s.checkpoints = run::Every<T>::of_time(positive(o.contract.checkpoint_every, "--checkpoint-every"));

  const Energy energy = o.energy == "exact" ? Energy::exact : o.energy == "off" ? Energy::off : Energy::engine;
  // The driver makes its engine from the name; the launch shape is set on it as make() would.
  Simulation<T> sim(initial, law, engine.name, o.integrator, steps, energy, block);
  sim.engine().set_launch(engine.launch);
  sim.set_period(period_value);
  if (archive)
    run::reading_checkpoint(o.contract.files.resume, [&] {
      sim.load(*archive);
      archive->finish();
    });
  RunOptions stored = o;
  stored.engine = engine.name;
  const nlohmann::json provenance = {
      {"command_line", o.contract.command_line},
      {"initial_condition", resumed ? nlohmann::json{{"resumed_from", o.contract.files.resume}} : to_json(o.ic)},
      {"t_end", RealTraits<T>::format(t_end)},
      {"period", period_value ? nlohmann::json(RealTraits<T>::format(*period_value)) : nlohmann::json()}};
  return run::run_model(sim, o.contract.files, outputs, request, resumed, fields_of(stored, run_identity), fields_of(stored, run_part),
                        provenance);
}

}  // namespace

int run_command(const RunOptions& options) {
  RunOptions given = options;
  set_n(given.ic, given.n);
  given.ic.G = given.force.G;
  RunOptions o = given;
  std::optional<Checkpoint> resumed;
  if (!given.contract.files.resume.empty()) {
    resumed = run::read_run_checkpoint("run", given.contract.files.resume);
    const nlohmann::json& identity = resumed->parameters["identity"];
    // (a precision that is not text is refused by resumed_options below)
    const std::string precision = identity.contains("precision") && identity["precision"].is_string()
                                      ? identity["precision"].get<std::string>() : std::string("double");
    // Numbers as text: the same number in the run's precision (0.01 and 1e-2) is the same value.
    const auto same_number = [&](const nlohmann::json& a, const nlohmann::json& b) {
      return a.is_string() && b.is_string() && dispatch_precision(precision, [&]<class T>() {
               try {
                 return RealTraits<T>::parse(a.get<std::string>(), "") == RealTraits<T>::parse(b.get<std::string>(), "");
               } catch (const InputError&) {
                 return false;
               }
             });
    };
    o = resumed_options(given, resumed->parameters["identity"], run_identity, same_number);
    o = inherited_options(o, resumed->parameters.value("part", nlohmann::json::object()), run_part);
  }
  if (o.integrator.empty()) throw InputError("--integrator is required (or --resume FILE)");
  // --order is for the methods that have one to choose (their registry entry says so).
  if (o.contract.given("--order") && !find_entry(integrator_table<double>(), o.integrator, "integrator").selectable_order)
    throw InputError("--order applies to " +
                     names_of(integrator_table<double>(), [](const auto& e) { return e.selectable_order; }) +
                     "; " + o.integrator + " has a fixed order (`nbody list integrators`)");
  std::vector<InputFile> inputs;
  if (!resumed && !ic_file(o.ic).empty()) inputs.push_back({"--ic", ic_file(o.ic), ""});
  OutputSet outputs = open_contract_files(o.contract, !o.snapshot_every.empty(), inputs);
  return dispatch_precision(o.precision, [&]<class T>() { return run_typed<T>(o, resumed, outputs); });
}

}  // namespace nbody::cli
