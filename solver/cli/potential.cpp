// `nbody potential`: the potential of a state (an initial condition or a snapshot) on a plane or in
// a volume of grid nodes, by a force engine's potentials() (engines/engine.hpp: on the GPU for the
// CUDA engines, a direct sum on the CPU for the others), as seed S4 shows the field of its bodies.
// Writes CSV x,y,z,phi (the first axis fastest) with its provenance record.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "cli/options.hpp"
#include "cli/parse.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "engines/gpu_engines.hpp"
#include "engines/request.hpp"
#include "io/output_set.hpp"

namespace nbody::cli {

void add_potential_options(CLI::App& cmd, PotentialOptions& o) {
  add_ic_options(cmd, o.ic, o.n);
  add_force_options(cmd, o.force);
  add_memory_check_flag(cmd, o.skip_memory_check);
  cmd.add_option("--precision", o.precision, "real type")->capture_default_str();
  cmd.add_option("--engine", o.engine,
                 "force engine whose potentials() evaluate the field: the CUDA all-pairs engines on the GPU, the others by a "
                 "direct sum on the CPU (default: the first engine of the precision)");
  cmd.add_option("--launch", o.launch, "the engine's launch shape (GPU engines), as for `nbody run`");
  cmd.add_option("--plane", o.plane, "the plane of the grid: xy, xz or yz (ignored with --volume)")
      ->capture_default_str()
      ->check(CLI::IsMember({"xy", "xz", "yz"}));
  cmd.add_option("--at", o.at, "the plane's position on the third axis (default: the centre's)");
  cmd.add_flag("--volume", o.volume, "a cube of grid nodes instead of a plane");
  cmd.add_option("--resolution", o.resolution, "grid nodes per axis, 2 to 4096 on a plane, 2 to 512 in a volume (default 256, 64)")
      ->check(whole_number<int>(2));
  cmd.add_option("--centre", o.centre, "X,Y,Z the grid is centred on (default: the centre of mass)");
  cmd.add_option("--extent", o.extent, "half-width of the grid (default: 1.2 times the radius holding 95 % of the bodies)");
  cmd.add_option("--out", o.out, "the grid: CSV x,y,z,phi, with its provenance record X.meta.json")->required();
  cmd.add_option("--summary", o.summary, "write a JSON summary here (points, engine, method, seconds, phi's range)");
}

namespace {

template <class T>
std::vector<T> parse_point(const std::string& text, const std::string& flag) {
  std::vector<T> v;
  std::size_t start = 0;
  for (std::size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
    v.push_back(RealTraits<T>::parse(text.substr(start, comma - start), flag));
  v.push_back(RealTraits<T>::parse(text.substr(start), flag));
  if (v.size() != 3) throw InputError(flag + " takes three numbers X,Y,Z, got " + quoted_excerpt(text));
  for (const T& x : v)
    if (!is_finite(x)) throw InputError(flag + " takes finite numbers, got " + quoted_excerpt(text));
  return v;
}

template <class T>
int potential_typed(const PotentialOptions& o, OutputSet& outputs) {
  const auto wall_start = std::chrono::steady_clock::now();
  const int per_axis = o.resolution ? o.resolution : o.volume ? 64 : 256;
  if (per_axis > (o.volume ? 512 : 4096))
    throw InputError("--resolution " + std::to_string(per_axis) + " is too fine: at most " + (o.volume ? "512 in a volume" : "4096 on a plane"));
  if (o.volume && !o.at.empty()) throw InputError("--at places a plane; a --volume has none");
  const ForceLaw<T> law = parse_force_law<T>(o.force);
  const ResolvedEngine<T> engine = resolve_engine<T>(engine_request(o.engine, o.launch, o.force), law);
  const BodyMemory body = engine.entry.can.memory_with(7);  // (the grid is bounded above)
  const auto check = [&](std::uint64_t n, const std::string& what) {
    check_memory(memory_need<T>(n, body), what, o.skip_memory_check, free_gpu_memory(engine.entry.can));
  };
  if (o.ic.n) check(*o.ic.n, "--n " + std::to_string(*o.ic.n));
  const State<T> s = make_initial_state<T>(o.ic);
  if (!o.ic.n) check(s.size(), "the " + std::to_string(s.size()) + " bodies of --ic " + o.ic.name);
  const auto force_engine = engine.make(law);

  // The grid: centre, half-width, the axes it spans.
  const std::size_t n = s.size();
  std::vector<T> centre(3, T(0));
  if (!o.centre.empty()) {
    centre = parse_point<T>(o.centre, "--centre");
  } else {
    T total(0);
    for (std::size_t i = 0; i < n; ++i) total = total + s.mass[i];
    for (int d = 0; d < 3; ++d) {
      T sum(0);
      for (std::size_t i = 0; i < n; ++i) sum = sum + s.mass[i] * s.pos(d)[i];
      centre[d] = sum / total;
    }
  }
  const std::vector<int> axes = o.volume ? std::vector<int>{0, 1, 2}
                                : o.plane == "xy" ? std::vector<int>{0, 1}
                                : o.plane == "xz" ? std::vector<int>{0, 2}
                                                  : std::vector<int>{1, 2};
  T half;
  if (!o.extent.empty()) {
    half = parse_positive<T>(o.extent, "--extent");
  } else {  // 1.2 times the 95th percentile of the distance from the centre, in the grid's axes
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n; ++i) {
      T r2(0);
      for (int d : axes) r2 = r2 + (s.pos(d)[i] - centre[d]) * (s.pos(d)[i] - centre[d]);
      r[i] = static_cast<double>(sqrt(r2));
    }
    const std::size_t k = std::min(n - 1, static_cast<std::size_t>(0.95 * static_cast<double>(n)));
    std::nth_element(r.begin(), r.begin() + k, r.end());
    half = T(1.2 * r[k] > 0 ? 1.2 * r[k] : 1.0);
  }
  const int normal = 3 - axes[0] - axes[1];  // a plane's third axis
  const T third = o.at.empty() ? centre[normal] : RealTraits<T>::parse(o.at, "--at");
  const std::size_t points = static_cast<std::size_t>(per_axis) * per_axis * (o.volume ? per_axis : 1);
  std::vector<T> at(3 * points), phi(points);
  auto node = [&](int d, std::size_t i) { return centre[d] - half + T(2) * half * T(i % per_axis) / T(per_axis - 1); };
  for (std::size_t p = 0; p < points; ++p) {  // the first axis fastest
    if (!o.volume) at[normal * points + p] = third;
    for (std::size_t a = 0, stride = 1; a < axes.size(); ++a, stride *= per_axis) at[axes[a] * points + p] = node(axes[a], p / stride);
  }

  const auto start = std::chrono::steady_clock::now();
  force_engine->potentials(s.y.data(), s.mass.data(), n, at.data(), points, phi.data());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::size_t p = 0; p < points; ++p)
    if (!is_finite(phi[p]))
      throw RunError("the potential is not finite at grid node " + std::to_string(p) +
                     " (a node on a body without softening: give --eps)");

