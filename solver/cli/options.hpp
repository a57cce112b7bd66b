#pragma once
// Command-line options, as text: numbers are parsed later in the run's own precision T, so that
// `--a 0.1` means the T nearest to 0.1, not the double nearest to it.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/model.hpp"
#include "physics/initial_conditions.hpp"
#include "physics/tree_params.hpp"

namespace nbody::cli {

struct ForceOptions {
  std::string G = "1";
  std::string eps = "0";
  std::string r_min = "0";
  std::array<std::string, tree_params.size()> tree;  // tree_params' values, row by row; empty: not given
};

// `nbody run`: gravity (solver/driver/simulation.hpp) through the run contract (solver/run/).
struct RunOptions {
  IcParams ic;
  std::optional<long long> n;  // --n as given (IcParams::n once checked)
  ForceOptions force;
  std::string precision = "double";
  std::string engine;  // empty: the default (first registered) engine
  std::string launch;  // GPU engines: the launch shape; empty: the tune cache's, else the default
  std::string integrator;
  std::string dt, tol, atol, rtol, h_min, h_max;
  std::string controller = "pi";
  std::string compensated = "none";  // none, forces, state or both
  std::string stepping = "auto";     // auto, host or device
  std::string ias15_criterion = "prs23";  // gauss-radau15: prs23 or b6
  std::string energy = "engine";     // exact, engine or off
  int order = 0;
  std::string t_end, diag_every, snapshot_every;
  bool skip_memory_check = false;
  ContractOptions contract;
};
void add_run_options(CLI::App& cmd, RunOptions& o);
int run_command(const RunOptions& o);

struct IcOptions {
  IcParams ic;
  std::string precision = "double";
  std::string at_time;
  std::string out;
  bool skip_memory_check = false;
  std::vector<std::string> command_line;
};

struct BenchOptions {
  ForceOptions force;
  std::string engine;
  std::string precision = "double";
  long long n = 0;
  int repeats = 5;
  std::uint64_t seed = 1;
  std::string launch;  // GPU launch shape, e.g. "block=256,unroll=8" (empty: tuned or default)
  int steps = 0;                    // --steps K: also time K steps of `integrator` (E06: cost per step)
  std::string integrator = "rk4";
  std::string ic = "plummer";       // plummer or two-galaxies
  bool force_error = false;         // --force-error: the error against direct summation (median, p99, max)
  std::size_t error_bodies = 0;     // --error-bodies: of this many bodies (0: all)
  std::string accelerations;        // --accelerations: the last evaluation's accelerations to this CSV
  bool skip_memory_check = false;
};

// `nbody dpd`: dissipative particle dynamics in a periodic box (solver/particles/dpd/dpd_cpu.hpp). Numbers
// are doubles (the model's parameters, converted to the run's precision once); times are steps.
struct DpdOptions {
  std::vector<double> box = {10};  // L (a cube) or Lx, Ly, Lz
  double density = 3;
  double rc = 1, gamma = 4.5, kT = 1, dt = 0.01, lambda = 0.65;
  unsigned species = 1;
  std::vector<double> a = {25};    // species x species, row by row
  std::vector<double> body_force;  // gx, gy, gz per species (empty: none)
  std::string layout = "mixed";    // mixed (species in turn) or layers (species by height, 0 at the bottom)
  std::uint64_t seed = 1;
  long long steps = 0;
  std::string precision = "double", engine = "openmp", cell_list = "counting-sort";
  long long diag_every = 0, snapshot_every = 0;
  ContractOptions contract;
};
void add_dpd_options(CLI::App& cmd, DpdOptions& o);
int dpd_command(const DpdOptions& o);

// `nbody sph`: weakly compressible SPH on a validation case (solver/particles/sph/sph_cases.hpp).
// Model values left at 0 or empty take the case's own.
struct SphOptions {
  std::string case_name, precision = "double", kernel, diffusion, engine = "openmp", cell_list = "two-level";
  double dx = 0, depth = 0.2, t_end = 0;
  double alpha = -1, delta = -1, cfl = 0;  // negative or 0: the case's
  double diag_every = 0, snapshot_every = 0;  // simulated seconds; --checkpoint-every and --stop-at in steps
  ContractOptions contract;
};
void add_sph_options(CLI::App& cmd, SphOptions& o);
int sph_command(const SphOptions& o);

// `nbody cells`: the time of one cell-list build (E18; solver/particles/cells/cell_list_cuda.hpp).
struct CellsOptions {
  long long n = 0;
  double density = 3;
  std::vector<double> box;  // empty: a cube holding n at --density
  double rc = 1;
  std::string builder = "counting-sort", precision = "float", order = "random", cache = "cold";
  double moved_fraction = 1;
  int repeats = 20;
  std::uint64_t seed = 1;
  std::string summary;
  std::vector<std::string> command_line;
  std::function<bool(const std::string&)> given = [](const std::string&) { return false; };
};
void add_cells_options(CLI::App& cmd, CellsOptions& o);
int cells_command(const CellsOptions& o);

// `nbody potential`: the potential of a state on a grid (seed S4's figure). Numbers as text, parsed in
// the run's precision like `nbody run`'s.
struct PotentialOptions {
  IcParams ic;
  std::optional<long long> n;
  ForceOptions force;
  std::string precision = "double", engine, launch;
  std::string plane = "xy", at, centre, extent;
  bool volume = false;
  int resolution = 0;  // points per axis; 0: 256 on a plane, 64 in a volume
  std::string out, summary;
  bool skip_memory_check = false;
  std::vector<std::string> command_line;
};
void add_potential_options(CLI::App& cmd, PotentialOptions& o);
int potential_command(const PotentialOptions& o);

// The models, each a subcommand run through the run contract (solver/run/command.hpp): its name,
// what it does, its flags (`nbody NAME --help`) and its command. One line each.
template <class Options>
struct ModelCommand {
  std::string_view name, description;
  void (*add_options)(CLI::App&, Options&);
  int (*run)(const Options&);
};
inline const auto model_commands = std::tuple{
    ModelCommand<RunOptions>{"run", "integrate an N-body system from t = 0 to --t-end", add_run_options, run_command},
    ModelCommand<DpdOptions>{"dpd", "dissipative particle dynamics (Groot-Warren) in a periodic box, seed S3", add_dpd_options,
                             dpd_command},
    ModelCommand<SphOptions>{"sph", "weakly compressible SPH on a validation case (dam break in 2-D and 3-D, tank, Poiseuille), seed S3",
                             add_sph_options, sph_command},
};

// Converts the optional --n to IcParams::n with a clear error for non-positive values.
void set_n(IcParams& ic, const std::optional<long long>& n);

// Registers the initial-condition flags (--ic --n --seed --a --e --mass-ratio --box --central-fraction) on `cmd`.
void add_ic_options(CLI::App& cmd, IcParams& ic, std::optional<long long>& n);
void add_force_options(CLI::App& cmd, ForceOptions& f);
// --skip-memory-check (core/memory.hpp).
void add_memory_check_flag(CLI::App& cmd, bool& skip);
// --ic of the timing subcommands (bench, tune): plummer or two-galaxies.
void add_timing_ic_option(CLI::App& cmd, std::string& ic);

// The engine names --engine takes (the registry's, and mpi:<engine>, mpi-ring:<engine>), and
// --launch's help: each GPU engine's knobs.
CLI::Validator engine_name_validator();
std::string launch_help();
int ic_command(const IcOptions& o);
int bench_command(const BenchOptions& o);
int list_command(const std::string& what, bool json, const std::string& precision);

}  // namespace nbody::cli
