// `nbody cells`: the time of one cell-list build (seed S3's sort study, E18). The particles sit
// uniformly at random at --density; the list is built for their positions after a move from
// earlier ones: --order random (indices in no spatial order; --moved-fraction of them placed anew,
// all by default) or --order step (indices in cell order, as a code that reorders its data by cell
// holds them, then one DPD step). The incremental builder re-sorts the earlier positions' list;
// the others build from nothing. Every build is checked against the CPU's list, element for element.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "cli/timing.hpp"
#include "core/error.hpp"
#include "io/output_set.hpp"
#include "io/provenance.hpp"
#include "particles/cells/cell_list.hpp"
#include "particles/cells/cell_list_cuda.hpp"
#include "particles/dpd/dpd_cpu.hpp"
#include "engines/gpu_engines.hpp"

namespace nbody::cli {

using particles::CellList;

namespace {
constexpr const char* cpu_builder = "cpu";  // CellList::build, the CPU's counting sort (one thread)

std::string builder_names() {
  std::string names = cpu_builder;
  for (const auto& b : particles::cell_builders) names += ", " + std::string(b.name);
  return names;
}
}  // namespace

void add_cells_options(CLI::App& cmd, CellsOptions& o) {
  cmd.footer(
      "Times one build of a cell list (cells no smaller than --rc in the periodic box) for particles placed uniformly at\n"
      "random, after a move from earlier positions: --order random keeps the indices in no spatial order and places\n"
      "--moved-fraction of the particles anew (1: an unrelated configuration); --order step sorts the particles by cell, as a\n"
      "code that reorders its data does, and takes one DPD step (Groot and Warren's water, dt 0.01). The incremental builder\n"
      "re-sorts the earlier positions' list; the others build from nothing. A CUDA build is timed on the device (CUDA events\n"
      "around its kernels, copies excluded), by default from a cold L2 (--cache); cpu is the wall time of the CPU's counting\n"
      "sort on one thread. Every build is checked against the CPU's list, element for element: a difference fails the run\n"
      "(exit 3). The summary (--summary) holds the median, least and largest time of --repeats builds after a warm-up.");
  cmd.add_option("--n", o.n, "particles (at most 2^31 - 1)")->required()->check(CLI::Range(1LL, (1LL << 31) - 1));
  cmd.add_option("--density", o.density, "particles per unit volume: the box is the cube that holds --n")
      ->capture_default_str()
      ->check(positive_real());
  cmd.add_option("--box", o.box, "the periodic box instead of --density: L (a cube) or Lx,Ly,Lz")
      ->delimiter(',')
      ->check(positive_real());
  cmd.add_option("--rc", o.rc, "the cut-off: the least cell edge")->capture_default_str()->check(positive_real());
  cmd.add_option("--builder", o.builder, "one of " + builder_names())->capture_default_str();
  cmd.add_option("--precision", o.precision, "real type of the positions")->capture_default_str()
      ->check(CLI::IsMember({"float", "double"}));
  cmd.add_option("--order", o.order, "random (no spatial order) or step (in cell order, then one DPD step)")
      ->capture_default_str()
      ->check(CLI::IsMember({"random", "step"}));
  cmd.add_option("--moved-fraction", o.moved_fraction, "--order random: the fraction of the particles placed anew")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--cache", o.cache, "CUDA builders: cold (the L2 emptied before each build) or warm (as the last build left it)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cold", "warm"}));
  cmd.add_option("--repeats", o.repeats, "timed builds")->capture_default_str()->check(whole_number<int>(1));
  cmd.add_option("--seed", o.seed, "seed of the positions")->capture_default_str()->check(whole_number<std::uint64_t>());
  cmd.add_option("--summary", o.summary, "write the JSON summary here (times in seconds)");
}

namespace {

// The earlier and the new positions (SoA) of the particles in `box`.
template <class T>
struct Placement {
  particles::PeriodicBox<T> box{};
  std::vector<T> before, after;
};

template <class T>
Placement<T> place(const CellsOptions& o, const std::array<double, 3>& L, std::size_t n) {
  particles::DpdState<T> s = particles::dpd_random_state<T>(n, L, 1.0, 1, o.seed);
  Placement<T> out{s.box, {}, {}};
  if (o.order == "random") {
    out.before = s.pos;
    out.after = s.pos;
    std::vector<std::size_t> index(n);
    std::iota(index.begin(), index.end(), std::size_t(0));
    std::mt19937_64 rng(o.seed + 1);
    std::shuffle(index.begin(), index.end(), rng);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const auto moved = static_cast<std::size_t>(std::llround(o.moved_fraction * double(n)));
    for (std::size_t k = 0; k < moved; ++k)
      for (int a = 0; a < 3; ++a) out.after[a * n + index[k]] = s.box.wrap(T(u(rng) * L[a]), a);
    return out;
  }
  // step: the particles' data in cell order, then one DPD step.
  CellList<T> list;
  list.build(s.pos.data(), n, s.box, T(o.rc));
  particles::DpdState<T> sorted = s;
  for (int a = 0; a < 3; ++a)
    for (std::size_t k = 0; k < n; ++k) {
      sorted.pos[a * n + k] = s.pos[a * n + list.order[k]];
      sorted.vel[a * n + k] = s.vel[a * n + list.order[k]];
    }
  out.before = sorted.pos;
  particles::DpdParameters p;
  p.rc = o.rc, p.seed = o.seed;
  particles::DpdCpu<T> dpd(p, sorted);
  dpd.step();
  out.after = sorted.pos;
  return out;
}

template <class T>
int cells_typed(const CellsOptions& o, OutputSet& outputs) {
  const auto n = static_cast<std::size_t>(o.n);
  std::array<double, 3> L{};
  if (o.box.empty()) L.fill(std::cbrt(double(o.n) / o.density));
  else L = box_sides(o.box);
  for (double side : L)
    if (!(side >= o.rc)) throw InputError("the box sides must be at least --rc; take more particles or a larger --box");
  const Placement<T> at = place<T>(o, L, n);
  CellList<T> reference, earlier;
  reference.build(at.after.data(), n, at.box, T(o.rc));
  earlier.build(at.before.data(), n, at.box, T(o.rc));
  std::size_t moved = 0;
  for (std::size_t i = 0; i < n; ++i) moved += reference.cell[i] != earlier.cell[i];

  std::vector<double> seconds;
  std::string device;
  CellList<T> got;
  if (o.builder == cpu_builder) {
    device = host_info().value("cpu_model", std::string());
    for (int r = 0; r <= o.repeats; ++r) {  // r = 0: the warm-up
      const auto t0 = std::chrono::steady_clock::now();
      got.build(at.after.data(), n, at.box, T(o.rc));
      if (r) seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  } else {
#if NBODY_WITH_CUDA
    const particles::CellBuilder builder = particles::cell_builder_named(o.builder);
    const bool incremental = builder == particles::CellBuilder::incremental;
    particles::DeviceCellList<T> list;
    list.set_cold_cache(o.cache == "cold");
    for (int r = 0; r <= o.repeats; ++r) {
      if (incremental) list.build(particles::CellBuilder::counting_sort, at.before.data(), n, at.box, T(o.rc));
      list.build(builder, at.after.data(), n, at.box, T(o.rc));
      if (r) seconds.push_back(list.last_build_seconds());
      if (incremental && list.moved() != moved)
        throw RunError("the incremental re-sort counted " + std::to_string(list.moved()) + " particles that changed cell, not " +
                       std::to_string(moved));
    }
    list.download(got);
    device = cuda_device_json();
    device = nlohmann::json::parse(device).value("device", std::string());
#else
    (void)particles::cell_builder_named(o.builder);
    throw InputError("--builder " + o.builder + ": this build has no CUDA (no CUDA compiler was found when it was built)");
#endif
  }
  if (got.start != reference.start || got.order != reference.order || got.cell != reference.cell)
    throw RunError("the " + o.builder + " builder's list differs from the CPU's");

  const unsigned cells = reference.grid.cells();
  const nlohmann::json summary = {
      {"builder", o.builder},
      {"precision", o.precision},
      {"order", o.order},
      {"cache", o.builder == cpu_builder ? nlohmann::json() : nlohmann::json(o.cache)},
      {"n", n},
      {"box", L},
      {"rc", o.rc},
      {"cells", cells},
      {"particles_per_cell", double(n) / cells},
      {"moved", moved},
      {"moved_fraction", double(moved) / double(n)},
      {"repeats", o.repeats},
      {"seconds", median_of(seconds)},
      {"seconds_min", *std::min_element(seconds.begin(), seconds.end())},
      {"seconds_max", *std::max_element(seconds.begin(), seconds.end())},
      {"device", device},
      {"command_line", o.command_line}};
  if (!o.summary.empty()) outputs.stream(o.summary) << summary.dump(2) << "\n";
  outputs.commit({});
  std::printf("cells %s %s, %s order: %zu particles in %u cells, %zu changed cell, median %.4g ms per build (%s)\n",
              o.builder.c_str(), o.precision.c_str(), o.order.c_str(), n, cells, moved, 1e3 * median_of(seconds), device.c_str());
  return 0;
}

}  // namespace

int cells_command(const CellsOptions& o) {
  const bool known = o.builder == cpu_builder || std::any_of(particles::cell_builders.begin(), particles::cell_builders.end(),
                                                             [&](const auto& b) { return b.name == o.builder; });
  if (!known) throw InputError("--builder: unknown builder " + quoted_excerpt(o.builder) + " (valid: " + builder_names() + ")");
  if (o.builder == cpu_builder && o.given("--cache")) throw InputError("--cache applies to the CUDA builders, not cpu");
  if (o.order == "step" && o.given("--moved-fraction")) throw InputError("--moved-fraction applies to --order random");
  if (o.given("--box") && o.given("--density")) throw InputError("give --box or --density, not both");
  std::vector<OutputFile> files;
  if (!o.summary.empty()) files.push_back({"--summary", o.summary, OutputKind::plain});
  OutputSet outputs(files);
  if (o.precision == "float") return cells_typed<float>(o, outputs);
  return cells_typed<double>(o, outputs);
}

}  // namespace nbody::cli