  std::string text = "x,y,z,phi\n";
  for (std::size_t p = 0; p < points; ++p)
    text += RealTraits<T>::format(at[p]) + "," + RealTraits<T>::format(at[points + p]) + "," +
            RealTraits<T>::format(at[2 * points + p]) + "," + RealTraits<T>::format(phi[p]) + "\n";
  const auto [lo, hi] = std::minmax_element(phi.begin(), phi.end());
  const nlohmann::json summary = {{"n", n},
                                  {"points", points},
                                  {"grid", o.volume ? "volume" : o.plane},
                                  {"per_axis", per_axis},
                                  {"engine", engine.name},
                                  {"method", force_engine->potential_method()},
                                  {"seconds", seconds},
                                  {"device_seconds", force_engine->last_device_seconds()},
                                  {"phi_min", static_cast<double>(*lo)},
                                  {"phi_max", static_cast<double>(*hi)},
                                  {"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count()}};
  nlohmann::json parameters = {{"command_line", o.command_line},       {"precision", o.precision},
                               {"initial_condition", to_json(o.ic)},   {"force_law", to_json(o.force)},
                               {"engine", engine.name},                 {"method", force_engine->potential_method()},
                               {"grid", o.volume ? "volume" : o.plane}, {"per_axis", per_axis},
                               {"centre", {RealTraits<T>::format(centre[0]), RealTraits<T>::format(centre[1]), RealTraits<T>::format(centre[2])}},
                               {"extent", RealTraits<T>::format(half)}};
  if (!o.volume) parameters["at"] = RealTraits<T>::format(third);
  outputs.stream(o.out) << text;
  if (!o.summary.empty()) outputs.stream(o.summary) << summary.dump(2) << "\n";
  outputs.commit(parameters);
  std::printf("potential of %zu bodies at %zu nodes (%s), %s: %.3g s\n", n, points, o.volume ? "volume" : o.plane.c_str(),
              force_engine->potential_method().c_str(), seconds);
  return 0;
}

}  // namespace

int potential_command(const PotentialOptions& o) {
  std::vector<InputFile> inputs;
  if (!ic_file(o.ic).empty()) inputs.push_back({"--ic", ic_file(o.ic), ""});
  std::vector<OutputFile> files = {{"--out", o.out, OutputKind::recorded}};
  if (!o.summary.empty()) files.push_back({"--summary", o.summary, OutputKind::plain});
  OutputSet outputs(files, inputs);
  return dispatch_precision(o.precision, [&]<class T>() { return potential_typed<T>(o, outputs); });
}

}  // namespace nbody::cli
