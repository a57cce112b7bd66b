// The command line of nbody, the one solver binary. Subcommands run / dpd / sph (the models), ic / bench / tune /
// cells / list / potential; `nbody SUBCOMMAND --help`.
#include "cli/command_line.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <new>
#include <utility>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "cli/tune.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/real.hpp"
#include "core/registry.hpp"
#include "engines/engine.hpp"
#include "engines/gpu_engines.hpp"
#if NBODY_WITH_CUDA
#include "engines/cuda/resident_backend.hpp"
#endif
#include "integrators/integrator.hpp"
#include "io/provenance.hpp"
#include "mpi/ranks.hpp"

namespace nbody::cli {

void add_ic_options(CLI::App& cmd, IcParams& ic, std::optional<long long>& n) {
  cmd.add_option("--ic", ic.name,
                 "initial condition: kepler, two-galaxies, galaxy, plummer, file:PATH.csv or file:PATH.hdf5 (`nbody list ics`)")
      ->capture_default_str();
  cmd.add_option("--n", n, "number of bodies (two-galaxies, galaxy, plummer)")->check(whole_number<long long>());
  cmd.add_option("--seed", ic.seed, "random seed (two-galaxies, galaxy, plummer)")
      ->capture_default_str()
      ->check(whole_number<std::uint64_t>());
  cmd.add_option("--a", ic.a, "kepler: semi-major axis")->capture_default_str();
  cmd.add_option("--e", ic.e, "kepler: eccentricity, 0 <= e < 1")->capture_default_str();
  cmd.add_option("--mass-ratio", ic.mass_ratio, "kepler: m2/m1 (total mass is 1)")->capture_default_str();
  cmd.add_option("--box", ic.box,
                 "two-galaxies, galaxy: box size; galaxy radius R = box/2 (two-galaxies: centres at -R and +R on x)")
      ->capture_default_str();
  cmd.add_option("--central-fraction", ic.central_fraction,
                 "galaxy: the central body's share of the mass 1000, 0 < f < 1 (S0 showed 0.99 and 0.1)")
      ->capture_default_str();
}

void add_memory_check_flag(CLI::App& cmd, bool& skip) {
  cmd.add_flag("--skip-memory-check", skip,
               "run even where the memory estimate (the program, and per body the state, the integrator's vectors, "
               "the engine's arrays and a state file's text) exceeds the memory available on the host or free on the GPU");
}

void add_timing_ic_option(CLI::App& cmd, std::string& ic) {
  cmd.add_option("--ic", ic, "the bodies: plummer (a Plummer sphere) or two-galaxies (S0's collision)")
      ->capture_default_str()
      ->check(CLI::IsMember({"plummer", "two-galaxies"}));
}

void add_force_options(CLI::App& cmd, ForceOptions& f) {
  cmd.add_option("--G", f.G, "gravitational constant")->capture_default_str();
  cmd.add_option("--eps", f.eps, "Plummer softening length (0: none)")->capture_default_str();
  cmd.add_option("--r-min", f.r_min, "seed S0's minimum-distance clamp, r^2 >= r_min^2 (0: none; S0 used 1e-4)")
      ->capture_default_str();
  for (std::size_t k = 0; k < tree_params.size(); ++k) {
    const TreeParam& p = tree_params[k];
    cmd.add_option(std::string(p.flag), f.tree[k],
                   trees_text(p.trees) + " engines: " + std::string(p.meaning) + "; " + valid_text(p) + ", default " +
                       value_text(p, TreeOptions{}).value_or("the engine's own (`nbody list engines`)"));
  }
}

std::string launch_help() {
  std::string text =
      "GPU engines: launch shape KEY=N,... (default: the shape `nbody tune` cached for this device, precision and N, "
      "else the engine's own choice; the summary names the shape used). Knobs:";
  for (const auto& e : all_engines()) {
    if (e.device == Device::cpu) continue;
    dispatch_precision(e.precisions.front(), [&]<class T>() { text += " " + std::string(e.name) + " " + knob_keys(find_engine<T>(e.name).can.launch) + ";"; });
  }
#if NBODY_WITH_CUDA
  text += " device-resident steps (--stepping) " + knob_keys(cuda::Resident::knobs()) + ";";
#endif
  return text + " valid values: `nbody list engines --precision P`";
}

CLI::Validator engine_name_validator() {
  std::vector<std::string> engines;
  for (const auto& e : all_engines()) engines.emplace_back(e.name);
  // An engine of the registry, or one split over MPI ranks: mpi:<engine>, mpi-ring:<engine>.
  return CLI::Validator(
      [engines](std::string& v) -> std::string {
        if (std::find(engines.begin(), engines.end(), std::string(local_engine_name(v))) != engines.end()) return {};
        return v + " not in {" + comma_list(engines) + "} (or mpi:<engine> under mpiexec)";
      },
      "ENGINE");
}

void set_n(IcParams& ic, const std::optional<long long>& n) {
  if (!n) return;
  if (*n <= 0) throw InputError("--n must be a positive number of bodies, got " + std::to_string(*n));
  ic.n = static_cast<std::size_t>(*n);
}

namespace {

std::vector<std::string> precision_list() {
  std::vector<std::string> out;
  std::apply([&](auto... t) { (out.emplace_back(RealTraits<decltype(t)>::name), ...); }, Precisions{});
  return out;
}

template <class Table>
std::vector<std::string> names(const Table& table) {
  std::vector<std::string> out;
  for (const auto& e : table) out.emplace_back(e.name);
  return out;
}



// Whether a flag of `cmd` was given on the command line (a resumed run keeps the others').
std::function<bool(const std::string&)> given_on(const CLI::App* cmd) {
  return [cmd](const std::string& flag) {
    const CLI::Option* opt = cmd->get_option_no_throw(flag);
    return opt && opt->count() > 0;
  };
}

// A model's subcommand (model_commands): its flags on `app`, and its run once parsed.
template <class Options>
std::pair<CLI::App*, std::function<int()>> add_model(CLI::App& app, const ModelCommand<Options>& m,
                                                     const std::vector<std::string>& command_line) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(std::string(m.name), std::string(m.description));
  m.add_options(*cmd, *options);
  return {cmd, [=, run = m.run] {
            options->contract.command_line = command_line;
            options->contract.given = given_on(cmd);
            return run(*options);
          }};
}

// "nbody 0.1 (commit 0123abc..., with uncommitted changes)": the build's version and commit.
std::string version_text() {
  const nlohmann::json b = build_info();
  return "nbody " + b["version"].get<std::string>() + " (commit " + b["git_commit"].get<std::string>() +
         (b["git_dirty"].get<bool>() ? ", with uncommitted changes" : "") + ")";
}

// A message as the one line the exit-code contract promises: control characters escaped.
std::string one_line(std::string_view message) {
  std::string out;
  for (char c : message) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      constexpr char hex[] = "0123456789abcdef";
      out += {'\\', 'x', hex[(c >> 4) & 15], hex[c & 15]};
    } else {
      out += c;
    }
  }
  return out;
}

