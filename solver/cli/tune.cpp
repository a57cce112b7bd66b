// `nbody tune` (tune.hpp).
#include "cli/tune.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <vector>

#include "cli/parse.hpp"
#include "cli/timing.hpp"
#include "core/registry.hpp"
#include "cuda/tune_cache.hpp"
#include "engines/gpu_engines.hpp"
#include "engines/request.hpp"
#include "io/output_set.hpp"
#if NBODY_WITH_CUDA
#include "cuda/cuda_device.hpp"
#endif

namespace nbody::cli {

namespace {
// "cuda-naive, ..., opencl-tiled": the GPU engines of this build.
std::string gpu_engine_list() {
  const std::string out = comma_list(gpu_engine_names());
  return out.empty() ? "none in this build" : out;
}
}  // namespace

void add_tune_options(CLI::App& cmd, TuneOptions& o) {
  cmd.add_option("--engine", o.engine, "GPU engine: " + gpu_engine_list())->required();
  cmd.add_option("--precision", o.precision, "real type")->capture_default_str();
  cmd.add_option("--n", o.n, "number of bodies")->required()->check(whole_number<long long>());
  cmd.add_option("--repeats", o.repeats, "timed evaluations per shape (median of device times)")
      ->capture_default_str()
      ->check(whole_number<int>());
  cmd.add_option("--seed", o.seed, "random seed of the bodies")->capture_default_str()->check(whole_number<std::uint64_t>());
  add_timing_ic_option(cmd, o.ic);
  cmd.add_option("--blocks", o.blocks, "threads per block to try, e.g. 64,128,256");
  cmd.add_option("--splits", o.splits, "values of split= to try (0 = the kernel's choice)");
  cmd.add_option("--unrolls", o.unrolls, "inner-loop unroll factors to try");
  cmd.add_option("--ipts", o.ipts, "bodies per thread to try");
  cmd.footer("The shapes tried are every combination of the engine's knobs (`nbody list engines` names them, with "
             "their valid values); a knob's list defaults to the one its kernel's spec gives `nbody tune`. A list "
             "for a knob the engine lacks is an error.");
  cmd.add_flag("--no-store", o.no_store, "do not write the best shape to the tuning cache");
  cmd.add_option("--csv", o.csv, "also write the rows to this CSV file (with its .meta.json)");
  add_force_options(cmd, o.force);
}

namespace {

std::vector<int> parse_list(const std::string& text, const std::string& flag) {
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) continue;
    try {
      std::size_t used = 0;
      const int v = std::stoi(item, &used);
      if (used != item.size() || v < 0) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw InputError(flag + ": '" + item + "' is not a non-negative integer");
    }
  }
  if (out.empty()) throw InputError(flag + " is empty");
  return out;
}

// The shapes to try: every combination of the engine's knobs, each knob over its --KEYs list (for
// block, split, unroll and ipt) or, without one, the list its spec gives `nbody tune`.
template <class T>
std::vector<Launch> shape_grid(const TuneOptions& o, const EngineEntry<T>& engine) {
  const struct {
    const std::string& text;
    const char* flag;
    int Launch::*field;
  } lists[] = {{o.blocks, "--blocks", &Launch::block},
               {o.splits, "--splits", &Launch::split},
               {o.unrolls, "--unrolls", &Launch::unroll},
               {o.ipts, "--ipts", &Launch::ipt}};
  const auto& knobs = engine.can.launch;
  for (const auto& list : lists)
    if (!list.text.empty() &&
        std::none_of(knobs.begin(), knobs.end(), [&](const Knob& x) { return x.field == list.field; }))
      throw InputError("tune: " + std::string(list.flag) + ": " + std::string(engine.name) + " takes only " +
                       knob_keys(knobs));
  std::vector<Launch> grid{Launch{}};
  for (const Knob& k : knobs) {
    const auto list = std::find_if(std::begin(lists), std::end(lists), [&](const auto& x) { return x.field == k.field; });
    const std::vector<int> values =
        list == std::end(lists) || list->text.empty() ? k.tune : parse_list(list->text, list->flag);
    if (values.empty()) continue;
    std::vector<Launch> next;
    for (const Launch& l : grid)
      for (int v : values) {
        next.push_back(l);
        next.back().*k.field = v;
      }
    grid = std::move(next);
  }
  return grid;
}

template <class T>
int tune_typed(const TuneOptions& o) {
  if (o.n < 2) throw InputError("--n must be at least 2, got " + std::to_string(o.n));
  if (o.repeats < 1) throw InputError("--repeats must be at least 1, got " + std::to_string(o.repeats));
  const auto gpu = gpu_engine_names();
  if (std::find(gpu.begin(), gpu.end(), o.engine) == gpu.end())
    throw InputError("tune: --engine must be a GPU engine (" + gpu_engine_list() + "), got " + quoted_excerpt(o.engine));
  const ForceLaw<T> law = parse_force_law<T>(o.force);
  const ResolvedEngine<T> resolved = resolve_engine<T>(engine_request(o.engine, "", o.force), law);  // each shape set below
  const EngineEntry<T>& entry = resolved.entry;
  // Without its device the engine would suggest a CPU engine, which tune cannot time.
  if (const std::string why = unavailable_reason(entry.can.device); !why.empty())
    throw InputError("tune: " + o.engine + " cannot run here: " + why + " (`nbody list engines` marks what runs here)");
  const std::vector<Launch> shapes = shape_grid(o, entry);
  std::vector<OutputFile> files;
  if (!o.csv.empty()) files.push_back({"--csv", o.csv, OutputKind::recorded});
  OutputSet outputs(files);

  IcParams ic;
  ic.name = o.ic;
  ic.n = static_cast<std::size_t>(o.n);
  ic.seed = o.seed;
  const State<T> s = make_initial_state<T>(ic);
  const std::size_t n = s.size();
  // Warm-up on at most 8192 bodies (module load, first-touch) so that large N is timed once.
  IcParams ic_small = ic;
  ic_small.n = std::min<std::size_t>(n, 8192);
  const State<T> small = make_initial_state<T>(ic_small);
  auto engine = resolved.make(law);
  std::vector<T> acc(3 * n), first, acc_small(3 * small.size());
  double first_scale = 0;
  const double interactions = double(n) * double(n - 1);

  struct Row {
    std::string launch, status, note, device;
    double seconds = -1, wall = -1, diff = -1;
  };
  std::vector<Row> rows;
  for (const Launch& shape : shapes) {
    const std::string spec = to_string(shape, entry.can.launch);
    Row row;
    row.launch = spec;
    try {
      engine->set_launch(spec);
      engine->accelerations(small.y.data(), small.mass.data(), small.size(), acc_small.data());
      std::vector<double> dev, wall;
      for (int r = 0; r < o.repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        engine->accelerations(s.y.data(), s.mass.data(), n, acc.data());
        wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        const double d = engine->last_device_seconds();
        dev.push_back(d >= 0 ? d : wall.back());
      }
      row.seconds = median_of(dev);
      row.wall = median_of(wall);
      row.device = engine->device_info();
      if (first.empty()) {
        first = acc;
        for (const T& v : first) first_scale = std::max(first_scale, std::fabs(static_cast<double>(v)));
        row.diff = 0;
      } else {
        double d = 0;
        for (std::size_t k = 0; k < acc.size(); ++k)
          d = std::max(d, std::fabs(static_cast<double>(acc[k] - first[k])));
        row.diff = d / first_scale;
      }
      bool finite = true;
      for (const T& v : acc) finite = finite && std::isfinite(static_cast<double>(v));
      row.status = finite ? "ok" : "non-finite";
    } catch (const InputError& e) {
      row.status = "invalid";
      row.note = e.what();
    }
    rows.push_back(row);
  }

  std::size_t best = rows.size();
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (rows[k].status == "ok" && (best == rows.size() || rows[k].seconds < rows[best].seconds)) best = k;

  std::ostringstream out;
  out << "engine,precision,n,launch,status,seconds_per_eval,interactions_per_s,wall_seconds_per_eval,max_diff_vs_first,best,"
         "device,note\n";
  char buf[512];
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    if (r.status == "invalid")
      std::snprintf(buf, sizeof buf, "%s,%s,%zu,%s,%s,,,,,0,", o.engine.c_str(), o.precision.c_str(), n,
                    csv_field(r.launch).c_str(), r.status.c_str());
    else
      std::snprintf(buf, sizeof buf, "%s,%s,%zu,%s,%s,%.6g,%.6g,%.6g,%.3g,%d,", o.engine.c_str(), o.precision.c_str(), n,
                    csv_field(r.launch).c_str(), r.status.c_str(), r.seconds, interactions / r.seconds, r.wall, r.diff,
                    k == best ? 1 : 0);
    out << buf << csv_field(r.device) << "," << csv_field(r.note) << "\n";
  }
  std::fputs(out.str().c_str(), stdout);
  if (!o.csv.empty()) outputs.stream(o.csv) << out.str();
  outputs.commit({{"command", "tune"}, {"engine", o.engine}, {"precision", o.precision}, {"n", n},
                  {"repeats", o.repeats}, {"seed", o.seed}, {"force", to_json(o.force)},
#if NBODY_WITH_CUDA
                  {"cuda", nlohmann::json::parse(cuda::device_json())},
#endif
                  {"timing", "median of device times (CUDA/OpenCL events), kernels only"}});
  if (best == rows.size()) {
    std::fprintf(stderr, "nbody tune: no shape ran\n");
    return 3;
  }
  std::fprintf(stderr, "nbody tune: best %s: %.6g s, %.4g interactions/s\n", rows[best].launch.c_str(), rows[best].seconds,
               interactions / rows[best].seconds);
#if NBODY_WITH_CUDA
  if (!o.no_store && entry.can.device == Device::cuda) {
    tune_cache::store(cuda::device_key(), o.engine, o.precision, n, rows[best].launch, rows[best].seconds);
    std::fprintf(stderr, "nbody tune: stored in %s\n", tune_cache::path().c_str());
  }
#endif
  return 0;
}

}  // namespace

int tune_command(const TuneOptions& o) {
  return dispatch_precision(o.precision, [&]<class T>() { return tune_typed<T>(o); });
}

}  // namespace nbody::cli