// Under mpiexec the line is printed once, by the lowest failing rank (mpi/ranks.hpp). The command
// has ended: a signal now would add a second line.
int fail(const char* kind, std::string_view message, int code) {
  hold_interrupts();
  mpi::report("nbody: " + std::string(kind) + ": " + one_line(message));
  return code;
}

}  // namespace

int run_command_line(int argc, char** argv) {
  CLI::App app{"nbody: gravitational N-body solver of nbody-lab (integrators, precisions float to mp50, CPU, CUDA and\n"
               "OpenCL force engines).\n"
               "Subcommands: run (integrate), ic (write initial conditions), bench (time one force evaluation),\n"
               "tune (GPU launch shapes), dpd (dissipative particle dynamics in a periodic box), sph (smoothed particle\n"
               "hydrodynamics), cells (cell-list builds), list (integrators, engines, ics, precisions).\n"
               "`nbody SUBCOMMAND --help` for details;\n"
               "`nbody` alone prints this help."};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", version_text, "print the version and commit of this build");
  bool build_info_flag = false;
  app.add_flag("--build-info", build_info_flag, "print the build's provenance (commit, compiler, flags) as JSON");

  const auto precisions = precision_list();

  // The models' subcommands, from their list; each runs when parsed.
  const std::vector<std::string> command_line(argv, argv + argc);
  std::vector<std::pair<CLI::App*, std::function<int()>>> models;
  std::apply([&](const auto&... m) { (models.push_back(add_model(app, m, command_line)), ...); }, model_commands);

  IcOptions ic;
  std::optional<long long> ic_n;
  auto* ic_cmd = app.add_subcommand("ic", "write initial conditions to a state CSV (id,mass,x,y,z,vx,vy,vz)");
  add_ic_options(*ic_cmd, ic.ic, ic_n);
  ic_cmd->footer("--ic file:CHECKPOINT (a checkpoint of `nbody run`) writes the bodies it holds: a finished run's final state,\n"
                 "or where an interrupted one stopped, in --precision (rounded once where it differs from the run's).");
  ic_cmd->add_option("--G", ic.ic.G, "gravitational constant the velocities are set up for")->capture_default_str();
  ic_cmd->add_option("--precision", ic.precision, "real type of the generated numbers")
      ->capture_default_str()
      ->check(CLI::IsMember(precisions));
  ic_cmd->add_option("--at-time", ic.at_time, "kepler: the analytic state at this time instead of t = 0 (e.g. 10P)");
  add_memory_check_flag(*ic_cmd, ic.skip_memory_check);
  ic_cmd->add_option("--out", ic.out, "output: a state CSV (with X.meta.json), or NAME.hdf5 / NAME.h5: a snapshot in GADGET's HDF5 layout")->required();

  BenchOptions bench;
  auto* bench_cmd = app.add_subcommand("bench", "time one force evaluation (a Plummer sphere, or --ic); prints CSV (header + one row)");
  bench_cmd->add_option("--engine", bench.engine,
                        "force engine (`nbody list engines`; default: the first that runs in --precision); under mpiexec "
                        "mpi:<engine>, mpi-ring:<engine> or mpi-octree (`nbody run --help`), with the time split into compute "
                        "and exchange")
      ->check(engine_name_validator());
  bench_cmd->add_option("--precision", bench.precision, "real type")->capture_default_str()->check(CLI::IsMember(precisions));
  bench_cmd->add_option("--n", bench.n, "number of bodies")->required()->check(whole_number<long long>());
  bench_cmd->add_option("--repeats", bench.repeats, "timed evaluations; the median is reported, with the fastest and the slowest")
      ->capture_default_str()
      ->check(whole_number<int>());
  bench_cmd->add_option("--seed", bench.seed, "random seed of the bodies")
      ->capture_default_str()
      ->check(whole_number<std::uint64_t>());
  add_timing_ic_option(*bench_cmd, bench.ic);
  bench_cmd->add_flag("--force-error", bench.force_error,
                      "also the error of the last evaluation against direct summation in double, per body in the norm of "
                      "docs/design.md: its median, 99th percentile and maximum (O(N^2))");
  bench_cmd->add_option("--error-bodies", bench.error_bodies,
                        "with --force-error: the error of this many bodies spread evenly over the input order (the "
                        "reference sums N pair terms per body; default: every body)")
      ->check(whole_number<std::size_t>());
  bench_cmd->add_option("--accelerations", bench.accelerations,
                        "also write the last evaluation's accelerations to this CSV (id,ax,ay,az, digits that read back "
                        "exactly), to compare engines body by body");
  bench_cmd->add_option("--launch", bench.launch, launch_help());
  bench_cmd->add_option("--steps", bench.steps,
                        "also time this many steps of --integrator (fixed step 2^-10); the median is reported")
      ->capture_default_str()
      ->check(whole_number<int>());
  bench_cmd->add_option("--integrator", bench.integrator, "integrator of --steps")->capture_default_str();
  add_force_options(*bench_cmd, bench.force);
  add_memory_check_flag(*bench_cmd, bench.skip_memory_check);

  TuneOptions tune;
  auto* tune_cmd = app.add_subcommand("tune", "sweep a GPU engine's launch shape for (precision, N); CSV rows, best stored in the cache");
  add_tune_options(*tune_cmd, tune);


  CellsOptions cells;
  auto* cells_cmd = app.add_subcommand("cells", "time a cell-list build, CPU or CUDA (seed S3's sort study, E18)");
  add_cells_options(*cells_cmd, cells);

  std::string list_what;
  const std::vector<std::string> listable = {"integrators", "engines", "ics", "precisions"};
  auto* list_cmd = app.add_subcommand("list", "list integrators, engines, ics or precisions, one per line");
  list_cmd->add_option("what", list_what, "integrators | engines | ics | precisions");
  bool list_json = false;
  list_cmd->add_flag("--json", list_json,
                     "print a JSON array of objects (name, description; order and error_estimate for integrators; device, "
                     "precisions, compensated sums, SIMD, launch knobs, tree parameters with their defaults and whether "
                     "it can run here (available, unavailable_reason) for engines)");
  std::string list_precision = "double";
  list_cmd->add_option("--precision", list_precision, "engines: the launch knobs as compiled for this real type")
      ->capture_default_str()
      ->check(CLI::IsMember(precisions));

  PotentialOptions potential;
  auto* potential_cmd = app.add_subcommand("potential", "the potential of a state on a plane or in a volume of grid nodes (seed S4's field); CSV");
  add_potential_options(*potential_cmd, potential);
  potential_cmd->get_option("--precision")->check(CLI::IsMember(precisions));

  // After the subcommands, which would inherit it: the table is the top level's.
  app.footer(
      "Exit codes (every subcommand):\n"
      "  0    done\n"
      "  2    bad input: one line on stderr names the problem and the valid choices; nothing is written\n"
      "  3    the run failed (non-finite state, step size underflow, out of memory, ...): one line on stderr says why\n"
      "  130  interrupted by SIGINT (Ctrl-C)\n"
      "  143  interrupted by SIGTERM (what a batch system sends before it stops a job)\n"
      "No other code is used.");
  std::vector<std::string> subcommands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) subcommands.push_back(sub->get_name());
  if (argc > 1 && argv[1][0] != '-' && std::find(subcommands.begin(), subcommands.end(), argv[1]) == subcommands.end())
    return fail("error", "unknown subcommand " + quoted_excerpt(argv[1]) + " (valid: " + comma_list(subcommands) + "; `nbody --help`)", 2);
  try {
    std::vector<const char*> args;
    for (const auto& a : command_line) args.push_back(a.c_str());
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string message = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {  // an unknown flag or a stray value: say where the valid ones are
      const auto parsed = app.get_subcommands();
      message += " (`nbody " + (parsed.empty() ? std::string() : parsed.front()->get_name() + " ") + "--help` lists the flags)";
    }
    return fail("error", message, 2);
  } catch (const InputError& e) {
    return fail("error", e.what(), 2);
  }
  try {
    if (mpi::size() > 1 && !(*models.front().first || *bench_cmd || *list_cmd || build_info_flag))
      throw InputError("under mpiexec (" + std::to_string(mpi::size()) +
                       " ranks) only `nbody run` and `nbody bench` with --engine mpi:<engine> are distributed; run " +
                       (app.get_subcommands().empty() ? std::string("this") : "`nbody " + app.get_subcommands().front()->get_name() + "`") +
                       " as one process (mpiexec -n 1, or without mpiexec)");
    if (build_info_flag) {
      nlohmann::json host = host_info();
      host["features"] = gpu_features();  // GPU back ends with a device here (runner's `requires`)
      host["cuda"] = nlohmann::json::parse(cuda_device_json());
      std::cout << nlohmann::json{{"build", build_info()}, {"host", host}}.dump(2) << "\n";
      return 0;
    }
    for (const auto& [cmd, run] : models)
      if (*cmd) return run();
    if (*ic_cmd) {
      set_n(ic.ic, ic_n);
      ic.command_line = command_line;
      return ic_command(ic);
    }
    if (*cells_cmd) {
      cells.command_line = command_line;
      cells.given = given_on(cells_cmd);
      return cells_command(cells);
    }
    if (*potential_cmd) {
      set_n(potential.ic, potential.n);
      potential.ic.G = potential.force.G;
      potential.command_line = command_line;
      return potential_command(potential);
    }
    if (*bench_cmd) return bench_command(bench);
    if (*tune_cmd) return tune_command(tune);
    if (*list_cmd) {
      if (list_what.empty()) throw InputError("list: say what to list: " + comma_list(listable));
      if (std::find(listable.begin(), listable.end(), list_what) == listable.end())
        throw InputError("list: cannot list " + quoted_excerpt(list_what) + " (valid: " + comma_list(listable) + ")");
      return list_command(list_what, list_json, list_precision);
    }
    std::cout << app.help();  // `nbody` alone
    return 0;
  } catch (const mpi::PeerFailed& e) {  // another rank failed and says why
    return e.code;
  } catch (const InputError& e) {
    return fail("error", e.what(), 2);
  } catch (const RunError& e) {
    return fail("run failed", e.what(), 3);
  } catch (const std::bad_alloc&) {
    return fail("run failed", "out of memory", 3);
  } catch (const std::exception& e) {
    return fail("run failed", std::string("unexpected error (please report it): ") + e.what(), 3);
  }
}

}  // namespace nbody::cli
